"""Serving over stdio and streamable HTTP, with the bearer-token rule.

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
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skilldeck import ConfigError

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.types import ASGIApp, Receive, Scope, Send

    from skilldeck.mcp._server import SkillServer

__all__ = [
    "TOKEN_ENV",
    "BearerAuth",
    "check_bind",
    "http_app",
    "is_loopback",
    "listen",
    "rebinding_settings",
    "run_http",
    "run_stdio",
]

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
            "max_sessions": server.tools.sessions.max_sessions,
        }
    if is_loopback(host):  # reachable by any local page: check Host and Origin
        limits["transport_security"] = rebinding_settings(host)
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host, **limits)
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
    server's URL once its socket is bound (with the real port when ``port`` is 0)."""
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
    uvicorn.Server(config).run(sockets=[sock])


def run_stdio(server: SkillServer) -> None:
    """Serve one client over stdin/stdout until it disconnects (blocking).

    A request line the SDK's parser refuses (a lone surrogate such as ``"\\ud800"``,
    which JavaScript clients send, or nesting past its limit) is answered with a
    ``-32700`` error for its id: the SDK drops such lines, so the client waited for
    a reply that never came. (Over HTTP the SDK answers them with a 400.)

    When stdin ends, every request read before it is still answered (for at most
    ``DRAIN_SECONDS``) before the server exits: a client that writes its requests
    and closes its end (``printf ... | skilldeck serve``) got only the replies that
    happened to be ready when the end of input was read, and waited for the rest.
    """
    import anyio

    anyio.run(_serve_stdio, server)


DRAIN_SECONDS = 30.0


async def _serve_stdio(server: SkillServer) -> None:
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

    lowlevel = server._lowlevel_server
    async with stdio_server() as (read, write):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        replies, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
        unanswered: set[str] = set()  # ids of requests read and not yet answered
        answered = [anyio.Event()]  # set (and replaced) whenever a reply goes out

        async def pump() -> None:
            async with send:
                async for item in read:
                    reply = _unparsable_reply(item) if isinstance(item, Exception) else None
                    if reply is not None:
                        await write.send(SessionMessage(reply))
                        continue
                    if isinstance(item, SessionMessage) and isinstance(
                        item.message, JSONRPCRequest
                    ):
                        unanswered.add(repr(item.message.id))
                    await send.send(item)
                with anyio.move_on_after(DRAIN_SECONDS):  # stdin ended: answer what was asked
                    while unanswered:
                        await answered[0].wait()

        async def forward() -> None:
            async with outgoing, write:
                async for message in outgoing:
                    await write.send(message)
                    if isinstance(message.message, JSONRPCResponse | JSONRPCError):
                        unanswered.discard(repr(message.message.id))
                        answered[0].set()
                        answered[0] = anyio.Event()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(pump)
            tasks.start_soon(forward)
            async with replies:
                await lowlevel.run(receive, replies, lowlevel.create_initialization_options())


def _unparsable_reply(error: Exception) -> Any:
    """The ``-32700`` reply to a request line the SDK could not parse, or ``None``
    (not a request: a notification or a response needs no reply)."""
    from mcp.types import ErrorData, JSONRPCError
    from pydantic import ValidationError

    if not isinstance(error, ValidationError) or not error.errors():
        return None
    first = error.errors()[0]
    raw = first.get("input")
    if not isinstance(raw, str):
        return None
    try:  # Python's parser reads what the SDK's refuses, lone surrogates included
        message = json.loads(raw)
    except (ValueError, RecursionError):
        message = None
    if isinstance(message, dict):
        if "method" not in message or "id" not in message:
            return None
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            request_id = None
    else:
        request_id = None  # JSON-RPC: the id could not be read, so the reply's is null
    data = {
        "code": "INVALID_ARGUMENTS",
        "hint": "send UTF-8 JSON without lone surrogates (\\ud800-\\udfff) and without "
        "deep nesting",
    }
    text = str(first.get("msg") or "invalid JSON")
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=-32700, message=text, data=data)
    )
