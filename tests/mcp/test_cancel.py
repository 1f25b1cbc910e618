"""A run ends with the request that started it.

A client that cancels a ``tools/call`` (``notifications/cancelled``), and a host
that stops its server (SIGTERM, Ctrl-C), must not leave the script's process tree
running or its run folders behind. Driven by the official SDK client over stdio and
streamable HTTP, and by a raw peer for the signals, against real ``skilldeck serve
--allow-exec`` processes running a script that starts a child of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from skilldeck.cli import main

pytestmark = pytest.mark.anyio

SLOW = """\
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", sys.argv[1]])
print("started", flush=True)
time.sleep(60)
"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A skill whose script starts a child and sleeps, approved for these roots."""
    folder = tmp_path / "skills" / "slow"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: slow\ndescription: Sleeps with a child\n---\n\nRun scripts/slow.py\n",
        encoding="utf-8",
    )
    (folder / "scripts/slow.py").write_text(SLOW, encoding="utf-8")
    approved = CliRunner().invoke(main, ["approve", "slow", "--root", str(folder.parent)])
    assert approved.exit_code == 0, approved.output
    return folder.parent


def _processes(marker: str) -> dict[int, list[str]]:
    """pid -> argv of every process whose command line carries ``marker``."""
    found: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if marker in argv:
            found[int(entry.name)] = argv
    return found


def _run_folders(procs: dict[int, list[str]]) -> set[Path]:
    """The run's own folders: the copy of the skill its script runs from, and the
    temporary working folder when the run has one."""
    folders: set[Path] = set()
    for pid, argv in procs.items():
        for arg in argv:
            if arg.endswith("/scripts/slow.py"):
                folders.add(Path(arg).parent.parent)
        try:
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            continue
        if "skilldeck-run-" in str(cwd):
            folders.add(cwd.parent)
    return folders


def _started(marker: str) -> tuple[dict[int, list[str]], set[Path]]:
    """The script and its child once both run (their processes and run folders)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        procs = _processes(marker)
        if len(procs) >= 2 and any("-c" in argv for argv in procs.values()):
            folders = _run_folders(procs)
            assert folders and all(f.is_dir() for f in folders), folders
            return procs, folders
        time.sleep(0.05)
    raise AssertionError("the script did not start")


def _gone(marker: str, folders: set[Path], within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _processes(marker) and not any(f.exists() for f in folders):
            return
        time.sleep(0.05)
    left = _processes(marker)
    raise AssertionError(f"left behind: {left} {[f for f in folders if f.exists()]}")


Connect = Callable[[Path, str], AbstractAsyncContextManager[Client]]


@pytest.fixture(params=["stdio", "http"])
def connect(request: pytest.FixtureRequest, h: Any, tmp_path: Path) -> Connect:
    @asynccontextmanager
    async def over_stdio(root: Path, mode: str) -> AsyncIterator[Client]:
        argv = ["-m", "skilldeck", "serve", "--allow-exec", "--no-watch", "--root", str(root)]
        params = StdioServerParameters(
            command=sys.executable, args=argv, env=dict(os.environ), cwd=tmp_path
        )
        async with Client(params, mode=mode) as client:
            yield client

    @asynccontextmanager
    async def over_http(root: Path, mode: str) -> AsyncIterator[Client]:
        port = h.free_port()
        with h.serve_http([root], port, "--allow-exec", "--no-watch"):
            async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
                yield client

    return over_stdio if request.param == "stdio" else over_http


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_cancelled_call_ends_its_run(root: Path, connect: Connect, mode: str) -> None:
    marker = f"skilldeck-test-{uuid.uuid4().hex}"
    call = {"name": "slow", "script": "scripts/slow.py", "args": [marker]}
    async with connect(root, mode) as client:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(client.call_tool, "skills_run_script", call)
            _, folders = await anyio.to_thread.run_sync(_started, marker)
            tasks.cancel_scope.cancel()
        # the script ran 60 s and the run's timeout is 30 s: only the cancellation ends it
        await anyio.to_thread.run_sync(_gone, marker, folders)
        # the client's session goes on
        listed = await client.call_tool("skills_list", {})
        assert listed.structured_content is not None
        assert listed.structured_content["ok"] is True


def _send(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)], ids=["TERM", "INT"]
)
@pytest.mark.parametrize("busy", [True, False], ids=["running", "idle"])
def test_a_signal_stops_the_server_and_its_runs(
    root: Path, tmp_path: Path, signum: int, status: int, busy: bool
) -> None:
    marker = f"skilldeck-test-{uuid.uuid4().hex}"
    argv = ["serve", "--allow-exec", "--no-watch", "--root", str(root)]
    with subprocess.Popen(
        [sys.executable, "-m", "skilldeck", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    ) as proc:
        returncode, stderr, folders = _signalled(proc, marker, signum, busy=busy)
    assert returncode == status, stderr
    assert "Traceback" not in stderr
    _gone(marker, folders, within=2.0)


def test_input_that_ends_after_a_cancel_ends_the_server_at_once(root: Path, tmp_path: Path) -> None:
    # the server answered what was asked before it exited, and waited for the reply
    # to the cancelled call, which never comes (the SDK answers no cancelled request):
    # 30 s, with the run ended long before
    marker = f"skilldeck-test-{uuid.uuid4().hex}"
    argv = ["serve", "--allow-exec", "--no-watch", "--root", str(root)]
    with subprocess.Popen(
        [sys.executable, "-m", "skilldeck", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        try:
            hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
            hello["clientInfo"] = {"name": "raw", "version": "0"}
            _send(proc, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
            assert json.loads(proc.stdout.readline())["id"] == 0
            _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            call = {"name": "slow", "script": "scripts/slow.py", "args": [marker]}
            params = {"name": "skills_run_script", "arguments": call}
            _send(proc, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
            _, folders = _started(marker)
            cancel = {"requestId": 1, "reason": "the user gave up"}
            _send(proc, {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
            _gone(marker, folders)
            started = time.monotonic()
            proc.stdin.close()
            returncode = proc.wait(timeout=60)
            took = time.monotonic() - started
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert returncode == 0
    assert took < 10


def test_sigterm_stops_an_http_server_and_its_runs_with_status_0(
    root: Path, h: Any, tmp_path: Path
) -> None:
    """A supervisor's stop (SIGTERM) ends ``serve --transport http`` as it ends the stdio
    server: the running script's tree and folders gone, exit status 0 (it was 143)."""
    marker = f"skilldeck-test-{uuid.uuid4().hex}"
    port = h.free_port()
    call_args = {"name": "slow", "script": "scripts/slow.py", "args": [marker]}

    async def call(client: Client) -> None:
        with contextlib.suppress(Exception):  # the server goes away mid-call
            await client.call_tool("skills_run_script", call_args)

    async def run_until_stopped(proc: subprocess.Popen[bytes]) -> set[Path]:
        async with (
            Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client,
            anyio.create_task_group() as tasks,
        ):
            tasks.start_soon(call, client)
            _, folders = await anyio.to_thread.run_sync(_started, marker)
            proc.send_signal(signal.SIGTERM)
            await anyio.to_thread.run_sync(lambda: proc.wait(timeout=15))
        return folders

    with h.serve_http([root], port, "--allow-exec", "--no-watch") as proc:
        folders = anyio.run(run_until_stopped, proc)
        assert proc.wait(timeout=15) == 0
    _gone(marker, folders, within=2.0)


def _signalled(
    proc: subprocess.Popen[bytes], marker: str, signum: int, *, busy: bool
) -> tuple[int, str, set[Path]]:
    """Initialise, start the slow script when ``busy``, send ``signum``; the exit
    status, stderr and the run's folders."""
    try:
        _send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            },
        )
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["id"] == 0
        _send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        folders: set[Path] = set()
        if busy:
            call = {"name": "slow", "script": "scripts/slow.py", "args": [marker]}
            _send(
                proc,
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "skills_run_script", "arguments": call},
                },
            )
            _, folders = _started(marker)
        proc.send_signal(signum)
        # stdin stays open: the server stops on the signal, not on the end of input
        returncode = proc.wait(timeout=15)
        stderr = proc.stderr.read().decode() if proc.stderr is not None else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return returncode, stderr, folders


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_long_call_reports_its_progress(
    root: Path, connect: Connect, mode: str, tmp_path: Path
) -> None:
    """A client that asked for progress hears from a run still going, once a second,
    so that one which ends a silent request after a while keeps waiting."""
    script = root / "slow" / "scripts" / "pause.py"
    script.write_text("import time\ntime.sleep(2.6)\nprint('done')\n", encoding="utf-8")
    approved = CliRunner().invoke(main, ["approve", "slow", "--root", str(root)])
    assert approved.exit_code == 0, approved.output
    heard: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        heard.append((done, total, message))

    call = {"name": "slow", "script": "scripts/pause.py"}
    async with connect(root, mode) as client:
        result = await client.call_tool("skills_run_script", call, progress_callback=progress)
        quick = await client.call_tool("skills_list", {}, progress_callback=progress)
    assert result.structured_content is not None, result
    assert result.structured_content["ok"] is True, result.structured_content
    assert "done" in json.dumps(result.structured_content)
    assert quick.structured_content is not None and quick.structured_content["ok"] is True
    assert len(heard) >= 2, heard
    seconds = [done for done, _, _ in heard]
    assert seconds == sorted(seconds) and len(set(seconds)) == len(seconds), heard
    assert 0.9 <= seconds[0] <= 2.0, heard
    assert all(total is None for _, total, _ in heard), heard
    assert all(m is not None and m.startswith("skills_run_script: running for") for *_, m in heard)


HOST = """\
import sys
import skilldeck
from skilldeck.mcp import create_server, run_stdio


class Audited(skilldeck.Executor):
    def run_script(self, *args, **kw):
        with open(sys.argv[2], "a") as log:
            print("host executor runs", args[1], file=log)
        return super().run_script(*args, **kw)


run_stdio(create_server(roots=[sys.argv[1]], allow_exec=True, executor=Audited()))
"""


async def test_a_cancelled_call_ends_the_run_of_a_host_given_executor(
    root: Path, tmp_path: Path
) -> None:
    """A host that serves with an executor of its own (a subclass that logs each
    run) gets the same stop: the cancellation reaches any ``Executor``."""
    host = tmp_path / "host.py"
    host.write_text(HOST, encoding="utf-8")
    marker = f"skilldeck-test-{uuid.uuid4().hex}"
    log = tmp_path / "host.log"
    call = {"name": "slow", "script": "scripts/slow.py", "args": [marker]}
    argv = [str(host), str(root), str(log)]
    params = StdioServerParameters(
        command=sys.executable, args=argv, env=dict(os.environ), cwd=tmp_path
    )
    async with Client(params) as client:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(client.call_tool, "skills_run_script", call)
            _, folders = await anyio.to_thread.run_sync(_started, marker)
            tasks.cancel_scope.cancel()
        # the script sleeps 60 s, its timeout is 30 s: only the cancellation ends it
        await anyio.to_thread.run_sync(_gone, marker, folders)
    assert "host executor runs scripts/slow.py" in log.read_text()
