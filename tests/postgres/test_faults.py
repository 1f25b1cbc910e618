"""Faults against a PostgreSQL of this module's own and real replica processes.

After each fault (a fast or immediate restart, a stalled listener, a read-only
database, publishes racing unpublishes, an outage) every replica must list exactly
what the database holds within ``CONVERGENCE_SECONDS`` of the last change, and every
runtime event of a request that succeeded must be in the audit log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import psycopg
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from skilldeck.postgres import (
    CONVERGENCE_SECONDS,
    PostgresStore,
    create_tenant,
    init_store,
    read_audit,
)

from ._util import make_skill
from .conftest import PgServer
from .test_replicas import list_skills, replica

pytestmark = pytest.mark.anyio

REPLICAS = 2


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def faulty(own_pg_server: PgServer) -> str:
    url = own_pg_server.new_database()
    init_store(url)
    return url


def held(url: str, tenant: str) -> dict[str, str]:
    """name -> SKILL.md digest of every current version, read from the database now."""
    store = PostgresStore(url, tenant)
    try:
        return {m.name: store.version(m.name).files["SKILL.md"][0] for m in store.list_skills()}
    finally:
        store.db.close()


def publish(url: str, root: Path, tenant: str, name: str, body: str) -> None:
    store = PostgresStore(url, tenant)
    try:
        store.publish(make_skill(root, name, body=body))
    finally:
        store.db.close()


class Fleet:
    """Replica processes with one MCP client each (made again after a failure)."""

    def __init__(self, urls: list[str], token: str) -> None:
        self.urls = urls
        self.token = token
        self.stack = contextlib.AsyncExitStack()
        self.clients: dict[int, Client | None] = dict.fromkeys(range(len(urls)))

    async def _client(self, i: int) -> Client:
        found = self.clients[i]
        if found is None:
            stack = contextlib.AsyncExitStack()
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=30)
            )
            found = await stack.enter_async_context(
                Client(streamable_http_client(self.urls[i], http_client=http))
            )
            self.stack.push_async_callback(_quietly, stack)
            self.clients[i] = found
        return found

    async def listing(self, i: int) -> dict[str, str] | None:
        try:
            client = await self._client(i)
            with anyio.fail_after(10):
                entries = await list_skills(client)
        except Exception:
            self.clients[i] = None
            return None
        out = {}
        for name, entry in entries.items():
            digests = {r.uri.rsplit("/", 1)[-1]: r.digest for r in entry.resources}
            out[name] = digests.get("SKILL.md", "")
        return out

    async def converge(self, url: str, tenant: str, since: float, bound: float) -> float:
        """Seconds from ``since`` until every replica listed what the database holds;
        fails after ``bound`` (plus the time one listing takes on a busy machine)."""
        want = held(url, tenant)
        done: set[int] = set()
        last: dict[int, Any] = {}
        while True:
            for i in range(len(self.urls)):
                if i not in done:
                    last[i] = await self.listing(i)
                    if last[i] == want:
                        done.add(i)
            if len(done) == len(self.urls):
                return time.monotonic() - since
            if time.monotonic() - since > bound:
                stale = {i: last[i] for i in range(len(self.urls)) if i not in done}
                raise AssertionError(f"replicas {sorted(stale)} stale after {bound} s: {stale}")
            await anyio.sleep(0.2)


async def _quietly(stack: contextlib.AsyncExitStack) -> None:
    with contextlib.suppress(Exception):  # a client whose replica or session went away
        await stack.aclose()


@contextlib.asynccontextmanager
async def fleet(url: str, token: str) -> AsyncIterator[tuple[Fleet, list[str]]]:
    with contextlib.ExitStack() as procs:
        urls = [procs.enter_context(replica(url))[1] for _ in range(REPLICAS)]
        f = Fleet(urls, token)
        async with f.stack:
            yield f, urls


# the bound, plus what one round of listings costs on a loaded machine
BOUND = CONVERGENCE_SECONDS + 3.0


def _tenant(url: str, tmp: Path, tenant: str) -> str:
    token = create_tenant(url, tenant)
    for i in range(3):
        publish(url, tmp / "v0", tenant, f"{tenant}-s{i}", f"first {i}")
    return token


@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_a_publish_just_after_a_restart_reaches_every_replica(
    faulty: str, own_pg_server: PgServer, tmp_path: Path, mode: str
) -> None:
    tenant = f"restart-{mode}"
    token = _tenant(faulty, tmp_path, tenant)
    async with fleet(faulty, token) as (f, _urls):
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        for _ in range(3):  # fill the pools: their connections die in the restart
            for i in range(REPLICAS):
                await f.listing(i)
        own_pg_server.restart(mode)
        await anyio.sleep(1.0)
        publish(faulty, tmp_path / "v1", tenant, f"{tenant}-s0", "after the restart")
        took = await f.converge(faulty, tenant, time.monotonic(), BOUND)
        assert took < BOUND


def _listeners(url: str) -> list[int]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'skilldeck-listen'"
        ).fetchall()
    return [int(r[0]) for r in rows]


async def test_a_stalled_listener_does_not_leave_a_replica_stale(
    faulty: str, tmp_path: Path
) -> None:
    tenant = "stalled"
    token = _tenant(faulty, tmp_path, tenant)
    async with fleet(faulty, token) as (f, _urls):
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        stopped = _listeners(faulty)
        assert len(stopped) >= REPLICAS
        for pid in stopped:  # the listeners' backends stop answering, connections stay up
            os.kill(pid, signal.SIGSTOP)
        try:
            for round_ in range(2):
                publish(faulty, tmp_path / f"v{round_}", tenant, f"{tenant}-s1", f"stall {round_}")
                await f.converge(faulty, tenant, time.monotonic(), BOUND)
            # the quiet listener is probed and replaced by a new one
            deadline = time.monotonic() + 30
            while len(set(_listeners(faulty)) - set(stopped)) < REPLICAS:
                assert time.monotonic() < deadline, "a stalled listener was never replaced"
                await anyio.sleep(0.5)
        finally:
            for pid in stopped:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)


@contextlib.contextmanager
def read_only(url: str) -> Iterator[None]:
    """Every transaction of the server read-only, existing sessions included."""

    def setting(value: str) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET default_transaction_read_only = {value}")
            conn.execute("SELECT pg_reload_conf()")
        time.sleep(0.5)  # backends take the reload at their next command

    setting("on")
    try:
        yield
    finally:
        setting("off")


async def _load(client: Client, name: str) -> bool:
    """``skills_load`` through the tool fallback: did the request succeed?"""
    try:
        result = await client.call_tool("skills_load", {"name": name})
    except Exception:
        return False
    return not result.is_error


async def test_read_only_store_fails_requests_it_cannot_audit(faulty: str, tmp_path: Path) -> None:
    tenant = "readonly"
    token = _tenant(faulty, tmp_path, tenant)
    async with fleet(faulty, token) as (f, _urls):
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        client = await f._client(0)
        ok_before = [await _load(client, f"{tenant}-s{i % 3}") for i in range(4)]
        assert all(ok_before)
        results: list[bool] = []
        with read_only(faulty):
            with pytest.raises(Exception, match="read-only"):
                publish(faulty, tmp_path / "ro", tenant, f"{tenant}-s2", "refused")
            for i in range(6):
                results.append(await _load(client, f"{tenant}-s{i % 3}"))
            assert await f.listing(0) == held(faulty, tenant)  # reads still served
        assert not any(results)  # nothing could be audited: every load reported it
        assert await _load(client, f"{tenant}-s0")
        publish(faulty, tmp_path / "rw", tenant, f"{tenant}-s2", "writable again")
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        loads = [
            r for r in read_audit(faulty, tenant=tenant, limit=1000) if r.kind == "skill_loaded"
        ]
        assert len(loads) == len(ok_before) + 1  # every successful load, none of the others


async def test_publishes_racing_unpublishes_end_where_the_database_is(
    faulty: str, tmp_path: Path
) -> None:
    tenant = "race"
    token = _tenant(faulty, tmp_path, tenant)
    async with fleet(faulty, token) as (f, _urls):
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        errors: list[BaseException] = []

        def publisher(k: int) -> None:
            store = PostgresStore(faulty, tenant)
            try:
                for n in range(8):
                    folder = make_skill(tmp_path / f"p{k}-{n}", f"{tenant}-s{n % 2}", f"{k} {n}")
                    store.publish(folder)
            except BaseException as exc:
                errors.append(exc)
            finally:
                store.db.close()

        def unpublisher() -> None:
            store = PostgresStore(faulty, tenant)
            try:
                for n in range(10):
                    with contextlib.suppress(Exception):  # nothing left to take back is fine
                        store.unpublish(f"{tenant}-s{n % 2}")
            finally:
                store.db.close()

        threads = [threading.Thread(target=publisher, args=(k,)) for k in range(2)]
        threads.append(threading.Thread(target=unpublisher))
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            await anyio.sleep(0.1)
        assert not errors
        await f.converge(faulty, tenant, time.monotonic(), BOUND)


async def test_an_outage_is_reported_by_readyz_and_survived(
    faulty: str, own_pg_server: PgServer, tmp_path: Path
) -> None:
    tenant = "outage"
    token = _tenant(faulty, tmp_path, tenant)
    async with fleet(faulty, token) as (f, urls):
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        base = urls[0].removesuffix("/mcp")
        async with httpx2.AsyncClient(timeout=30) as http:
            assert (await http.get(base + "/readyz")).status_code == 200
            own_pg_server.stop()
            try:
                deadline = time.monotonic() + 15
                while True:
                    got = await http.get(base + "/readyz")
                    if got.status_code == 503 or time.monotonic() > deadline:
                        break
                    await anyio.sleep(0.3)
                assert got.status_code == 503
                assert got.headers["retry-after"].isdigit()
                assert (await http.get(base + "/healthz")).status_code == 200
            finally:
                own_pg_server.start_again()
            publish(faulty, tmp_path / "back", tenant, f"{tenant}-s1", "after the outage")
            # the pools' connection attempts back off; the bound starts once it answers
            await f.converge(faulty, tenant, time.monotonic(), BOUND)
            deadline = time.monotonic() + CONVERGENCE_SECONDS
            while (await http.get(base + "/readyz")).status_code != 200:
                assert time.monotonic() < deadline
                await anyio.sleep(0.3)
            metrics = (await http.get(base + "/metrics")).text
        assert f'skilldeck_tenant_refresh_lag_seconds{{tenant="{tenant}"}} 0.0' in metrics
        assert "skilldeck_pool_size" in metrics
        assert 'skilldeck_http_requests_total{status="200"}' in metrics
        assert "skilldeck_http_request_seconds_bucket" in metrics


async def test_logs_are_json_lines_and_disconnects_no_tracebacks(
    faulty: str, tmp_path: Path
) -> None:
    import json

    tenant = "logs"
    token = _tenant(faulty, tmp_path, tenant)
    log = tmp_path / "replica.log"
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    with replica(faulty, stderr=log) as (proc, url):
        async with httpx2.AsyncClient(timeout=30) as http:
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
            got = await http.post(url, json=init, headers=headers)
            session = {**headers, "Mcp-Session-Id": got.headers["mcp-session-id"]}
            session["Mcp-Protocol-Version"] = "2025-06-18"
            await http.post(
                url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
            )
            for _ in range(3):  # clients that go away mid-stream and mid-request
                with anyio.move_on_after(0.5):
                    async with http.stream("GET", url, headers=session) as stream:
                        async for _chunk in stream.aiter_bytes():
                            pass
                call = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
                with anyio.move_on_after(0.01):
                    await http.post(url, json=call, headers=session)
            assert (
                await http.post(url, json=call, headers={"Authorization": "x"})
            ).status_code == 401
        proc.terminate()
        proc.wait(20)
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines if not line.startswith("skilldeck: serving")]
    assert all({"ts", "level", "logger", "msg"} <= set(r) for r in records)
    assert not [r for r in records if "traceback" in r], records
