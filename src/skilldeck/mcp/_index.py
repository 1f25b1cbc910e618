"""A frozen index of what the server publishes: skills, files, folders, digests.

It maps the catalog's snapshot (``Catalog.snapshot()``: entries with their
files, change tokens and digests; same sources, precedence and status as
``skilldeck list``) to wire records, and is replaced on refresh by a new index,
so every request sees one consistent catalog. A refresh is incremental: only
entries whose change token moved (or whose published path did) are mapped
again, and the new index is the old one with those skills' records, files and
folders swapped. The digests are the catalog's, over exactly the bytes
``resources/read`` serves (both read through the catalog). This module reads
no file itself.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import unquote

from skilldeck import Catalog, CatalogEntry, SkillError
from skilldeck._gc import paused as collector_paused
from skilldeck.catalog import CatalogSnapshot, SnapshotEntry
from skilldeck.disclosure import mime_type
from skilldeck.mcp import _uris
from skilldeck.mcp._publish import frontmatter, publishable
from skilldeck.mcp._store import FileRow, SkillRow, SnapshotStore, TreeRow
from skilldeck.mcp._wire import DIRECTORY_MIME, MAX_FILES, MAX_TOTAL_BYTES

__all__ = ["FileRef", "FolderMap", "IndexBuilder", "SkillIndex", "SkillRecord"]


class FileRef(NamedTuple):
    """One served file: where the catalog finds it and what a client will receive.

    (A named tuple, not a frozen dataclass: a cold start of 2,000 skills makes
    6,600 of them, and a warm one as many from the kept rows; a tuple is made in
    a sixth of the time.)"""

    uri: str
    ref: str  # catalog address: NAME (visible) or SOURCE:NAME
    relpath: str
    size: int
    digest: str | None  # None inside a dynamic skill
    mime: str
    skill_md: str | None = None  # the path of SKILL.md (only on that file)


class SkillRecord(NamedTuple):
    """One published skill and its prebuilt wire entry (a named tuple, as ``FileRef``)."""

    uri: str
    root: str
    name: str
    ref: str
    source: str
    status: str
    description: str
    entry: Mapping[str, Any]
    files: tuple[str, ...]


class FolderMap(Mapping[str, tuple[dict[str, Any], ...]]):
    """Every served folder's URI and its direct children, sorted by URI.

    Made when asked: a skill's folders come from its files (``_owned_dirs``) when a
    client reads one of them, so a start or a refresh lists no folder it is not asked
    for; the folders above shadowed skills' roots (``skill://SOURCE``) are kept.
    """

    __slots__ = ("_depth", "_prefixes", "_roots")

    def __init__(
        self,
        roots: Mapping[str, tuple[SkillRecord, tuple[FileRef, ...]]],
        prefixes: Mapping[str, tuple[dict[str, Any], ...]],
    ) -> None:
        self._roots = roots  # skill root URI -> (record, files)
        self._prefixes = prefixes
        self._depth: int | None = None  # the most "/" in a skill root's URI, when asked

    def __getitem__(self, uri: str) -> tuple[dict[str, Any], ...]:
        found = self._prefixes.get(uri)
        if found is not None:
            return found
        depth = self._depth
        if depth is None:
            depth = self._depth = max((r.count("/") for r in self._roots), default=0)
        # the owner's root is one of the URI's first segments: the walk up starts there,
        # so a URI of many segments costs one pass over it, not one per segment
        root = "/".join(uri.split("/", depth + 1)[: depth + 1])
        while True:
            owner = self._roots.get(root)
            if owner is not None:
                kids = _owned_dirs(*owner).get(uri)
                if kids is None:
                    break
                return tuple(kids[k] for k in sorted(kids))
            root, sep, _ = root.rpartition("/")
            if not sep or len(root) <= len(_uris.SCHEME):
                break
        raise KeyError(uri)

    def __iter__(self) -> Iterator[str]:
        seen = set(self._prefixes)
        yield from self._prefixes
        for owner in self._roots.values():
            for uri in _owned_dirs(*owner):
                if uri not in seen:
                    seen.add(uri)
                    yield uri

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(frozen=True, slots=True)
class SkillIndex:
    """Everything a request needs, precomputed (its folders when asked); immutable once
    built."""

    skills: tuple[SkillRecord, ...] = ()
    by_uri: Mapping[str, SkillRecord] = field(default_factory=dict)
    files: Mapping[str, FileRef] = field(default_factory=dict)
    dirs: Mapping[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    file_uris: tuple[str, ...] = ()
    skill_uris: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()  # (catalog address, reason)

    def skills_after(self, last_uri: str | None, limit: int) -> tuple[SkillRecord, ...]:
        """A page of skills ordered by URI, starting after ``last_uri``."""
        start = 0 if last_uri is None else bisect_right(self.skill_uris, last_uri)
        return self.skills[start : start + limit]

    def fingerprint(self) -> dict[str, str]:
        """``uri -> digest`` (or ``dynamic``) of every file, to tell what changed."""
        return {uri: ref.digest or "dynamic" for uri, ref in self.files.items()}


@dataclass(slots=True)
class _Built:
    """One published skill as last mapped: its token and path, and its wire form
    (derived on first use from a row loaded from the persisted snapshot)."""

    key: str
    token: str
    skill_path: str
    ref: str
    source: str
    status: str
    frontmatter: dict[str, Any]
    record: SkillRecord | None = None
    refs: tuple[FileRef, ...] | None = None
    files: list[FileRow] | None = None  # a loaded row's files, until derived
    tree: TreeRow | None = None  # the snapshot entry's stamps (kept for the next start)

    @classmethod
    def of_row(cls, row: SkillRow) -> _Built:
        return cls(
            row.key,
            row.signature,
            row.skill_path,
            row.ref,
            row.source,
            row.status,
            row.frontmatter,
            files=row.files,
            tree=row.tree,
        )

    def derived(self, entry: CatalogEntry) -> tuple[SkillRecord, tuple[FileRef, ...]]:
        if self.record is None or self.refs is None:
            self.refs = tuple(FileRef(*f) for f in self.files or ())
            self.record = _record(self.skill_path, self.ref, entry, self.frontmatter, self.refs)
            self.files = None
        return self.record, self.refs

    def row(self) -> SkillRow:
        assert self.refs is not None
        return SkillRow(
            key=self.key,
            signature=self.token,
            skill_path=self.skill_path,
            ref=self.ref,
            source=self.source,
            status=self.status,
            frontmatter=self.frontmatter,
            files=[_file_row(r) for r in self.refs],
            tree=self.tree,
        )


class IndexBuilder:
    """Builds ``SkillIndex`` snapshots from a catalog, changing only what changed.

    A skill whose change token, published path and address are unchanged keeps
    its records (no parse, no file listing, no read); a changed one is mapped
    again from the catalog's snapshot, whose digests are cached by file stamp.
    With a ``store``, the last build survives the process, so a restarted
    server starts warm.
    """

    def __init__(self, catalog: Catalog, *, store: SnapshotStore | None = None) -> None:
        self.catalog = catalog
        self._store = store
        self._loaded = store is None
        self._skills: dict[str, _Built] = {}  # entry key -> last build (published ones)
        self._fm: dict[str, tuple[str, dict[str, Any] | None]] = {}  # key -> (token, fm)
        self._snap: CatalogSnapshot | None = None
        self._index: SkillIndex | None = None
        self._prefixes: dict[str, dict[str, dict[str, Any]]] = {}  # shadowed prefix dirs
        self._prefix_dirs: dict[str, tuple[dict[str, Any], ...]] = {}  # ... their listings
        self._roots: dict[str, tuple[SkillRecord, tuple[FileRef, ...]]] = {}  # served roots
        self._skipped: dict[str, tuple[str, str]] = {}
        self._unread: dict[str, tuple[str, str]] = {}  # entries whose SKILL.md was refused
        self._lock = threading.Lock()
        self.changed: set[str] = set()
        """The URIs whose file was added, removed or changed by the last build."""
        self.names: set[str] | None = None
        """The skill names with an entry added, removed or changed by the last build
        (``None``: every name, after the first build)."""

    def build(self) -> SkillIndex:
        """Scan the catalog's snapshot now (blocking; run it in a worker thread from
        async code). ``changed`` then holds the URIs that changed."""
        # A build makes many small objects and frees none: the cyclic collector
        # would only rescan them (a third of a warm start for 2,000 skills).
        with self._lock, collector_paused():
            return self._build()

    def _frontmatter(self, item: SnapshotEntry) -> dict[str, Any] | None:
        token = item.token
        if token is not None:
            known = self._skills.get(item.key)
            if known is not None and known.token == token and known.ref == item.ref:
                return known.frontmatter  # unchanged: no need to parse SKILL.md
            cached = self._fm.get(item.key)
            if cached is not None and cached[0] == token:
                return cached[1]
        try:
            found = frontmatter(item.entry)
        except SkillError as exc:  # SKILL.md now leads outside its folder: not served
            self._unread[item.key] = (item.ref, f"{type(exc).__name__}: {exc}")
            return None
        if token is not None:
            self._fm[item.key] = (token, found)
        return found

    def _build(self) -> SkillIndex:
        if not self._loaded and self._store is not None:
            self._skills = {k: _Built.of_row(row) for k, row in self._store.load().items()}
            self._loaded = True
        # a first build checks the kept skills' stamps instead of walking their folders
        kept = (
            {k: b.tree for k, b in self._skills.items() if b.tree is not None}
            if self._snap is None
            else None
        )
        # the files of a skill walked now are hashed in the same pass (the same reads)
        snap = self.catalog.snapshot(kept=kept, digest_within=(MAX_FILES, MAX_TOTAL_BYTES))
        old_index = self._index
        diff = snap.diff(self._snap)
        if old_index is not None and self._snap is not None and not diff:
            self._snap = snap
            self.changed, self.names = set(), set()
            return old_index
        if self._snap is None:
            self.names = None
        else:
            left = {self._snap.by_key[k].name for k in diff.removed}
            self.names = left | {snap.by_key[k].name for k in diff.added | diff.changed}
        self._snap = snap
        self._unread = {}
        published = publishable(snap.entries, self._frontmatter)
        self._fm = {k: v for k, v in self._fm.items() if k in snap.by_key}
        before = self._skills if old_index is not None else {}
        skills: dict[str, _Built] = {}
        fresh: list[_Built] = []  # mapped again (or first mapped)
        skipped: dict[str, tuple[str, str]] = dict(self._unread)
        rewrite = False  # the kept snapshot no longer says what this build found
        for skill_path, item, fm in published:
            known = self._skills.get(item.key)
            if (
                known is not None
                and item.token is not None
                and known.token == item.token
                and known.skill_path == skill_path
                and known.ref == item.ref
            ):
                known.derived(item.entry)
                if known.tree != item.stamps:
                    known.tree, rewrite = item.stamps, True
                skills[item.key] = known
                if item.key not in before:
                    fresh.append(known)  # loaded from the persisted snapshot
                continue
            try:
                built = self._skill(skill_path, item, fm, snap)
            except Exception as exc:  # one unreadable skill must not hide the others
                skipped[item.key] = (item.ref, f"{type(exc).__name__}: {exc}")
                continue
            built.tree = item.stamps
            skills[item.key] = built
            fresh.append(built)
            rewrite = True
        gone = [b for k, b in before.items() if skills.get(k) is not b]
        rewrite = rewrite or bool(gone) or skills.keys() != self._skills.keys()
        self._skills = skills
        if self._store is not None and rewrite:
            self._store.save([b.row() for b in skills.values() if b.token])
        self.changed = _changed_uris(gone, fresh)
        if old_index is not None and not fresh and not gone and skipped == self._skipped:
            return old_index
        self._skipped = skipped
        self._index = self._assemble(old_index, gone, fresh, tuple(skipped.values()))
        return self._index

    def _assemble(
        self,
        old: SkillIndex | None,
        gone: Sequence[_Built],
        fresh: Sequence[_Built],
        skipped: tuple[tuple[str, str], ...],
    ) -> SkillIndex:
        """The last index with the skills ``gone`` taken out and ``fresh`` put in."""
        by_uri = dict(old.by_uri) if old is not None else {}
        files = dict(old.files) if old is not None else {}
        roots = dict(self._roots)
        removed_skills: set[str] = set()
        removed_files: set[str] = set()
        prefixes: set[str] = set()
        for b in gone:
            record, refs = b.record, b.refs
            assert record is not None and refs is not None
            if by_uri.get(record.uri) is record:
                del by_uri[record.uri]
                removed_skills.add(record.uri)
            for r in refs:
                if files.get(r.uri) is r:
                    del files[r.uri]
                    removed_files.add(r.uri)
            if roots.get(record.root, (None,))[0] is record:
                del roots[record.root]
            prefixes.update(self._unlink_root(record))
        added_skills: list[str] = []
        added_files: list[str] = []
        for b in fresh:
            record, refs = b.record, b.refs
            assert record is not None and refs is not None
            by_uri[record.uri] = record
            added_skills.append(record.uri)
            for r in refs:
                files[r.uri] = r
            added_files.extend(r.uri for r in refs)
            roots[record.root] = (record, refs)
            prefixes.update(self._link_root(record))
        for prefix in prefixes:
            kids = self._prefixes.get(prefix)
            if kids:
                self._prefix_dirs[prefix] = tuple(kids[k] for k in sorted(kids))
            else:
                self._prefix_dirs.pop(prefix, None)
        self._roots = roots
        skill_uris = _merged(old.skill_uris if old else (), removed_skills, added_skills)
        file_uris = _merged(old.file_uris if old else (), removed_files, added_files)
        return SkillIndex(
            skills=tuple(by_uri[u] for u in skill_uris),
            by_uri=by_uri,
            files=files,
            dirs=FolderMap(roots, dict(self._prefix_dirs)),
            file_uris=file_uris,
            skill_uris=skill_uris,
            skipped=skipped,
        )

    def _link_root(self, record: SkillRecord) -> Iterable[str]:
        parent, item = _parent_item(record.root)
        if parent is None:
            return ()
        self._prefixes.setdefault(parent, {})[record.root] = item
        return (parent,)

    def _unlink_root(self, record: SkillRecord) -> Iterable[str]:
        parent, _item = _parent_item(record.root)
        if parent is None:
            return ()
        kids = self._prefixes.get(parent)
        if kids is not None:
            kids.pop(record.root, None)
            if not kids:
                del self._prefixes[parent]
        return (parent,)

    def _skill(
        self, skill_path: str, item: SnapshotEntry, fm: dict[str, Any], snap: CatalogSnapshot
    ) -> _Built:
        """Map one snapshot entry to its wire records (digests from the catalog)."""
        entry = item.entry
        md_path = entry.metadata.skill_md_text  # str(skill_md), without Path objects
        sized, fits = item.within(MAX_FILES, MAX_TOTAL_BYTES)
        dynamic = not fits
        refs: list[FileRef] = []
        digests = (
            [None] * len(sized)
            if dynamic
            else snap.digests(item, [f.path for f in sized], max_bytes=MAX_TOTAL_BYTES)
        )
        for f, got in zip(sized, digests, strict=True):
            uri = _uris.join(skill_path, f.path)
            path = md_path if f.path == "SKILL.md" else None
            if got is None:
                mime = mime_type(f.path, text=False)
                refs.append(FileRef(uri, item.ref, f.path, f.size, None, mime, path))
                continue
            mime = mime_type(f.path, text=got.text)
            refs.append(FileRef(uri, item.ref, f.path, got.size, got.digest, mime, path))
        record = _record(skill_path, item.ref, entry, fm, refs)
        return _Built(
            item.key,
            item.token or "",
            skill_path,
            item.ref,
            entry.source,
            entry.status.value,
            fm,
            record,
            tuple(refs),
        )


def _merged(old: tuple[str, ...], removed: set[str], added: list[str]) -> tuple[str, ...]:
    """``old`` (sorted) without ``removed``, with ``added``, sorted (a merge of two runs)."""
    if not removed and not added:
        return old
    kept = [u for u in old if u not in removed] if removed else list(old)
    return tuple(sorted(kept + sorted(set(added))))


def _changed_uris(gone: Sequence[_Built], fresh: Sequence[_Built]) -> set[str]:
    """The URIs whose digest (or ``dynamic``) differs between the skills taken out
    and those put in (skills left alone keep their URIs and digests)."""
    before = {r.uri: r.digest or "dynamic" for b in gone for r in b.refs or ()}
    after = {r.uri: r.digest or "dynamic" for b in fresh for r in b.refs or ()}
    return {u for u in before.keys() | after.keys() if before.get(u) != after.get(u)}


def _record(
    skill_path: str,
    ref: str,
    entry: CatalogEntry,
    frontmatter: dict[str, Any],
    refs: Sequence[FileRef],
) -> SkillRecord:
    """The published skill (its ``skills/list`` entry) over its served files."""
    skill_uri = _uris.join(skill_path, "SKILL.md")
    if not any(r.uri == skill_uri for r in refs):
        raise FileNotFoundError(f"{ref}: SKILL.md is not readable")
    dynamic = any(r.digest is None for r in refs)
    resources: list[dict[str, Any]] | str = (
        "dynamic" if dynamic else [{"uri": r.uri, "digest": r.digest, "size": r.size} for r in refs]
    )
    return SkillRecord(
        uri=skill_uri,
        root=_uris.join(skill_path),
        name=frontmatter["name"],
        ref=ref,
        source=str(entry.source),
        status=str(entry.status),
        description=frontmatter["description"],
        entry={"uri": skill_uri, "frontmatter": frontmatter, "resources": resources},
        files=tuple(r.uri for r in refs),
    )


def _file_row(ref: FileRef) -> FileRow:
    return ref  # a FileRow: the same fields in the same order


def _dir_item(uri: str) -> dict[str, Any]:
    return {"uri": uri, "name": unquote(uri.rsplit("/", 1)[-1]), "mimeType": DIRECTORY_MIME}


def _parent_item(root: str) -> tuple[str | None, dict[str, Any]]:
    """The folder above a skill root (``skill://SOURCE`` of a shadowed skill) and the
    root's item in it; ``None`` for a root at the top."""
    parent, _, _name = root[len(_uris.SCHEME) :].rpartition("/")
    if not parent:
        return None, {}
    return _uris.SCHEME + parent, _dir_item(root)


def _owned_dirs(
    record: SkillRecord, refs: Sequence[FileRef]
) -> dict[str, dict[str, dict[str, Any]]]:
    """Every folder URI at or below a skill's root and its direct children."""
    children: dict[str, dict[str, dict[str, Any]]] = {record.root: {}}

    def add_dir(uri: str) -> None:
        chain: list[str] = []
        while uri not in children:  # up to the first folder already known (the root)
            children[uri] = {}
            chain.append(uri)
            uri = uri.rsplit("/", 1)[0]
        for sub in chain:
            children[sub.rsplit("/", 1)[0]][sub] = _dir_item(sub)

    for ref in refs:
        parent = ref.uri.rsplit("/", 1)[0]
        add_dir(parent)
        item: dict[str, Any] = {"uri": ref.uri, "name": ref.relpath.rsplit("/", 1)[-1]}
        item["mimeType"] = ref.mime
        item["size"] = ref.size
        if ref.uri == record.uri:
            item["name"], item["description"] = record.name, record.description
        children[parent][ref.uri] = item
    return children
