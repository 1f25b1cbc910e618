"""Approvals: a user's yes for one skill, bound to that skill's content digest.

Stored as JSON in ``dirs().data / "approvals.json"`` (mode 0600), written
atomically under a file lock::

    {"version": 1, "approvals": {"NAME": {"digest": "sha256:...", "trust": "user",
     "path": "/abs/skill/folder", "approved_at": "2026-01-01T00:00:00Z"}}}

An approval counts only while the skill's digest (every file of the folder, see
``skilldeck._digest``) equals the stored one; any edit voids it. The store is a
small protocol (``ApprovalStore``, in ``_types``) so a host can keep approvals elsewhere.

When installed content is replaced or removed, distribution calls
:func:`revoke_lapsed`, which deletes an approval granted for exactly that content.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from skilldeck._atomic import atomic_write_text, file_lock
from skilldeck._errors import ConfigError
from skilldeck._frozen import field_names, value
from skilldeck._json import loads
from skilldeck._paths import dirs
from skilldeck._statedir import read_state_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from skilldeck.execution._types import ApprovalStore

__all__ = [
    "Approval",
    "FileApprovalStore",
    "MemoryApprovalStore",
    "revoke_lapsed",
]


_MAX_BYTES = 16 << 20


@value
class Approval:
    """A stored approval."""

    name: str
    digest: str
    trust: str | None = None
    path: str | None = None
    approved_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in field_names(Approval)}


def _now() -> str:
    from datetime import UTC, datetime  # only when granting: a run that reads approvals skips it

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class MemoryApprovalStore:
    """Approvals kept in memory (tests, one-off sessions)."""

    def __init__(self) -> None:
        self._items: dict[str, Approval] = {}

    def get(self, name: str) -> Approval | None:
        return self._items.get(name)

    def grant(
        self, name: str, digest: str, *, trust: str | None = None, path: str | None = None
    ) -> Approval:
        approval = Approval(name, digest, trust, path, _now())
        self._items[name] = approval
        return approval

    def revoke(self, name: str) -> bool:
        return self._items.pop(name, None) is not None

    def list(self) -> list[Approval]:
        return sorted(self._items.values(), key=lambda a: a.name)


class FileApprovalStore:
    """Approvals in a JSON file (default ``dirs().data / "approvals.json"``)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else dirs().data / "approvals.json"

    def _read(self) -> dict[str, Approval]:
        raw = read_state_file(self.path, max_bytes=_MAX_BYTES)  # owner and mode checked
        if raw is None:
            return {}
        try:
            data = loads(raw.decode("utf-8"))
            items = data["approvals"]
            return {
                name: Approval(
                    name,
                    str(entry["digest"]),
                    entry.get("trust"),
                    entry.get("path"),
                    entry.get("approved_at"),
                )
                for name, entry in items.items()
            }
        except (ValueError, KeyError, TypeError, AttributeError):  # UnicodeError is a ValueError
            raise ConfigError(
                f"the approvals file {self.path} is damaged",
                path=self.path,
                hint="fix or delete it; deleting it only means skills are asked about again",
            ) from None

    def _write(self, items: dict[str, Approval]) -> None:
        payload = {
            "version": 1,
            "approvals": {
                name: {k: v for k, v in a.to_dict().items() if k != "name" and v is not None}
                for name, a in sorted(items.items())
            },
        }
        atomic_write_text(self.path, json.dumps(payload, indent=2) + "\n", mode=0o600)

    def get(self, name: str) -> Approval | None:
        return self._read().get(name)

    def grant(
        self, name: str, digest: str, *, trust: str | None = None, path: str | None = None
    ) -> Approval:
        approval = Approval(name, digest, trust, path, _now())
        with file_lock(self.path):
            items = self._read()
            items[name] = approval
            self._write(items)
        return approval

    def revoke(self, name: str) -> bool:
        with file_lock(self.path):
            items = self._read()
            if items.pop(name, None) is None:
                return False
            self._write(items)
        return True

    def list(self) -> list[Approval]:
        return sorted(self._read().values(), key=lambda a: a.name)


def revoke_lapsed(skill: str, digest: str, *, store: ApprovalStore | None = None) -> bool:
    """Delete the stored approval of ``skill`` if it was granted for ``digest``.

    That content was replaced or removed, and approvals are bound to the content
    digest, so such an approval has already lapsed; deleting it keeps the store
    honest. An approval for other content (a same-named skill elsewhere) is left
    alone. Returns True when an approval was deleted.
    """
    approvals = store if store is not None else FileApprovalStore()
    current = approvals.get(skill)
    if current is None or current.digest != digest:
        return False
    return approvals.revoke(skill)
