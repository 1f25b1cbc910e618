"""Unpublishing and token revocation reach running ``serve --store`` replicas
(real subprocess replicas, real MCP clients and raw HTTP, a real PostgreSQL)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ResourceListChangedNotification

from skilldeck.postgres import PostgresApprovalStore, PostgresStore, create_tenant, create_token

from ._util import make_skill
from .test_replicas import list_skills, replica, replicas

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _cli(*args: str) -> str:
    proc = await anyio.run_process([sys.executable, "-m", "skilldeck", *args], check=True)
    return proc.stdout.decode()


async def test_unpublish_reaches_every_replica(store_url: str, tmp_path: Path) -> None:
    token = create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    folder = make_skill(tmp_path, "runner", files={"scripts/hi.py": "print('v1')\n"})
    v1 = store.publish(folder)
    (folder / "scripts/hi.py").write_text("print('v2')\n")
    v2 = store.publish(folder)
    PostgresApprovalStore(store_url, "acme").grant("runner", v2.digest, trust="user")
    headers = {"Authorization": f"Bearer {token}"}
    with replicas(store_url, 2) as reps:
        notified: dict[int, float] = {}
        listed: dict[int, str] = {}
        ready, done = anyio.Event(), anyio.Event()
        connected = 0

        async def watch(i: int, url: str) -> None:
            nonlocal connected

            async def on_message(message: Any) -> None:
                if isinstance(message, ResourceListChangedNotification):
                    notified.setdefault(i, time.monotonic())

            async with (
                httpx2.AsyncClient(headers=headers, timeout=60) as http,
                Client(
                    streamable_http_client(url, http_client=http),
                    mode="legacy",
                    message_handler=on_message,
                ) as client,
            ):
                before = await list_skills(client)
                assert before["runner"].frontmatter["name"] == "runner"
                connected += 1
                if connected == len(reps):
                    ready.set()
                await done.wait()
                after = await list_skills(client)
                listed[i] = {r.uri: r.digest for r in after["runner"].resources}[
                    "skill://runner/scripts/hi.py"
                ]

        async with anyio.create_task_group() as tg:
            for i, (_, url) in enumerate(reps):
                tg.start_soon(watch, i, url)
            with anyio.fail_after(60):
                await ready.wait()
            await anyio.sleep(0.3)  # the GET streams are open
            out = await _cli("unpublish", "runner", "--store", store_url, "--tenant", "acme")
            unpublished_at = time.monotonic()
            assert f"current: runner version {v1.version}" in out
            with anyio.fail_after(10):
                while len(notified) < len(reps):
                    await anyio.sleep(0.01)
            done.set()
        delays = [notified[i] - unpublished_at for i in range(len(reps))]
        assert max(delays) < 1.0, delays
        v1_file = store.version("runner").files["scripts/hi.py"][0]
        assert listed == {0: v1_file, 1: v1_file}
    assert PostgresApprovalStore(store_url, "acme").get("runner") is None


async def _initialize(http: httpx2.AsyncClient, url: str) -> str:
    response = await http.post(
        url,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 200, response.text
    session = response.headers["mcp-session-id"]
    note = await http.post(
        url,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers={
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": session,
            "Mcp-Protocol-Version": "2025-06-18",
        },
    )
    assert note.status_code in (200, 202)
    return session


async def _ping(url: str, token: str) -> int:
    """The status of an ``initialize`` sent with ``token`` (200, or 401 when refused)."""
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(
            url,
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            },
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
            },
        )
        return int(response.status_code)


async def test_a_revoked_token_is_refused_by_every_replica(store_url: str, tmp_path: Path) -> None:
    first = create_tenant(store_url, "acme")
    info, second = create_token(store_url, "acme", label="second client")
    PostgresStore(store_url, "acme").publish(make_skill(tmp_path, "alpha"))
    with replicas(store_url, 2) as reps:
        urls = [url for _, url in reps]
        for url in urls:  # both tokens known to (and cached by) both replicas
            for token in (first, second):
                async with httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {token}"}, timeout=60
                ) as http:
                    await _initialize(http, url)
        ended = anyio.Event()

        async def stream() -> None:
            async with httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {first}"}, timeout=60
            ) as http:
                session = await _initialize(http, urls[0])
                async with http.stream(
                    "GET",
                    urls[0],
                    headers={
                        "Accept": "text/event-stream",
                        "Mcp-Session-Id": session,
                        "Mcp-Protocol-Version": "2025-06-18",
                    },
                ) as response:
                    assert response.status_code == 200
                    opened.set()
                    async for _chunk in response.aiter_bytes():
                        pass
                ended.set()

        opened = anyio.Event()
        async with anyio.create_task_group() as tg:
            tg.start_soon(stream)
            with anyio.fail_after(30):
                await opened.wait()
            await anyio.sleep(0.3)
            await _cli("tenant", "token", "revoke", "acme", "1", "--store", store_url)
            revoked_at = time.monotonic()
            refused: dict[int, float] = {}
            with anyio.fail_after(10):
                while len(refused) < len(urls):
                    for i, url in enumerate(urls):
                        if i not in refused and await _ping(url, first) == 401:
                            refused[i] = time.monotonic() - revoked_at
                    await anyio.sleep(0.02)
                await ended.wait()  # the open event stream of the revoked token was closed
            stream_closed = time.monotonic() - revoked_at
        assert max(refused.values()) < 1.0, refused
        assert stream_closed < 2.0
        for url in urls:  # the tenant's other token still works
            assert await _ping(url, second) == 200
        assert info.id == 2


async def test_rotation_replaces_every_token(store_url: str, tmp_path: Path) -> None:
    old = create_tenant(store_url, "acme")
    with replica(store_url) as (_, url):
        assert await _ping(url, old) == 200
        out = await _cli("tenant", "token", "rotate", "acme", "--store", store_url)
        new = out.strip()
        assert new.startswith("sdk_") and new != old
        with anyio.fail_after(5):
            while await _ping(url, old) != 401:
                await anyio.sleep(0.02)
        assert await _ping(url, new) == 200
