"""The Python examples of docs/configuration.md, docs/execution.md,
docs/inline-skills.md and docs/distribution.md run as written (in a temporary
folder, a fresh process where they touch the user's config)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _python_blocks(doc: str) -> list[str]:
    text = (DOCS / doc).read_text(encoding="utf-8")
    return [m.group(1) for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


def _dedent_blocks(doc: str) -> list[str]:
    """Python blocks, also those indented inside a list item."""
    text = (DOCS / doc).read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"^( *)```python\n(.*?)^\1```", text, re.S | re.M):
        indent = len(m.group(1))
        out.append("".join(line[indent:] + "\n" for line in m.group(2).splitlines()))
    return out


def _run(code: str, cwd: Path, stdin: str = "", *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, input=stdin, capture_output=True, text=True
    )


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Helps with {name}. Use in tests.\n---\n# {name}\n"
    )


def test_configuration_python_example_runs(tmp_path: Path) -> None:
    [block] = [b for b in _python_blocks("configuration.md") if 'catalog.load("regex-check")' in b]
    _skill(tmp_path / "skills" / "mine", "mine")
    res = _run(block, tmp_path)
    assert res.returncode == 0, res.stderr
    assert "regex-check" in res.stdout


def test_execution_example_skill_and_tool_run(tmp_path: Path) -> None:
    text = (DOCS / "execution.md").read_text(encoding="utf-8")
    skill_md = re.search(
        r"<!-- example: skills/greeting/SKILL.md -->\n````markdown\n(.*?)````", text, re.S
    )
    assert skill_md is not None
    folder = tmp_path / "skills" / "greeting"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md.group(1))
    validated = _run(
        "import skilldeck, sys; r = skilldeck.validate_skill(sys.argv[1]); "
        "print([d.code for d in r.diagnostics if d.is_error])",
        tmp_path,
        "",
        str(folder),
    )
    assert validated.returncode == 0 and validated.stdout.strip() == "[]", validated.stderr
    [block] = [b for b in _python_blocks("execution.md") if "ask_the_user" in b]
    refused = _run(block, tmp_path, stdin="n\n")  # a "no" is the coded refusal
    assert refused.returncode == 1 and "was not approved" in refused.stderr
    assert "Hello, Ada!" not in refused.stdout.split("allow? [y/N] ", 1)[1]
    res = _run(block, tmp_path, stdin="y\n")
    assert res.returncode == 0, res.stderr
    assert re.search(r"greeting wants to run: \S*echo Hello, Ada!", res.stdout), res.stdout
    assert "Hello, Ada!\n" in res.stdout.split("allow? [y/N] ", 1)[1]


@pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="needs skilldeck[mcp]")
def test_inline_skills_examples_run_and_the_server_offers_the_inline_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio
    from mcp import Client

    blocks = _dedent_blocks("inline-skills.md")
    setup = blocks[0].replace("/tmp/agent-home", str(tmp_path / "agent-home"))
    served = next(b for b in blocks if "create_server(runtime=section.runtime()" in b)
    _skill(tmp_path / "skills" / "security", "security")
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    exec(setup, scope)  # the module example as written (paths into tmp_path)
    assert (tmp_path / "agent-home" / ".claude" / "skills" / "naming" / "SKILL.md").is_file()
    exec(served.replace("server.run(", "(lambda *a: None)("), scope)
    server = scope["server"]

    async def check() -> None:
        # a handshake-era session; session-less clients echo the handle (docs/mcp.md)
        async with Client(server, mode="legacy") as client:  # type: ignore[arg-type]
            before = {t.name for t in (await client.list_tools()).tools}
            assert "lint_code" not in before
            await client.call_tool("skills_load", {"name": "linting"})
            after = {t.name for t in (await client.list_tools()).tools}
            assert "lint_code" in after
            result = await client.call_tool("lint_code", {"paths": ["app.py"]})
            assert result.structured_content is not None
            assert '"files": 1' in str(result.structured_content).replace("'", '"')

    anyio.run(check)


def test_distribution_export_into_an_agent_home_runs(tmp_path: Path) -> None:
    """The host recipe of docs/distribution.md: skills exported into a fresh agent home,
    one catalogued by name and one given as a folder, land where that agent reads them."""
    [block] = [b for b in _python_blocks("distribution.md") if "export_skills(\n" in b]
    _skill(tmp_path / ".agents" / "skills" / "pdf-tools", "pdf-tools")
    _skill(tmp_path / "skills" / "security-review", "security-review")
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # the example's mkdtemp home goes here
    res = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert res.returncode == 0, res.stderr
    names, skills_dir = res.stdout.splitlines()[-1].rsplit(" ", 1)
    assert Path(skills_dir).is_relative_to(tmp_path)
    assert names == "('pdf-tools', 'security-review')"
    assert Path(skills_dir).parts[-2:] == (".claude", "skills")
    for name in ("pdf-tools", "security-review"):
        assert (Path(skills_dir) / name / "SKILL.md").is_file()
    assert "SkillsInstalled(" in res.stdout  # the events sink heard of it
