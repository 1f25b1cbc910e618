"""Serving over stdio and streamable HTTP, with the bearer-token rule.

HTTP binds to loopback by default. Binding anywhere else needs a bearer token
(``--token`` or ``SKILLDECK_MCP_TOKEN``); without one ``check_bind`` refuses.
With a token every HTTP request must carry ``Authorization: Bearer <token>``
(compared in constant time) or gets ``401``.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from typing import TYPE_CHECKING, Any

from skilldeck._errors import ConfigError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from skilldeck.mcp._server import SkillServer

__all__ = [
    "TOKEN_ENV",
    "BearerAuth",
    "check_bind",
    "http_app",
    "is_loopback",
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
    runtime sessions of the tool fallback, and are capped at the same number.
    """
    limits: dict[str, Any] = {}
    if server.tools is not None:
        limits = {
            "session_idle_timeout": server.tools.sessions.idle_timeout,
            "max_sessions": server.tools.sessions.max_sessions,
        }
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host, **limits)
    return BearerAuth(app, token) if token else app


def run_http(
    server: SkillServer,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    log_level: str = "warning",
) -> None:
    """Serve streamable HTTP until interrupted (blocking)."""
    import uvicorn

    check_bind(host, token)
    config = uvicorn.Config(
        http_app(server, host=host, token=token), host=host, port=port, log_level=log_level
    )
    uvicorn.Server(config).run()


def run_stdio(server: SkillServer) -> None:
    """Serve one client over stdin/stdout until it disconnects (blocking)."""
    server.run("stdio")
