"""``logging/setLevel``: skilldeck's log records as MCP ``notifications/message``.

A client that sets a level (handshake era: the 2026-07-28 revision removed the
method) receives the records of the ``skilldeck`` loggers at or above it:

- records made while serving one of *its* requests (a skill loaded, a tool's
  list changed, a tool that failed) reach only that client;
- records made outside any request (a catalog rescan) reach the clients of the
  server that made them (``origin``), never those of another server in the same
  process (another tenant of ``serve --store``).

Records are handed from whatever thread logs them to the event loop and sent
without waiting (at most ``_MAX_PENDING`` in flight; beyond that they are
dropped): logging never blocks a request. The ``skilldeck`` logger's level is
lowered while a client asks for more detail than it would record, and restored
when the last such client leaves; meanwhile the process's own handlers keep their
threshold (a filter), so a client's ``setLevel`` never changes what the server
itself logs.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from typing import Any, Final

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp_types import (
    EmptyResult,
    LoggingLevel,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    SetLevelRequestParams,
)

from skilldeck.mcp._sessions import connection_key, connection_of, current_client

__all__ = ["ClientLogs", "origin"]

#: The ``ClientLogs`` of the server whose work is running (set by the server around
#: requests, rescans and its first snapshot): records made outside a request reach
#: only that server's clients.
origin: contextvars.ContextVar[ClientLogs | None] = contextvars.ContextVar(
    "skilldeck_mcp_log_origin", default=None
)

# MCP levels (RFC 5424 names) as Python levels, and back.
LEVELS: Final[dict[str, int]] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": 25,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": 55,
    "emergency": 60,
}
_MAX_PENDING: Final = 256
_SEND_TIMEOUT: Final = 5.0
_ENDS_KEY: Final = "dev.skilldeck/ends-logs"


def _mcp_level(levelno: int) -> LoggingLevel:
    name: LoggingLevel = "debug"
    for candidate, number in LEVELS.items():
        if levelno >= number:
            name = candidate  # type: ignore[assignment]  # keys are LoggingLevel names
    return name


class ClientLogs(logging.Handler):
    """Forwards log records to the clients that asked for them."""

    def __init__(self, logger_name: str = "skilldeck") -> None:
        super().__init__(logging.DEBUG)
        self._logger = logging.getLogger(logger_name)
        self._clients: dict[str, tuple[int, ServerSession]] = {}
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self._saved_level: int | None = None
        self._keep: _Threshold | None = None

    # -- the request handler ------------------------------------------------------

    async def set_level(
        self, ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams
    ) -> EmptyResult:
        """``logging/setLevel``: send this client records at ``params.level`` and above."""
        connection = connection_of(ctx)
        if connection is None:
            return EmptyResult()
        key = connection_key(connection)
        if not connection.state.get(_ENDS_KEY):
            connection.state[_ENDS_KEY] = True
            connection.exit_stack.callback(self.forget, key)
        self._loop = asyncio.get_running_loop()
        with self._lock:
            self._clients[key] = (LEVELS[params.level], ctx.session)
        self._attach()
        return EmptyResult()

    def forget(self, key: str) -> None:
        """Stop sending to client ``key`` (its connection closed)."""
        with self._lock:
            self._clients.pop(key, None)
            empty = not self._clients
        if empty:
            self._detach()

    # -- logging.Handler -------------------------------------------------------------

    def emit(self, record: logging.LogRecord) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        target = current_client.get()
        if target is None and origin.get() is not self:
            return  # another server's (or the process's own) record
        try:
            data = self.format(record)
            loop.call_soon_threadsafe(self._dispatch, target, record.levelno, data, record.name)
        except Exception:  # a closing loop: the record is not deliverable
            return

    def _dispatch(self, target: str | None, levelno: int, data: str, name: str) -> None:
        with self._lock:
            clients = list(self._clients.items())
        level = _mcp_level(levelno)
        for key, (wanted, session) in clients:
            if (target is not None and key != target) or levelno < wanted:
                continue
            if len(self._pending) >= _MAX_PENDING:
                return
            task = asyncio.get_running_loop().create_task(self._send(session, level, data, name))
            self._pending.add(task)
            task.add_done_callback(self._pending.discard)

    async def _send(
        self, session: ServerSession, level: LoggingLevel, data: str, name: str
    ) -> None:
        notification = LoggingMessageNotification(
            params=LoggingMessageNotificationParams(level=level, data=data, logger=name)
        )
        with anyio.move_on_after(_SEND_TIMEOUT):
            try:
                await session.send_notification(notification)
            except Exception:  # a client that went away; its connection clean-up forgets it
                return

    # -- the logger's level -------------------------------------------------------------

    def _attach(self) -> None:
        with self._lock:
            lowest = min((level for level, _ in self._clients.values()), default=logging.WARNING)
        if self not in self._logger.handlers:
            self._saved_level = self._logger.level
            self._keep = _Threshold(self._logger.getEffectiveLevel())
            for handler in _process_handlers(self._logger):
                handler.addFilter(self._keep)
            self._logger.addHandler(self)
        if self._logger.getEffectiveLevel() > lowest:
            self._logger.setLevel(lowest)

    def _detach(self) -> None:
        if self in self._logger.handlers:
            self._logger.removeHandler(self)
            if self._saved_level is not None:
                self._logger.setLevel(self._saved_level)
            self._saved_level = None
            if self._keep is not None:
                for handler in _process_handlers(self._logger):
                    handler.removeFilter(self._keep)
                self._keep = None


class _Threshold(logging.Filter):
    """Keeps a process handler at the level the logger had before a client lowered it."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.name.startswith("skilldeck") or record.levelno >= self.level


def _process_handlers(logger: logging.Logger) -> list[logging.Handler]:
    """The handlers a record of ``logger`` reaches, but the clients' own."""
    out: list[logging.Handler] = []
    current: logging.Logger | None = logger
    while current is not None:
        out += [h for h in current.handlers if not isinstance(h, ClientLogs)]
        current = current.parent if current.propagate else None
    return out
