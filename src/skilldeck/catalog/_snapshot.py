"""A catalog snapshot: every entry with its files, digests and change tokens.

``Catalog.snapshot()`` returns a ``CatalogSnapshot``: one immutable
``SnapshotEntry`` per catalog entry (any status), each with

- ``files``: what a reader may read (enabled and shadowed skills), SKILL.md
  first, then every file the one walker (``skilldeck._tree``) lists, with its
  size and, in a folder, its stamp (inode, mtime, ctime);
- ``token``: a change token, equal in two snapshots exactly when the entry's
  status, address and files are (a folder skill: the path and stamp of every
  listed file, so an edit, a rename or a link swapped to another file changes
  it; a skill of a store without folders: the store's content digest).
  ``None`` when it cannot be told (a file changed within the last 50 ms, whose
  timestamp a second change could keep, or a store without digests): the entry
  then counts as changed;
- per-file digests (``CatalogSnapshot.digest``): in a folder computed on first
  use through the catalog's contained reads and cached by stamp, so an unchanged
  file is never read twice (a SKILL.md the catalog's scan read whole counts as read,
  when the walk finds it with the stamp the scan validated), or, with
  ``digest_within``, while the folder is walked (the files of a skill within those
  limits, read through the folder opened for the walk, as a later read would read
  them); for a store without folders, taken from the store's ``file_facts`` of that
  version when it has them (``PostgresStore``: its file rows), else when its files
  were read to list them.

``CatalogSnapshot.token`` is the catalog-wide token and ``diff`` says which
entry keys were added, removed or changed between two snapshots. A new
snapshot reuses the entries of the previous one whose token is unchanged
(their digests with them); a folder entry whose catalog entry is the same object
and whose folder, sub-folders and files all keep their stamps is taken over with
``stat`` alone, without walking it (adding, removing or renaming anything changes
a folder's mtime; an edit, a file's stamp).

The same check works across processes: ``SnapshotEntry.stamps`` is that set of
stamps as plain data, and a first snapshot given the stamps an earlier process kept
(``Catalog.snapshot(kept=...)``) lists a folder entry from them, without walking
it, when every one of them still holds and the folder is still the one its
address reads. Its token is then computed from the entry as it is now and the kept
file stamps, exactly as a walk would give it.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from skilldeck._digest import bytes_digest
from skilldeck._tree import Walk, is_text
from skilldeck.catalog._loaded import FileData
from skilldeck.catalog._model import CatalogEntry, SkillStatus, folder_text
from skilldeck.catalog._store import FileFacts, Scanned

__all__ = [
    "READABLE_STATUSES",
    "CatalogSnapshot",
    "FileDigest",
    "SnapshotDiff",
    "SnapshotEntry",
    "SnapshotFile",
    "SnapshotMaker",
    "TreeStamps",
    "address_of",
]

READABLE_STATUSES = frozenset({SkillStatus.ENABLED, SkillStatus.SHADOWED})
"""The statuses whose files can be read (and are listed in a snapshot)."""

#: (inode, mtime_ns, size, ctime_ns): a file's stamp, what its digest is cached by
Stamp = tuple[int, int, int, int]

_RACY_NS = 50_000_000
"""A file changed this recently (50 ms, a few ticks of the kernel's coarse clock)
could change again within the same timestamp: its entry's token is unknown and
its digest is not cached by stamp until it is older."""

_STORE_READ_LIMIT = 64 * 1024 * 1024
"""Files of a store without folders are read up to this size to learn their size
and digest (a bigger one is listed with its size and no digest)."""


class FileDigest(NamedTuple):
    """A file's digest (``sha256:...``), size, and whether it is UTF-8 text without NUL.

    (Immutable and compared by value, as ``SnapshotFile``: a named tuple, made in a
    sixth of a frozen dataclass's time, one per file of every skill.)"""

    digest: str
    size: int
    text: bool


class SnapshotFile(NamedTuple):
    """One file of a skill: its relative path, its size, and (in a folder) its stamp
    (``None`` for a file of a store without folders, or one changed a moment ago).

    A named tuple: a cold snapshot of 2,000 skills makes 6,600 of them, a warm one
    as many from the kept stamps."""

    path: str
    size: int
    stamp: Stamp | None = None
    digest: FileDigest | None = None  # known when listed (read to list it, or with the walk)


def file_digest_of(data: bytes) -> FileDigest:
    return FileDigest(bytes_digest(data), len(data), is_text(data))


def within(
    files: Iterable[SnapshotFile], max_files: int, max_bytes: int
) -> tuple[list[SnapshotFile], bool]:
    """The files of at most ``max_bytes`` each, and whether they fit: no more than
    ``max_files`` of them and ``max_bytes`` in all (``SnapshotEntry.within``)."""
    sized = [f for f in files if f.size <= max_bytes]
    return sized, len(sized) <= max_files and sum(f.size for f in sized) <= max_bytes


def address_of(entry: CatalogEntry) -> str:
    """How the catalog addresses an entry: the visible skill by name, others as
    ``SOURCE:NAME``."""
    if entry.status is SkillStatus.ENABLED:
        return entry.name
    return f"{entry.source}:{entry.name}"


TreeStamps = tuple[str, int, tuple[tuple[str, int, int, int, int], ...]]
"""A folder entry's stamps (``SnapshotEntry.stamps``): its real folder, how many of
the items are folders, then the (path, inode, mtime_ns, size, ctime_ns) of its folder
as found (path ``""``), of every sub-folder the walker entered and of every file it
listed, in the walker's order."""


@dataclass(frozen=True, slots=True)
class SnapshotEntry:
    """One catalog entry in a snapshot (see the module doc).

    ``key`` is unique in the snapshot and stable across snapshots (a folder
    skill: its folder; a skill of a store without folders: ``store:SOURCE:NAME``);
    ``ref`` is how the catalog addresses it now (``NAME`` or ``SOURCE:NAME``).
    ``complete`` is False when the walker stopped at a limit.
    """

    key: str
    ref: str
    entry: CatalogEntry
    files: tuple[SnapshotFile, ...]
    token: str | None
    complete: bool = True
    _content: str | None = field(default=None, compare=False, repr=False)  # a store's digest
    _tree: TreeStamps | None = field(default=None, compare=False, repr=False)

    @property
    def stamps(self) -> TreeStamps | None:
        """What tells, with ``stat`` alone, that this folder entry's files are unchanged
        (plain data to keep between processes; ``None``: not a folder entry, or one
        that changed a moment ago, stopped at a limit or reads another folder)."""
        return self._tree

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def status(self) -> SkillStatus:
        return self.entry.status

    @property
    def readable(self) -> bool:
        """Can its files be read (an enabled or shadowed skill)?"""
        return self.entry.status in READABLE_STATUSES

    def within(self, max_files: int, max_bytes: int) -> tuple[list[SnapshotFile], bool]:
        """Its files of at most ``max_bytes`` each, and whether they fit: no more than
        ``max_files`` of them and ``max_bytes`` in all (the limits of
        ``Catalog.snapshot(digest_within=...)``, whose files were hashed with the walk)."""
        return within(self.files, max_files, max_bytes)


@dataclass(frozen=True, slots=True)
class SnapshotDiff:
    """Entry keys added, removed and changed (token differs or unknown) between snapshots."""

    added: frozenset[str]
    removed: frozenset[str]
    changed: frozenset[str]

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


#: reads one file of an entry: (ref, relpath, max_bytes, truncate) -> FileData
Reader = Callable[[str, str, int, bool], FileData]
#: reads several files of an entry: (ref, relpaths, max_bytes) -> FileData of each
ManyReader = Callable[[str, Sequence[str], int], list[FileData]]
#: chooses the files of a walk to read with it (as ``ManyReader`` names them)
Picker = Callable[[Walk], Sequence[str]]
#: lists a folder entry's files: (entry, store, picker, max_bytes) -> (real folder, walk,
#: the entry's own?, the files the picker chose, read as ``ManyReader`` reads them)
Walker = Callable[
    [CatalogEntry, Any, Picker | None, int], tuple[str, Walk, bool, Mapping[str, FileData]]
]
#: a store skill's file facts: (entry, store, content digest) -> facts, or None (read them)
Facts = Callable[[CatalogEntry, Any, str], Iterable[FileFacts] | None]


@dataclass(frozen=True)
class CatalogSnapshot:
    """An immutable view of the catalog: ``entries`` in catalog order, by ``key`` in
    ``by_key``, and the catalog-wide change ``token`` (``None`` when an entry's
    token is unknown: such a snapshot never equals another)."""

    entries: tuple[SnapshotEntry, ...]
    by_key: Mapping[str, SnapshotEntry]
    token: str | None
    _reader: Reader = field(compare=False, repr=False)
    _cache: _DigestCache = field(compare=False, repr=False)
    _read_many: ManyReader | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.entries)

    def diff(self, older: CatalogSnapshot | None) -> SnapshotDiff:
        """What changed from ``older`` to this snapshot (everything is added from ``None``)."""
        if older is None:
            return SnapshotDiff(frozenset(self.by_key), frozenset(), frozenset())
        mine, theirs = self.by_key, older.by_key
        changed = frozenset(
            k
            for k, e in mine.items()
            if k in theirs
            and (e is not theirs[k] and (e.token is None or e.token != theirs[k].token))
        )
        return SnapshotDiff(
            frozenset(mine.keys() - theirs.keys()), frozenset(theirs.keys() - mine.keys()), changed
        )

    def digest(self, entry: SnapshotEntry, path: str, *, max_bytes: int) -> FileDigest:
        """The digest of one listed file, read through the catalog (cached by stamp).

        Raises what the read raises (``FileTooLargeError`` over ``max_bytes``,
        ``FileAccessError`` when the file went away or now leads outside).
        """
        listed = next((f for f in entry.files if f.path == path), None)
        known = self._known(entry, listed, max_bytes)
        if known is None:
            known = file_digest_of(self._reader(entry.ref, path, max_bytes, False).data)
            self._remember(entry, listed, known)
        return known

    def digests(
        self, entry: SnapshotEntry, paths: Sequence[str], *, max_bytes: int
    ) -> list[FileDigest]:
        """``digest`` of each of ``paths`` in order; those not known yet are read
        together (a folder skill's folder resolved and opened once). Raises what the
        first failing read raises."""
        listed = {f.path: f for f in entry.files}
        found: dict[str, FileDigest] = {}
        missing: list[str] = []
        for path in paths:
            known = self._known(entry, listed.get(path), max_bytes)
            if known is None:
                missing.append(path)
            else:
                found[path] = known
        if missing and self._read_many is not None:
            for path, got in zip(
                missing, self._read_many(entry.ref, missing, max_bytes), strict=True
            ):
                found[path] = file_digest_of(got.data)
                self._remember(entry, listed.get(path), found[path])
        elif missing:
            for path in missing:
                found[path] = self.digest(entry, path, max_bytes=max_bytes)
        return [found[path] for path in paths]

    def _known(
        self, entry: SnapshotEntry, listed: SnapshotFile | None, max_bytes: int
    ) -> FileDigest | None:
        """A listed file's digest without reading it (listed with it, or cached by stamp)."""
        if listed is None:
            return None
        known = listed.digest
        if known is None and listed.stamp is not None:
            known = self._cache.get((entry.key, listed.path, listed.stamp))
        if known is not None and known.size > max_bytes:
            return None  # read it: over the limit, the read raises the coded error
        return known

    def _remember(
        self, entry: SnapshotEntry, listed: SnapshotFile | None, known: FileDigest
    ) -> None:
        if listed is not None and listed.stamp is not None:
            self._cache.put((entry.key, listed.path, listed.stamp), known)


class _DigestCache:
    """Digests by (entry key, path, stamp), kept for the files of the last snapshot."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[tuple[str, str, Stamp], FileDigest] = {}

    def get(self, key: tuple[str, str, Stamp]) -> FileDigest | None:
        with self._lock:
            return self._known.get(key)

    def put(self, key: tuple[str, str, Stamp], value: FileDigest) -> None:
        with self._lock:
            self._known[key] = value

    def has(self, key: str, path: str, stamp: Stamp | None) -> bool:
        return stamp is not None and (key, path, stamp) in self._known

    def put_scanned(self, scanned: Mapping[str, Scanned]) -> None:
        """Keep the digest of each SKILL.md a scan read whole, by folder, under the stamp
        its file had: a walk that finds it with that stamp finds the file those bytes
        were read from (an edit, a rename or a link swapped in changes the stamp)."""
        with self._lock:
            for key, (stamp, digest, size, text) in scanned.items():
                self._known[(key, "SKILL.md", stamp)] = FileDigest(digest, size, text)

    def put_listed(self, key: str, files: Iterable[SnapshotFile]) -> None:
        """Keep the digests listed with a folder entry's files (read with its walk)."""
        with self._lock:
            for f in files:
                if f.digest is not None and f.stamp is not None:
                    self._known[(key, f.path, f.stamp)] = f.digest

    def keep(self, entries: Iterable[SnapshotEntry]) -> None:
        """Forget the digests of files no longer listed (or changed)."""
        wanted = {(e.key, f.path, f.stamp) for e in entries for f in e.files if f.stamp}
        with self._lock:
            self._known = {k: v for k, v in self._known.items() if k in wanted}


def _token(parts: Iterable[Any]) -> str:
    blob = "\0".join(map(repr, parts)).encode("utf-8", "surrogateescape")
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def _head(entry: CatalogEntry, ref: str) -> tuple[Any, ...]:
    m = entry.metadata
    return (
        entry.status.value,
        entry.reason,
        entry.shadowed_by,
        entry.source,
        entry.trust.value,
        ref,
        m.folder,
        m.md_name,
        m.valid,
    )


class SnapshotMaker:
    """Takes snapshots of one catalog, reusing unchanged entries of the last one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: CatalogSnapshot | None = None
        self._cache = _DigestCache()

    def take(
        self,
        entries: Iterable[tuple[CatalogEntry, Any]],
        *,
        walk: Walker,
        listing: Callable[[str], tuple[str, ...]],
        digest: Callable[[CatalogEntry, Any], str],
        reader: Reader,
        facts: Facts | None = None,
        owns: Callable[[CatalogEntry], bool] | None = None,
        kept: Mapping[str, TreeStamps] | None = None,
        read_many: ManyReader | None = None,
        digest_within: tuple[int, int] | None = None,
        scanned: Mapping[str, Scanned] | None = None,
    ) -> CatalogSnapshot:
        """A snapshot of ``(entry, store)`` pairs. ``walk`` lists a folder skill's files,
        ``listing`` a store skill's files (by address), ``digest`` gives a store skill's
        content digest, ``facts`` (optional) what the store knows of that version's
        files, and ``reader`` reads one file. ``kept``: the ``stamps`` of entries
        (by key) an earlier process kept, used for a folder entry this maker has not
        seen when ``owns`` says its address reads its own folder (the walk's third
        answer). ``read_many`` reads several files of one entry at once.
        ``digest_within``: see ``Catalog.snapshot``. ``scanned``: the digests of the
        SKILL.md files a scan read whole (``StoreBase.scanned_digests``)."""
        with self._lock:
            if scanned:
                self._cache.put_scanned(scanned)
            last = self._last
            old = last.by_key if last is not None else {}
            hints = kept if kept is not None and owns is not None else {}
            settled = time.time_ns() - _RACY_NS
            made: list[SnapshotEntry] = []
            keys: dict[str, SnapshotEntry] = {}
            for entry, store in entries:
                ref = address_of(entry)
                folder = entry.metadata.folder
                if folder is not None:
                    key = folder_text(folder)  # os.fspath(entry.path), without a Path
                    prev = old.get(key)
                    hint = hints.get(key) if prev is None else None
                    if hint is not None and owns is not None and not owns(entry):
                        hint = None
                    got = self._folder(
                        entry, store, key, ref, walk, settled, prev, hint, digest_within
                    )
                else:
                    key = f"store:{entry.source}:{entry.name}"
                    got = self._stored(
                        entry, store, key, ref, old.get(key), listing, digest, reader, facts
                    )
                n = 2
                while got.key in keys:  # one folder reached twice: keep both
                    got = SnapshotEntry(f"{key}#{n}", *_fields(got)[1:])
                    n += 1
                prev = old.get(got.key)
                if prev is not None and got.token is not None and prev.token == got.token:
                    # unchanged: the same object (a hidden file may have moved its folder)
                    got = prev if prev._tree == got._tree else replace(prev, _tree=got._tree)
                elif got.key == key:
                    self._cache.put_listed(key, got.files)  # hashed with the walk
                keys[got.key] = got
                made.append(got)
            tokens = [(e.key, e.token or os.urandom(8).hex()) for e in made]
            unknown = any(e.token is None for e in made)
            snap = CatalogSnapshot(
                tuple(made),
                keys,
                None if unknown else _token(tokens),
                reader,
                self._cache,
                read_many,
            )
            self._cache.keep(made)
            self._last = snap
            return snap

    def _folder(
        self,
        entry: CatalogEntry,
        store: Any,
        key: str,
        ref: str,
        walk: Walker,
        settled: int,
        prev: SnapshotEntry | None,
        kept: TreeStamps | None = None,
        limits: tuple[int, int] | None = None,
    ) -> SnapshotEntry:
        if (
            prev is not None
            and prev.entry is entry
            and prev._tree is not None
            and _same_tree(entry, prev._tree)
        ):
            return prev  # not one folder or listed file changed: no walk needed
        if kept is not None and _same_tree(entry, kept):
            # an earlier process's stamps all hold: a walk would list these files
            real, dirs, items = kept
            found = [(p, size, (ino, mtime, ctime)) for p, ino, mtime, size, ctime in items[dirs:]]
            return _listed(entry, key, ref, found, True, settled, lambda: kept)
        pick: Picker | None = None
        picked: list[tuple[list[_Found], list[SnapshotFile], bool]] = []  # what pick listed
        if limits is not None and entry.status in READABLE_STATUSES:
            max_files, max_bytes = limits

            def pick(walked: Walk) -> list[str]:
                """The files a listing within the limits serves, but those hashed before."""
                found = [(f.path, f.size, f.stamp) for f in walked.files]
                listed, racy = _files_of(entry, found, settled)
                picked.append((found, listed, racy))
                sized, fits = within(listed, max_files, max_bytes)
                if not fits:
                    return []
                return [f.path for f in sized if not self._cache.has(key, f.path, f.stamp)]

        try:
            real, walked, own, read = walk(entry, store, pick, limits[1] if limits else 0)
        except Exception:  # the folder went away or now leads outside: unknown
            return SnapshotEntry(key, ref, entry, (), None, False)

        def stamps() -> TreeStamps | None:
            return _tree_stamps(entry, real, walked, settled) if own else None

        if picked:
            found, listed, racy = picked[0]
            if read:
                listed = [_hashed(f, read.get(f.path)) for f in listed]
            return _listed(entry, key, ref, found, walked.complete, settled, stamps, listed, racy)
        files = [(f.path, f.size, f.stamp) for f in walked.files]
        return _listed(entry, key, ref, files, walked.complete, settled, stamps)

    def _stored(
        self,
        entry: CatalogEntry,
        store: Any,
        key: str,
        ref: str,
        prev: SnapshotEntry | None,
        listing: Callable[[str], tuple[str, ...]],
        digest: Callable[[CatalogEntry, Any], str],
        reader: Reader,
        facts: Facts | None,
    ) -> SnapshotEntry:
        try:
            content: str | None = digest(entry, store)
        except Exception:  # a store without digests: unknown, read again every time
            content = None
        if content is None:
            token = None
        elif prev is not None and prev.entry is entry and prev._content == content:
            return prev  # the same entry object, the same content: nothing to hash
        else:
            token = _token((*_head(entry, ref), content))
        if prev is not None and token is not None and prev.token == token:
            return prev
        if entry.status not in READABLE_STATUSES:
            return SnapshotEntry(key, ref, entry, (), token, _content=content)
        files: list[SnapshotFile] = []
        try:
            known_files = _known(facts, entry, store, content)
            if known_files is not None:  # the store's own facts: read only what they lack
                for rel, size, file_digest, text in known_files:
                    if text is None and size <= _STORE_READ_LIMIT:
                        files.append(_read_listed(reader, ref, rel))
                    else:
                        fd = FileDigest(file_digest, size, text) if text is not None else None
                        files.append(SnapshotFile(rel, size, None, fd))
                return SnapshotEntry(key, ref, entry, tuple(files), token, True, content)
            rels = ["SKILL.md", *sorted(set(listing(ref)) - {"SKILL.md"})]
            for rel in rels:
                files.append(_read_listed(reader, ref, rel))
        except Exception:  # unreadable now: list what was read, never reuse it
            return SnapshotEntry(key, ref, entry, tuple(files), None, False)
        return SnapshotEntry(key, ref, entry, tuple(files), token, True, content)


#: a listed file as the walker gives it: (path, size, (inode, mtime_ns, ctime_ns))
_Found = tuple[str, int, tuple[int, int, int]]


def _files_of(
    entry: CatalogEntry, found: list[_Found], settled: int
) -> tuple[list[SnapshotFile], bool]:
    """The files a folder entry lists (SKILL.md first, by that name; none for an entry
    that cannot be read), and whether one of them changed a moment ago."""
    md = entry.metadata.md_name
    files: list[SnapshotFile] = []
    first: SnapshotFile | None = None
    racy = False
    for path, size, (ino, mtime, ctime) in found:
        fresh = max(mtime, ctime) > settled
        racy = racy or fresh
        stamp = None if fresh else (ino, mtime, size, ctime)
        if path == md:
            first = SnapshotFile("SKILL.md", size, stamp)
        if path != "SKILL.md":
            files.append(SnapshotFile(path, size, stamp))
    listed = ([first] if first is not None else []) + files
    if entry.status not in READABLE_STATUSES:
        listed = []
    return listed, racy


def _hashed(listed: SnapshotFile, read: FileData | None) -> SnapshotFile:
    """A listed file with the digest of its bytes read with the walk (if they were)."""
    if read is None:
        return listed
    return SnapshotFile(listed.path, listed.size, listed.stamp, file_digest_of(read.data))


def _listed(
    entry: CatalogEntry,
    key: str,
    ref: str,
    found: list[_Found],
    complete: bool,
    settled: int,
    stamps: Callable[[], TreeStamps | None],
    listed: list[SnapshotFile] | None = None,
    racy: bool = False,
) -> SnapshotEntry:
    """A folder entry over the files the walker lists (``stamps`` gives its tree
    stamps, asked only for a complete, settled listing; ``listed``, ``racy``: what
    ``_files_of`` gives for ``found``, when known)."""
    if listed is None:
        listed, racy = _files_of(entry, found, settled)
    token = _token((*_head(entry, ref), complete, *((f[0], f[2]) for f in found), len(found)))
    if racy:
        return SnapshotEntry(key, ref, entry, tuple(listed), None, complete)
    tree = stamps() if complete else None
    return SnapshotEntry(key, ref, entry, tuple(listed), token, complete, _tree=tree)


def _read_listed(reader: Reader, ref: str, rel: str) -> SnapshotFile:
    """A store skill's file, read to learn its size and digest (none over the limit)."""
    got = reader(ref, rel, _STORE_READ_LIMIT, True)
    known = None if got.truncated else file_digest_of(bytes(got.data))
    return SnapshotFile(rel, got.size, None, known)


def _known(
    facts: Facts | None, entry: CatalogEntry, store: Any, content: str | None
) -> list[FileFacts] | None:
    """The store's facts of the files of version ``content``, SKILL.md first, then by
    path (``None``: the store has none, or not of that version, or not for SKILL.md)."""
    if facts is None or content is None:
        return None
    try:
        got = facts(entry, store, content)
        rows = {row[0]: row for row in got} if got is not None else None
    except Exception:  # the store could not tell: read the files
        return None
    if rows is None:
        return None
    first = rows.pop("SKILL.md", None)
    if first is None:
        return None
    return [first, *(rows[rel] for rel in sorted(rows))]


def _tree_stamps(entry: CatalogEntry, real: str, found: Walk, settled: int) -> TreeStamps | None:
    """What tells, with ``stat`` only, that a walk would list the same files with the
    same stamps: any file added, removed or renamed changes a folder's mtime, any
    edit a file's stamp, a swapped link its folder's. The folders' stamps are the
    walk's own (``Walk.stamps``, each taken before the folder was listed, so a
    change made while it was listed shows at the next check). ``None`` when a
    folder changed too recently to trust its mtime."""
    if entry.metadata.folder is None or len(found.stamps) != len(found.dirs) + 1:
        return None
    items: list[tuple[str, int, int, int, int]] = []
    for rel, (ino, mtime, size, ctime) in zip(("", *found.dirs), found.stamps, strict=True):
        if max(mtime, ctime) > settled:
            return None
        items.append((rel, ino, mtime, size, ctime))
    dirs = len(items)
    for f in found.files:
        ino, mtime, ctime = f.stamp
        items.append((f.path, ino, mtime, f.size, ctime))
    return real, dirs, tuple(items)


def _same_tree(entry: CatalogEntry, tree: TreeStamps) -> bool:
    real, _dirs, items = tree
    folder = entry.metadata.folder
    if folder is None:
        return False
    try:
        for rel, ino, mtime, size, ctime in items:
            st = os.stat(os.path.join(real, rel) if rel else folder)
            if (
                st.st_ino != ino
                or st.st_mtime_ns != mtime
                or st.st_size != size
                or st.st_ctime_ns != ctime
            ):
                return False
    except OSError:
        return False
    return True


def _fields(e: SnapshotEntry) -> tuple[Any, ...]:
    return (e.key, e.ref, e.entry, e.files, e.token, e.complete, e._content, e._tree)
