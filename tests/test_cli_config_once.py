"""A command reads the config files once: the project-trust warning's parse is the
command's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# counts the parses of each config file (the real parse runs), then runs the command
# line: through the console script's entry (without click where it may) or through
# click's command group
_PROBE = """
import atexit, sys
from skilldeck.config import _config
parse = _config._parse
seen = []
def counted(path, text):
    seen.append(path.name + ":" + path.parent.name)
    return parse(path, text)
_config._parse = counted
atexit.register(lambda: print("PARSED", *seen, file=sys.stderr))
how = sys.argv[1]
sys.argv = ["skilldeck", *sys.argv[2:]]
if how == "plain":
    from skilldeck.cli import entry
    entry()
else:
    from skilldeck.cli._app import main
    main(prog_name="skilldeck")
"""


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with a project config file (one guarded key: a warning) and a
    skill root beside it."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".skilldeck").mkdir()
    (project / ".skilldeck" / "config.toml").write_text(
        '[execution]\nsandbox = "none"\n', encoding="utf-8"
    )
    skill = tmp_path / "skills" / "hello-skill"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: hello-skill\ndescription: Says hello. Use when testing.\n---\n# Hi\n",
        encoding="utf-8",
    )
    (skill / "scripts" / "hello.py").write_text('print("hello")\n', encoding="utf-8")
    return project, skill.parent


@pytest.mark.parametrize(
    ("how", "extra"),
    [("plain", []), ("click", []), ("plain", ["--sandbox", "auto"])],
    ids=["without-click", "click-group", "options-click-parses"],
)
def test_a_run_parses_the_project_config_file_once(
    tmp_path: Path, how: str, extra: list[str]
) -> None:
    project, root = _project(tmp_path)
    words = ["run", "--root", str(root), "hello-skill", "scripts/hello.py", "--yes", *extra]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, how, *words],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello\n"
    assert "warning:" in done.stderr  # the project file was read for its warning
    parsed = next(x for x in done.stderr.splitlines() if x.startswith("PARSED")).split()[1:]
    assert parsed.count("config.toml:.skilldeck") == 1, parsed


def test_sandbox_status_parses_the_project_config_file_once(tmp_path: Path) -> None:
    project, _root = _project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "click", "sandbox", "status", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=project,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"untrusted_config"' in done.stdout and "warning:" in done.stderr
    parsed = next(x for x in done.stderr.splitlines() if x.startswith("PARSED")).split()[1:]
    assert parsed.count("config.toml:.skilldeck") == 1, parsed
