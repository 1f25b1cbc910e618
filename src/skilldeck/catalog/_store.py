"""The Store protocol and the in-memory store.

A store lists skill metadata from a bounded read, loads one skill's body on
demand and reads one bundled file. ``FileSystemStore`` is the embedded default;
``MemoryStore`` serves inline skills and tests; a remote or database-backed
store implements the same three methods.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import (
    FileNotFoundInSkillError,
    FileTooLargeError,
    ManifestError,
    PathNotAllowedError,
    SkillNotFoundError,
)
from skilldeck._paths import safe_relpath
from skilldeck.catalog._fileset import (
    BUNDLED_DIRS,
    IndexMode,
    check_read,
    in_bundled_index,
    index_of,
    linked_of,
)
from skilldeck.catalog._model import Skill, SkillMetadata

if TYPE_CHECKING:
    from skilldeck._tree import Walk
    from skilldeck.format import ParsedSkillMd

__all__ = [
    "BUNDLED_DIRS",
    "DEFAULT_FILE_LIMIT",
    "Discovery",
    "FileData",
    "FileFacts",
    "IndexMode",
    "MemoryStore",
    "Store",
    "StoreBase",
    "as_store",
    "bundled_relpath",
    "in_bundled_index",
]

DEFAULT_FILE_LIMIT = 200_000
"""Default size limit of a tier-3 file read, in bytes."""


@dataclass(frozen=True, slots=True)
class Discovery:
    """Everything one discovery pass over a store found: every candidate (valid or
    not) and the problems met on the way (roots, links)."""

    skills: tuple[SkillMetadata, ...]
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


#: what a store knows of one file of a skill version without reading it:
#: (relative path, size, ``sha256:`` digest, UTF-8 text without NUL, or ``None``: unknown)
FileFacts = tuple[str, int, str, bool | None]


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


_WHOLE = 1 << 62
"""``max_bytes`` of the reads that hash a whole file."""


class StoreBase:
    """The ``Store`` protocol's three methods plus the optional parts, each with a
    default computed from the three. The catalog uses only these methods; a store
    overrides what it knows better (``FileSystemStore``, ``MemoryStore`` and
    ``PostgresStore`` all do).
    """

    exists: bool = True
    """Whether the store's place exists (a folder store's root); ``doctor`` shows it."""

    def list_skills(self) -> list[SkillMetadata]:
        raise NotImplementedError

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> Skill:
        raise NotImplementedError

    def read_file(self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT) -> bytes:
        raise NotImplementedError

    def discover(self, *, refresh: bool = False) -> Discovery:
        """Every candidate (invalid ones too) and the problems met; default:
        ``list_skills()``. ``refresh`` asks a caching store to look again."""
        return Discovery(tuple(self.list_skills()))

    def files(self, name: str, *, index: IndexMode | None = None) -> tuple[str, ...]:
        """The skill's file index (``"all"``: every file); default: ``load_skill``'s."""
        return self.load_skill(name).files

    def read_bundled(
        self,
        name: str,
        relpath: str,
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> FileData:
        """One file with its full size, cut to ``max_bytes`` when ``truncate``;
        default: ``read_file``, after the path rules every store shares."""
        clean = bundled_relpath(relpath, skill=name)
        try:
            data = self.read_file(name, clean, max_bytes=max_bytes)
        except FileTooLargeError:
            if not truncate:
                raise
            data = self.read_file(name, clean, max_bytes=_WHOLE)
        return FileData.of(data, clean, max_bytes=max_bytes, truncate=truncate, skill=name)

    def read_many(
        self,
        name: str,
        relpaths: Sequence[str],
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> list[FileData]:
        """Several files of one skill in order: ``skill_md_bytes`` for ``SKILL.md``,
        ``read_bundled`` for the others (a folder store opens the folder once)."""
        return [
            self.skill_md_bytes(name, max_bytes=max_bytes, truncate=truncate)
            if rel == "SKILL.md"
            else self.read_bundled(name, rel, max_bytes=max_bytes, truncate=truncate, index=index)
            for rel in relpaths
        ]

    def skill_md_bytes(
        self, name: str, *, max_bytes: int = DEFAULT_FILE_LIMIT, truncate: bool = False
    ) -> FileData:
        """The skill's SKILL.md as stored (the bytes ``digest`` covers). Default:
        ``read_file(name, "SKILL.md")``; for a store that serves only bundled files,
        the text put back together from ``load_skill``'s frontmatter and body."""
        try:
            data = self.read_file(name, "SKILL.md", max_bytes=_WHOLE)
        except (FileNotFoundInSkillError, PathNotAllowedError):
            data = _reassembled(self.load_skill(name))
        return FileData.of(data, "SKILL.md", max_bytes=max_bytes, truncate=truncate, skill=name)

    def digest(self, name: str) -> str:
        """The skill's content digest: ``sha256:`` over SKILL.md and every file of
        ``files(name, index="all")`` (``skilldeck.digest_of_files``)."""
        from skilldeck._digest import bytes_digest, digest_of_files

        pairs = {
            rel: bytes_digest(self.read_file(name, rel, max_bytes=_WHOLE))
            for rel in self.files(name, index="all")
        }
        pairs["SKILL.md"] = bytes_digest(self.skill_md_bytes(name, max_bytes=_WHOLE).data)
        return digest_of_files(pairs)

    def file_facts(self, name: str, digest: str) -> Iterable[FileFacts] | None:
        """The ``FileFacts`` of every file of version ``digest`` (SKILL.md and every
        file ``files(name, index="all")`` lists), or ``None`` (the default) when the
        store cannot tell or another version is current. A snapshot then lists the
        version from them instead of reading every file; the digests must be those
        of the bytes a read returns."""
        return None

    def tree(self, name: str) -> tuple[str, Walk] | None:
        """A folder skill's real folder and every file below it; ``None`` (the
        default) for a store whose skills are not folders on this machine."""
        return None

    def folder_root(self) -> tuple[str, bool] | None:
        """The real root folder the store discovers and whether it does so
        recursively (a catalog does not scan it again); ``None``: no such root."""
        return None


class _HostStore(StoreBase):
    """A host's store with only the protocol's three methods, given the defaults."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    def __repr__(self) -> str:
        return f"{type(self.inner).__name__}(...)"

    def list_skills(self) -> list[SkillMetadata]:
        return self.inner.list_skills()

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> Skill:
        return self.inner.load_skill(name, max_bytes=max_bytes)

    def read_file(self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT) -> bytes:
        return self.inner.read_file(name, relpath, max_bytes=max_bytes)


def as_store(store: Store) -> StoreBase:
    """``store`` with every part the catalog uses: itself when it is a ``StoreBase``,
    else wrapped so the parts it lacks get their defaults."""
    return store if isinstance(store, StoreBase) else _HostStore(store)


def _reassembled(skill: Skill) -> bytes:
    """SKILL.md's text put back together from a loaded skill: the frontmatter as
    parsed, then the body."""
    front = skill.manifest.frontmatter_text if skill.manifest is not None else ""
    if front and not front.endswith("\n"):
        front += "\n"
    return f"---\n{front}---\n{skill.body}".encode()


def bundled_relpath(relpath: str, *, skill: str) -> str:
    """``relpath`` cleaned for a bundled-file read; ``PathNotAllowedError`` for an
    absolute path, one with ``..``, or a folder."""
    from skilldeck._tree import is_hidden  # reads only: a listing imports no reader

    clean = safe_relpath(relpath) if isinstance(relpath, str) else None
    if clean is None or relpath.endswith("/"):
        raise PathNotAllowedError(
            f"path {relpath!r} is not allowed",
            skill=skill,
            path=str(relpath),
            hint="give a path relative to the skill folder, e.g. references/guide.md",
        )
    if any(is_hidden(part) for part in clean.split("/")):
        raise PathNotAllowedError(
            f"{clean} is a hidden file; hidden files are never served",
            skill=skill,
            path=clean,
            hint="hidden files and folders (.env, .git/, ...) are not part of a skill",
        )
    return clean


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
        )
        if clean == "SKILL.md":
            return FileData.of(
                entry.text.encode("utf-8"),
                clean,
                max_bytes=max_bytes,
                truncate=truncate,
                skill=name,
            )
        if clean not in entry.files:
            raise FileNotFoundInSkillError(
                f"no file {clean} in skill {name}",
                skill=name,
                path=clean,
                hint="list the skill's files with skills_load",
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
