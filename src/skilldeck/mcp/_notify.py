"""Change notifications: the catalog changed on disk, clients hear about it.

Two eras, one call. Clients on protocol 2026-07-28 open a ``subscriptions/listen``
stream; the SDK's subscription bus delivers ``notifications/resources/list_changed``
(and ``notifications/resources/updated`` for the URIs a stream subscribed to).
Clients that connected with the ``initialize`` handshake get the same
notifications on their session's standalone channel; a small middleware records
those sessions when they finish the handshake and advertises ``listChanged``.

``ClientBus`` is the subscription bus: besides catalog-wide events it can
deliver an event to one client's listen streams only (``publish_to``), which is
how a client that loaded a skill hears ``tools/list_changed`` and no one else does.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import anyio
import anyio.lowlevel
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import (
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from skilldeck.mcp._sessions import current_client

__all__ = ["ChangeNotifier", "ClientBus"]

logger = logging.getLogger("skilldeck.mcp")

_MAX_LEGACY_SESSIONS = 256
_MAX_UPDATED_EVENTS = 2048
_SEND_TIMEOUT = 5.0


class ClientBus:
    """An in-process ``SubscriptionBus`` whose listeners know which client opened them.

    The listen handler subscribes while serving the client's ``subscriptions/listen``
    request, inside the server middleware that sets ``current_client``; the
    listener is filed under that client.
    """

    def __init__(self) -> None:
        self._listeners: dict[object, tuple[str | None, Callable[[ServerEvent], None]]] = {}

    async def publish(self, event: ServerEvent) -> None:
        """Deliver ``event`` to every listener."""
        self._deliver(event, lambda _client: True)
        await anyio.lowlevel.checkpoint()

    async def publish_to(self, client: str, event: ServerEvent) -> None:
        """Deliver ``event`` only to the listen streams opened by ``client``."""
        self._deliver(event, lambda owner: owner == client)
        await anyio.lowlevel.checkpoint()

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        token = object()
        self._listeners[token] = (current_client.get(), listener)

        def unsubscribe() -> None:
            self._listeners.pop(token, None)

        return unsubscribe

    def _deliver(self, event: ServerEvent, wanted: Callable[[str | None], bool]) -> None:
        for owner, listener in list(self._listeners.values()):
            if not wanted(owner):
                continue
            try:
                listener(event)
            except Exception:  # one bad listener must not starve the others
                logger.exception("subscription listener raised; continuing")


class ChangeNotifier:
    """Publishes catalog changes to every connected client, whatever its protocol era."""

    def __init__(
        self,
        bus: ClientBus | None = None,
        *,
        extensions: dict[str, dict[str, Any]] | None = None,
        tools: bool = False,
    ) -> None:
        self.bus = bus if bus is not None else ClientBus()
        self._tools = tools
        self.extensions = extensions or {}
        # Handshake-era sessions, newest last; bounded because a closed session
        # cannot be detected (sends to it are silently dropped by the SDK).
        self._sessions: deque[ServerSession] = deque(maxlen=_MAX_LEGACY_SESSIONS)

    async def middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Server middleware: advertise ``listChanged`` and remember handshake-era sessions."""
        result = await call_next(ctx)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return result
        if ctx.method == "initialize" and isinstance(result, dict):
            caps = result.get("capabilities")
            if isinstance(caps, dict):
                if isinstance(caps.get("resources"), dict):
                    caps["resources"] = {**caps["resources"], "listChanged": True}
                if self._tools and isinstance(caps.get("tools"), dict):
                    caps["tools"] = {**caps["tools"], "listChanged": True}
                # The 2025-11-25 result sieve drops ``extensions``; SEP-2133 clients
                # of that era still look for them there.
                if self.extensions:
                    caps["extensions"] = {**caps.get("extensions", {}), **self.extensions}
        elif ctx.method == "notifications/initialized" and ctx.request_id is None:
            self._sessions.append(ctx.session)
        return result

    async def publish(self, changed_uris: Iterable[str]) -> None:
        """Tell every client the resource list changed, and which files did."""
        uris = sorted(set(changed_uris))
        await self.bus.publish(ResourcesListChanged())
        for uri in uris[:_MAX_UPDATED_EVENTS]:
            await self.bus.publish(ResourceUpdated(uri=uri))
        for session in list(self._sessions):
            with anyio.move_on_after(_SEND_TIMEOUT):
                try:
                    await session.send_resource_list_changed()
                except Exception:  # a dead session must not stop the others
                    logger.debug("dropping a session that cannot be notified", exc_info=True)
                    self._discard(session)

    def _discard(self, session: ServerSession) -> None:
        try:
            self._sessions.remove(session)
        except ValueError:
            pass
