"""Three ``skilldeck serve --store`` replicas on one PostgreSQL, real MCP clients over HTTP."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceListChangedNotification

from skilldeck.mcp import (
    GetSkillParams,
    GetSkillRequest,
    GetSkillResult,
    ListSkillsRequest,
    ListSkillsResult,
)
from skilldeck.postgres import PostgresStore, create_tenant

from ._util import make_skill

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def replica(
    url: str, *extra: str, stderr: Path | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = _free_port()
    cmd = [sys.executable, "-m", "skilldeck", "serve", "--transport", "http", "--port", str(port)]
    with stderr.open("w+b") if stderr is not None else tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [*cmd, "--store", url, *extra],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=dict(os.environ),
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(
                        "replica did not start: " + log.read().decode(errors="replace")
                    )
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            yield proc, f"http://127.0.0.1:{port}/mcp"
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


@contextlib.contextmanager
def replicas(url: str, n: int) -> Iterator[list[tuple[subprocess.Popen[bytes], str]]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(replica(url)) for _ in range(n)]


async def list_skills(client: Client) -> dict[str, Any]:
    """name -> skills/list entry (every page)."""
    out: dict[str, Any] = {}
    cursor = None
    from mcp_types import PaginatedRequestParams

    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await client.session.send_request(
            ListSkillsRequest(params=params), ListSkillsResult
        )
        for entry in result.skills:
            out[entry.frontmatter["name"]] = entry
        cursor = result.next_cursor
        if not cursor:
            return out


def _seed(url: str, tmp: Path, tenants: list[str]) -> dict[str, str]:
    tokens = {}
    for t in tenants:
        tokens[t] = create_tenant(url, t)
        store = PostgresStore(url, t)
        for i in range(3):
            store.publish(
                make_skill(tmp / t, f"{t}-skill-{i}", files={"references/r.md": f"{t} {i}\n"})
            )
    return tokens


async def test_tenants_are_isolated_across_replicas(store_url: str, tmp_path: Path) -> None:
    tenants = ["acme", "globex", "initech"]
    tokens = _seed(store_url, tmp_path, tenants)
    with replicas(store_url, 3) as reps:
        seen: list[tuple[str, set[str]]] = []

        async def one(i: int) -> None:
            tenant = tenants[i % 3]
            _, url = reps[i % len(reps)]
            headers = {"Authorization": f"Bearer {tokens[tenant]}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=60) as http,
                Client(streamable_http_client(url, http_client=http)) as client,
            ):
                entries = await list_skills(client)
                seen.append((tenant, set(entries)))
                other = tenants[(i + 1) % 3]
                with pytest.raises(MCPError) as err:  # another tenant's skill: unknown here
                    await client.session.send_request(
                        GetSkillRequest(
                            params=GetSkillParams(uri=f"skill://{other}-skill-0/SKILL.md")
                        ),
                        GetSkillResult,
                    )
                assert err.value.error.code == -32602
                with pytest.raises(MCPError):
                    await client.read_resource(f"skill://{other}-skill-0/references/r.md")
                own = await client.read_resource(f"skill://{tenant}-skill-0/references/r.md")
                assert own.contents[0].text == f"{tenant} 0\n"

        async with anyio.create_task_group() as tg:
            for i in range(50):
                tg.start_soon(one, i)
        assert len(seen) == 50
        for tenant, names in seen:
            assert names == {f"{tenant}-skill-{i}" for i in range(3)}
        async with httpx2.AsyncClient() as raw:  # no token, or a wrong one: 401
            for headers in ({}, {"Authorization": "Bearer sdk_wrong"}):
                response = await raw.post(
                    reps[0][1], json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=headers
                )
                assert response.status_code == 401


async def test_publish_reaches_every_replica_within_a_second(
    store_url: str, tmp_path: Path
) -> None:
    tokens = _seed(store_url, tmp_path, ["acme", "globex"])
    with replicas(store_url, 3) as reps:
        headers = {"Authorization": f"Bearer {tokens['acme']}"}
        notified: dict[int, float] = {}
        ready = anyio.Event()
        connected = 0

        async def watch(i: int, url: str, done: anyio.Event) -> None:
            nonlocal connected

            async def on_message(message: Any) -> None:
                if isinstance(message, ResourceListChangedNotification) and i not in notified:
                    notified[i] = time.monotonic()

            async with (
                httpx2.AsyncClient(headers=headers, timeout=60) as http,
                Client(
                    streamable_http_client(url, http_client=http),
                    mode="legacy",
                    message_handler=on_message,
                ) as client,
            ):
                await list_skills(client)
                connected += 1
                if connected == len(reps):
                    ready.set()
                await done.wait()
                entries = await list_skills(client)
                entry = entries["acme-new"]
                assert entry.resources != "dynamic"
                results[i] = {r.uri: r.digest for r in entry.resources}

        results: dict[int, dict[str, str]] = {}
        done = anyio.Event()
        async with anyio.create_task_group() as tg:
            for i, (_, url) in enumerate(reps):
                tg.start_soon(watch, i, url, done)
            with anyio.fail_after(60):
                await ready.wait()
            await anyio.sleep(0.3)  # the legacy GET stream is open
            folder = make_skill(tmp_path / "new", "acme-new", files={"scripts/x.py": "print(1)\n"})
            start = time.monotonic()
            proc = await anyio.run_process(
                [
                    sys.executable,
                    "-m",
                    "skilldeck",
                    "publish",
                    str(folder),
                    "--store",
                    store_url,
                    "--tenant",
                    "acme",
                ],
                check=True,
            )
            published_at = time.monotonic()
            assert b"published acme-new" in proc.stdout
            with anyio.fail_after(10):
                while len(notified) < len(reps):
                    await anyio.sleep(0.01)
            done.set()
        delays = [notified[i] - published_at for i in range(len(reps))]
        assert max(delays) < 1.0, delays
        assert start < published_at
        digest = PostgresStore(store_url, "acme").version("acme-new").files["scripts/x.py"][0]
        assert all(r["skill://acme-new/scripts/x.py"] == digest for r in results.values())


async def test_sigkill_of_a_replica_leaves_the_others_serving(
    store_url: str, tmp_path: Path
) -> None:
    tokens = _seed(store_url, tmp_path, ["acme"])
    headers = {"Authorization": f"Bearer {tokens['acme']}"}
    with replicas(store_url, 2) as reps:
        (victim, _), (_, url) = reps
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            assert len(await list_skills(client)) == 3


async def _run(url: str, token: str, **client: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http), **client) as c,
    ):
        return await c.call_tool(
            "skills_run_script", {"name": "runner", "script": "scripts/hello.py"}
        )


async def test_approval_through_one_replica_holds_on_another(
    store_url: str, tmp_path: Path
) -> None:
    from mcp_types import ElicitRequestParams, ElicitResult

    token = create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    folder = make_skill(
        tmp_path, "runner", files={"scripts/hello.py": "print('hello from the store')\n"}
    )
    store.publish(folder)
    asked: list[str] = []

    async def yes(ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"approve": True})

    with (
        replica(store_url, "--allow-exec") as (_, one),
        replica(store_url, "--allow-exec") as (_, two),
    ):
        refused = await _run(two, token)  # nobody approved yet, and this client cannot be asked
        assert refused.structured_content["error"]["code"] == "APPROVAL_REQUIRED"
        first = await _run(one, token, elicitation_callback=yes)
        assert first.structured_content["ok"] is True, first.structured_content
        assert "hello from the store" in first.structured_content["data"]["output"]
        assert len(asked) == 1
        second = await _run(two, token)  # replica 2 honours replica 1's approval, without asking
        assert second.structured_content["ok"] is True, second.structured_content
        assert len(asked) == 1
        (folder / "scripts/hello.py").write_text("print('second version')\n")
        store.publish(folder)
        await anyio.sleep(0.5)  # the replicas hear of it
        changed = await _run(two, token)
        assert changed.structured_content["error"]["code"] == "APPROVAL_REQUIRED"
        again = await _run(two, token, elicitation_callback=yes)  # asked again, once
        assert again.structured_content["ok"] is True, again.structured_content
        assert "second version" in again.structured_content["data"]["output"]
        assert len(asked) == 2
    from skilldeck.postgres import PostgresAuditSink

    kinds = [e["event"] for e in PostgresAuditSink(store_url, "acme").read()]
    assert kinds.count("skill_published") == 2
    assert kinds.count("approval_stored") == 2  # the two yeses, stored with their audit rows
    assert "script_run" in kinds  # runtime events of the served sessions


async def test_a_lost_listener_misses_nothing(store_url: str, tmp_path: Path) -> None:
    """The LISTEN connection is cut and a publish lands before it is back: the replica
    rescans on reconnecting and its clients still hear of the publish."""
    from skilldeck.postgres import Database

    tokens = _seed(store_url, tmp_path, ["acme"])
    headers = {"Authorization": f"Bearer {tokens['acme']}"}
    notified = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceListChangedNotification):
            notified.set()

    def cut() -> int:
        db = Database(store_url)
        try:
            with db.admin() as conn:
                rows = conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = 'skilldeck-listen'"
                ).fetchall()
        finally:
            db.close()
        return len(rows)

    with replica(store_url) as (_, url):
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(
                streamable_http_client(url, http_client=http),
                mode="legacy",
                message_handler=on_message,
            ) as client,
        ):
            await list_skills(client)
            await anyio.sleep(0.3)
            assert cut() == 1
            PostgresStore(store_url, "acme").publish(make_skill(tmp_path / "late", "acme-late"))
            with anyio.fail_after(15):
                await notified.wait()
            assert "acme-late" in await list_skills(client)
