"""The catalog's values a listing makes: sources, skill metadata, entries and statuses.

(A loaded skill is ``_loaded``'s, a line of ``why`` is ``_why``'s.)
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from pathlib import Path

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import InvalidArgumentsError
from skilldeck._frozen import field, new as _new, slots_twin, value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from skilldeck._tree import FileBytes
    from skilldeck.catalog._loaded import FileData
    from skilldeck.catalog._types import Store
    from skilldeck.format import Manifest

    #: reads a skill's SKILL.md as its store reads it: (metadata, at most so many bytes)
    #: -> the bytes, cut to that many (``SkillMetadata.manifest``)
    MdReader = Callable[["SkillMetadata", int], FileData]

__all__ = [
    "ByMetadata",
    "CatalogEntry",
    "Root",
    "SkillMetadata",
    "SkillStatus",
    "Source",
    "SourceKind",
    "Trust",
    "folder_text",
    "frontmatter_as_json",
    "own_md",
    "skill_md_text",
]

if TYPE_CHECKING:
    SourceKind = Literal["bundled", "user", "extra", "project", "installed", "inline", "root"]


class SkillStatus(enum.StrEnum):
    """Why a candidate skill is or is not shown to the model."""

    ENABLED = "enabled"
    DISABLED = "disabled"  # by config
    UNAVAILABLE = "unavailable"  # unmet requirements
    INVALID = "invalid"  # errors in lenient mode
    SHADOWED = "shadowed"  # a higher-precedence skill has the same name


class Trust(enum.StrEnum):
    """How far a skill's content is trusted: approval policies key on it.

    ``bundled``: shipped with skilldeck. ``user``: placed on disk by the user
    (user, extra, project and explicit roots, inline skills). ``untrusted``:
    installed from elsewhere (git, archives, folders copied by ``install``).
    """

    BUNDLED = "bundled"
    USER = "user"
    UNTRUSTED = "untrusted"


#: The trust level each source kind gets by default.
TRUST_OF_KIND: Mapping[str, Trust] = {
    "bundled": Trust.BUNDLED,
    "user": Trust.USER,
    "extra": Trust.USER,
    "project": Trust.USER,
    "root": Trust.USER,
    "inline": Trust.USER,
    "installed": Trust.UNTRUSTED,
}


@value
class Root:
    """One folder a source scans: ``immediate`` (children are skills) or ``recursive``.

    ``repository``: a folder the user named (``--root``, ``[catalog] roots``), which
    may be a repository of skills: without SKILL.md of its own, the layouts of
    skills repositories are searched (``skilldeck._tree.SkillFinder``).
    """

    path: Path
    recursive: bool = False
    repository: bool = False

    def __post_init__(self) -> None:
        """A path no file system can hold (a NUL byte, a lone surrogate) is a bad
        argument, not a ValueError from deep inside a scan."""
        try:
            bad = b"\x00" in os.fsencode(self.path)
        except UnicodeEncodeError:
            bad = True
        if bad:
            raise InvalidArgumentsError(
                f"skills root {os.fspath(self.path)!r} is not a possible path",
                field="roots",
                hint="give a folder's path without NUL bytes or lone surrogates",
            )

    @property
    def mode(self) -> str:
        return "recursive" if self.recursive else "immediate"


@value
class Source:
    """A named group of roots (or a custom store) at one precedence level.

    Sources are given lowest precedence first; a later source's skill shadows
    an earlier one of the same name.
    """

    name: str
    kind: SourceKind
    roots: tuple[Root, ...] = ()
    trust: Trust = Trust.USER
    store: Store | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        name: str,
        kind: SourceKind,
        roots: tuple[str | os.PathLike[str] | Root, ...] | list[Any] = (),
        *,
        recursive: bool = False,
        trust: Trust | str | None = None,
        store: Store | None = None,
        repository: bool = False,
    ) -> Source:
        """Build a source from plain paths (``trust`` defaults to the kind's;
        ``repository``: see ``Root``)."""
        rs = tuple(
            r if isinstance(r, Root) else Root(Path(r), recursive, repository) for r in roots
        )
        level = Trust(trust) if trust is not None else TRUST_OF_KIND.get(kind, Trust.USER)
        return cls(name, kind, rs, level, store)


@value
class SkillMetadata:
    """What discovery knows about one skill: its frontmatter, not its body.

    ``folder`` is the skill folder as found (an absolute path string; ``None``
    for skills without one, e.g. from a ``MemoryStore``) and ``path`` the same
    as a ``Path``; ``skill_md`` is the SKILL.md in it. ``key`` is what the
    skill's store accepts in ``load_skill`` / ``read_file``. ``manifest`` is
    parsed on first use when the metadata came from the cache;
    ``frontmatter_json`` is kept from the parse that listed the skill when its
    store was asked to keep it (``Catalog(keep_frontmatter=True)``).

    Invocation controls, read at discovery: ``model_invocable`` is false for
    ``disable-model-invocation`` skills (never shown to the model),
    ``user_invocable`` false for ``user-invocable: false`` ones; ``when_to_use``
    and ``argument_hint`` are those fields' text.
    """

    name: str
    description: str
    folder: str | None
    md_name: str | None = "SKILL.md"
    source: str = ""
    key: str = ""
    tags: tuple[str, ...] = ()
    requires_commands: tuple[str, ...] = ()
    requires_env: tuple[str, ...] = ()
    requires_other: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    valid: bool = True
    model_invocable: bool = True
    user_invocable: bool = True
    when_to_use: str | None = None
    argument_hint: str | None = None
    #: the manifest's ``version`` and ``author`` (listed with ``tags`` when set)
    version: str | None = None
    author: str | None = None
    _manifest: Manifest | None = field(default=None, compare=False, repr=False)
    _path: Path | None = field(default=None, compare=False, repr=False)
    _frontmatter: str | None = field(default=None, compare=False, repr=False)
    #: what a run reads of the manifest, as the cache keeps it (``_cache.RunRow``;
    #: ``None``: the defaults, or not known when ``_manifest`` was given)
    _run: tuple[Any, ...] | None = field(default=None, compare=False, repr=False)
    #: how the store that listed the skill reads its SKILL.md (``manifest``; ``None``:
    #: the folder as found, through the contained reader)
    _reads: MdReader | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of_manifest(
        cls,
        m: Manifest,
        *,
        source: str,
        diagnostics: tuple[Diagnostic, ...] = (),
        folder: str | None = None,
        md_name: str | None = None,
        key: str | None = None,
    ) -> SkillMetadata:
        """The metadata of a parsed manifest (stores that hold skills without a folder)."""
        return cls(
            name=m.name,
            description=m.description,
            folder=folder,
            md_name=md_name,
            source=source,
            key=m.name if key is None else key,
            tags=tuple(m.tags),
            requires_commands=tuple(m.requires.commands),
            requires_env=tuple(m.requires.env),
            requires_other=tuple(m.requires.other),
            diagnostics=diagnostics,
            model_invocable=not m.disable_model_invocation,
            user_invocable=m.user_invocable,
            when_to_use=m.when_to_use,
            argument_hint=m.argument_hint,
            version=m.version,
            author=m.author,
            _manifest=m,
        )

    @property
    def path(self) -> Path | None:
        """The skill folder as found (``None`` when the skill has no folder)."""
        if self._path is None and self.folder is not None:
            object.__setattr__(self, "_path", Path(self.folder))
        return self._path

    @property
    def skill_md(self) -> Path | None:
        """The skill's SKILL.md as found (possibly a link inside the roots)."""
        path = self.path
        return path / self.md_name if path is not None and self.md_name else None

    @property
    def skill_md_text(self) -> str | None:
        """``str(skill_md)``, made without ``Path`` objects where the folder is a normal
        absolute path."""
        return skill_md_text(self.folder, self.md_name)

    @property
    def location(self) -> str | None:
        """Absolute path of SKILL.md (the skill list's ``location``), if the skill has one."""
        if self.folder is None or not self.md_name:
            return None
        return os.path.abspath(os.path.join(self.folder, self.md_name))

    @property
    def manifest(self) -> Manifest | None:
        """The full manifest (parsed on first use when the metadata came from a scan
        or the cache), ``None`` when SKILL.md is gone or no longer parses.

        SKILL.md is read as every other file of the skill is: through its store's
        contained read (the folder inside the store's roots, the file opened
        without following a link out of the folder, bounded, regular files only),
        never by its path. A SKILL.md that now leads outside its folder, or is no
        regular file, raises what that read raises (``PathNotAllowedError``).
        """
        if self._manifest is None and self.valid and self.folder is not None and self.md_name:
            from skilldeck._errors import FileNotFoundInSkillError
            from skilldeck.format import parse_read, read_limit

            bound = read_limit(metadata_only=True)
            reads = self._reads
            try:
                got = reads(self, bound) if reads is not None else _read_md(self, bound)
            except FileNotFoundInSkillError:
                return None  # removed since the listing: a load says so
            parsed = parse_read(
                got.data,
                size=got.size,
                truncated=got.truncated,
                path=self.skill_md_text,
                metadata_only=True,
                folder_name=_folder_name(self.path),
            )
            object.__setattr__(self, "_manifest", parsed.manifest)
        return self._manifest

    @property
    def frontmatter_json(self) -> str | None:
        """The verbatim frontmatter as JSON text (``frontmatter_as_json``), ``None``
        without a manifest: kept from the parse that listed the skill, else made
        from ``manifest`` (which may read SKILL.md again)."""
        kept = self._frontmatter
        if kept is not None:
            return kept
        manifest = self.manifest
        return frontmatter_as_json(manifest.frontmatter) if manifest is not None else None

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.is_error)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "path": self.folder,
            "location": self.location,
            "tags": list(self.tags),
            "version": self.version,
            "author": self.author,
        }


class ByMetadata:
    """What a loaded or runnable skill hands on from its ``metadata``: one set of
    properties for ``Skill`` and ``Runnable`` (a plain class with no slots of its own,
    so neither becomes a dataclass for it)."""

    __slots__ = ()
    metadata: SkillMetadata

    @property
    def name(self) -> str:
        return self.metadata.name

    @property
    def description(self) -> str:
        return self.metadata.description

    @property
    def path(self) -> Path | None:
        return self.metadata.path

    @property
    def skill_md(self) -> Path | None:
        return self.metadata.skill_md

    @property
    def source(self) -> str:
        return self.metadata.source

    @property
    def location(self) -> str | None:
        return self.metadata.location


class _Packed:
    """The ``diagnostics`` field of ``SkillMetadata`` and ``CatalogEntry``: a tuple of
    ``Diagnostic``, which the slot may also hold packed (the cache's bytes, see
    ``_cache.pack_diagnostics``) until first read. Listing 100,000 cached skills then
    builds no ``Diagnostic`` object at all (70 % of real skills carry a note) and
    keeps one bytes object per skill instead of four strings and two objects."""

    __slots__ = ("slot",)

    def __init__(self, slot: Any) -> None:
        self.slot = slot  # the dataclass's member descriptor

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        value = self.slot.__get__(obj, owner)
        held = value.__class__
        if held is bytes or held is _Joined:
            from skilldeck.catalog._cache import unpack_diagnostics

            meta = obj if obj.__class__ is SkillMetadata else obj.metadata
            own = own_md(meta.folder, meta.md_name)
            if held is bytes:
                value = unpack_diagnostics(value, own)
            else:
                value = unpack_diagnostics(value.packed, own) + value.extra
            self.slot.__set__(obj, value)
        return value

    def __set__(self, obj: Any, value: Any) -> None:
        self.slot.__set__(obj, value)


class _Joined:
    """An entry's diagnostics still packed: its skill's (``_Packed``) and then the
    notes its status added (a requirement not met or not checked), joined on first
    read, so an entry with notes does not unpack its skill's findings to be listed."""

    __slots__ = ("extra", "packed")

    def __init__(self, packed: bytes, extra: tuple[Diagnostic, ...]) -> None:
        self.packed = packed
        self.extra = extra


def with_notes(held: tuple[Diagnostic, ...] | bytes, extra: tuple[Diagnostic, ...]) -> Any:
    """A skill's diagnostics as held (``raw_diagnostics``, maybe packed) followed by
    ``extra``, for ``entry_of``: still packed when they were."""
    if not extra:
        return held
    if isinstance(held, bytes):
        return _Joined(held, extra) if held else extra
    return held + extra


def own_md(folder: str | None, md_name: str | None) -> str | None:
    """The SKILL.md path that packed diagnostics name by a mark (``_cache``): the
    folder and the file name joined as a store's walk joins them."""
    return folder + os.sep + md_name if folder is not None and md_name else None


def frontmatter_as_json(frontmatter: Mapping[str, Any]) -> str:
    """A parsed frontmatter as JSON text, the one conversion (a value JSON lacks
    becomes its text; non-ASCII stays as it is)."""
    import json

    return json.dumps(dict(frontmatter), default=str, ensure_ascii=False)


def _normal(folder: str) -> bool:
    """Is ``folder`` a normal absolute path (a store's folders are), which ``Path``
    gives back unchanged?"""
    return folder[:1] == "/" and folder[:2] != "//" and os.path.normpath(folder) == folder


def folder_text(folder: str) -> str:
    """A skill folder's path as text (``os.fspath(meta.path)``), made without a ``Path``
    object where the folder is already a normal absolute path."""
    return folder if _normal(folder) else os.fspath(Path(folder))


def skill_md_text(folder: str | None, md_name: str | None) -> str | None:
    """The path of a skill's SKILL.md as text (``str(meta.skill_md)``), made without
    ``Path`` objects where the folder is already a normal absolute path (a store's
    folders are)."""
    if folder is None or not md_name:
        return None
    if not _normal(folder) or "/" in md_name or md_name in (".", ".."):
        return str(Path(folder) / md_name)
    return folder + "/" + md_name if folder != "/" else "/" + md_name


def _pack_field(cls: type) -> Any:
    """Make ``cls.diagnostics`` accept a packed value; returns the raw slot."""
    slot = cls.__dict__["diagnostics"]
    setattr(cls, "diagnostics", _Packed(slot))  # noqa: B010 (a dataclass field)
    return slot


_META_TWIN = slots_twin(SkillMetadata)
_META_DIAGNOSTICS = _pack_field(SkillMetadata)


def raw_diagnostics(obj: SkillMetadata | CatalogEntry) -> tuple[Diagnostic, ...] | bytes:
    """``obj.diagnostics`` as held: the tuple, or still packed (not expanded)."""
    slot = _META_DIAGNOSTICS if obj.__class__ is SkillMetadata else _ENTRY_DIAGNOSTICS
    value: tuple[Diagnostic, ...] | bytes = slot.__get__(obj)
    return value


def with_code(metas: Sequence[SkillMetadata], code: str) -> list[tuple[int, Diagnostic]]:
    """The position of each of ``metas`` with a diagnostic ``code`` and the first such
    diagnostic, without expanding packed diagnostics that cannot hold it."""
    needle = code.encode()
    held = [*map(_META_DIAGNOSTICS.__get__, metas)]  # as held: packed or not, no expanding
    some = [*filter(None, held)]
    if {*map(type, some)} <= {bytes} and needle not in b"".join({*some}):
        return []  # all packed (a warm listing): one search in C through the distinct ones
    maybe = [
        i
        for i, raw in enumerate(held)
        if raw and (raw.__class__ is not bytes or needle in raw)  # the few that may hold it
    ]
    out: list[tuple[int, Diagnostic]] = []
    for i in maybe:
        found = next((d for d in metas[i].diagnostics if d.code == code), None)
        if found is not None:
            out.append((i, found))
    return out


_SOURCE = attrgetter("source")


def of_source(metas: Iterable[SkillMetadata], source: str) -> bool:
    """Is every one of ``metas`` of the source named ``source`` (told in C)?"""
    return {*map(_SOURCE, metas)} <= {source}


def metadata_of(
    name: str,
    description: str,
    folder: str | None,
    md_name: str | None,
    source: str,
    key: str,
    tags: tuple[str, ...],
    requires_commands: tuple[str, ...],
    requires_env: tuple[str, ...],
    requires_other: tuple[str, ...],
    diagnostics: tuple[Diagnostic, ...] | bytes,
    valid: bool,
    invocation: tuple[bool, bool, str | None, str | None] | None = None,
    about: tuple[str | None, str | None] | None = None,
    run: tuple[Any, ...] | None = None,
    frontmatter: str | None = None,
    reads: MdReader | None = None,
) -> SkillMetadata:
    """``SkillMetadata(...)`` with every field given, built three times as fast
    (as a ``slots_twin`` whose slots are set by plain assignment, instead of through
    the frozen ``__setattr__``): listing 10,000 cached skills builds 10,000 of them.
    ``invocation`` is ``(model_invocable, user_invocable, when_to_use, argument_hint)``,
    ``None`` for the defaults; ``diagnostics`` may be packed (``_Packed``; ``b""``:
    none); ``run`` is the run settings (``_cache.RunRow``); ``frontmatter`` is the
    kept ``frontmatter_json``; ``reads`` how the store reads the SKILL.md
    (``manifest``)."""
    meta = _new(_META_TWIN)
    meta.name = name
    meta.description = description
    meta.folder = folder
    meta.md_name = md_name
    meta.source = source
    meta.key = key
    meta.tags = tags
    meta.requires_commands = requires_commands
    meta.requires_env = requires_env
    meta.requires_other = requires_other
    meta.diagnostics = diagnostics or ()
    meta.valid = valid
    if invocation is None:
        meta.model_invocable = meta.user_invocable = True
        meta.when_to_use = meta.argument_hint = None
    else:
        meta.model_invocable, meta.user_invocable, when, hint = invocation
        meta.when_to_use, meta.argument_hint = when, hint
    if about is None:
        meta.version = meta.author = None
    else:
        meta.version, meta.author = about
    meta._manifest = meta._path = None
    meta._frontmatter = frontmatter
    meta._run = run
    meta._reads = reads
    meta.__class__ = SkillMetadata
    made: SkillMetadata = meta
    return made


def _folder_name(path: Path | None) -> str | None:
    return path.name if path is not None else None


def _read_md(meta: SkillMetadata, bound: int) -> FileBytes:
    """At most ``bound`` bytes of the SKILL.md of metadata no store made (a host's):
    its folder as found, read with the contained reader."""
    from skilldeck._tree import read_beneath

    assert meta.folder is not None and meta.md_name is not None
    return read_beneath(meta.folder, meta.md_name, max_bytes=bound, truncate=True, skill=meta.name)


@value
class CatalogEntry:
    """One candidate skill in the catalog with its status and the reason for it.

    ``reason`` is a short human text (``None`` for enabled skills);
    ``shadowed_by`` is the ``SOURCE:NAME`` of the visible skill that hides this
    one; ``duplicates`` lists byte-identical copies collapsed into this entry.
    """

    name: str
    source: str
    status: SkillStatus
    metadata: SkillMetadata
    reason: str | None = None
    shadowed_by: str | None = None
    trust: Trust = Trust.USER
    diagnostics: tuple[Diagnostic, ...] = ()
    duplicates: tuple[Path, ...] = ()

    @property
    def path(self) -> Path | None:
        """The skill folder as found."""
        return self.metadata.path

    @property
    def address(self) -> str:
        """``SOURCE:NAME``, which addresses this candidate whatever its status."""
        return f"{self.source}:{self.name}"

    @property
    def visible(self) -> bool:
        return self.status is SkillStatus.ENABLED

    def to_dict(self) -> dict[str, Any]:
        """The per-skill object of ``skilldeck list --format json`` (a public contract)."""
        return {
            "name": self.name,
            "description": self.metadata.description,
            "source": self.source,
            "path": self.metadata.folder,
            "status": self.status.value,
            "reason": self.reason,
            "shadowed_by": self.shadowed_by,
            **_about(self.metadata),
        }


def _about(meta: SkillMetadata) -> dict[str, Any]:
    """``version``, ``tags`` and ``author`` when the skill sets them."""
    out: dict[str, Any] = {}
    if meta.version:
        out["version"] = meta.version
    if meta.tags:
        out["tags"] = list(meta.tags)
    if meta.author:
        out["author"] = meta.author
    return out


_ENTRY_TWIN = slots_twin(CatalogEntry)
_ENTRY_DIAGNOSTICS = _pack_field(CatalogEntry)


def entry_of(
    name: str,
    source: str,
    status: SkillStatus,
    metadata: SkillMetadata,
    reason: str | None,
    shadowed_by: str | None,
    trust: Trust,
    diagnostics: tuple[Diagnostic, ...] | bytes,
    duplicates: tuple[Path, ...],
) -> CatalogEntry:
    """``CatalogEntry(...)`` with every field given, built faster (see ``metadata_of``;
    ``diagnostics`` may be packed: a skill's own, passed on unexpanded)."""
    entry = _new(_ENTRY_TWIN)
    entry.name = name
    entry.source = source
    entry.status = status
    entry.metadata = metadata
    entry.reason = reason
    entry.shadowed_by = shadowed_by
    entry.trust = trust
    entry.diagnostics = diagnostics or ()
    entry.duplicates = duplicates
    entry.__class__ = CatalogEntry
    made: CatalogEntry = entry
    return made
