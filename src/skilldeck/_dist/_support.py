"""Calls into other layers, kept in one place: validation, events, approvals."""

from __future__ import annotations

import contextlib
import importlib
from pathlib import Path
from typing import Any

from skilldeck._events import Event, EventSink, SinkLike
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


def revoke_approvals(name: str, path: Path) -> bool:
    """Drop the script approvals of a skill whose content changed.

    Approvals are bound to the content digest, so a changed skill's old
    approvals no longer match; this also deletes them from the store when the
    execution layer offers ``revoke_skill_approvals``. Returns True when it did.
    """
    try:
        mod: Any = importlib.import_module("skilldeck._exec")
    except ImportError:
        return False
    revoke = getattr(mod, "revoke_skill_approvals", None)
    if not callable(revoke):
        return False
    with contextlib.suppress(Exception):
        revoke(name)
        return True
    return False
