"""A file changed on disk: clients are notified and get the new bytes with the new digest."""

from __future__ import annotations

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
    import os

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


async def test_handshake_clients_get_list_changed(tree: dict[str, Path], h: Any) -> None:
    server = create_server(roots=[tree["high"]])
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
