"""The execution package's protocols, for type checkers first: ``ApprovalStore``
(where approvals live), ``SkillLike`` (what the executor reads of a skill) and
``ManifestLike`` (the manifest fields a run reads).

``typing`` costs every command's start-up, so the modules a run imports name these
under ``TYPE_CHECKING`` only; this module is imported when a program asks for them
(``skilldeck.execution.ApprovalStore``).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.execution._approvals import Approval

__all__ = ["ApprovalStore", "ManifestLike", "SkillLike"]


@runtime_checkable
class ApprovalStore(Protocol):
    """Where approvals live. ``get`` returns the stored approval whatever its digest."""

    def get(self, name: str) -> Approval | None: ...

    def grant(
        self, name: str, digest: str, *, trust: str | None = None, path: str | None = None
    ) -> Approval: ...

    def revoke(self, name: str) -> bool: ...

    def list(self) -> list[Approval]: ...


class SkillLike(Protocol):
    """What the executor needs from a skill: a name, its folder and its manifest."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Any: ...
    @property
    def manifest(self) -> Any: ...


class ManifestLike(Protocol):
    """The manifest fields execution reads (``skilldeck.Manifest`` has them all)."""

    @property
    def timeout(self) -> int | None: ...
    @property
    def network(self) -> bool: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def always_ask(self) -> bool: ...
    @property
    def modes(self) -> tuple[str, ...] | None: ...
