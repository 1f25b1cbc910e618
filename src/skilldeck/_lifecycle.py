"""In-process notices between layers that must not import each other.

Distribution (``skilldeck._dist``) replaces and removes installed skill content;
the execution layer keeps script approvals bound to that content's digest.
Rather than distribution calling into execution, it announces the retired
content here (:func:`announce_retired`) and every subscriber acts on it: the
approval store, which subscribes when ``skilldeck._exec`` is imported, deletes
an approval granted for exactly that digest. The public ``skilldeck.dist``
facade imports the execution layer, so an install, update or removal made
through the public API always reaches the approval store.

These notices are not audit events: they never reach a host's event sink, and a
subscriber's exception propagates to the operation that announced the content
(as a direct call would).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ContentRetired", "RetiredHandler", "announce_retired", "on_retired"]


@dataclass(frozen=True, slots=True)
class ContentRetired:
    """The content of installed skill ``skill`` with digest ``digest`` was replaced or removed."""

    skill: str
    digest: str


RetiredHandler = Callable[[ContentRetired], bool]
"""A subscriber: returns True when it acted on the notice (an approval was deleted)."""

_handlers: list[RetiredHandler] = []
_lock = threading.Lock()


def on_retired(handler: RetiredHandler) -> Callable[[], None]:
    """Subscribe ``handler`` to retired content; returns a function that unsubscribes it."""
    with _lock:
        if handler not in _handlers:
            _handlers.append(handler)

    def unsubscribe() -> None:
        with _lock, contextlib.suppress(ValueError):
            _handlers.remove(handler)

    return unsubscribe


def announce_retired(skill: str, digest: str) -> bool:
    """Tell every subscriber that ``skill``'s content ``digest`` is gone.

    Every subscriber is called, in subscription order. Returns True when any of
    them acted on it.
    """
    with _lock:
        handlers = tuple(_handlers)
    notice = ContentRetired(skill, digest)
    acted = [handler(notice) for handler in handlers]
    return any(acted)
