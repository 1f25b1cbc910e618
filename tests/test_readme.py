"""The README's commands and examples are true.

Blocks preceded by ``<!-- check -->`` are run in one temporary folder, in order:
``console`` blocks hold ``$ skilldeck ...`` commands followed by their expected
output (a line ``...`` stands for any number of lines, ``...`` inside a line for
any text); ``python`` blocks must run without error. ``<!-- file: PATH -->``
blocks are written to PATH first. The ``<!-- setup -->`` block must hold the two
set-up commands, consistent with ``.ci/run`` and ``pyproject.toml``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"

_BLOCK = re.compile(
    r"^<!-- (?P<marker>check|setup|file: [^>]+?) -->\n```(?P<lang>[\w-]*)\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class Block:
    marker: str
    lang: str
    body: str


def readme_blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    return [Block(m["marker"], m["lang"], m["body"]) for m in _BLOCK.finditer(text)]


def _expect_matches(expected: list[str], actual: list[str]) -> bool:
    """Match output lines; ``...`` alone matches any run of lines, inside a line any text."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(_expect_matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    pattern = ".*".join(re.escape(part) for part in head.split("..."))
    return re.fullmatch(pattern, actual[0]) is not None and _expect_matches(rest, actual[1:])


def _console_steps(body: str) -> list[tuple[str, list[str]]]:
    steps: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"output before any command in README block:\n{body}"
            steps[-1][1].append(line)
    return steps


def _skilldeck(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(command)
    assert argv[0] == "skilldeck", f"README check blocks may only run skilldeck: {command}"
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "skilldeck", *argv[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_readme_has_checked_examples() -> None:
    blocks = readme_blocks()
    commands = [
        cmd
        for b in blocks
        if b.marker == "check" and b.lang == "console"
        for cmd, _ in _console_steps(b.body)
    ]
    verbs = {shlex.split(c)[1] for c in commands}
    assert {"new", "validate", "lint"} <= verbs
    assert any(b.lang == "python" and b.marker == "check" for b in blocks)


def test_readme_examples_are_true(tmp_path: Path) -> None:
    for block in readme_blocks():
        if block.marker.startswith("file: "):
            target = tmp_path / block.marker[len("file: ") :].strip()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
        elif block.marker == "check" and block.lang == "console":
            for command, expected in _console_steps(block.body):
                result = _skilldeck(command, tmp_path)
                actual = (result.stdout + result.stderr).splitlines()
                assert result.returncode in (0, 1), (command, result.stderr)
                assert _expect_matches(expected, actual), (
                    f"README example `{command}` printed:\n"
                    + "\n".join(actual)
                    + "\n\nexpected:\n"
                    + "\n".join(expected)
                )
        elif block.marker == "check" and block.lang == "python":
            result = subprocess.run(
                [sys.executable, "-c", block.body],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert result.returncode == 0, result.stderr


def test_list_runs_on_the_bundled_skills(tmp_path: Path) -> None:
    """The main job of set-up command 1: with nothing configured, list shows the bundled skills."""
    result = _skilldeck("skilldeck list", tmp_path)
    assert result.returncode == 0, result.stderr
    bundled = REPO / "src" / "skilldeck" / "_bundled"
    for folder in bundled.iterdir():
        if (folder / "SKILL.md").is_file():
            assert folder.name in result.stdout


def test_setup_commands_match_the_project() -> None:
    setup = [b for b in readme_blocks() if b.marker == "setup"]
    assert len(setup) == 1
    lines = [line for line in setup[0].body.splitlines() if line.strip()]
    assert len(lines) == 2, "the set-up is exactly two commands"
    install, tests = lines

    # Command 1: a venv, an editable install with extras that exist, then the main job.
    assert install.startswith("python3 -m venv .venv && ")
    extras = re.search(r"pip install -e '\.\[([\w,-]+)\]'", install)
    assert extras is not None
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = set(project["optional-dependencies"])
    assert set(extras.group(1).split(",")) <= declared
    assert install.endswith(".venv/bin/skilldeck list")
    assert project["scripts"]["skilldeck"] == "skilldeck.cli:entry"

    # Command 2: the CI script, which runs ruff, mypy and pytest with xdist.
    assert tests == "bash .ci/run"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.startswith("#!/usr/bin/env bash")
    assert "set -euo pipefail" in ci
    for needle in ("pip install -q -e '.[dev]'", 'ruff" check', "mypy", "-m pytest -n"):
        assert needle in ci, needle
    dev = " ".join(project["optional-dependencies"]["dev"])
    for tool in ("pytest-xdist", "pytest-timeout", "hypothesis", "skills-ref", "mypy", "ruff"):
        assert tool in dev


def _readme_block(lang: str, starts: str) -> str:
    """The README's ``lang`` block whose text starts with ``starts`` (checked or not)."""
    text = README.read_text(encoding="utf-8")
    found = re.findall(rf"^```{lang}\n({re.escape(starts)}.*?)^```$", text, re.M | re.S)
    assert len(found) == 1, f"README has no single {lang} block starting {starts!r}"
    return str(found[0])


def _host_env() -> dict[str, str]:
    """What a client launched from the user's shell passes on: the install's bin folder
    on PATH, as the set-up section says."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path}


def _csv_skill(root: Path) -> None:
    folder = root / "csv-rows"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: csv-rows\ndescription: Counts the rows of a CSV file. Use when the user "
        "asks how many rows a CSV file has.\n---\nRun `scripts/rows.py FILE`.\n",
        encoding="utf-8",
    )
    (folder / "scripts" / "rows.py").write_text(
        "import sys\nprint(sum(1 for _ in open(sys.argv[1])) - 1)\n", encoding="utf-8"
    )


@pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="needs skilldeck[mcp]")
def test_readme_client_configuration_serves_the_skills_over_stdio(tmp_path: Path) -> None:
    """The ``mcpServers`` entry, as printed (its folder replaced): the MCP SDK's client
    gets the tools, resources and prompt the README names; with ``--allow-exec`` an
    approved script runs on the user's file in the folder the client started in."""
    import anyio
    from mcp import Client, StdioServerParameters

    from skilldeck.mcp import ListSkillsRequest, ListSkillsResult

    entry = json.loads(_readme_block("json", '{\n  "mcpServers"'))["mcpServers"]["skilldeck"]
    assert set(entry) == {"command", "args"}
    env = _host_env()
    assert shutil.which(entry["command"], path=env["PATH"]), "the set-up installs the command"
    root = tmp_path / "skills"
    _csv_skill(root)
    args = [str(root) if a == "/path/to/skills" else a for a in entry["args"]]
    assert str(root) in args, "the configuration names a skills folder to replace"
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.csv").write_text("a,b\n1,2\n3,4\n5,6\n", encoding="utf-8")

    def server(*extra: str) -> StdioServerParameters:
        return StdioServerParameters(
            command=entry["command"], args=[*args, *extra], env=env, cwd=str(project)
        )

    async def served() -> None:
        async with Client(server()) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert tools == {"skills_list", "skills_load", "skills_read_file", "skills_search"}
            assert "skills_catalog" in {p.name for p in (await client.list_prompts()).prompts}
            uris = {r.uri for r in (await client.list_resources()).resources}
            assert "skill://csv-rows/SKILL.md" in uris
            listed = await client.session.send_request(ListSkillsRequest(), ListSkillsResult)
            assert [s.uri for s in listed.skills] == ["skill://csv-rows/SKILL.md"]
        call = {"name": "csv-rows", "script": "rows.py", "args": ["data.csv"]}
        async with Client(server("--allow-exec")) as client:
            refused = (await client.call_tool("skills_run_script", call)).structured_content
            assert refused is not None and refused["error"]["code"] == "APPROVAL_REQUIRED"
            hint = refused["error"]["hint"]
            pasted = shlex.split(hint[hint.index("skilldeck ") :])
            approved = subprocess.run(
                pasted, cwd=tmp_path, env=env, capture_output=True, text=True, check=False
            )
            assert approved.returncode == 0, approved.stderr
            ran = (await client.call_tool("skills_run_script", call)).structured_content
            assert ran is not None and ran["ok"], ran
            assert ran["data"]["output"] == "3\n"

    anyio.run(served)


@pytest.mark.skipif(importlib.util.find_spec("mcp") is None, reason="needs skilldeck[mcp]")
def test_readme_http_command_serves_at_the_url_it_prints(tmp_path: Path) -> None:
    import anyio
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    [(command, expected)] = _console_steps(_readme_block("console", "$ skilldeck serve"))
    # port 0: the server takes a free port and prints it (a port probed free here could
    # be taken by another test before the server binds it)
    argv = ["0" if word == "8000" else word for word in shlex.split(command)]
    assert "0" in argv, "the README's command names its port"
    with subprocess.Popen(
        argv, cwd=tmp_path, env=_host_env(), stderr=subprocess.PIPE, text=True
    ) as served:
        try:
            stderr = served.stderr
            assert stderr is not None
            lines: list[str] = []
            reader = threading.Thread(target=lambda: lines.append(stderr.readline()))
            reader.start()
            reader.join(timeout=120)
            assert lines, "the server printed nothing in 120 s"
            said = lines[0].rstrip("\n")
            url = said.rsplit(" ", 1)[1]
            port = url.rsplit(":", 1)[1].split("/")[0]
            assert port.isdigit() and port != "0", said
            assert [said] == [line.replace("8000", port) for line in expected]

            async def tools() -> set[str]:
                # the socket listens before the URL is printed; on a loaded machine the
                # server may still be starting: ask again until it answers
                with anyio.fail_after(120):
                    while True:
                        try:
                            async with Client(streamable_http_client(url)) as client:
                                return {t.name for t in (await client.list_tools()).tools}
                        except Exception:
                            if served.poll() is not None:
                                raise
                            await anyio.sleep(0.5)

            assert "skills_load" in anyio.run(tools)
        finally:
            served.terminate()


def test_a_test_run_stopped_by_the_time_cap_says_so(tmp_path: Path) -> None:
    """.ci/run caps each pytest run (``CI_TIMEOUT``): on a busy machine the cap ended
    the suite silently, a screen of dots and status 124, like a crash."""
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert ci.count("bash .ci/capped ") == 2, "both pytest runs go through the cap"
    capped = ["bash", str(REPO / ".ci" / "capped"), "the test suite"]

    def run(cap: str, *command: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "CI_TIMEOUT": cap}
        return subprocess.run(
            [*capped, *command], cwd=tmp_path, env=env, capture_output=True, text=True
        )

    stopped = run("1", "sleep", "30")
    assert stopped.returncode == 124
    assert "the test suite did not finish within 1 s" in stopped.stderr
    assert "CI_TIMEOUT=SECONDS" in stopped.stderr
    failed = run("30", sys.executable, "-c", "raise SystemExit(3)")
    assert (failed.returncode, failed.stderr) == (3, "")
    assert run("0", "true").returncode == 0


def test_the_client_configuration_left_as_printed_says_its_folder_is_missing(
    tmp_path: Path,
) -> None:
    """The example folder kept in a client's configuration served nothing, silently:
    a host shows the server's stderr, so the server names the folder there."""
    entry = json.loads(_readme_block("json", '{\n  "mcpServers"'))["mcpServers"]["skilldeck"]
    served = subprocess.run(
        [entry["command"], *entry["args"]],
        cwd=tmp_path,
        env=_host_env(),
        stdin=subprocess.DEVNULL,  # the client went away at once: the server ends
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert served.returncode == 0, served.stderr
    assert "--root /path/to/skills does not exist" in served.stderr
