"""The in-memory store: skills held as SKILL.md text plus a mapping of bundled files
(inline skills and tests)."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from skilldeck._errors import (
    ManifestError,
    PathNotAllowedError,
    SkillNotFoundError,
)
from skilldeck._paths import safe_relpath
from skilldeck.catalog._fileset import check_read, index_of, linked_of
from skilldeck.catalog._loaded import FileData, Skill
from skilldeck.catalog._model import SkillMetadata
from skilldeck.catalog._store import DEFAULT_FILE_LIMIT, Discovery, StoreBase, bundled_relpath

if TYPE_CHECKING:
    from skilldeck.catalog._types import IndexMode
    from skilldeck.format import ParsedSkillMd

__all__ = ["MemoryStore"]


@dataclass(slots=True)
class _MemSkill:
    meta: SkillMetadata
    parsed: ParsedSkillMd
    text: str
    files: dict[str, bytes] = field(default_factory=dict)
    linked: frozenset[str] = frozenset()


class MemoryStore(StoreBase):
    """Skills held in memory: SKILL.md text plus a mapping of bundled files.

    Used for inline (Python-defined) skills and in tests. Thread-safe.
    """

    def __init__(self, *, index: IndexMode = "bundled", source: str = "memory") -> None:
        self._skills: dict[str, _MemSkill] = {}
        self._lock = threading.Lock()
        self._index: IndexMode = index
        self.source = source

    def add(
        self,
        skill_md: str,
        files: Mapping[str, bytes | str] | None = None,
        *,
        replace: bool = True,
    ) -> SkillMetadata:
        """Add one skill from its SKILL.md text; returns its metadata.

        Raises ``ManifestError`` when the text has errors (lenient rules) and
        ``PathNotAllowedError`` for a bundled-file path that is not a plain
        relative path.
        """
        from skilldeck._tree import is_hidden
        from skilldeck.format import parse_skill_md

        parsed = parse_skill_md(skill_md)
        if parsed.manifest is None or not parsed.ok:
            raise ManifestError(
                "the SKILL.md text has errors",
                diagnostics=parsed.diagnostics,
                hint="run skilldeck validate on it, or fix the reported fields",
            )
        blobs: dict[str, bytes] = {}
        for rel, content in (files or {}).items():
            clean = safe_relpath(rel)
            if clean is None or clean == "SKILL.md" or any(map(is_hidden, clean.split("/"))):
                raise PathNotAllowedError(f"invalid bundled file path {rel!r}", path=rel)
            blobs[clean] = content.encode("utf-8") if isinstance(content, str) else content
        m = parsed.manifest
        meta = SkillMetadata.of_manifest(m, source=self.source, diagnostics=parsed.diagnostics)
        with self._lock:
            if not replace and m.name in self._skills:
                raise ManifestError(f"a skill named {m.name!r} is already in this store")
            self._skills[m.name] = _MemSkill(
                meta, parsed, skill_md, blobs, linked_of(skill_md.encode("utf-8"))
            )
        return meta

    def remove(self, name: str) -> None:
        with self._lock:
            self._skills.pop(name, None)

    def _get(self, name: str) -> _MemSkill:
        with self._lock:
            found = self._skills.get(name)
        if found is None:
            raise SkillNotFoundError(f"no skill named {name!r} in this store", skill=name)
        return found

    def discover(self, *, refresh: bool = False) -> Discovery:
        """Every skill held, by name."""
        with self._lock:
            metas = tuple(s.meta for s in self._skills.values())
        return Discovery(tuple(sorted(metas, key=lambda m: m.name)))

    def list_skills(self) -> list[SkillMetadata]:
        return list(self.discover().skills)

    def files(self, name: str, *, index: IndexMode | None = None) -> tuple[str, ...]:
        entry = self._get(name)
        return index_of(entry.files, index or self._index, entry.linked)

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> Skill:
        entry = self._get(name)
        raw = entry.text.encode("utf-8")
        truncated = max_bytes is not None and len(raw) > max_bytes
        parsed = entry.parsed
        body = parsed.body
        if truncated and max_bytes is not None:
            from skilldeck.format import parse_skill_md

            reparsed = parse_skill_md(raw[:max_bytes], complete=False)
            body = reparsed.body
        return Skill(
            entry.meta,
            parsed.manifest,
            body,
            truncated,
            self.files(name),
            parsed.body_line,
            parsed.diagnostics,
        )

    def read_bundled(
        self,
        name: str,
        relpath: str,
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> FileData:
        entry = self._get(name)
        clean = bundled_relpath(relpath, skill=name)
        check_read(
            clean,
            index or self._index,
            lambda: entry.linked,
            skill=name,
            exists=entry.files.__contains__,
            must_exist=clean != "SKILL.md",
        )
        if clean == "SKILL.md":
            return FileData.of(
                entry.text.encode("utf-8"),
                clean,
                max_bytes=max_bytes,
                truncate=truncate,
                skill=name,
            )
        return FileData.of(
            entry.files[clean], clean, max_bytes=max_bytes, truncate=truncate, skill=name
        )

    def read_file(self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT) -> bytes:
        return self.read_bundled(name, relpath, max_bytes=max_bytes).data

    def skill_md_bytes(
        self, name: str, *, max_bytes: int = DEFAULT_FILE_LIMIT, truncate: bool = False
    ) -> FileData:
        """The skill's SKILL.md: the UTF-8 bytes of the text it was added with
        (the same bytes ``digest`` covers)."""
        entry = self._get(name)
        return FileData.of(
            entry.text.encode("utf-8"),
            "SKILL.md",
            max_bytes=max_bytes,
            truncate=truncate,
            skill=name,
        )

    def digest(self, name: str) -> str:
        entry = self._get(name)
        from skilldeck._digest import bytes_digest, digest_of_files

        pairs = {rel: bytes_digest(b) for rel, b in entry.files.items()}
        pairs["SKILL.md"] = bytes_digest(entry.text.encode("utf-8"))
        return digest_of_files(pairs)
