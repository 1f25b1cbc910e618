"""``StoreBase`` (what the ``Store`` protocol of ``_types`` asks, with defaults) and ``Discovery``.

A store lists skill metadata from a bounded read, loads one skill's body on
demand and reads one bundled file. ``FileSystemStore`` is the embedded default;
``MemoryStore`` (``_memory``) serves inline skills and tests; a remote or
database-backed store implements the same three methods.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import FileNotFoundInSkillError, FileTooLargeError, PathNotAllowedError
from skilldeck._frozen import replace, value
from skilldeck._paths import safe_relpath
from skilldeck.catalog._fileset import BUNDLED_DIRS, in_bundled_index
from skilldeck.catalog._model import SkillMetadata

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._tree import Walk
    from skilldeck.catalog._loaded import FileData, Skill
    from skilldeck.catalog._runnable import RunSettings
    from skilldeck.catalog._types import IndexMode, Store

__all__ = [
    "BUNDLED_DIRS",
    "DEFAULT_FILE_LIMIT",
    "Discovery",
    "FileFacts",
    "Scanned",
    "StoreBase",
    "as_store",
    "bundled_relpath",
    "in_bundled_index",
]

DEFAULT_FILE_LIMIT = 200_000
"""Default size limit of a file read, in bytes."""


@value
class Discovery:
    """Everything one discovery pass over a store found: every candidate (valid or
    not) and the problems met on the way (roots, links)."""

    skills: tuple[SkillMetadata, ...]
    diagnostics: tuple[Diagnostic, ...] = ()


#: what a store knows of one file of a skill version without reading it:
#: (relative path, size, ``sha256:`` digest, UTF-8 text without NUL, or ``None``: unknown)
FileFacts = tuple[str, int, str, bool | None]


#: a SKILL.md a scan read whole: its stamp then (inode, mtime_ns, size, ctime_ns), the
#: ``sha256:`` digest, size and text flag of its bytes (``StoreBase.scanned_digests``)
Scanned = tuple[tuple[int, int, int, int], str, int, bool]


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
        ``list_skills()``, where metadata built without a ``key`` (a host's
        ``SkillMetadata(name=..., description=..., folder=None)``) is keyed by its
        name, as ``load_skill(name)`` takes it. ``refresh`` asks a caching store to
        look again."""
        return Discovery(tuple(m if m.key else replace(m, key=m.name) for m in self.list_skills()))

    def skill_md_stamps(self) -> dict[int, bytes]:
        """The stamp of each listed skill's SKILL.md by the metadata's ``id``: the
        stat signature the last scan validated it with, where the store keeps one
        (default: none; a caller stats the file itself)."""
        return {}

    def scanned_digests(self) -> dict[str, Scanned]:
        """The digest of each SKILL.md the last scan read whole, by skill folder, with
        the stamp its file had, handed over once to a snapshot that would otherwise
        read it again (default: none)."""
        return {}

    def run_settings(self, name: str) -> RunSettings | None:
        """What a run reads of the skill's manifest (``_runnable.RunSettings``) where
        the store can tell it without loading the skill (default: ``None``, load it)."""
        return None

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
        from skilldeck.catalog._loaded import FileData  # reads only: a listing makes none

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
        from skilldeck.catalog._loaded import FileData

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

    def tree_read(
        self,
        name: str,
        pick: Callable[[Walk], Sequence[str]],
        *,
        max_bytes: int,
        index: IndexMode | None = None,
    ) -> tuple[str, Walk, dict[str, FileData]] | None:
        """``tree`` and ``read_many`` of the paths ``pick`` chooses from its walk, done
        together (``FileSystemStore``: one pass through the folder opened once);
        ``None`` (the default): ask ``tree`` and ``read_many`` separately."""
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
    clean = safe_relpath(relpath) if isinstance(relpath, str) else None
    if clean is None or relpath.endswith("/"):
        raise PathNotAllowedError(
            f"path {relpath!r} is not allowed",
            skill=skill,
            path=str(relpath),
            hint="give a path relative to the skill folder, e.g. references/guide.md",
        )
    is_hidden = _is_hidden()
    if any(is_hidden(part) for part in clean.split("/")):
        raise PathNotAllowedError(
            f"{clean} is a hidden file; hidden files are never served",
            skill=skill,
            path=clean,
            hint="hidden files and folders (.env, .git/, ...) are not part of a skill",
        )
    return clean


@functools.cache
def _is_hidden() -> Callable[[str], bool]:
    """The walker's hidden-name rule (``skilldeck._tree.is_hidden``), imported on first
    read (a listing imports no reader), then once: a cold ``serve`` of 2,000 skills
    checks 6,600 paths."""
    from skilldeck._tree import is_hidden

    return is_hidden
