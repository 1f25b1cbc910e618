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

A listener connection per replica runs ``LISTEN skilldeck_changes``; a publish
notifies at commit, and the replica rescans that tenant (one cheap query, then
only the new version's rows) and sends ``notifications/resources/list_changed``
to that tenant's clients. After losing the listener connection the replica
reconnects, rescans every tenant it serves and checks every token again, so a
missed notification costs one rescan, never a stale listing or a revoked token
honoured past the cache's lifetime.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from skilldeck.postgres import _shared, _tenants
from skilldeck.postgres._db import CHANNEL, TOKENS_CHANNEL, Database, token_hash

if TYPE_CHECKING:
    from starlette.types import Receive, Scope, Send

    from skilldeck.mcp import SkillServer

__all__ = ["TenantRouter", "run_store_http"]

logger = logging.getLogger("skilldeck.postgres")

TOKEN_CACHE_SECONDS = 30.0


@dataclass
class _Tenant:
    server: SkillServer
    app: Any
    dirty: bool = False
    refreshing: bool = False
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
    ) -> None:
        self.url = url
        self.host = host
        self.db = Database(url, max_connections=max_connections)
        self.options = dict(server_options or {})
        self._tenants: dict[str, _Tenant] = {}
        self._building: dict[str, anyio.Lock] = {}
        self._tokens: dict[bytes, tuple[str, float]] = {}
        self._inflight: dict[int, tuple[str, str, anyio.CancelScope]] = {}
        self._epoch = 0  # counts token revocations heard
        self._tg: Any = None
        self._running = 0
        self.listening = anyio.Event()

    # -- tenants ---------------------------------------------------------------

    def _build(self, tenant: str) -> tuple[SkillServer, Any]:
        import skilldeck.events
        from skilldeck.mcp import create_server, http_app
        from skilldeck.postgres import PostgresStore, store_catalog

        store = PostgresStore(self.db, tenant)
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
            events = getattr(server.tools.runtime, "events", None)
            if isinstance(events, skilldeck.events.EventBus):
                events.subscribe(_shared.PostgresAuditSink(self.db, tenant))
        return server, http_app(server, host=self.host)

    async def _tenant(self, tenant: str) -> _Tenant:
        found = self._tenants.get(tenant)
        if found is not None:
            return found
        lock = self._building.setdefault(tenant, anyio.Lock())
        async with lock:
            found = self._tenants.get(tenant)
            if found is not None:
                return found
            server, app = await anyio.to_thread.run_sync(self._build, tenant)
            entry = _Tenant(server, app)
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
        """Rescan ``tenant`` and notify its clients (coalesces bursts of publishes)."""
        entry = self._tenants.get(tenant)
        if entry is None:
            return  # not served here yet: its first request reads the store
        entry.dirty = True
        if entry.refreshing:
            return
        entry.refreshing = True
        try:
            while entry.dirty:
                entry.dirty = False
                try:
                    await entry.server.refresh()
                except Exception:  # keep serving the last good snapshot
                    logger.exception("refresh of tenant %s failed", tenant)
        finally:
            entry.refreshing = False

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
                except Exception:
                    logger.exception("token check failed")
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
                    self.url, autocommit=True, application_name="skilldeck-listen"
                )
            except psycopg.Error as exc:
                logger.warning("store listener cannot connect: %s", exc)
                await anyio.sleep(1.0)
                continue
            try:
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    await conn.execute(f"LISTEN {TOKENS_CHANNEL}")
                    if not first:  # notifications may have been missed meanwhile
                        self._tg.start_soon(self.forget_tokens, None)
                        for tenant in list(self._tenants):
                            self._tg.start_soon(self.refresh, tenant)
                    first = False
                    self.listening.set()
                    async for note in conn.notifies():
                        if note.channel == TOKENS_CHANNEL:
                            self._tg.start_soon(self.forget_tokens, note.payload)
                        else:
                            self._tg.start_soon(self.refresh, note.payload)
            except psycopg.Error as exc:
                logger.warning("store listener lost its connection: %s", exc)
                await anyio.sleep(0.5)

    # -- ASGI ------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        headers = dict(scope.get("headers") or ())
        given = headers.get(b"authorization", b"").decode("latin-1")
        scheme, _, token = given.partition(" ")
        tenant = None
        if scheme.lower() == "bearer" and token:
            try:
                tenant = await self._resolve(token.strip())
            except Exception:
                logger.exception("token lookup failed")
                await _respond(send, 503, "store unavailable", "try again shortly")
                return
        if tenant is None:
            await _respond(send, 401, "unauthorized", "send Authorization: Bearer <tenant token>")
            return
        try:
            entry = await self._tenant(tenant)
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

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        async with anyio.create_task_group() as tg:
            self._tg = tg
            tg.start_soon(self._listen)
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
    from skilldeck.mcp import _elicit
    from skilldeck.postgres._run import StoreExecutor

    return StoreExecutor(store, approver=_elicit.approve, approvals=approvals)


async def _respond(send: Send, status: int, error: str, hint: str) -> None:
    import json

    body = json.dumps({"error": error, "hint": hint}).encode()
    headers = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="skilldeck"'))
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

    with Database(url).connection():  # fail early: unreachable store, schema not there
        pass
    router = TenantRouter(url, host=host, server_options=server_options)
    config = uvicorn.Config(router, host=host, port=port, log_level=log_level, lifespan="on")
    uvicorn.Server(config).run()
