"""The command line imports only what a command needs, and the command map is complete."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests._skills import frozen_at_start

from skilldeck import __version__
from skilldeck.cli import _lazy, main


def test_the_command_map_names_every_command_and_its_module() -> None:
    import pkgutil

    import skilldeck.cli

    found = {m.name for m in pkgutil.iter_modules(skilldeck.cli.__path__)}
    helpers = {
        "_app",
        "_lazy",
        "_listing",
        "_plain",
        "_running",
        "_showing",
        "_stored",
    }  # no commands of their own
    assert set(_lazy.MODULES) == found - helpers, "add the new module to MODULES"
    _lazy.load_all()
    registered = {
        name: (cmd.callback.__module__ if cmd.callback else "")
        for name, cmd in main.commands.items()
    }
    for name, cmd in main.commands.items():
        if not registered[name] and hasattr(cmd, "commands"):  # a group without a callback
            registered[name] = next(iter(cmd.commands.values())).callback.__module__  # type: ignore[attr-defined,union-attr]
    expected = {name: f"skilldeck.cli.{module}" for name, module in _lazy.COMMANDS.items()}
    assert registered == expected


def _modules_after(args: list[str]) -> tuple[set[str], str]:
    code = (
        "import sys\n"
        "from skilldeck.cli import entry\n"
        f"sys.argv = ['skilldeck', *{args!r}]\n"
        "try:\n"
        "    entry()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return set(out.stderr.split()), out.stdout


def test_version_imports_no_command_line_at_all() -> None:
    modules, stdout = _modules_after(["--version"])
    assert stdout == f"skilldeck, version {__version__}\n"
    assert CliRunner().invoke(main, ["--version"]).output == stdout  # what click prints
    assert "click" not in modules and "skilldeck.catalog" not in modules


def test_a_command_imports_only_its_own_module() -> None:
    modules, _ = _modules_after(["list", "--help"])
    assert "skilldeck.cli._list" in modules
    for other in ("_dist", "_run", "_serve", "_scan", "_author", "_catalog", "_trust"):
        assert f"skilldeck.cli.{other}" not in modules, other


def test_help_and_typos_see_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in _lazy.COMMANDS:
        assert name in result.output
    typo = CliRunner().invoke(main, ["lisst"])
    assert typo.exit_code == 2 and "list" in typo.output


# What a warm `skilldeck list` / `show NAME` must not import: the SKILL.md parser and
# YAML (the cache answers), the installer, executor, scanner and runtime, and the
# writers' libraries (tomlkit, filelock): a listing reads, it never writes config.
_NOT_FOR_A_WARM_LIST = {
    "yaml",
    "tomlkit",
    "filelock",
    "difflib",
    "skilldeck.format",
    "skilldeck.dist",
    "skilldeck.execution",
    "skilldeck.security",
    "skilldeck.tools",
    "skilldeck.events._events",
    "skilldeck.search._bm25",
    "skilldeck.disclosure._disclosure",
    "skilldeck.adapters._compact",
    "skilldeck.catalog._why",
    "skilldeck.cli._dist",
    "skilldeck.cli._run",
}


def _catalog_with_a_config(tmp_path: Path) -> Path:
    """A root of two skills named by the user's config file (read on every listing)."""
    root = tmp_path / "skills"
    for name in ("alpha-skill", "beta-skill"):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Does {name} things. Use when testing.\n---\n# Hi\n",
            encoding="utf-8",
        )
    config = Path(os.environ["SKILLDECK_HOME"]) / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[catalog]\nroots = ["{root}"]\npinned = ["alpha-skill"]\n', encoding="utf-8"
    )
    time.sleep(1.1)  # files changed within a second of a scan are not cached
    return root


def test_a_warm_list_imports_neither_the_parser_nor_the_installer(tmp_path: Path) -> None:
    _catalog_with_a_config(tmp_path)
    cold, _ = _modules_after(["list"])  # parses every SKILL.md and fills the cache
    assert "skilldeck.format" in cold  # the test can fail: a cold listing does parse
    for args in (["list"], ["list", "--format", "json"], ["list", "--all"]):
        modules, out = _modules_after(args)
        assert "alpha-skill" in out and "beta-skill" in out
        assert modules & _NOT_FOR_A_WARM_LIST == set(), args


def test_show_by_name_imports_the_parser_but_not_the_installer(tmp_path: Path) -> None:
    _catalog_with_a_config(tmp_path)
    _modules_after(["list"])
    modules, out = _modules_after(["show", "beta-skill"])
    assert "Does beta-skill things" in out
    assert "skilldeck.format" in modules  # show validates the skill
    assert modules & (_NOT_FOR_A_WARM_LIST - {"skilldeck.format"}) == set()


def test_load_and_prompt_import_neither_lint_nor_the_installer(tmp_path: Path) -> None:
    _catalog_with_a_config(tmp_path)
    _modules_after(["list"])
    unneeded = (_NOT_FOR_A_WARM_LIST - {"skilldeck.format", "skilldeck.disclosure._disclosure"}) | {
        "skilldeck.format._lint",
        "skilldeck.format._validate",
        "skilldeck.format._scaffold",
    }
    for args in (["load", "alpha-skill"], ["prompt"], ["read", "alpha-skill", "SKILL.md"]):
        modules, out = _modules_after(args)
        assert "alpha-skill" in out or "# Hi" in out, args
        assert modules & unneeded == set(), args


# What a warm listing of the bundled skills (no config file at all, the state folders
# named by SKILLDECK_HOME) must not import: each is start-up time for something that
# only a config file, a terminal, a store, an installer or a writer needs.
_NOT_AT_START = {
    "tomllib",  # parsing a config file: there is none
    "platformdirs",  # the state folders come from SKILLDECK_HOME
    "json",  # text output
    "base64",
    "secrets",
    "hmac",
    "shlex",  # quoting in a hint
    "tempfile",
    "skilldeck.config._trust",  # the project's trust: there is no project config file
    "skilldeck.cli._store",  # the store's own commands
    "hashlib",  # content digests; the metadata cache names its files with zlib
    "skilldeck.catalog._pool",  # parsing in worker processes: nothing is parsed
}

# A warm listing walks no skill folder and reads no file of one: the cache and one
# ``lstat`` per skill answer, so neither the walker nor the contained reader is loaded.
_NO_WALK = {"skilldeck._tree._walk", "skilldeck._tree._reader", "mimetypes"}


def test_a_warm_list_without_config_imports_only_what_it_uses() -> None:
    _modules_after(["list"])  # fills the metadata cache
    modules, out = _modules_after(["list"])
    assert "skill-authoring" in out  # a bundled skill
    assert modules & _NOT_AT_START == set()
    assert modules & _NO_WALK == set()
    assert "skilldeck.config._config" in modules  # the test can fail: the config is read
    modules, out = _modules_after(["show", "skill-authoring"])
    assert "skill-authoring" in out
    # the YAML fast path only; shlex splits the commands of the two tools the skill
    # declares, which show lists
    assert "skill_validate(path, strict?)" in out
    assert modules & (_NOT_AT_START - {"shlex"} | {"yaml"}) == set()


def test_a_warm_list_with_installed_skills_imports_no_installer(tmp_path: Path) -> None:
    folder = tmp_path / "hello-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: hello-skill\ndescription: Says hello. Use when testing.\n---\n# Hi\n",
        encoding="utf-8",
    )
    _modules_after(["install", str(folder), "--yes"])
    time.sleep(1.1)  # files changed within a second of a scan are not cached
    _modules_after(["list"])
    modules, out = _modules_after(["list"])
    assert "hello-skill" in out and "installed (user)" in out  # read from the lockfile
    assert "skilldeck.dist._installed" in modules  # the test can fail: the lockfile is read
    installer = {
        "skilldeck.dist._install",
        "skilldeck.dist._manage",
        "skilldeck.dist._git",
        "skilldeck.dist._archive",
        "skilldeck.security",
        "skilldeck.execution",
        "skilldeck.events._events",
        "skilldeck.format",
        "tomlkit",
    }
    assert modules & installer == set()


def test_the_console_script_and_python_m_skilldeck_behave_the_same() -> None:
    script = Path(sys.executable).with_name("skilldeck")
    if not script.is_file():
        pytest.skip("no skilldeck console script beside this Python (not installed)")
    for args in (["--version"], ["list"], ["lisst"]):
        script_run, module_run = (
            subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
            for cmd in ([str(script), *args], [sys.executable, "-m", "skilldeck", *args])
        )
        assert script_run.stdout + script_run.stderr, args  # the test can fail: it ran
        assert script_run.stdout == module_run.stdout, args
        assert script_run.stderr == module_run.stderr, args
        assert script_run.returncode == module_run.returncode, args


# What `skilldeck run` of a script that declares no packages must not import: the
# TOML parser (only a `# /// script` block needs it), the installer, and the command
# modules of other commands.
_NOT_FOR_A_PLAIN_RUN = {
    "tomllib",
    "skilldeck.dist",
    "skilldeck.security",
    "skilldeck.cli._dist",
    "skilldeck.cli._catalog",
    "skilldeck.cli._author",
    "skilldeck.cli._store",
}


def _hello_skill(tmp_path: Path) -> Path:
    skill = tmp_path / "skills" / "hello-skill"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: hello-skill\ndescription: Says hello. Use when testing.\n---\n# Hi\n",
        encoding="utf-8",
    )
    (skill / "scripts" / "hello.py").write_text('print("hello")\n', encoding="utf-8")
    (skill / "scripts" / "meta.py").write_text(
        '# /// script\n# dependencies = []\n# ///\nprint("meta")\n', encoding="utf-8"
    )
    return skill.parent


def test_a_run_of_a_plain_script_imports_no_toml_parser(tmp_path: Path) -> None:
    run = ["run", "--root", str(_hello_skill(tmp_path)), "hello-skill", "--sandbox", "none"]
    modules, out = _modules_after([*run, "--yes", "scripts/hello.py"])
    assert out == "hello\n"
    assert "skilldeck.execution._executor" in modules  # the test can fail: it ran
    assert modules & _NOT_FOR_A_PLAIN_RUN == set()
    modules, out = _modules_after([*run, "--yes", "scripts/meta.py"])
    assert out == "meta\n" and "tomllib" in modules  # the block is read


def test_a_run_without_a_parser_imports_no_typing(tmp_path: Path) -> None:
    # typing costs every run's start-up: a run's modules name protocols and aliases
    # for type checkers only (the packages' _types modules hold them); no config file
    # (reading one imports tomllib, which imports typing); the catalog's cache is
    # warm and the skill approved, as for every run after the first (files younger than
    # a second are parsed again, as racy)
    run = ["run", "--root", str(_hello_skill(tmp_path)), "hello-skill", "scripts/hello.py"]
    time.sleep(1.1)
    assert _modules_after([*run, "--yes"])[1] == "hello\n"
    modules, out = _modules_after([*run, "--yes"])
    assert out == "hello\n"
    assert "skilldeck.execution._executor" in modules and "click" not in modules
    assert "typing" not in modules
    modules, out = _modules_after([*run, "--yes", "--json"])  # the result's envelope
    assert json.loads(out)["data"]["output"] == "hello\n" and "typing" not in modules


def test_a_failed_run_answers_without_click(tmp_path: Path) -> None:
    # the error boundary of a run without a parser prints what click's group prints
    root = str(_hello_skill(tmp_path))
    modules, out = _modules_after(["run", "--root", root, "nosuch", "x.py", "--json"])
    assert json.loads(out)["error"]["code"] == "SKILL_NOT_FOUND"
    assert "skilldeck.execution" in modules and "click" not in modules
    words = ["run", "--root", root, "hello-skill", "scripts/nosuch.py", "--json"]
    modules, out = _modules_after(words)
    assert json.loads(out)["error"]["code"] == "FILE_NOT_FOUND" and "click" not in modules
    plain = subprocess.run(
        [sys.executable, "-m", "skilldeck", *words[:-1]], capture_output=True, text=True
    )
    clicked = CliRunner().invoke(main, words[:-1])
    assert plain.returncode == clicked.exit_code == 1
    assert plain.stderr == clicked.stderr and plain.stderr.startswith("error: skill ")


_GC_PROBE = """
import atexit, gc, sys
import skilldeck.cli._listing as listing
atexit.register(lambda: print("EXIT", gc.get_freeze_count(), gc.isenabled(), file=sys.stderr))
list_skills = listing.list_skills
def probe(*args, **kwargs):
    print("COMMAND", gc.get_freeze_count(), gc.isenabled(), file=sys.stderr)
    return list_skills(*args, **kwargs)
listing.list_skills = probe
from skilldeck.cli import entry
sys.argv = ["skilldeck", *sys.argv[1:]]
entry()
"""


@pytest.mark.parametrize("args", [["list"], ["list", "--all"]])  # without click, and with it
def test_the_collector_waits_for_start_up_and_exit_skips_what_is_left(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _GC_PROBE, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "skill-authoring" in done.stdout
    lines = {x.split()[0]: x.split()[1:] for x in done.stderr.splitlines() if x[:1].isupper()}
    # the command runs with the collector on and nothing frozen (a big listing's
    # pause can still promote what it built: skilldeck._gc)
    assert lines["COMMAND"] == [str(frozen_at_start()), "True"]
    frozen, enabled = lines["EXIT"]
    assert int(frozen) > 10_000 and enabled == "True"  # what is left is frozen at exit


def test_a_bare_list_runs_without_click_and_prints_what_click_prints(tmp_path: Path) -> None:
    root = _catalog_with_a_config(tmp_path)
    _modules_after(["list"])  # fills the cache
    for args in (["list"], ["list", "--json"]):
        modules, out = _modules_after(args)
        assert "click" not in modules, args
        assert "alpha-skill" in out
        assert out == CliRunner().invoke(main, args).stdout, args  # through click's parser
    modules, _ = _modules_after(["list", "--all"])  # any other word: click parses it
    assert "click" in modules
    (root / "gamma-skill").mkdir()
    (root / "gamma-skill" / "SKILL.md").write_text(  # click strips escapes off a pipe
        '---\nname: gamma-skill\ndescription: "Does \\e[31mred\\e[0m things. Use when testing."'
        "\n---\n# Hi\n",  # YAML's \e is an escape character
        encoding="utf-8",
    )
    for args in (["list"], ["list", "--json"]):
        _, out = _modules_after(args)
        assert "gamma-skill" in out and "\x1b" not in out
        assert out == CliRunner().invoke(main, args).stdout, args
    assert "Does red things" in out.replace("\\u001b[31m", "").replace("\\u001b[0m", "")


def test_a_bare_list_fails_as_the_command_group_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".skilldeck").mkdir()
    (project / ".skilldeck" / "config.toml").write_text("[catalog\n", encoding="utf-8")
    monkeypatch.chdir(project)
    for args in (["list"], ["list", "--json"]):
        plain = subprocess.run(
            [sys.executable, "-m", "skilldeck", *args], capture_output=True, text=True, timeout=60
        )
        clicked = CliRunner().invoke(main, args)
        assert plain.returncode == clicked.exit_code == 1, args
        assert "CONFIG_INVALID" in plain.stdout + plain.stderr  # the test can fail
        assert (plain.stdout, plain.stderr) == (clicked.stdout, clicked.stderr), args


def test_a_store_named_by_the_environment_takes_the_command_line_path() -> None:
    env = {**os.environ, "SKILLDECK_STORE": "postgresql://nowhere.invalid/x"}
    code = (
        "import sys\n"
        "from skilldeck.cli import _plain\n"
        "print(_plain.run(['list']), 'click' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert out.stdout.split() == ["False", "False"]  # nothing done: click parses --store


@pytest.mark.parametrize("fast_after", [0, 2, 1000])
def test_json_rows_are_the_one_envelope_whichever_encoder_writes_them(
    fast_after: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from skilldeck.cli import _plain

    monkeypatch.setattr(_plain, "_FAST_AFTER", fast_after)  # json first, msgspec after
    rows = [
        {"name": "a", "description": 'tab\there \u2028 “q” \\ / "x" \x1b[0m é', "n": 1.5},
        {"name": "b", "tags": ["x", "y"], "none": None, "ok": True, "nested": {"k": [1, {}]}},
        {"name": "c", "empty": [], "big": 10**20, "neg": -0.25},
    ]
    _plain.echo_json_rows({"root": "/r"}, "skills", iter(rows))
    expected = {"ok": True, "data": {"root": "/r", "skills": rows}}
    assert capsys.readouterr().out == json.dumps(expected, ensure_ascii=False, indent=2) + "\n"


# The command line as click runs it (the reference ``_plain`` must match byte for byte).
_THROUGH_CLICK = (
    "import sys\n"
    "from skilldeck.cli._app import main\n"
    "sys.argv = ['skilldeck', *sys.argv[1:]]\n"
    "main(prog_name='skilldeck')\n"
)


def _both_ways(args: list[str]) -> tuple[subprocess.CompletedProcess[str], ...]:
    """``args`` run by the console script's entry (``_plain`` where it may) and by click."""
    return tuple(
        subprocess.run(
            [sys.executable, *how, *args], capture_output=True, text=True, timeout=60, check=False
        )
        for how in (["-m", "skilldeck"], ["-c", _THROUGH_CLICK])
    )


def test_show_name_runs_without_click_and_answers_as_click_does(tmp_path: Path) -> None:
    root = _catalog_with_a_config(tmp_path)
    (root / "broken-skill").mkdir()  # invalid: exit status 1 and its diagnostics
    (root / "broken-skill" / "SKILL.md").write_text(
        "---\nname: Broken_Skill\ndescription: \x1b[31mred\x1b[0m\n---\n", encoding="utf-8"
    )
    (root / "gamma-skill" / "scripts").mkdir(parents=True)
    (root / "gamma-skill" / "scripts" / "go.py").write_text("print(1)\n", encoding="utf-8")
    (root / "gamma-skill" / "SKILL.md").write_text(  # click strips escapes off a pipe
        '---\nname: gamma-skill\ndescription: "Does \\e[31mred\\e[0m things. Use when testing."'
        "\nlicense: MIT\nmetadata:\n  team: x\n---\n# Hi\n",
        encoding="utf-8",
    )
    _modules_after(["list"])  # fills the cache
    for args in (["show", "beta-skill"], ["show", "gamma-skill", "--json"]):
        modules, out = _modules_after(args)
        assert "click" not in modules, args
        assert "skill" in out  # the test can fail: it printed the skill
    cases = {
        ("show", "beta-skill"): 0,
        ("show", "beta-skill", "--json"): 0,
        ("show", "gamma-skill"): 0,
        ("show", "gamma-skill", "--json"): 0,
        ("show", str(root / "alpha-skill" / "SKILL.md")): 0,  # a path
        ("show", "broken-skill"): 1,  # invalid
        ("show", "broken-skill", "--json"): 1,
        ("show", "no-such-skill"): 1,  # not in the catalog
        ("show", "no-such-skill", "--json"): 1,
        ("show", "no/such/path"): 2,  # a usage problem: click's usage line and hint
        ("show", "no/such/path", "--json"): 2,
        ("show", str(root)): 2,  # a folder of several skills
        ("show", str(root), "--json"): 2,
        ("show", "--json", "beta-skill"): 0,  # another order: click parses it
    }
    for args, status in cases.items():
        plain, clicked = _both_ways(list(args))
        assert plain.returncode == status, (args, plain.stderr)
        assert (plain.stdout, plain.stderr, plain.returncode) == (
            clicked.stdout,
            clicked.stderr,
            clicked.returncode,
        ), args
    plain, _ = _both_ways(["show", "gamma-skill"])
    assert "scripts/go.py" in plain.stdout and "\x1b" not in plain.stdout
    assert "metadata.team: x" in plain.stdout.replace("  ", " ").replace("  ", " ")
    plain, _ = _both_ways(["show", "no/such/path"])
    assert plain.stderr.startswith("Usage: skilldeck show [OPTIONS] NAME|PATH\n")


def test_show_name_warns_and_fails_as_the_command_group_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".skilldeck").mkdir()
    config = project / ".skilldeck" / "config.toml"
    config.write_text('[execution]\nsandbox = "none"\n', encoding="utf-8")  # ignored: untrusted
    monkeypatch.chdir(project)
    plain, clicked = _both_ways(["show", "skill-authoring"])
    assert plain.returncode == 0 and "warning:" in plain.stderr  # the test can fail
    assert (plain.stdout, plain.stderr) == (clicked.stdout, clicked.stderr)
    config.write_text("[catalog\n", encoding="utf-8")  # a broken project config file
    for args in (["show", "skill-authoring"], ["show", "skill-authoring", "--json"]):
        plain, clicked = _both_ways(args)
        assert plain.returncode == clicked.returncode == 1, args
        assert "CONFIG_INVALID" in plain.stdout + plain.stderr  # the test can fail
        assert (plain.stdout, plain.stderr) == (clicked.stdout, clicked.stderr), args


def test_show_name_on_a_terminal_is_coloured_as_click_colours_it(tmp_path: Path) -> None:
    import pty

    folder = tmp_path / "lint-me"
    folder.mkdir()
    (folder / "SKILL.md").write_text(  # a warning: its diagnostic line is styled too
        "---\nname: lint-me\ndescription: short\nfoo: bar\n---\n# Hi\n", encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    outputs = []
    for how in (["-m", "skilldeck"], ["-c", _THROUGH_CLICK]):
        leader, follower = pty.openpty()
        with subprocess.Popen(
            [sys.executable, *how, "show", str(folder)],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=env,
        ) as proc:
            os.close(follower)
            chunks = []
            while True:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the terminal closed: the command is done
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            proc.wait(timeout=60)
        os.close(leader)
        outputs.append(b"".join(chunks))
    assert b"\x1b[1m" in outputs[0] and b"lint-me" in outputs[0]  # the test can fail
    assert outputs[0] == outputs[1]


# counts the parses of each config file (the real parse runs), then runs the command
# line: through the console script's entry (without click where it may) or through
# click's command group
_CONFIG_PROBE = """
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


def _project_with_config(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with a project config file (one guarded key: a warning) and a
    skill root beside it."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".skilldeck").mkdir()
    (project / ".skilldeck" / "config.toml").write_text(
        '[execution]\nsandbox = "none"\n', encoding="utf-8"
    )
    return project, _hello_skill(tmp_path)


@pytest.mark.parametrize(
    ("how", "extra"),
    [("plain", []), ("click", []), ("plain", ["--sandbox", "auto"])],
    ids=["without-click", "click-group", "options-click-parses"],
)
def test_a_run_parses_the_project_config_file_once(
    tmp_path: Path, how: str, extra: list[str]
) -> None:
    project, root = _project_with_config(tmp_path)
    words = ["run", "--root", str(root), "hello-skill", "scripts/hello.py", "--yes", *extra]
    done = subprocess.run(
        [sys.executable, "-c", _CONFIG_PROBE, how, *words],
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
    project, _root = _project_with_config(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _CONFIG_PROBE, "click", "sandbox", "status", "--json"],
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


_DEFECT_PROBE = """
import sys, skilldeck.cli._listing as listing
def defect(*args, **kwargs):
    raise EOFError("cut \\x1b[2J short")
listing.list_skills = defect
from skilldeck.cli import entry
sys.argv = ["skilldeck", *sys.argv[1:]]
entry()
"""


@pytest.mark.parametrize("args", [["list"], ["list", "--all"]])  # without click, and with it
def test_a_defect_is_an_internal_error_not_a_traceback(args: list[str]) -> None:
    def cli(*extra: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", _DEFECT_PROBE, *args, *extra],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **env},
        )

    text = cli()
    assert text.returncode == 1 and "Traceback" not in text.stderr
    assert text.stderr.startswith("error: skilldeck failed unexpectedly (EOFError: cut ")
    assert "\\x1b[2J" in text.stderr and "\x1b" not in text.stderr  # shown escaped
    assert "[INTERNAL]" in text.stderr and "SKILLDECK_DEBUG=1" in text.stderr
    as_json = cli("--json")
    error = json.loads(as_json.stdout)["error"]
    assert as_json.returncode == 1 and error["code"] == "INTERNAL"
    debug = cli(SKILLDECK_DEBUG="1")
    assert "Traceback" in debug.stderr and "EOFError" in debug.stderr
