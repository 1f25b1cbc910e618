"""Serving over streamable HTTP, with the bearer-token rule.

HTTP binds to loopback by default. Binding anywhere else needs a bearer token
(``--token`` or ``SKILLDECK_MCP_TOKEN``); without one ``check_bind`` refuses.
With a token every HTTP request must carry ``Authorization: Bearer <token>``
(compared in constant time) or gets ``401``.

Served on a loopback address (all of ``127.0.0.0/8``, ``localhost`` and
``localhost.``, ``::1`` in any spelling; the only addresses served without a
token), with or without a token, every request must
name a loopback host in ``Host`` (else ``421``) and, when it sends one, a
loopback ``Origin`` (else ``403``): a web page whose DNS name was rebound to
``127.0.0.1`` cannot talk to the server (``rebinding_settings``).
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import json
import logging
import socket
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skilldeck import ConfigError

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from skilldeck.mcp._server import SkillServer

__all__ = [
    "TOKEN_ENV",
    "BearerAuth",
    "SessionLimit",
    "check_bind",
    "http_app",
    "is_loopback",
    "listen",
    "rebinding_settings",
    "run_http",
]

logger = logging.getLogger("skilldeck.mcp")

TOKEN_ENV = "SKILLDECK_MCP_TOKEN"  # noqa: S105  (a variable name, not a secret)
MCP_PATH = "/mcp"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (``127.0.0.0/8``, ``::1``)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_forms(host: str) -> list[str]:
    """How a Host header may name ``host`` (without a port)."""
    bare = host.strip("[]").lower()
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return [bare, bare.rstrip(".") + "."] if bare.rstrip(".") == "localhost" else [bare]
    if address.version == 6:
        forms = {f"[{bare}]", f"[{address.compressed}]", f"[{address.exploded}]"}
        return sorted(forms)
    return [address.compressed]


def rebinding_settings(host: str) -> TransportSecuritySettings:
    """Host/Origin checks for a server reachable without a token (DNS-rebinding protection).

    Allowed: the address served and the usual loopback names (``127.0.0.1``,
    ``localhost``, ``localhost.``, ``[::1]``), each with or without a port.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    names: list[str] = []
    for name in (host, "127.0.0.1", "localhost", "::1"):
        for form in _host_forms(name):
            if form not in names:
                names.append(form)
    hosts = [h for name in names for h in (name, f"{name}:*")]
    origins = [f"{scheme}://{h}" for scheme in ("http", "https") for h in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve HTTP off loopback without a bearer token."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to serve on {host} without a bearer token",
            hint=f"pass --token TOKEN (or set {TOKEN_ENV}), or bind to 127.0.0.1",
        )


class BearerAuth:
    """ASGI middleware: every HTTP request must present ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps(
                    {"error": "unauthorized", "hint": "send Authorization: Bearer <token>"}
                )
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="skilldeck"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body.encode()})
                return
        await self.app(scope, receive, send)


class SessionLimit:
    """ASGI middleware: at most ``max_sessions`` HTTP sessions, the least recently used
    ended when a new one makes one too many.

    The SDK refuses a new session (``503``) while its limit is reached, until one idles
    out: one client that opened that many sessions locked every other client out for
    the idle timeout (30 minutes). Here the SDK's limit is one more, and each session it
    opens ends the least recently used beyond ``max_sessions`` with the protocol's own
    ``DELETE``, sent with the headers of the request that opened it (so it passes the
    same checks). A client whose session ended gets ``404`` and starts a new one.
    """

    def __init__(self, app: ASGIApp, max_sessions: int) -> None:
        self.app = app
        self.max_sessions = max_sessions
        self._used: OrderedDict[str, None] = OrderedDict()  # session ids, least recent first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or ())
        session = headers.get(_SESSION_HEADER, b"").decode("latin-1")
        if session in self._used:
            self._used.move_to_end(session)
        status: list[int] = []
        opened: list[str] = []

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
                given = dict(message.get("headers") or ()).get(_SESSION_HEADER)
                if given and not session and message["status"] < 400:
                    opened.append(given.decode("latin-1"))
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if session and (status == [404] or (scope["method"] == "DELETE" and status == [200])):
                self._used.pop(session, None)  # ended
            for new in opened:
                self._used[new] = None
        if opened:
            await self._evict(scope)

    async def _evict(self, scope: Scope) -> None:
        """End the least recently used sessions beyond ``max_sessions``."""
        while len(self._used) > self.max_sessions:
            oldest = next(iter(self._used))
            headers = [
                (k, v)
                for k, v in scope.get("headers") or ()
                if k in (b"host", b"origin", b"authorization")
            ]
            ending: Scope = {
                **scope,
                "method": "DELETE",
                "headers": [*headers, (_SESSION_HEADER, oldest.encode("latin-1"))],
                "query_string": b"",
            }
            answer: list[int] = []
            await self.app(ending, _no_body, _status_into(answer))
            if answer not in ([200], [404]):  # not ended: keep it rather than loop
                logger.warning("could not end MCP session %s (status %s)", oldest, answer)
                return
            self._used.pop(oldest, None)
            logger.info("MCP session %s ended: more than %d sessions", oldest, self.max_sessions)


_SESSION_HEADER = b"mcp-session-id"


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def _status_into(statuses: list[int]) -> Send:
    """An ASGI ``send`` that keeps only the response's status, in ``statuses``."""

    async def keep(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    return keep


def http_app(server: SkillServer, *, host: str = "127.0.0.1", token: str | None = None) -> Any:
    """The ASGI app serving ``server`` at ``/mcp`` (bearer-protected when ``token`` is set).

    HTTP sessions (``Mcp-Session-Id``) end after the same idle timeout as the
    runtime sessions of the tool fallback, and are capped at the same number. On
    a loopback ``host`` the Host and Origin headers are checked
    (``rebinding_settings``); elsewhere the embedding host's authentication is.
    """
    limits: dict[str, Any] = {}
    if server.tools is not None:
        limits = {
            "session_idle_timeout": server.tools.sessions.idle_timeout,
            # one more: the session that makes one too many ends the least recently used
            "max_sessions": server.tools.sessions.max_sessions + 1,
        }
    if is_loopback(host):  # reachable by any local page: check Host and Origin
        limits["transport_security"] = rebinding_settings(host)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host, **limits)
    if server.tools is not None:  # inside the app: a host runs its lifespan (the store's router)
        app.add_middleware(SessionLimit, max_sessions=server.tools.sessions.max_sessions)
    return BearerAuth(app, token) if token else app


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (as uvicorn binds one), or ``ConfigError`` saying
    why not: uvicorn itself logs the error after the server was announced and exits 3."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except (OSError, OverflowError) as exc:
        sock.close()
        if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
            hint = "another program (a skilldeck serve?) listens there: stop it or pick --port"
        elif isinstance(exc, OSError) and exc.errno == errno.EACCES:
            hint = "ports below 1024 need privileges: pick --port 8000 or another above 1023"
        else:
            hint = "--host must be an address of this machine, --port a number up to 65535"
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"cannot listen on {host}:{port}: {why}", hint=hint) from None
    sock.set_inheritable(True)
    return sock


def run_http(
    server: SkillServer,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    log_level: str = "warning",
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve streamable HTTP until interrupted (blocking). ``on_listening`` gets the
    server's URL once its socket is bound (with the real port when ``port`` is 0).

    SIGTERM (a host or supervisor stopping the server) returns, as over stdio, once
    requests in flight are cancelled and the scripts they run stopped; SIGINT raises
    ``KeyboardInterrupt``. (uvicorn raises the signal again after its shutdown, and
    SIGTERM killed the process with status 143.) Signals are caught only when called
    from the main thread."""
    import signal
    import threading

    import uvicorn

    check_bind(host, token)
    sock = listen(host, port)
    if on_listening is not None:
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        on_listening(f"http://{shown}:{bound}/mcp")
    config = uvicorn.Config(
        http_app(server, host=host, token=token), host=host, port=port, log_level=log_level
    )
    served = uvicorn.Server(config)
    if threading.current_thread() is not threading.main_thread():
        served.run(sockets=[sock])
        return
    # uvicorn catches SIGTERM while it runs and raises it again, with this handler back
    # in place, after its shutdown: the handler lets the call return
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        served.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)
