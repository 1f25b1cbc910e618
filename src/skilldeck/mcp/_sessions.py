"""One runtime session per MCP client: which client a request comes from, and its state.

A client is what the protocol calls one session:

- a handshake-era connection (``initialize``): one stdio pipe, or one
  ``Mcp-Session-Id`` over streamable HTTP; the session ends with the connection;
- a 2026-07-28 connection over a duplex stream (stdio): one pipe, whatever the
  per-request envelopes say;
- a 2026-07-28 request without a connection (streamable HTTP, in-process): the
  protocol keeps no session, so the request is answered statelessly unless it
  echoes a *session handle* (``_meta["dev.skilldeck/session"]``) that this server
  gave out. A ``tools/call`` that leaves state behind (a loaded skill) returns a
  fresh handle in its result's ``_meta``; a client that never echoes it stays
  stateless. Handles are 128-bit random strings, usable only by whoever got them.

Sessions expire after ``idle_timeout`` seconds without a request, and at most
``max_sessions`` are kept (the least recently used goes first). Each holds only
a ``skilldeck.Session`` and a few fields, so 1,000 clients cost little memory.
"""

from __future__ import annotations

import contextvars
import logging
import secrets
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

if TYPE_CHECKING:  # the runtime is loaded when a client first needs its tools
    from skilldeck import Session

__all__ = [
    "DEFAULT_IDLE_TIMEOUT",
    "DEFAULT_MAX_SESSIONS",
    "HANDLE_META_KEY",
    "ClientSession",
    "ClientSessions",
    "connection_key",
    "connection_of",
    "current_client",
]

logger = logging.getLogger("skilldeck.mcp")

HANDLE_META_KEY: Final = "dev.skilldeck/session"
DEFAULT_IDLE_TIMEOUT: Final = 30 * 60.0
DEFAULT_MAX_SESSIONS: Final = 1000
_STATE_KEY: Final = "dev.skilldeck/client"
_ENDS_KEY: Final = "dev.skilldeck/ends-session"

# The client of the request being handled (set by the server middleware), so code
# the SDK calls without a context, such as the subscription bus, can tell who asks.
current_client: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "skilldeck_mcp_client", default=None
)


@dataclass(slots=True, eq=False)
class ClientSession:
    """One client's state: its runtime session and what it was last told."""

    key: str
    session: Session
    last_used: float
    listed: tuple[str, ...] | None = None  # tool names of the last tools/list answer
    log_level: str | None = None  # set by logging/setLevel (handshake era)
    extra: dict[str, Any] = field(default_factory=dict)


class ClientSessions:
    """The runtime sessions of connected clients, bounded in number and idle time."""

    def __init__(
        self,
        make: Callable[[], Session],
        *,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if idle_timeout <= 0 or max_sessions < 1:
            raise ValueError("idle_timeout and max_sessions must be positive")
        self._make = make
        self.idle_timeout = idle_timeout
        self.max_sessions = max_sessions
        self._clock = clock
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, ClientSession] = OrderedDict()  # oldest use first
        self._streams: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    # -- who is asking --------------------------------------------------------------

    def key_for(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        """The client key of this request, or ``None`` for a session-less request."""
        connection = connection_of(ctx)
        if connection is None:
            return None
        if connection.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            key = connection_key(connection)
            if not connection.state.get(_ENDS_KEY):
                connection.state[_ENDS_KEY] = True
                # the session ends with the connection (stdio EOF, HTTP DELETE or idle)
                connection.exit_stack.callback(self.drop, key)
            return key
        if connection.has_standalone_channel:  # a 2026-07-28 duplex stream (stdio)
            outbound = connection.outbound
            with self._lock:
                pipe = self._streams.get(outbound)
                if pipe is None:
                    pipe = "pipe:" + secrets.token_hex(8)
                    self._streams[outbound] = pipe
                    weakref.finalize(outbound, self.drop, pipe)
            return pipe
        handle = _handle_of(ctx.params)
        if handle is not None and self.lookup(handle) is not None:
            return handle
        return None

    # -- the registry ----------------------------------------------------------------

    def get(self, key: str) -> ClientSession:
        """The session of client ``key``, made on first use; marks it used now."""
        now = self._clock()
        with self._lock:
            self._sweep(now)
            client = self._sessions.get(key)
            if client is None:
                client = ClientSession(key, self._make(), now)
                self._sessions[key] = client
                while len(self._sessions) > self.max_sessions:
                    old, _ = self._sessions.popitem(last=False)
                    logger.info("session %s dropped: more than %d sessions", old, self.max_sessions)
            else:
                client.last_used = now
                self._sessions.move_to_end(key)
            return client

    def lookup(self, key: str) -> ClientSession | None:
        """The live session of ``key`` without creating or touching it."""
        now = self._clock()
        with self._lock:
            self._sweep(now)
            return self._sessions.get(key)

    def adopt(self, session: Session) -> ClientSession:
        """Keep a session made for a session-less request under a new handle."""
        handle = "h-" + secrets.token_urlsafe(16)
        now = self._clock()
        with self._lock:
            self._sweep(now)
            client = ClientSession(handle, session, now)
            self._sessions[handle] = client
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)
            return client

    def fresh(self) -> Session:
        """A runtime session for one session-less request."""
        return self._make()

    def drop(self, key: str) -> None:
        with self._lock:
            self._sessions.pop(key, None)

    def sweep(self) -> int:
        """Forget sessions idle for longer than the timeout; returns how many are left."""
        with self._lock:
            self._sweep(self._clock())
            return len(self._sessions)

    def _sweep(self, now: float) -> None:
        limit = now - self.idle_timeout
        while self._sessions:
            key, client = next(iter(self._sessions.items()))
            if client.last_used > limit:
                return
            del self._sessions[key]


def connection_key(connection: Any) -> str:
    """The client key of a handshake-era connection (kept in its per-connection state)."""
    key = connection.state.get(_STATE_KEY)
    if key is None:
        key = "conn:" + secrets.token_hex(8)
        connection.state[_STATE_KEY] = key
    return str(key)


def connection_of(ctx: ServerRequestContext[Any, Any]) -> Any:
    """The SDK connection a request arrived on.

    ``ServerSession`` keeps it private in ``mcp`` 2.3 (the SDK's newer ``Context``
    exposes it as ``.connection``); it is the only per-client identity the SDK has.
    """
    session = ctx.session
    return getattr(session, "connection", None) or getattr(session, "_connection", None)


def _handle_of(params: Mapping[str, Any] | None) -> str | None:
    meta = (params or {}).get("_meta")
    if isinstance(meta, Mapping):
        handle = meta.get(HANDLE_META_KEY)
        if isinstance(handle, str) and handle.startswith("h-") and len(handle) < 64:
            return handle
    return None
