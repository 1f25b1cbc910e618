"""The filesystem store: discovery of skill folders under one root, and bounded reads.

Discovery is ``skilldeck._tree.SkillFinder``'s (``immediate`` or ``recursive``,
the one skip list, links followed only inside the allowed roots, a SKILL.md link
leaving its folder an SK214 error); this store parses what it finds, caches it
by stat signature and serves it.

Reads of bundled files resolve real paths and refuse anything outside
the skill's real folder, anything that is not a regular file, and anything not
in the skill's file index.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat as _stat
import threading
import time
from collections.abc import Callable, Sequence
from itertools import repeat
from operator import itemgetter
from pathlib import Path

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import (
    FOLDER_GONE_HINT,
    FileNotFoundInSkillError,
    FileTooLargeError,
    ManifestError,
    PathNotAllowedError,
    SkillNotFoundError,
    SkillUnavailableError,
    files_hint,
    hint_command,
)
from skilldeck._paths import real_path, within
from skilldeck._tree import MAX_DEPTH, SkillFinder, skill_md_escapes
from skilldeck.catalog import _codes as C
from skilldeck.catalog._cache import (
    NEVER,
    SIG_SIZE,
    MetadataCache,
    Record,
    RootSig,
    Sig,
    Stored,
    ctime_of,
    pack_diagnostics,
    sig_of,
    split_sigs,
    stamp_of,
)
from skilldeck.catalog._discover import found_of, replay
from skilldeck.catalog._files import (
    index_files,
    linked_in,
    read_contained,
    read_in,
    through_loop,
    walk_all,
)
from skilldeck.catalog._fileset import check_read
from skilldeck.catalog._model import (
    SkillMetadata,
    folder_text,
    metadata_of,
    own_md,
    raw_diagnostics,
)
from skilldeck.catalog._store import (
    DEFAULT_FILE_LIMIT,
    Discovery,
    StoreBase,
    bundled_relpath,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from skilldeck._tree import Found, SkillTree, Walk
    from skilldeck.catalog._loaded import FileData, Skill
    from skilldeck.catalog._pool import Parsed
    from skilldeck.catalog._runnable import RunSettings
    from skilldeck.catalog._store import Scanned
    from skilldeck.catalog._types import IndexMode

__all__ = ["MAX_DEPTH", "FileSystemStore", "Mode"]

if TYPE_CHECKING:
    Mode = Literal["lenient", "strict"]

_SKILL_MD = os.sep + "SKILL.md"
_MD_LEN = len(_SKILL_MD)
_RACY_NS = 1_000_000_000
_FOLDER = itemgetter(0)  # of a ``Found``
_SIG = itemgetter(3)


def _record(m: SkillMetadata) -> Record | None:
    """The cache's plain-data record of a skill's metadata (see ``_parse``); ``None``
    when its diagnostics hold text that cannot be stored (parsed again next time)."""
    raw = raw_diagnostics(m)
    try:  # packed ones are kept as they are
        diags = pack_diagnostics(
            raw, own_md(m.folder, m.md_name) if raw.__class__ is tuple else None
        )
    except ValueError:
        return None
    return (
        m.name,
        m.description,
        m.tags,
        m.requires_commands,
        m.requires_env,
        m.requires_other,
        m.valid,
        diags,
        None
        if m.model_invocable and m.user_invocable and not (m.when_to_use or m.argument_hint)
        else (m.model_invocable, m.user_invocable, m.when_to_use, m.argument_hint),
        None if m.version is None and m.author is None else (m.version, m.author),
        m._run,
    )


def memory_key(folder: str, md: str, real_md: str) -> str:
    """A SKILL.md's key in the store's memory and the cache: the folder itself for a
    file named SKILL.md in it that is not a link (the string the metadata holds
    anyway), else the path as found and the real path, NUL-separated (no folder
    holds NUL, so the two kinds never meet)."""
    if len(md) == len(folder) + _MD_LEN and md == real_md and md.endswith(_SKILL_MD):
        return folder
    return f"{md}\0{real_md}"


class _Memory:
    """What a store read last, in walk order: each SKILL.md's key, stat signature and
    metadata, as two lists and one buffer of the packed signatures (no tuple,
    signature object or map entry per skill: 16 MiB at 100,000 skills). Found in walk
    order; a key asked out of order is found through a map made then."""

    __slots__ = ("_index", "_next", "keys", "metas", "odd", "sigs")

    def __init__(
        self, keys: list[str], metas: list[SkillMetadata], sigs: list[Sig] | bytearray
    ) -> None:
        self.keys = keys
        self.metas = metas
        self._index: dict[str, int] | None = None
        self._next = 0
        self.sigs: bytes | bytearray
        if isinstance(sigs, bytearray):  # already packed one after the other (``replay``)
            self.odd: dict[int, Sig] = {}
            self.sigs = sigs
            return
        # a signature of another length (NEVER, an out-of-range one) is kept aside
        self.odd = (
            {i: sig for i, sig in enumerate(sigs) if len(sig) != SIG_SIZE}
            if not {*map(len, sigs)} <= {SIG_SIZE}  # told in C: most often none
            else {}
        )
        blank = b"\0" * SIG_SIZE
        self.sigs = b"".join(
            sigs if not self.odd else (sig if len(sig) == SIG_SIZE else blank for sig in sigs)
        )

    def __len__(self) -> int:
        return len(self.keys)

    def rewind(self) -> None:
        """Look for the next key at the start again (a new walk)."""
        self._next = 0

    def find(self, key: str) -> int:
        """The position of ``key`` (-1: not held)."""
        at, keys = self._next, self.keys
        if at >= len(keys) or keys[at] != key:
            index = self._index
            if index is None:
                index = self._index = {k: n for n, k in enumerate(keys)}
            at = index.get(key, -1)
            if at < 0:
                return -1
        self._next = at + 1
        return at

    def sig(self, at: int) -> Sig:
        """The signature held at position ``at``."""
        if self.odd:
            odd = self.odd.get(at)
            if odd is not None:
                return odd
        return bytes(self.sigs[at * SIG_SIZE : (at + 1) * SIG_SIZE])

    def stamp(self, at: int) -> Sig | None:
        """The stamp of the SKILL.md at position ``at``: the signature the scan
        validated it with, kept only for a file named SKILL.md in its folder that is
        not a link (``memory_key``) and whose signature is exact (not a racy file's)."""
        if "\0" in self.keys[at] or at in self.odd:
            return None
        return bytes(self.sigs[at * SIG_SIZE : (at + 1) * SIG_SIZE])


class FileSystemStore(StoreBase):
    """Skills in the folders of one root on disk (the embedded default store).

    ``allowed_roots`` widens where symlinks may lead (the catalog passes every
    root of every source); the store's own root is always allowed. ``cache``
    persists parsed metadata between processes. ``index`` chooses the file
    index: ``bundled`` (``scripts/``, ``references/``, ``assets/`` one level
    deep, the default) or ``all`` (every file). ``keep_frontmatter`` keeps each
    parsed skill's frontmatter as JSON (``SkillMetadata.frontmatter_json``) for a
    caller that publishes it (an MCP server), instead of reading it again, and the
    digest of each SKILL.md the scan read whole for its next snapshot
    (``scanned_digests``). Thread-safe.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        recursive: bool = False,
        source: str = "",
        allowed_roots: Sequence[str | os.PathLike[str]] = (),
        cache: MetadataCache | None = None,
        index: IndexMode = "bundled",
        mode: Mode = "lenient",
        max_depth: int = MAX_DEPTH,
        repository: bool = False,
        keep_frontmatter: bool = False,
    ) -> None:
        self.root = Path(os.path.abspath(os.fspath(root)))
        self.recursive = recursive
        self.repository = repository
        self.source = source
        self.index: IndexMode = index
        self.mode: Mode = mode
        self.max_depth = max_depth
        self.keep_frontmatter = keep_frontmatter
        self._extra_allowed = tuple(os.fspath(p) for p in allowed_roots)
        self._cache = cache
        self._lock = threading.RLock()
        # in-process memory: each key's stat signature and metadata; the cache rows are
        # rebuilt from the metadata when saved (holding both doubles the objects)
        self._memory = _Memory([], [], [])
        # the last walk of an immediate root: its signature, skill folders, others
        self._listing: tuple[RootSig, list[str], list[str]] | None = None
        self._disk: Stored | None = None  # opened by _replay for _parse_all
        self._found: Discovery | None = None
        self._by_key: dict[str, SkillMetadata] | None = None
        self._allowed: tuple[str, ...] | None = None
        self._scanned: dict[str, Scanned] = {}  # scanned_digests
        self._reads_md = self._read_md  # (one bound method, handed to every metadata made)
        self.exists = False
        self.workers_used = 0
        """Processes that parsed the last scan's files, this one included (0: this one alone)."""

    def __repr__(self) -> str:
        return f"FileSystemStore({str(self.root)!r}, {self._depth}, source={self.source!r})"

    @property
    def _depth(self) -> str:
        mode = "recursive" if self.recursive else "immediate"
        return f"{mode}+repository" if self.repository else mode

    @property
    def cache_key(self) -> str:
        return f"{self.root}\0{self._depth}\0{self.mode}"

    # ------------------------------------------------------------------ discovery

    def discover(self, *, refresh: bool = False) -> Discovery:
        """Every candidate under the root (valid or not) and the problems met.

        The first call walks the root; later calls return the same result until
        ``refresh=True`` (which re-reads only changed SKILL.md files).
        """
        with self._lock:
            if self._found is None or refresh:
                self._allowed = None  # the roots' real paths, resolved again after a walk
                found = self._walk_root()
                if found is not self._found:
                    self._by_key = None  # made by the first get(): a listing never asks
                self._found = found
            return self._found

    def _allowed_real(self) -> tuple[str, ...]:
        """The real paths of the root and the other allowed roots (as of the last walk)."""
        allowed = self._allowed
        if allowed is None:
            extra = (os.path.realpath(p) for p in self._extra_allowed)
            allowed = self._allowed = (os.path.realpath(self.root), *extra)
        return allowed

    def refresh(self) -> Discovery:
        return self.discover(refresh=True)

    def list_skills(self) -> list[SkillMetadata]:
        return [m for m in self.discover().skills if m.valid]

    def skill_md_stamps(self) -> dict[int, bytes]:
        """The packed stat signature (``_cache.sig_of``) each held SKILL.md was
        validated with by the last scan, by the metadata's ``id`` (``_Memory.stamp``)."""
        with self._lock:
            memory = self._memory
            stamp = memory.stamp
            return {
                id(meta): held
                for i, meta in enumerate(memory.metas)
                if (held := stamp(i)) is not None
            }

    def run_settings(self, name: str) -> RunSettings | None:
        """What a run reads of the skill's manifest, from the last scan's record while
        its SKILL.md keeps the stamp that scan validated it with (``_Memory.stamp``,
        compared as a walk compares it); ``None``: load the skill to know them. The
        checks of ``load_skill`` apply first (the same errors)."""
        meta, _real, _md = self._checked(name)
        with self._lock:
            memory = self._memory
            at = memory.find(meta.key)
            held = memory.stamp(at) if at >= 0 and memory.metas[at] is meta else None
        if held is None or meta.skill_md is None:
            return None
        try:
            st = os.lstat(meta.skill_md)
        except OSError:
            return None
        if not _stat.S_ISREG(st.st_mode) or sig_of(st) != held:
            return None
        from skilldeck.catalog._runnable import RunSettings

        return RunSettings(meta.description, meta._run)

    def _walk_root(self) -> Discovery:
        diags: list[Diagnostic] = []
        root = os.fspath(self.root)
        try:
            st = os.stat(root)
        except FileNotFoundError:
            self.exists = False
            return Discovery(())
        except OSError as exc:
            self.exists = False
            if exc.errno == errno.ENOTDIR:
                return Discovery((), (self._root_not_dir(root),))
            return Discovery((), (self._root_unreadable(root, exc),))
        if not _stat.S_ISDIR(st.st_mode):
            self.exists = False
            return Discovery((), (self._root_not_dir(root),))
        self.exists = True
        real_root = os.path.realpath(root)
        allowed = (real_root, *(os.path.realpath(p) for p in self._extra_allowed))
        walker = SkillFinder(
            root,
            recursive=self.recursive,
            max_depth=self.max_depth,
            real_root=real_root,
            allowed=allowed,
            diags=diags,
            sig=sig_of,
            repository=self.repository,
        )
        start = time.time_ns()
        root_sig = (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        replayed = self._replay(walker, root_sig) if not self.recursive else None
        found: list[Found] | None = None
        if replayed is None:
            try:
                found = walker.find()
            except OSError as exc:
                return Discovery((), (self._root_unreadable(root, exc),))
        # The folder list is reused while the root's signature stays, unless the root
        # changed within the last second: a change in the same clock tick as the walk
        # would leave the signature as it was (git's "racy" entries).
        fresh = max(st.st_mtime_ns, st.st_ctime_ns) > start - _RACY_NS
        if walker.plain and not diags and not fresh:
            folders = replayed[0] if replayed is not None else [*map(_FOLDER, found or ())]
            self._listing = (root_sig, folders, walker.others)
        else:
            self._listing = None
        metas = self._parse_all(found, start - _RACY_NS, replayed)
        prev = self._found
        if (
            prev is not None
            and len(prev.skills) == len(metas)
            and all(a is b for a, b in zip(prev.skills, metas, strict=True))
            and prev.diagnostics == tuple(diags)
        ):
            return prev  # nothing changed: the same object tells the catalog so cheaply
        return Discovery(tuple(metas), tuple(diags))

    def _replay(self, walker: SkillFinder, root_sig: RootSig) -> tuple[list[str], bytearray] | None:
        """The last walk's skill folders again, with their SKILL.md's signatures now
        (``replay``), when the root's folder list cannot have changed."""
        listing = self._listing
        if listing is None and not self._memory and self._cache is not None:
            disk = self._disk = self._cache.open(self.cache_key)  # kept for _parse_all
            stored = disk.listing if disk is not None else None
            if disk is not None and stored is not None and stored[0] == root_sig:
                # a listing is kept only for plain SKILL.md files: the keys are the folders
                listing = (stored[0], disk.keys, stored[1])
        if listing is None or listing[0] != root_sig:
            return None
        sigs = replay(listing[1], listing[2])
        if sigs is None:
            return None
        walker.others = listing[2]
        return listing[1], sigs

    def _root_not_dir(self, root: str) -> Diagnostic:
        return Diagnostic.make(
            C.ROOT_NOT_DIR,
            f"skills root {root} is not a folder",
            path=root,
            hint="point the root at a folder whose sub-folders hold SKILL.md files",
        )

    def _root_unreadable(self, root: str, exc: OSError) -> Diagnostic:
        return Diagnostic.make(
            C.ROOT_UNREADABLE,
            f"cannot read skills root {root}: {exc.strerror or exc}",
            path=root,
            hint="check the folder's permissions",
        )

    def _parse_all(
        self,
        found: list[Found] | None,
        racy: int,
        replayed: tuple[list[str], bytearray] | None = None,
    ) -> list[SkillMetadata]:
        """Turn (folder, SKILL.md, real SKILL.md, signature) into metadata, cached.

        Files changed at or after ``racy`` (ns) are parsed again next time: an edit
        in the same clock tick as this read would keep their signature.
        """
        loaded, self._disk = self._disk, None
        try:
            return self._parse_rows(found, racy, loaded, replayed)
        finally:
            if loaded is not None:
                loaded.close()

    def _parse_rows(
        self,
        found: list[Found] | None,
        racy: int,
        loaded: Stored | None,
        replayed: tuple[list[str], bytearray] | None,
    ) -> list[SkillMetadata]:
        """``found``: the walk's; ``None`` for a root ``replayed`` (its folders and
        their signatures, ``_replay``)."""
        disk, opened = loaded, loaded is not None
        memory = self._memory
        memory.rewind()
        find, held_sig, held = memory.find, memory.sig, memory.metas
        keys: list[str] = []
        sigs: list[Sig] = []  # with keys and metas, the new memory
        metas: list[Any] = []  # SkillMetadata, None where a file is still to parse
        append, add_key, add_sig = metas.append, keys.append, sigs.append
        todo: list[tuple[int, str, str, str, str, Sig]] = []
        make, source, reads = metadata_of, self.source, self._reads_md
        packed: bytearray | None = None  # every signature, when every row was served
        if found is None:
            assert replayed is not None
            folders, every = replayed
            done = 0
            if loaded is not None and not held and folders is loaded.keys:
                done = self._take_listed(loaded, every, keys, metas, todo)  # the warm path
            if done == len(folders) and not todo:
                packed = every
            else:  # some to parse or to take by key: their signatures one by one
                sigs += split_sigs(every[: done * SIG_SIZE])
            found = found_of(folders, every, done)
        for folder, md, real_md, sig in found:
            key = memory_key(folder, md, real_md)
            add_key(key)
            add_sig(sig)
            at = find(key) if held else -1
            if at >= 0 and held_sig(at) == sig:
                append(held[at])
                continue
            if not opened:
                opened = True
                disk = self._cache.open(self.cache_key) if self._cache is not None else None
            row = disk.take(key) if disk is not None else None
            if row is None or row[0] != sig:
                todo.append((len(metas), key, folder, md, real_md, sig))
                append(None)  # parsed below
                continue
            # self._meta(folder, md, row[1:]), inlined: the warm hot loop; tag sets,
            # findings, versions and authors come shared from the index's tables
            append(
                make(
                    row[1],
                    row[2],
                    folder,
                    "SKILL.md" if key is folder else self._md_name(folder, md),
                    source,
                    folder,
                    row[3],
                    row[4],
                    row[5],
                    row[6],
                    row[8],
                    row[7],
                    row[9],
                    row[10],
                    row[11],
                    None,
                    reads,
                )
            )
        if todo:
            self._parse_missing(todo, metas, sigs, memory, racy)
        listing = self._listing
        if self._cache is not None and (
            todo
            or (disk is not None and len(disk.keys) != len(keys))
            or (disk is None and len(keys) != len(memory))
            or (listing is not None and loaded is not None and loaded.listing is None)
        ):
            if packed is not None:
                sigs = split_sigs(packed)
            rows = [
                (k, sig, record)
                for k, sig, meta in zip(keys, sigs, metas, strict=True)
                if 0 <= ctime_of(sig) < racy and (record := _record(meta)) is not None
            ]
            whole = len(rows) == len(keys)
            self._cache.save(
                self.cache_key, rows, (listing[0], listing[2]) if listing and whole else None
            )
        self._memory = _Memory(keys, metas, packed if packed is not None else sigs)
        if disk is not None and disk is not loaded:
            disk.close()
        return metas

    def _take_listed(
        self,
        disk: Stored,
        packed: bytearray,
        keys: list[str],
        metas: list[Any],
        todo: list[tuple[int, str, str, str, str, Sig]],
    ) -> int:
        """``_parse_rows``'s loop for a root replayed from ``disk``'s listing (the warm
        hot path): the folders are ``disk.keys`` (each one the key of its plain
        SKILL.md), ``packed`` their signatures now (``replay``), so the stored rows are
        taken a chunk of columns at a time, without a look-up per key, and a chunk
        whose signatures all hold without a loop in Python. Returns how many folders
        were taken (the rest: by key)."""
        append, add_todo, size = metas.append, todo.append, SIG_SIZE
        make, source, reads = metadata_of, self.source, self._reads_md
        done = 0
        while (chunk := disk.columns()) is not None:
            at, (stored, names, descriptions, *fields) = chunk
            end = at + len(names)
            if at != done or end * size > len(packed):
                break  # not the replayed order after all: the rest by key
            folders = disk.keys[at:end]
            keys += folders
            tags, commands, env, other, valid, diags, calls, about, run = fields
            if packed[at * size : end * size] == stored:  # no file changed
                metas += map(
                    make, names, descriptions, folders, repeat("SKILL.md"), repeat(source),
                    folders, tags, commands, env, other, diags, valid, calls, about, run,
                    repeat(None), repeat(reads),
                )  # fmt: skip
                done = end
                continue
            # (every column's length was checked: strict never raises)
            for i, folder, name, text, t, c, e, o, d, v, k, a, r in zip(
                range(at, end), folders, names, descriptions, tags, commands, env, other,
                diags, valid, calls, about, run, strict=True,
            ):  # fmt: skip
                sig = packed[i * size : (i + 1) * size]
                if stored[(i - at) * size : (i - at + 1) * size] != sig:
                    md = folder + _SKILL_MD
                    add_todo((len(metas), folder, folder, md, md, bytes(sig)))
                    append(None)  # parsed by the caller
                    continue
                meta = make(
                    name, text, folder, "SKILL.md", source, folder, t, c, e, o, d, v, k, a, r,
                    None, reads,
                )  # fmt: skip
                append(meta)
            done = end
        return done

    def _parse_missing(
        self,
        todo: list[tuple[int, str, str, str, str, Sig]],
        metas: list[Any],
        sigs: list[Sig],
        before: _Memory,
        racy: int,
    ) -> None:
        """Parse the files the caches could not serve (in worker processes when many).

        A file parsed again to the same metadata keeps its metadata object (so an
        unchanged catalog stays the same object); a racy one is remembered with a
        signature that never matches.
        """
        from skilldeck.catalog._pool import parse_records, pool_workers  # cold scans only

        keep = self.keep_frontmatter
        records = None
        workers = pool_workers(len(todo))
        if workers:
            items = [(t[4], t[2], self._own(t[2], t[3])) for t in todo if t[4]]
            records = parse_records(items, self.mode, workers, frontmatter=keep, digest=keep)
        self.workers_used = workers if records is not None else 0
        scanned: dict[str, Scanned] = {}
        n = 0
        for pos, key, folder, md, real_md, sig in todo:
            read = None
            if not real_md:  # SKILL.md leaves the folder: never read
                meta = SkillMetadata(
                    os.path.basename(folder), "", folder, self._md_name(folder, md),
                    self.source, folder, (), (), (), (), (skill_md_escapes(md),), False,
                )  # fmt: skip
            else:
                if records is not None:
                    record, frontmatter, read = records[n]
                    n += 1
                else:
                    record, frontmatter, read = self._parse(real_md, folder, md)
                meta = self._meta(folder, md, record, frontmatter)
            at = before.find(key) if len(before) else -1
            if at >= 0 and before.metas[at] == meta and _same_kept(before.metas[at], meta):
                meta = before.metas[at]
            metas[pos] = meta
            if ctime_of(sig) >= racy:
                sigs[pos] = NEVER
            elif read is not None and read[0] == sig and key == folder and len(sig) == SIG_SIZE:
                # the bytes parsed are those of the file the walk stamped: a plain
                # SKILL.md (no link), settled before the scan began
                scanned[folder] = (stamp_of(sig), *read[1:])
        self._scanned = scanned

    def scanned_digests(self) -> dict[str, Scanned]:
        """The digest of each SKILL.md the last scan read whole, by skill folder, with
        the stamp the walk gave it (kept only while the catalog keeps frontmatter for
        a publisher; handed over once)."""
        with self._lock:
            scanned, self._scanned = self._scanned, {}
        return scanned

    def _parse(self, real_md: str, folder: str, md: str) -> Parsed:
        """Read one SKILL.md into the record a worker makes (its frontmatter and
        digest with it when the store keeps them).

        The manifest is not kept: like metadata served from the cache, it is
        read again on first use (holding 10,000 manifests costs memory and
        collector time for every listing).
        """
        from skilldeck.catalog._pool import parse_record  # a warm listing never parses

        keep = self.keep_frontmatter
        return parse_record(
            real_md, folder, self.mode, self._own(folder, md), frontmatter=keep, digest=keep
        )

    @staticmethod
    def _md_name(folder: str, md: str) -> str:
        return md[len(folder) + 1 :] if md.startswith(folder) else os.path.basename(md)

    @classmethod
    def _own(cls, folder: str, md: str) -> str | None:
        """The SKILL.md path the metadata of ``md`` names (``_model.own_md``)."""
        return own_md(folder, cls._md_name(folder, md))

    def _meta(
        self, folder: str, md: str, rec: Record, frontmatter: str | None = None
    ) -> SkillMetadata:
        return metadata_of(
            rec[0],
            rec[1],
            folder,
            self._md_name(folder, md),
            self.source,
            folder,
            tuple(rec[2]),
            tuple(rec[3]),
            tuple(rec[4]),
            tuple(rec[5]),
            rec[7],
            rec[6],
            rec[8],
            rec[9],
            rec[10],
            frontmatter,
            self._reads_md,
        )

    # ------------------------------------------------------------------ access

    def get(self, name: str) -> SkillMetadata:
        """The metadata for a key (skill folder path) or the first skill of that name."""
        discovery = self.discover()
        with self._lock:
            by_key = self._by_key
            if by_key is None or self._found is not discovery:
                by_key = {m.key: m for m in discovery.skills}
                if self._found is discovery:
                    self._by_key = by_key
            found = by_key.get(name)
        if found is None:
            found = next((m for m in discovery.skills if m.name == name and m.valid), None)
        if found is None:
            raise SkillNotFoundError(f"no skill named {name!r} under {self.root}", skill=name)
        return found

    def _real_folder(self, meta: SkillMetadata) -> str:
        assert meta.path is not None
        return self._inside_roots(meta, real_path(meta.path))

    def _inside_roots(self, meta: SkillMetadata, real: str) -> str:
        """``real``, the skill folder's real path, unless it now leads outside the
        allowed roots (``PathNotAllowedError``)."""
        if not within(real, self._allowed_real()):
            raise PathNotAllowedError(
                f"skill folder {meta.path} now leads outside the allowed roots",
                skill=meta.name,
                hint="refresh the catalog; the folder was replaced by a link",
            )
        return real

    def _opened(self, meta: SkillMetadata) -> SkillTree:
        """The skill folder opened for a walk and reads, named by its real path and
        refused as ``_real_folder`` refuses it: one open where the kernel names what
        it opened (``ContainedFolder.resolved``), else ``_real_folder``, then the open
        of the folder at that path (which must not be a link now)."""
        from skilldeck._tree import SkillTree  # reads only: a listing imports no walker

        assert meta.folder is not None
        tree = SkillTree.resolved(folder_text(meta.folder), skill=meta.name)
        if tree is None:
            return SkillTree(self._real_folder(meta), skill=meta.name, follow_root=False)
        try:
            self._inside_roots(meta, tree.real)
        except BaseException:
            tree.close()
            raise
        return tree

    def _valid(self, name: str) -> SkillMetadata:
        """The metadata of a skill a load or a run may read (``SkillUnavailableError``
        for an invalid one)."""
        meta = self.get(name)
        if not meta.valid:
            raise SkillUnavailableError(
                f"skill {meta.name!r} at {meta.path} is invalid",
                skill=meta.name,
                hint=f"run: {hint_command('validate', meta.path)}",
            )
        return meta

    def _checked(self, name: str) -> tuple[SkillMetadata, str, str]:
        """A skill a run may read (``run_settings``): its metadata, real folder and
        real SKILL.md, refusing, as a load does, an invalid skill, a folder that now
        leads outside the allowed roots and a SKILL.md that leads outside the folder."""
        meta = self._valid(name)
        real = self._real_folder(meta)
        assert meta.skill_md is not None
        md_real = os.path.realpath(meta.skill_md)
        if not within(md_real, (real,)):
            raise PathNotAllowedError(
                f"{meta.skill_md} now leads outside the skill folder",
                skill=meta.name,
                hint="replace the link with the file itself; run: "
                + hint_command("validate", meta.path),
            )
        return meta, real, md_real

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> Skill:
        """The skill's manifest, body and file index. SKILL.md is read as
        ``skill_md_bytes`` reads it (never by its path): one that now leads outside
        the folder is ``PathNotAllowedError``, one removed since the listing (or its
        folder) ``SkillNotFoundError``."""
        meta = self._valid(name)
        from skilldeck.format import parse_read, read_limit

        md_name = meta.md_name or "SKILL.md"
        try:
            with self._opened(meta) as tree:
                real = tree.real
                bound = read_limit(max_bytes=max_bytes)
                got = read_in(tree, md_name, max_bytes=bound, truncate=True)
        except FileNotFoundInSkillError:  # removed since the listing, not broken
            raise SkillNotFoundError(
                f"skill {meta.name!r} was removed from {meta.path} since the catalog listed it",
                skill=meta.name,
                hint=FOLDER_GONE_HINT,
            ) from None
        parsed = parse_read(
            got.data,
            size=got.size,
            truncated=got.truncated,
            path=os.path.join(real, md_name),
            max_bytes=max_bytes,
            mode=self.mode,
            folder_name=meta.path.name if meta.path else None,
        )
        if parsed.manifest is None:
            first = parsed.errors[0] if parsed.errors else None
            size = got.size
            if max_bytes is not None and size > max_bytes:
                raise FileTooLargeError(
                    f"SKILL.md of {meta.name!r} has {size} bytes; its frontmatter does not "
                    f"fit in the {max_bytes}-byte limit",
                    skill=meta.name,
                    path=str(meta.skill_md),
                    hint=f"raise the limit (--max-bytes {size} reads all of it)",
                )
            raise ManifestError(
                f"SKILL.md of {meta.name!r} can no longer be read as a skill"
                + (f": {first.code} {first.message}" if first else ""),
                skill=meta.name,
                path=str(meta.skill_md),
                diagnostics=parsed.diagnostics,
                hint="it changed since the catalog listed it; run: "
                + hint_command("validate", meta.path),
            )
        files, _ = index_files(real, self.index)
        from skilldeck.catalog._loaded import Skill  # a load's: a listing makes none

        return Skill(
            meta,
            parsed.manifest,
            parsed.body,
            parsed.body_truncated,
            files,
            parsed.body_line,
            parsed.diagnostics,
        )

    def files(self, name: str, *, index: IndexMode | None = None) -> tuple[str, ...]:
        meta = self.get(name)
        return index_files(self._real_folder(meta), index or self.index)[0]

    def tree(self, name: str) -> tuple[str, Walk]:
        """The skill's real folder and every file the walker lists in it (SKILL.md too),
        with stamps."""
        real = self._real_folder(self.get(name))
        return real, walk_all(real)

    def folder_root(self) -> tuple[str, bool]:
        return os.path.realpath(self.root), self.recursive

    def skill_md_bytes(
        self, name: str, *, max_bytes: int = DEFAULT_FILE_LIMIT, truncate: bool = False
    ) -> FileData:
        """The skill's SKILL.md (whatever its file name's case), refusing one that
        leads outside the skill's folder (the folder opened as ``_opened`` opens it:
        one open where the kernel names it; the search index reads every SKILL.md so)."""
        return self._read_md(self.get(name), max_bytes, truncate)

    def _read_md(self, meta: SkillMetadata, max_bytes: int, truncate: bool = True) -> FileData:
        """``skill_md_bytes`` of ``meta`` (this listing's or an earlier one's): the
        reader of ``SkillMetadata.manifest``, cut to ``max_bytes``."""
        with self._opened(meta) as tree:
            return read_in(tree, meta.md_name or "SKILL.md", max_bytes=max_bytes, truncate=truncate)

    def file_problems(self, name: str, *, index: IndexMode | None = None) -> tuple[Diagnostic, ...]:
        """Diagnostics met while indexing a skill's files (escaping links, devices)."""
        meta = self.get(name)
        return index_files(self._real_folder(meta), index or self.index)[1]

    def read_bundled(
        self,
        name: str,
        relpath: str,
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> FileData:
        """Read one file of the skill, refusing anything outside it (see module doc)
        and outside the file index ``index`` lists (SKILL.md is always readable).

        The path decides (``skilldeck.catalog._fileset.check_read``), then the
        contained reader opens just that file: no walk of the skill.
        """
        meta = self.get(name)
        clean = bundled_relpath(relpath, skill=meta.name)
        real_dir = self._real_folder(meta)
        self._check_read(meta, real_dir, clean, index)
        return read_contained(
            real_dir, clean, max_bytes=max_bytes, truncate=truncate, skill=meta.name
        )

    def read_many(
        self,
        name: str,
        relpaths: Sequence[str],
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> list[FileData]:
        """``read_bundled`` of each path (``skill_md_bytes`` for ``SKILL.md``) with the
        same checks, the skill folder resolved and opened once for all of them."""
        from skilldeck._tree import SkillTree  # reads only: a listing imports no walker

        meta = self.get(name)
        real_dir = self._real_folder(meta)
        out: list[FileData] = []
        loops: dict[str, bool] = {}  # through_loop's answer by folder, for this pass
        with contextlib.ExitStack() as stack:
            tree: SkillTree | None = None
            for relpath in relpaths:
                clean = self._readable(meta, real_dir, relpath, index, loops)
                if tree is None:
                    tree = stack.enter_context(
                        SkillTree(real_dir, skill=meta.name, follow_root=False)
                    )
                out.append(read_in(tree, clean, max_bytes=max_bytes, truncate=truncate))
        return out

    def tree_read(
        self,
        name: str,
        pick: Callable[[Walk], Sequence[str]],
        *,
        max_bytes: int,
        index: IndexMode | None = None,
    ) -> tuple[str, Walk, dict[str, FileData]]:
        """``tree``, then ``read_many`` of the paths ``pick`` chooses from the walk, in one
        pass through the folder opened once (the same checks and reads). The reads
        are left out (an empty map) when one of them fails: a ``read_many`` of them
        raises what it met."""
        meta = self.get(name)
        read: dict[str, FileData] = {}
        loops: dict[str, bool] = {}  # through_loop's answer by folder, for this pass
        with self._opened(meta) as tree:
            real_dir = tree.real
            walked = walk_all(real_dir, tree)
            try:
                for relpath in pick(walked):
                    clean = self._readable(meta, real_dir, relpath, index, loops)
                    read[relpath] = read_in(tree, clean, max_bytes=max_bytes, truncate=False)
            except Exception:  # a read_many of them reports it
                read = {}
        return real_dir, walked, read

    def _readable(
        self,
        meta: SkillMetadata,
        real_dir: str,
        relpath: str,
        index: IndexMode | None,
        loops: dict[str, bool] | None = None,
    ) -> str:
        """``relpath`` as read in the folder (SKILL.md: its own file), once the checks of
        a bundled read allow it (``loops``: see ``through_loop``)."""
        if relpath == "SKILL.md":
            return meta.md_name or "SKILL.md"
        clean = bundled_relpath(relpath, skill=meta.name)
        self._check_read(meta, real_dir, clean, index, loops)
        return clean

    def _check_read(
        self,
        meta: SkillMetadata,
        real_dir: str,
        clean: str,
        index: IndexMode | None,
        loops: dict[str, bool] | None = None,
    ) -> None:
        """Refuse a bundled read the file index or the walker's loop rule does not allow."""
        check_read(
            clean,
            index or self.index,
            lambda: linked_in(real_dir, meta.name),
            skill=meta.name,
            exists=lambda rel: os.path.lexists(os.path.join(real_dir, rel)),
        )
        if through_loop(real_dir, clean, loops):
            raise PathNotAllowedError(
                f"{clean} cannot be read in skill {meta.name}: a link on the way leads back "
                "to a folder above it",
                skill=meta.name,
                path=clean,
                hint=files_hint(meta.name, first="only the files a skill lists can be read"),
            )

    def read_file(self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT) -> bytes:
        return self.read_bundled(name, relpath, max_bytes=max_bytes).data

    def digest(self, name: str) -> str:
        """The content digest of the skill folder (``skilldeck.skill_digest``)."""
        from skilldeck._digest import skill_digest

        return skill_digest(self._real_folder(self.get(name)))


def _same_kept(old: SkillMetadata, new: SkillMetadata) -> bool:
    """Can ``old`` (equal to ``new``) stand for ``new``: it keeps the frontmatter and
    the run settings ``new`` keeps, and holds no manifest read before the edit? (An
    edit outside the metadata's fields, a license or a timeout say, changes only those.)"""
    return old._frontmatter == new._frontmatter and old._manifest is None and old._run == new._run
