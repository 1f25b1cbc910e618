"""Approvals mean the same over MCP as on the command line.

A client that cannot ask its user (no elicitation: Claude Code headless, a plain SDK
client) runs what ``skilldeck approve NAME`` granted, and is refused with a hint that
works when pasted. Driven by the official SDK client against real ``skilldeck serve
--allow-exec`` processes over stdio and streamable HTTP.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from skilldeck.cli import main

pytestmark = pytest.mark.anyio

SCRIPT = {"name": "hello", "script": "scripts/hi.py"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _skill(folder: Path) -> Path:
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: hello\ndescription: Says hello from a script\n---\n\nRun scripts/hi.py\n",
        encoding="utf-8",
    )
    (folder / "scripts/hi.py").write_text("print('hi from the script')\n", encoding="utf-8")
    return folder


def _paste(hint: str) -> subprocess.CompletedProcess[str]:
    """Run the ``skilldeck ...`` command a hint names, as a user pasting it would."""
    command = hint[hint.index("skilldeck ") :]
    argv = shlex.split(command)
    assert argv[0] == "skilldeck"
    return subprocess.run(
        [sys.executable, "-m", "skilldeck", *argv[1:]],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=60,
        check=False,
    )


Connect = Callable[[list[str], str], AbstractAsyncContextManager[Client]]


def _over_stdio(h: Any) -> Connect:
    @asynccontextmanager
    async def connect(args: list[str], mode: str) -> AsyncIterator[Client]:
        argv = ["-m", "skilldeck", "serve", "--allow-exec", "--no-watch", *args]
        params = StdioServerParameters(command=sys.executable, args=argv, env=dict(os.environ))
        async with Client(params, mode=mode) as client:
            yield client

    return connect


def _over_http(h: Any) -> Connect:
    @asynccontextmanager
    async def connect(args: list[str], mode: str) -> AsyncIterator[Client]:
        port = h.free_port()
        with h.serve_http([], port, "--allow-exec", "--no-watch", *args):
            async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
                yield client

    return connect


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, h: Any) -> Connect:
    return _over_stdio(h) if request.param == "stdio" else _over_http(h)


async def _refused_then_approved(connect: Connect, args: list[str], mode: str) -> None:
    async with connect(args, mode) as client:
        refused = (await client.call_tool("skills_run_script", SCRIPT)).structured_content
        assert refused["ok"] is False
        error = refused["error"]
        assert error["code"] == "APPROVAL_REQUIRED", error
        assert "skilldeck approve hello" in error["hint"]
        pasted = _paste(error["hint"])
        assert pasted.returncode == 0, pasted.stderr
        # the approval store is read per run: the running server honours it at once
        ran = (await client.call_tool("skills_run_script", SCRIPT)).structured_content
        assert ran["ok"] is True, ran
        assert ran["data"]["output"] == "hi from the script\n"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_an_installed_skill_runs_after_skilldeck_approve(
    tmp_path: Path, connect: Connect, mode: str
) -> None:
    # an installed skill is untrusted: a stored approval stands in when nobody can be
    # asked, as `skilldeck run` without a terminal; the client cannot elicit
    done = CliRunner().invoke(main, ["install", str(_skill(tmp_path / "src" / "hello"))])
    assert done.exit_code == 0, done.output
    await _refused_then_approved(connect, [], mode)
    # and the same approval is what the command line honours
    run = _paste("skilldeck run hello scripts/hi.py")
    assert run.returncode == 0 and run.stdout == "hi from the script\n", run.stderr


async def test_the_hint_names_the_served_roots(tmp_path: Path, connect: Connect) -> None:
    # serve --root DIR --recursive: `skilldeck approve hello` alone would not find the skill
    root = tmp_path / "repo"
    _skill(root / "skills" / "group" / "hello")
    await _refused_then_approved(connect, ["--root", str(root), "--recursive"], "auto")


async def test_a_changed_skill_is_refused_again(tmp_path: Path, connect: Connect) -> None:
    root = tmp_path / "repo"
    folder = _skill(root / "hello")
    assert CliRunner().invoke(main, ["approve", "hello", "--root", str(root)]).exit_code == 0
    (folder / "scripts/hi.py").write_text("print('changed')\n", encoding="utf-8")
    async with connect(["--root", str(root)], "auto") as client:
        refused = (await client.call_tool("skills_run_script", SCRIPT)).structured_content
    assert refused["error"]["code"] == "APPROVAL_REQUIRED"
    assert refused["error"]["reason"] == "changed"
    assert refused["error"]["hint"].endswith(f"skilldeck approve hello --root {root}")
