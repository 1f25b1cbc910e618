"""Calls into other layers, kept in one place: validation, events, approvals."""

from __future__ import annotations

from pathlib import Path

from skilldeck._events import Event, EventSink, SinkLike
from skilldeck._exec import ApprovalStore, FileApprovalStore
from skilldeck._format import ValidationReport, validate_skill

__all__ = ["emit", "revoke_approvals", "validate"]


def validate(path: Path) -> ValidationReport:
    """Lenient validation (the catalog's default): errors block, warnings are shown."""
    return validate_skill(path)


def emit(sink: SinkLike | None, event: Event) -> None:
    """Deliver ``event`` to an optional sink (a callable, or anything with ``emit``)."""
    if sink is None:
        return
    if isinstance(sink, EventSink):
        sink.emit(event)
    else:
        sink(event)


def revoke_approvals(name: str, old_digest: str, *, store: ApprovalStore | None = None) -> bool:
    """Delete a skill's stored script approval if it was granted for ``old_digest``.

    Called when that content is replaced or removed. Approvals are bound to the
    content digest, so such an approval has already lapsed; deleting it keeps
    the store honest. An approval for other content (a same-named skill
    elsewhere) is left alone. Returns True when an approval was deleted.
    """
    approvals = store if store is not None else FileApprovalStore()
    current = approvals.get(name)
    if current is None or current.digest != old_digest:
        return False
    return approvals.revoke(name)
