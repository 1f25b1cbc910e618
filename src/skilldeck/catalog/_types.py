"""The catalog's names that are for type checkers first: the ``Store`` protocol and
the ``IndexMode`` alias.

Both need ``typing``, which costs every command's start-up, so the modules a run or
a listing imports name them under ``TYPE_CHECKING`` only; this module is imported
when a program asks for them (``skilldeck.Store``, ``skilldeck.catalog.IndexMode``).
"""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from skilldeck.catalog._store import DEFAULT_FILE_LIMIT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.catalog._loaded import Skill
    from skilldeck.catalog._model import SkillMetadata

__all__ = ["IndexMode", "Store"]

IndexMode = Literal["bundled", "all"]
"""Which files of a skill its file index lists (``_fileset``)."""


@runtime_checkable
class Store(Protocol):
    """Where skills come from: the three methods a host's store must have.

    ``name`` may also be a ``key`` from ``list_skills``. Errors are skilldeck's
    (``SkillNotFoundError``, ``FileNotFoundInSkillError``, ``PathNotAllowedError``,
    ``FileTooLargeError``). Everything else the catalog needs (discovery with
    diagnostics, the file list, content digests, SKILL.md's bytes) has a default
    in :class:`StoreBase`, computed from these three; a store that can do better
    subclasses it and overrides what it knows.
    """

    def list_skills(self) -> list[SkillMetadata]:
        """Metadata of every valid skill, from a bounded read of each SKILL.md."""
        ...

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> Skill:
        """One skill with its body (at most ``max_bytes`` of SKILL.md) and file index."""
        ...

    def read_file(self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT) -> bytes:
        """One bundled file; ``FileTooLargeError`` when it exceeds ``max_bytes``."""
        ...
