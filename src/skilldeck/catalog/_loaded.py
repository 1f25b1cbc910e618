"""What a load or a read gives: a loaded skill and one bundled file's bytes.

Kept apart from the values a listing makes (``_model``): a listing loads and reads
nothing, so it does not build these classes either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from skilldeck._errors import FileTooLargeError
from skilldeck.catalog._model import ByMetadata, SkillMetadata

if TYPE_CHECKING:
    from skilldeck._diagnostics import Diagnostic
    from skilldeck.format import Manifest

__all__ = ["FileData", "Skill"]


@dataclass(frozen=True, slots=True)
class Skill(ByMetadata):
    """A loaded skill: metadata, manifest, body and bundled-file index."""

    metadata: SkillMetadata
    manifest: Manifest | None
    body: str
    body_truncated: bool = False
    files: tuple[str, ...] = ()
    body_line: int = 1
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class FileData:
    """The bytes of one bundled file (``truncated``: a prefix of ``size`` bytes)."""

    relpath: str
    data: bytes
    size: int
    truncated: bool = False

    @classmethod
    def of(
        cls, data: bytes, relpath: str, *, max_bytes: int, truncate: bool, skill: str
    ) -> FileData:
        """``data`` as read within ``max_bytes``: whole, cut (``truncate``) or
        ``FileTooLargeError``. Every store's reads answer through this."""
        if len(data) <= max_bytes:
            return cls(relpath, data, len(data))
        if truncate:
            return cls(relpath, data[:max_bytes], len(data), True)
        raise FileTooLargeError(
            f"{relpath} is {len(data)} bytes, over the {max_bytes}-byte limit",
            skill=skill,
            hint="ask for a smaller file or raise max_bytes",
            size=len(data),
            limit=max_bytes,
        )
