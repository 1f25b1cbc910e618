"""A file changed on disk: clients are notified and get the new bytes with the new digest."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import ResourceListChangedNotification

from skilldeck.mcp import create_server

pytestmark = pytest.mark.anyio

GUIDE = "skill://alpha/references/guide.md"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _digest_of(entry: Any, uri: str) -> str:
    return next(r.digest for r in entry.resources if r.uri == uri)


async def test_refresh_reports_what_changed(tree: dict[str, Path], h: Any) -> None:
    server = create_server(roots=[tree["high"]])
    assert await server.refresh() == set()
    (tree["high"] / "alpha/references/guide.md").write_text("changed\n")
    assert await server.refresh() == {GUIDE}
    h.write_skill(tree["high"], "gamma", "A new skill")
    changed = await server.refresh()
    assert "skill://gamma/SKILL.md" in changed


async def test_watch_notifies_2026_listeners_and_serves_new_digest(
    tree: dict[str, Path], h: Any
) -> None:
    server = create_server(roots=[tree["high"]], watch=True)
    async with Client(server) as client:
        before = (await h.get_skill(client, "skill://alpha/SKILL.md")).skill
        async with client.listen(
            resources_list_changed=True, resource_subscriptions=[GUIDE]
        ) as sub:
            (tree["high"] / "alpha/references/guide.md").write_text("new guide text\n")
            seen: set[str] = set()
            with anyio.fail_after(15):
                async for event in sub:
                    seen.add(type(event).__name__)
                    if {"ResourcesListChanged", "ResourceUpdated"} <= seen:
                        break
        after = (await h.get_skill(client, "skill://alpha/SKILL.md")).skill
        assert _digest_of(after, GUIDE) != _digest_of(before, GUIDE)
        data, _, _ = await h.read_bytes(client, GUIDE)
        assert data == b"new guide text\n"
        assert h.sha(data) == _digest_of(after, GUIDE)
        await h.verify_entry(client, after)


async def test_a_change_to_a_name_that_is_not_utf8_does_not_stop_the_server(
    tree: dict[str, Path], h: Any
) -> None:
    # watchfiles raises "Unable to decode path" for such a name: that ended the whole
    # server; it now polls the roots instead
    odd = tree["high"] / "alpha" / os.fsdecode(b"r\xe9sum\xe9.txt")
    try:
        odd.write_text("x")
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    server = create_server(roots=[tree["high"]], watch=True)
    async with Client(server) as client:
        await anyio.sleep(0.5)  # the watcher is running
        odd.write_text("changed")
        await anyio.sleep(1)
        h.write_skill(tree["high"], "epsilon", "Appears after the watcher failed")
        with anyio.fail_after(15):
            while True:
                entries, _ = await h.list_all(client)
                if "skill://epsilon/SKILL.md" in {e.uri for e in entries}:
                    break
                await anyio.sleep(0.2)


def _inotify_watches(pid: int) -> int:
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/fdinfo/{fd}") as fh:
            count += sum(1 for line in fh if line.startswith("inotify wd:"))
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="needs Linux /proc")
def test_a_root_linking_to_the_file_system_is_polled(tree: dict[str, Path], h: Any) -> None:
    # watchfiles follows links: a skill linking to / made serve register a watch on
    # every folder of the file system (18-40 s before it answered initialize, 300 MB);
    # such a root is polled instead
    (tree["high"] / "alpha" / "everything").symlink_to("/")
    argv = [sys.executable, "-m", "skilldeck", "serve", "--root", str(tree["high"])]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }
        proc.stdin.write((json.dumps(init) + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1
        time.sleep(2)  # the background watcher has started
        assert _inotify_watches(proc.pid) < 100
        h.write_skill(tree["high"], "zeta", "Appears while the root is polled")
        request = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
        request["params"] = {"name": "skills_list", "arguments": {}}
        deadline = time.monotonic() + 15
        while "zeta" not in json.dumps(reply := _ask(proc, request)):
            assert time.monotonic() < deadline, reply
            time.sleep(0.3)
    finally:
        proc.kill()
        proc.wait(10)
        proc.stdin.close()
        proc.stdout.close()


def _ask(proc: subprocess.Popen[bytes], request: dict[str, Any]) -> Any:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write((json.dumps(request) + "\n").encode())
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


async def test_handshake_clients_get_list_changed(tree: dict[str, Path], h: Any) -> None:
    server = create_server(roots=[tree["high"]])
    server.prepare()  # else a first snapshot made after the write already holds delta
    got = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceListChangedNotification):
            got.set()

    async with Client(server, mode="legacy", message_handler=on_message) as client:
        h.write_skill(tree["high"], "delta", "Appears later")
        assert "skill://delta/SKILL.md" in await server.refresh()
        with anyio.fail_after(5):
            await got.wait()
        entries, _ = await h.list_all(client)
        assert "skill://delta/SKILL.md" in {e.uri for e in entries}
