"""Faults against a PostgreSQL of this module's own and three real replica processes.

The replicas are started once and live through every fault of the module in turn (a
fast and an immediate restart, stalled listeners, a read-only database, publishes
racing unpublishes, an outage, a full disk). After each fault every replica must list
exactly what the database holds within ``BOUND`` seconds (the documented 5 s plus the
time one round of listings takes on a loaded machine), and every runtime event of a
request that succeeded meanwhile must be in the audit log: a probe searches with a
query of its own on each replica in turn during the fault, and every query whose
search answered must be in the tenant's audit rows.

As root the module's database lives in a tablespace on a small tmpfs, so the disk can
be filled; without root that test skips, saying why.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import psycopg
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from skilldeck import ConfigError
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

REPLICAS = 3
# the bound, plus what one round of listings of three replicas costs on a loaded machine
BOUND = CONVERGENCE_SECONDS + 3.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class SmallDisk:
    """A tmpfs mounted for the module's tablespace: ``fill`` takes its last free byte,
    ``free`` gives the space back."""

    SIZE = "64m"

    def __init__(self, mount: Path) -> None:
        self.mount = mount
        self.filler = mount / "filler"

    def fill(self) -> None:
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            for size in (1 << 20, 1 << 16, 1 << 12):
                chunk = b"\xff" * size
                with contextlib.suppress(OSError):
                    while True:
                        os.write(fd, chunk)
        finally:
            os.close(fd)
        assert os.statvfs(self.mount).f_bavail == 0

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def small_disk(own_pg_server: PgServer) -> Iterator[SmallDisk | str]:
    """The tablespace ``small`` on a tmpfs (as root), else why there is none."""
    if os.geteuid() != 0:
        yield "filling a disk needs root (mount -t tmpfs)"
        return
    mount = own_pg_server.folder / "small"
    mount.mkdir()
    got = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SmallDisk.SIZE},mode=0755", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if got.returncode != 0:
        yield f"cannot mount a tmpfs here: {got.stderr.strip()}"
        return
    try:
        (mount / "ts").mkdir()
        if own_pg_server.prefix:
            import shutil

            shutil.chown(mount / "ts", "postgres")
        with psycopg.connect(own_pg_server.url(), autocommit=True) as conn:
            conn.execute(f"CREATE TABLESPACE small LOCATION '{mount / 'ts'}'")
        yield SmallDisk(mount)
    finally:
        own_pg_server.stop()  # its files are on the tmpfs
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


@pytest.fixture(scope="module")
def faulty(own_pg_server: PgServer, small_disk: SmallDisk | str) -> str:
    url = own_pg_server.new_database("small" if isinstance(small_disk, SmallDisk) else None)
    init_store(url)
    return url


@pytest.fixture(scope="module")
def fleet_urls(faulty: str) -> Iterator[list[str]]:
    """Three replica processes of the module's store, shared by its tests in turn."""
    with contextlib.ExitStack() as procs:
        yield [procs.enter_context(replica(faulty))[1] for _ in range(REPLICAS)]


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
    """One MCP client per replica (made again after a failure); enter and leave it in
    one task."""

    def __init__(self, urls: list[str], token: str) -> None:
        self.urls = urls
        self.token = token
        self.stack = contextlib.AsyncExitStack()
        self.clients: dict[int, Client | None] = dict.fromkeys(range(len(urls)))

    async def __aenter__(self) -> Fleet:
        await self.stack.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stack.aclose()

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

    async def call(self, i: int, tool: str, arguments: dict[str, Any]) -> bool:
        """A tool call through the fallback on replica ``i``: did it succeed?"""
        try:
            client = await self._client(i)
            with anyio.fail_after(15):
                result = await client.call_tool(tool, arguments)
        except Exception:
            self.clients[i] = None
            return False
        return not result.is_error

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


class Probe:
    """Searches with a query of its own on each replica in turn until stopped, so the
    audit can be checked: every query whose search answered must be in it."""

    def __init__(self, urls: list[str], token: str, tenant: str) -> None:
        self.urls = urls
        self.token = token
        self.tenant = tenant
        self.ok: list[str] = []
        self.failed = 0
        self.done = anyio.Event()

    async def run(self) -> None:
        async with Fleet(self.urls, self.token) as fleet:
            n = 0
            while not self.done.is_set():
                query = f"probe {self.tenant} {n}"
                if await fleet.call(n % len(self.urls), "skills_search", {"query": query}):
                    self.ok.append(query)
                else:
                    self.failed += 1
                n += 1
                await anyio.sleep(0.05)

    def audited(self, url: str) -> None:
        """Every search that answered is in the audit (and some did answer)."""
        assert self.ok, f"no probe search succeeded ({self.failed} failed)"
        seen: set[str] = set()
        after = 0
        while True:
            rows = read_audit(url, tenant=self.tenant, kinds=("search",), after=after, limit=1000)
            seen.update(str(r.event.get("query")) for r in rows)
            if len(rows) < 1000:
                break
            after = rows[-1].id
        missing = [q for q in self.ok if q not in seen]
        assert not missing, f"{len(missing)} answered searches not audited: {missing[:5]}"


@contextlib.asynccontextmanager
async def probing(urls: list[str], token: str, tenant: str, url: str) -> Any:
    """A ``Probe`` running meanwhile; on leaving, its searches are checked in the audit."""
    probe = Probe(urls, token, tenant)
    async with anyio.create_task_group() as tg:
        tg.start_soon(probe.run)
        try:
            yield probe
        finally:
            probe.done.set()
    probe.audited(url)


def _tenant(url: str, tmp: Path, tenant: str) -> str:
    token = create_tenant(url, tenant)
    for i in range(3):
        publish(url, tmp / "v0", tenant, f"{tenant}-s{i}", f"first {i}")
    return token


@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_a_publish_just_after_a_restart_reaches_every_replica(
    faulty: str, fleet_urls: list[str], own_pg_server: PgServer, tmp_path: Path, mode: str
) -> None:
    tenant = f"restart-{mode}"
    token = _tenant(faulty, tmp_path, tenant)
    # (clients are entered inside the probe's task group and left before it ends)
    async with probing(fleet_urls, token, tenant, faulty), Fleet(fleet_urls, token) as f:
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
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'skilldeck-listen' "
            "AND datname = current_database()"
        ).fetchall()
    return [int(r[0]) for r in rows]


async def test_a_stalled_listener_does_not_leave_a_replica_stale(
    faulty: str, fleet_urls: list[str], tmp_path: Path
) -> None:
    tenant = "stalled"
    token = _tenant(faulty, tmp_path, tenant)
    async with probing(fleet_urls, token, tenant, faulty), Fleet(fleet_urls, token) as f:
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        stopped = _listeners(faulty)
        assert len(stopped) == REPLICAS
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


def _loads(url: str, tenant: str) -> int:
    rows = read_audit(url, tenant=tenant, kinds=("skill_loaded",), limit=1000)
    return len(rows)


async def test_read_only_store_fails_requests_it_cannot_audit(
    faulty: str, fleet_urls: list[str], tmp_path: Path
) -> None:
    tenant = "readonly"
    token = _tenant(faulty, tmp_path, tenant)
    load = {"name": f"{tenant}-s0"}
    async with probing(fleet_urls, token, tenant, faulty) as probe, Fleet(fleet_urls, token) as f:
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        ok_before = [await f.call(i % REPLICAS, "skills_load", load) for i in range(6)]
        assert all(ok_before)
        with read_only(faulty):
            with pytest.raises(ConfigError, match="read-only") as refused:
                publish(faulty, tmp_path / "ro", tenant, f"{tenant}-s2", "refused")
            assert refused.value.context["reason"] == "store_read_only"
            failed = probe.failed
            during = [await f.call(i % REPLICAS, "skills_load", load) for i in range(6)]
            for i in range(REPLICAS):  # reads still served
                assert await f.listing(i) == held(faulty, tenant)
            failed = probe.failed - failed
        assert not any(during)  # nothing could be audited: every load reported it
        assert failed > 0
        async with httpx2.AsyncClient(timeout=10) as http:  # what an operator sees of it
            for url in fleet_urls:
                metrics = (await http.get(url.removesuffix("/mcp") + "/metrics")).text
                counted = re.search(r"^skilldeck_audit_failures (\S+)$", metrics, re.M)
                assert counted is not None and float(counted.group(1)) >= 2, metrics
                assert re.search(r"^skilldeck_listener_up 1(\.0)?$", metrics, re.M), metrics
        assert await f.call(0, "skills_load", load)
        publish(faulty, tmp_path / "rw", tenant, f"{tenant}-s2", "writable again")
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
    # every successful load, none of the others
    assert _loads(faulty, tenant) == len(ok_before) + 1


async def test_publishes_racing_unpublishes_end_where_the_database_is(
    faulty: str, fleet_urls: list[str], tmp_path: Path
) -> None:
    tenant = "race"
    token = _tenant(faulty, tmp_path, tenant)
    async with probing(fleet_urls, token, tenant, faulty), Fleet(fleet_urls, token) as f:
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
    faulty: str, fleet_urls: list[str], own_pg_server: PgServer, tmp_path: Path
) -> None:
    tenant = "outage"
    token = _tenant(faulty, tmp_path, tenant)
    bases = [u.removesuffix("/mcp") for u in fleet_urls]
    async with (
        probing(fleet_urls, token, tenant, faulty),
        Fleet(fleet_urls, token) as f,
        httpx2.AsyncClient(timeout=30) as http,
    ):
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        for base in bases:
            assert (await http.get(base + "/readyz")).status_code == 200
        own_pg_server.stop()
        try:
            for base in bases:
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
        for base in bases:
            deadline = time.monotonic() + CONVERGENCE_SECONDS
            while (await http.get(base + "/readyz")).status_code != 200:
                assert time.monotonic() < deadline
                await anyio.sleep(0.3)
        metrics = (await http.get(bases[0] + "/metrics")).text
    assert f'skilldeck_tenant_refresh_lag_seconds{{tenant="{tenant}"}} 0.0' in metrics
    assert "skilldeck_pool_size" in metrics
    assert 'skilldeck_http_requests_total{status="200"}' in metrics
    assert "skilldeck_http_request_seconds_bucket" in metrics


def _rows(url: str, tenant: str) -> tuple[int, int, int]:
    """(versions, file rows, blobs) of ``tenant``, counted in the database."""
    with psycopg.connect(url, autocommit=True) as conn:
        got = conn.execute(
            "SELECT (SELECT count(*) FROM skilldeck_versions WHERE tenant = %s), "
            "(SELECT count(*) FROM skilldeck_version_files WHERE tenant = %s), "
            "(SELECT count(*) FROM skilldeck_blobs WHERE tenant = %s)",
            (tenant, tenant, tenant),
        ).fetchone()
    assert got is not None
    return int(got[0]), int(got[1]), int(got[2])


async def test_a_full_disk_fails_writes_cleanly_and_recovers(
    faulty: str, fleet_urls: list[str], small_disk: SmallDisk | str, tmp_path: Path
) -> None:
    if not isinstance(small_disk, SmallDisk):
        pytest.skip(small_disk)
    tenant = "full"
    token = _tenant(faulty, tmp_path, tenant)
    big = {"references/big.bin": os.urandom(512 * 1024).hex()}  # needs new pages
    async with probing(fleet_urls, token, tenant, faulty) as probe, Fleet(fleet_urls, token) as f:
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        before, rows = held(faulty, tenant), _rows(faulty, tenant)
        small_disk.fill()
        try:
            store = PostgresStore(faulty, tenant)
            folder = make_skill(tmp_path / "big", f"{tenant}-s0", "grown", files=big)
            with pytest.raises(ConfigError, match="nothing was written") as refused:
                store.publish(folder, scan="off")
            assert refused.value.context["reason"] == "store_full"
            store.db.close()
            # the command line says the same, as a coded error in its JSON
            args = ["publish", str(folder), "--json", "--store", faulty, "--tenant", tenant]
            cli = subprocess.run(
                [sys.executable, "-m", "skilldeck", *args, "--scan", "off"],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert cli.returncode != 0
            error = json.loads(cli.stdout)["error"]
            assert (error["code"], error["reason"]) == ("CONFIG_INVALID", "store_full")
            assert "Traceback" not in cli.stderr
            # nothing half-written; every replica still lists what the database holds
            assert (held(faulty, tenant), _rows(faulty, tenant)) == (before, rows)
            await f.converge(faulty, tenant, time.monotonic(), BOUND)
            # the audit's pages fill up too: searches that cannot be audited fail
            deadline = time.monotonic() + 60
            while probe.failed < 3:
                assert time.monotonic() < deadline, "no search failed on a full disk"
                await anyio.sleep(0.2)
        finally:
            small_disk.free()
        publish(faulty, tmp_path / "freed", tenant, f"{tenant}-s0", "space again")
        await f.converge(faulty, tenant, time.monotonic(), BOUND)
        ok = len(probe.ok)
        deadline = time.monotonic() + 30
        while len(probe.ok) < ok + REPLICAS:  # searches answer again on every replica
            assert time.monotonic() < deadline, "searches did not recover"
            await anyio.sleep(0.2)
    store = PostgresStore(faulty, tenant)
    try:
        assert all(problem is None for _n, _v, problem in store.verify())
    finally:
        store.db.close()


async def test_logs_are_json_lines_and_disconnects_no_tracebacks(
    faulty: str, tmp_path: Path
) -> None:
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
