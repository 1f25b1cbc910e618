"""One ``serve`` replica for every tenant of a PostgreSQL store.

``TenantRouter`` is an ASGI app in front of one ``SkillServer`` per tenant
(built on the first request that tenant makes). Every HTTP request must carry
``Authorization: Bearer <token>``; the token's hash picks the tenant, an
unknown token gets ``401``. A tenant's requests reach only that tenant's server,
so a resource URI of another tenant is unknown there, exactly like a skill that
does not exist, and a session id made for another tenant is unknown too.

MCP sessions live in the replica (and tenant server) that created them: a
request carrying a session id this replica does not hold gets the transport's
answer for an unknown session (``404``), and the client starts a new session.
A load balancer should keep a client on one replica (hash on
``Mcp-Session-Id``, or sticky by client address) but needs no shared state.

A tenant's server is dropped when no request of it is in flight and none came for
the session timeout (its sessions would have expired by then), so a replica holds only
the tenants in use; the next request builds it again from the store.

A replica remembers a token's tenant for ``TOKEN_CACHE_SECONDS``. Revoking or
rotating a token notifies ``skilldeck_tokens``: each replica forgets that
tenant's tokens, checks the tokens of the tenant's requests in flight and ends
those whose token is no longer valid (an open event stream closes; a request
not yet answered gets ``401``). Every new request of a revoked token gets ``401``.

Change propagation does not depend on notifications arriving. A listener
connection per replica runs ``LISTEN skilldeck_changes``; a publish notifies at
commit, and the replica rescans that tenant (one cheap query, then only the new
version's rows) and sends ``notifications/resources/list_changed`` to that
tenant's clients. Besides, every ``CHECK_SECONDS`` the replica reads the change
mark of every tenant it serves (one pooled connection, one indexed query per
tenant) and refreshes each tenant whose mark moved since the mark read before its
last good refresh; a refresh that fails is retried with backoff (at most
``MAX_BACKOFF`` apart) until it succeeds. So whatever happens to notifications
(a listener stalled or cut, a database restarted), a replica that reaches the
database converges to it within ``CONVERGENCE_SECONDS``. A listener quiet for
``LISTEN_PROBE_SECONDS`` is probed and replaced when it does not answer; after any
reconnect it rescans every tenant and checks every token again.

Operators get ``/healthz`` (the process answers), ``/readyz`` (the database answered
the last change check and no tenant is behind past the bound) and ``/metrics``
(Prometheus), none of them behind a token: route only ``/mcp`` to clients.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

import skilldeck.postgres as postgres_api
from skilldeck import ConfigError
from skilldeck.postgres import _shared, _tenants
from skilldeck.postgres._db import (
    CHANNEL,
    TOKENS_CHANNEL,
    Database,
    enter_tenant,
    token_hash,
)
from skilldeck.postgres._ops import ReplicaMetrics
from skilldeck.postgres._store import PostgresStore, change_mark

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send

    from skilldeck.mcp import SkillServer

__all__ = ["TenantRouter", "run_store_http"]

logger = logging.getLogger("skilldeck.postgres")

TOKEN_CACHE_SECONDS = 30.0
CHECK_SECONDS = 1.0
"""How often a replica compares every served tenant's change mark with the database."""
MAX_BACKOFF = 2.0
"""The longest wait between two attempts of a failing refresh."""
# the bound (one check, a refresh, a retry); /readyz fails while a tenant is behind longer
CONVERGENCE_SECONDS = postgres_api.CONVERGENCE_SECONDS
LISTEN_PROBE_SECONDS = 5.0
"""A listener that heard nothing for this long runs a query to prove it is alive."""
PROBE_TIMEOUT = 3.0
RETRY_AFTER = 2
"""Seconds a ``503`` asks a client to wait (``Retry-After``)."""
TRIM_SECONDS = 10.0
"""After a tenant changed, how often the replica hands freed C heap back to the system
(rebuilding after a publish frees as much as it allocates)."""
HEALTH_PATHS = ("/healthz", "/readyz", "/metrics")


@dataclass
class _Tenant:
    server: SkillServer
    app: Any
    store: PostgresStore
    mark: tuple[int, int, int] | None = None  # read before the last good refresh
    dirty: bool = False
    refreshing: bool = False
    failures: int = 0  # refresh attempts failed in a row
    behind_since: float | None = None  # when it was first known to be behind
    stop: anyio.Event = field(default_factory=anyio.Event)
    active: int = 0  # requests in flight (an open event stream counts)
    last_used: float = field(default_factory=time.monotonic)


class TenantRouter:
    """ASGI app: the bearer token picks the tenant, each tenant has its own server."""

    def __init__(
        self,
        url: str,
        *,
        host: str = "127.0.0.1",
        server_options: dict[str, Any] | None = None,
        max_connections: int = 8,
        listen_url: str | None = None,
    ) -> None:
        self.url = url
        self.listen_url = listen_url or url  # LISTEN needs a session (not a transaction pool)
        self.host = host
        self.db = Database(url, max_connections=max_connections)
        self.options = dict(server_options or {})
        self.checked_at = 0.0  # when the database last answered a change check
        self.listener_up = False
        self.audit_failures = 0
        self.metrics = ReplicaMetrics(self._gauges)
        self._tenants: dict[str, _Tenant] = {}
        self._building: dict[str, anyio.Lock] = {}
        self._tokens: dict[bytes, tuple[str, float]] = {}
        self._inflight: dict[int, tuple[str, str, anyio.CancelScope]] = {}
        self._epoch = 0  # counts token revocations heard
        self._changed = False  # a tenant was refreshed since the C heap was last trimmed
        self._tg: Any = None
        self._running = 0
        self.listening = anyio.Event()

    # -- tenants ---------------------------------------------------------------

    def _build(self, tenant: str) -> _Tenant:
        import skilldeck.events
        from skilldeck.mcp import create_server, http_app
        from skilldeck.postgres import store_catalog

        store = PostgresStore(self.db, tenant)
        mark = store.change_mark()  # what is built below is at least this new
        catalog = store_catalog(store)
        options = dict(self.options)
        allow_exec = bool(options.pop("allow_exec", False))
        executor = None
        if allow_exec:
            executor = _executor(store, _shared.PostgresApprovalStore(self.db, tenant))
        server = create_server(
            catalog,
            allow_exec=allow_exec,
            executor=executor,
            name=f"skilldeck ({tenant})",
            snapshot_cache=False,  # the database is the snapshot; no local per-tenant files
            **options,
        )
        if server.tools is not None:
            search = getattr(server.tools.runtime, "_search", None)
            if search is not None:  # publishes are frequent: searches never wait for them
                search.background = True
                search.terms_store = store  # each version's terms, read once for all replicas
            events = getattr(server.tools.runtime, "events", None)
            if isinstance(events, skilldeck.events.EventBus):
                # fail closed: an event that cannot be committed fails its request
                events.raise_errors = True
                events.subscribe(_AuditSink(self, tenant))
        return _Tenant(server, http_app(server, host=self.host), store, mark)

    async def _tenant(self, tenant: str) -> _Tenant:
        found = self._tenants.get(tenant)
        if found is not None:
            return found
        lock = self._building.setdefault(tenant, anyio.Lock())
        async with lock:
            found = self._tenants.get(tenant)
            if found is not None:
                return found
            entry = await anyio.to_thread.run_sync(self._build, tenant)
            started = anyio.Event()
            self._tg.start_soon(self._keep, entry, started)
            await started.wait()
            self._tenants[tenant] = entry
            return entry

    async def _keep(self, entry: _Tenant, started: anyio.Event) -> None:
        """Run the tenant app's lifespan (its session manager) until shutdown."""
        self._running += 1
        try:
            async with entry.app.router.lifespan_context(entry.app):
                started.set()
                await entry.stop.wait()
        finally:
            self._running -= 1

    async def _resolve(self, token: str) -> str | None:
        key = token_hash(token)
        now = time.monotonic()
        known = self._tokens.get(key)
        if known is not None and known[1] > now:
            return known[0]
        epoch = self._epoch
        tenant = await anyio.to_thread.run_sync(_tenants.tenant_for_token, self.db, token)
        if tenant is not None and epoch == self._epoch:  # no revocation came meanwhile
            if len(self._tokens) > 10_000:
                self._tokens.clear()
            self._tokens[key] = (tenant, now + TOKEN_CACHE_SECONDS)
        return tenant

    @property
    def idle_timeout(self) -> float:
        """Seconds without a request after which a tenant's server is dropped: the
        session timeout, after which its sessions would have expired anyway."""
        return float(self.options.get("session_timeout", 1800.0))

    def reap(self, now: float | None = None) -> list[str]:
        """Drop the servers of tenants idle past ``idle_timeout`` with nothing in flight
        (their memory goes; their next request builds them again). Returns their ids."""
        now = time.monotonic() if now is None else now
        dropped = [
            t
            for t, e in self._tenants.items()
            if e.active == 0 and now - e.last_used > self.idle_timeout
        ]
        for tenant in dropped:
            self._tenants.pop(tenant).stop.set()
        return dropped

    async def _reaper(self) -> None:
        while True:
            await anyio.sleep(min(30.0, max(0.1, self.idle_timeout / 4)))
            for tenant in self.reap():
                logger.info("dropped idle tenant %s", tenant)

    # -- change notifications --------------------------------------------------

    async def refresh(self, tenant: str) -> None:
        """Rescan ``tenant`` and notify its clients (coalesces bursts of publishes); a
        failed attempt is retried with backoff until one succeeds or the tenant is
        dropped, the last good snapshot served meanwhile."""
        entry = self._tenants.get(tenant)
        if entry is None:
            return  # not served here yet: its first request reads the store
        entry.dirty = True
        if entry.behind_since is None:
            entry.behind_since = time.monotonic()
        if entry.refreshing:
            return
        entry.refreshing = True
        try:
            while entry.dirty and self._tenants.get(tenant) is entry:
                entry.dirty = False
                try:
                    mark = await anyio.to_thread.run_sync(entry.store.change_mark)
                    await entry.server.refresh()
                except Exception as exc:
                    entry.dirty = True
                    entry.failures += 1
                    if entry.failures in (1, 3) or entry.failures % 30 == 0:
                        logger.warning(
                            "refresh of tenant %s failed (attempt %d), retrying: %s",
                            tenant,
                            entry.failures,
                            _first_line(exc),
                        )
                    await anyio.sleep(min(MAX_BACKOFF, 0.1 * 2 ** min(entry.failures, 8)))
                    continue
                entry.mark = mark
                entry.failures = 0
                self._changed = True
                if not entry.dirty:
                    entry.behind_since = None
        finally:
            entry.refreshing = False

    def _marks(self, tenants: list[str]) -> dict[str, tuple[int, int, int]]:
        """The change mark of each tenant, on one pooled connection (``SELECT 1`` when
        there are none: the check doubles as the replica's database probe)."""
        marks: dict[str, tuple[int, int, int]] = {}
        with self.db.connection() as conn:
            if not tenants:
                conn.execute("SELECT 1")
            for tenant in tenants:
                with conn.transaction():
                    enter_tenant(conn, tenant)
                    marks[tenant] = change_mark(conn)
        return marks

    async def check_changes(self) -> None:
        """One round of the periodic check: refresh every served tenant whose change
        mark moved since its last good refresh (a missed notification, a refresh that
        could not run)."""
        entries = dict(self._tenants)
        try:
            marks = await anyio.to_thread.run_sync(self._marks, list(entries))
        except Exception as exc:
            if self.checked_at >= 0:
                logger.warning("store change check failed: %s", _first_line(exc))
            self.checked_at = -abs(self.checked_at)  # failing: log once until it answers
            return
        now = time.monotonic()
        self.checked_at = now
        for tenant, entry in entries.items():
            if marks.get(tenant) != entry.mark and self._tenants.get(tenant) is entry:
                if entry.behind_since is None:
                    entry.behind_since = now
                if not entry.refreshing:
                    self._tg.start_soon(self.refresh, tenant)

    async def _watch(self) -> None:
        from skilldeck.postgres._ops import trim_allocator

        trimmed = time.monotonic()
        while True:
            await self.check_changes()
            if self._changed and time.monotonic() - trimmed >= TRIM_SECONDS:
                self._changed = False  # what rebuilds after a change replaced is freed by now
                trimmed = time.monotonic()
                await anyio.to_thread.run_sync(trim_allocator)
            await anyio.sleep(CHECK_SECONDS)

    def ready(self) -> tuple[bool, str]:
        """(ready, why): the database answered the last change check, recently, and
        no served tenant has been behind the database longer than the bound."""
        now = time.monotonic()
        if self.checked_at <= 0 or now - self.checked_at > CONVERGENCE_SECONDS:
            return False, "the store did not answer the last change check"
        late = sorted(
            t
            for t, e in self._tenants.items()
            if e.behind_since is not None and now - e.behind_since > CONVERGENCE_SECONDS
        )
        if late:
            return False, f"{len(late)} tenant(s) behind the store: {', '.join(late[:5])}"
        return True, "ready"

    def _gauges(self) -> Iterator[tuple[str, str, dict[str, str], float]]:
        now = time.monotonic()
        lag = "Seconds a served tenant has been behind the store (0: current)"
        for tenant, entry in list(self._tenants.items()):
            behind = 0.0 if entry.behind_since is None else now - entry.behind_since
            yield "skilldeck_tenant_refresh_lag_seconds", lag, {"tenant": tenant}, behind
            yield (
                "skilldeck_tenant_refresh_failures",
                "Failed refresh attempts of a served tenant in a row",
                {"tenant": tenant},
                float(entry.failures),
            )
        yield (
            "skilldeck_tenants_served",
            "Tenants with a server on this replica",
            {},
            len(self._tenants),
        )
        stats = self.db.pool_stats()
        for key in ("pool_size", "pool_available", "requests_waiting", "pool_max"):
            yield (
                f"skilldeck_pool_{key.removeprefix('pool_')}",
                f"Connection pool: {key.replace('_', ' ')}",
                {},
                float(stats.get(key, 0)),
            )
        yield (
            "skilldeck_pool_connections_lost",
            "Pooled connections found broken since the last scrape",
            {},
            float(stats.get("connections_lost", 0)),
        )
        yield (
            "skilldeck_listener_up",
            "1 while the LISTEN connection is up",
            {},
            float(self.listener_up),
        )
        since = now - self.checked_at if self.checked_at > 0 else -1.0
        yield (
            "skilldeck_store_check_age_seconds",
            "Seconds since the store last answered a change check (-1: never)",
            {},
            since,
        )
        yield (
            "skilldeck_audit_failures",
            "Runtime events that could not be committed (their requests failed)",
            {},
            float(self.audit_failures),
        )

    async def forget_tokens(self, tenant: str | None) -> None:
        """A token of ``tenant`` (``None``: of any tenant) was revoked: drop the cached
        tokens and end the requests in flight whose token is no longer valid."""
        self._epoch += 1  # a lookup that began before this must not be cached
        self._tokens = {k: v for k, v in self._tokens.items() if tenant not in (None, v[0])}
        suspects = [
            (token, scope)
            for t, token, scope in list(self._inflight.values())
            if tenant in (None, t)
        ]
        valid: dict[str, bool] = {}
        for token, scope in suspects:
            if token not in valid:
                try:
                    found = await anyio.to_thread.run_sync(
                        _tenants.tenant_for_token, self.db, token
                    )
                except Exception as exc:
                    logger.warning("token check failed: %s", _first_line(exc))
                    continue  # the cache is gone: the next request asks the database
                valid[token] = found is not None
            if not valid[token]:
                scope.cancel()

    async def _listen(self) -> None:
        import psycopg

        first = True
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.listen_url,
                    autocommit=True,
                    application_name="skilldeck-listen",
                    connect_timeout=5,
                )
            except psycopg.Error as exc:
                logger.warning("store listener cannot connect: %s", _first_line(exc))
                await anyio.sleep(1.0)
                continue
            try:
                await conn.execute(f"LISTEN {CHANNEL}")
                await conn.execute(f"LISTEN {TOKENS_CHANNEL}")
                if not first:  # notifications may have been missed meanwhile
                    self._tg.start_soon(self.forget_tokens, None)
                    for tenant in list(self._tenants):
                        self._tg.start_soon(self.refresh, tenant)
                first = False
                self.listener_up = True
                self.listening.set()
                while True:
                    async for note in conn.notifies(timeout=LISTEN_PROBE_SECONDS):
                        if note.channel == TOKENS_CHANNEL:
                            self._tg.start_soon(self.forget_tokens, note.payload)
                        else:
                            self._tg.start_soon(self.refresh, note.payload)
                    with anyio.fail_after(PROBE_TIMEOUT):  # quiet: still connected?
                        await conn.execute("SELECT 1")
            except (psycopg.Error, TimeoutError) as exc:
                logger.warning(
                    "store listener lost its connection: %s", _first_line(exc) or "no answer"
                )
            finally:
                self.listener_up = False
                with anyio.move_on_after(2.0, shield=True):
                    await conn.close()
            await anyio.sleep(0.5)

    # -- ASGI ------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope.get("path") in HEALTH_PATHS:
            await self._operator(scope, send)
            return
        arrived = time.monotonic()

        async def timed(message: Any) -> None:
            if message.get("type") == "http.response.start":
                self.metrics.observe(int(message.get("status", 0)), time.monotonic() - arrived)
            await send(message)

        await self._handle(scope, receive, timed)

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or ())
        given = headers.get(b"authorization", b"").decode("latin-1")
        scheme, _, token = given.partition(" ")
        tenant = None
        if scheme.lower() == "bearer" and token:
            try:
                tenant = await self._resolve(token.strip())
            except Exception as exc:
                logger.warning("token lookup failed: %s", _first_line(exc))
                await _respond(send, 503, "store unavailable", "try again shortly")
                return
        if tenant is None:
            await _respond(send, 401, "unauthorized", "send Authorization: Bearer <tenant token>")
            return
        try:
            entry = await self._tenant(tenant)
        except ConfigError as exc:  # the store is unreachable or refused: one line, no traceback
            logger.warning("cannot serve tenant %s: %s", tenant, _first_line(exc))
            await _respond(send, 503, "store unavailable", "try again shortly")
            return
        except Exception:
            logger.exception("cannot serve tenant %s", tenant)
            await _respond(send, 503, "store unavailable", "try again shortly")
            return
        entry.active += 1  # no await since _tenant() returned: the reaper cannot interleave
        started = done = False

        async def tracked(message: Any) -> None:
            nonlocal started, done
            started = True
            if message.get("type") == "http.response.body" and not message.get("more_body"):
                done = True
            await send(message)

        with anyio.CancelScope() as cancel:
            self._inflight[id(cancel)] = (tenant, token.strip(), cancel)
            try:
                await entry.app(scope, receive, tracked)
            finally:
                del self._inflight[id(cancel)]
                entry.active -= 1
                entry.last_used = time.monotonic()
        if cancel.cancelled_caught and not done:  # its token was revoked meanwhile
            if started:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            else:
                await _respond(send, 401, "unauthorized", "the token was revoked")

    async def _operator(self, scope: Scope, send: Send) -> None:
        """``/healthz``, ``/readyz`` and ``/metrics`` (no token: keep them off the public
        route)."""
        path = scope.get("path")
        if path == "/metrics":
            body, kind = self.metrics.render()
            headers = [(b"content-type", kind.encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if path == "/healthz":
            ok, why = True, "alive"
        else:
            ok, why = self.ready()
        body = json.dumps({"status": "ok" if ok else "unavailable", "detail": why}).encode()
        headers = [(b"content-type", b"application/json")]
        if not ok:
            headers.append((b"retry-after", str(RETRY_AFTER).encode()))
        status = 200 if ok else 503
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._listen)
            tg.start_soon(self._watch)
            tg.start_soon(self._reaper)
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            for entry in self._tenants.values():
                entry.stop.set()
            with anyio.move_on_after(5):
                while self._running:
                    await anyio.sleep(0.05)
            tg.cancel_scope.cancel()
        self.db.close()
        await send({"type": "lifespan.shutdown.complete"})


def _executor(store: Any, approvals: Any) -> Any:
    """The executor of a tenant's runs: the approved version materialised first."""
    from skilldeck.mcp import elicit_approval
    from skilldeck.postgres._run import StoreExecutor

    return StoreExecutor(store, approver=elicit_approval, approvals=approvals)


class _AuditSink(_shared.PostgresAuditSink):
    """A tenant's audit sink that counts the events it could not commit."""

    def __init__(self, router: TenantRouter, tenant: str) -> None:
        super().__init__(router.db, tenant)
        self.router = router

    def emit(self, event: Any) -> None:
        try:
            super().emit(event)
        except Exception:
            self.router.audit_failures += 1
            raise


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


async def _respond(send: Send, status: int, error: str, hint: str) -> None:
    body = json.dumps({"error": error, "hint": hint}).encode()
    headers = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="skilldeck"'))
    if status == 503:
        headers.append((b"retry-after", str(RETRY_AFTER).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def run_store_http(
    url: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    server_options: dict[str, Any] | None = None,
    log_level: str = "warning",
) -> None:
    """Serve every tenant of the store over streamable HTTP until interrupted."""
    import uvicorn

    from skilldeck.postgres._ops import json_log_config, limit_allocator

    limit_allocator()  # before the threads that would each get a heap of their own
    with Database(url).connection():  # fail early: unreachable store, schema not there
        pass
    listen = os.environ.get("SKILLDECK_STORE_LISTEN") or None  # direct, behind PgBouncer
    router = TenantRouter(url, host=host, server_options=server_options, listen_url=listen)
    config = uvicorn.Config(
        router,
        host=host,
        port=port,
        log_level=log_level,
        lifespan="on",
        log_config=json_log_config(log_level),
    )
    uvicorn.Server(config).run()
