"""A frozen snapshot of what the server publishes: skills, files, folders, digests.

Built from the catalog (same sources, precedence and status as ``skilldeck list``)
and swapped whole on refresh, so every request sees one consistent catalog.
Digests are cached by (path, inode, mtime, size) and whole skills by their tree
signature: a rescan reads only what changed. The digests cover exactly the bytes
``resources/read`` serves (both read the file the catalog indexed). Skills
without a folder (inline skills in a ``MemoryStore``) are read through the
catalog's store API (``skill_md_bytes``, ``read_bundled``) and re-digested on
every build (they live in memory and are small).
"""

from __future__ import annotations

import gc
import os
import threading
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from skilldeck import Catalog, CatalogEntry
from skilldeck.catalog import bytes_digest
from skilldeck.mcp import _uris
from skilldeck.mcp._publish import frontmatter, publishable, read_all, ref_of, signature
from skilldeck.mcp._store import FileRow, FileStat, SkillRow, SnapshotStore, StatKey, tree_hash
from skilldeck.mcp._wire import DIRECTORY_MIME, MAX_FILES, MAX_TOTAL_BYTES

__all__ = ["FileRef", "IndexBuilder", "SkillIndex", "SkillRecord"]


@dataclass(frozen=True, slots=True)
class FileRef:
    """One served file: where the catalog finds it and what a client will receive."""

    uri: str
    ref: str  # catalog address: NAME (visible) or SOURCE:NAME
    relpath: str
    size: int
    digest: str | None  # None inside a dynamic skill
    mime: str
    skill_md: str | None = None  # the path of SKILL.md (only on that file)


@dataclass(frozen=True, slots=True)
class SkillRecord:
    """One published skill and its prebuilt wire entry."""

    uri: str
    root: str
    name: str
    ref: str
    source: str
    status: str
    description: str
    entry: Mapping[str, Any]
    files: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SkillIndex:
    """Everything a request needs, precomputed; immutable once built."""

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
    """One skill as last built: the persisted row and, once derived, its wire form."""

    row: SkillRow
    record: SkillRecord | None = None
    refs: list[FileRef] | None = None

    def derived(self, entry: CatalogEntry) -> tuple[SkillRecord, list[FileRef]]:
        if self.record is None or self.refs is None:
            row = self.row
            self.refs = [FileRef(*f) for f in row.files]
            self.record = _record(row.skill_path, row.ref, entry, row.frontmatter, self.refs)
        return self.record, self.refs


def _folder_key(entry: CatalogEntry) -> str | None:
    """Skills with a folder are remembered by it, skills of a store by their address."""
    if entry.path is None:
        return f"store:{entry.source}:{entry.name}"  # signed by the store's digest
    if entry.metadata.skill_md is None:
        return None
    return os.fspath(entry.path)


class IndexBuilder:
    """Builds ``SkillIndex`` snapshots from a catalog, reusing what did not change.

    A skill whose tree signature, address and status are unchanged is reused
    whole (no parse, no file listing, no read); a changed one re-hashes only the
    files whose stat key changed. With a ``store``, the last build survives the
    process, so a restarted server starts warm.
    """

    def __init__(self, catalog: Catalog, *, store: SnapshotStore | None = None) -> None:
        self.catalog = catalog
        self._store = store
        self._loaded = store is None
        self._digests: dict[StatKey, str] = {}  # stat key -> "digest|size|is_text"
        self._skills: dict[str, _Built] = {}  # folder -> last build
        self._lock = threading.Lock()

    def build(self) -> SkillIndex:
        """Scan the catalog now (blocking; run it in a worker thread from async code)."""
        with self._lock:
            # A build makes many small objects and frees none: the cyclic collector
            # would only rescan them (a third of a warm start for 2,000 skills).
            enabled = gc.isenabled()
            gc.disable()
            try:
                return self._build()
            finally:
                if enabled:
                    gc.enable()

    def _stored_signature(self, entry: CatalogEntry) -> str | None:
        """A skill without a folder is unchanged while its store's content digest is
        (an immutable store version answers in O(1)); ``None``: rebuild it every time."""
        try:
            return self.catalog.digest(ref_of(entry))
        except Exception:
            return None

    def _same(
        self, known: _Built | None, entry: CatalogEntry, sig: Any, skill_path: str | None = None
    ) -> bool:
        if known is None or sig is None:
            return False
        row = known.row
        return (
            (skill_path is None or row.skill_path == skill_path)
            and row.signature == sig
            and row.status == entry.status.value
            and row.source == entry.source
            and row.ref == ref_of(entry)
        )

    def _build(self) -> SkillIndex:
        if not self._loaded and self._store is not None:
            self._skills = {key: _Built(row) for key, row in self._store.load().items()}
            self._loaded = True
        sigs: dict[str, str | None] = {}

        def frontmatter_of(entry: CatalogEntry) -> dict[str, Any] | None:
            key = _folder_key(entry)
            if key is not None:
                if entry.path is None:
                    sigs[key] = sig = self._stored_signature(entry)
                else:
                    tree = signature(entry)
                    sigs[key] = sig = tree_hash(tree) if tree is not None else None
                known = self._skills.get(key)
                if self._same(known, entry, sig) and known is not None:
                    return known.row.frontmatter  # unchanged: no need to parse SKILL.md
            return frontmatter(entry)

        published = publishable(self.catalog.entries(include_shadowed=True), frontmatter_of)
        self._digests = {}
        skills: dict[str, _Built] = {}
        records: list[SkillRecord] = []
        files: dict[str, FileRef] = {}
        skipped: list[tuple[str, str]] = []
        changed = False
        for skill_path, entry, fm in published:
            ref = ref_of(entry)
            key = _folder_key(entry)
            known = self._skills.get(key) if key is not None else None
            sig = sigs.get(key) if key is not None else None
            if key is not None and known is not None and self._same(known, entry, sig, skill_path):
                record, refs = known.derived(entry)
                skills[key] = known
                records.append(record)
                files.update((r.uri, r) for r in refs)
                continue
            changed = True
            if known is not None:
                self._remember_digests(known.row)  # re-hash only the files that changed
            try:
                record, refs, stats = self._skill(skill_path, ref, entry, fm)
            except Exception as exc:  # one unreadable skill must not hide the others
                skipped.append((ref, f"{type(exc).__name__}: {exc}"))
                continue
            if key is not None and sig is not None:
                row = SkillRow(
                    key=key,
                    signature=sig,
                    skill_path=skill_path,
                    ref=ref,
                    source=entry.source,
                    status=entry.status.value,
                    frontmatter=fm,
                    files=[_file_row(r) for r in refs],
                    stats=stats,
                )
                skills[key] = _Built(row, record, refs)
            records.append(record)
            files.update((r.uri, r) for r in refs)
        changed = changed or skills.keys() != self._skills.keys()
        self._digests, self._skills = {}, skills
        if changed and self._store is not None:
            self._store.save([b.row for b in skills.values()])
        records.sort(key=lambda r: r.uri)
        return SkillIndex(
            skills=tuple(records),
            by_uri={r.uri: r for r in records},
            files=files,
            dirs=_directories(records, files),
            file_uris=tuple(sorted(files)),
            skill_uris=tuple(r.uri for r in records),
            skipped=tuple(skipped),
        )

    def _skill(
        self,
        skill_path: str,
        ref: str,
        entry: CatalogEntry,
        frontmatter: dict[str, Any],
    ) -> tuple[SkillRecord, list[FileRef], list[FileStat | None]]:
        skill_md = entry.metadata.skill_md
        if entry.path is None or skill_md is None:
            stored = self._stored_files(skill_path, ref)
            return _record(skill_path, ref, entry, frontmatter, stored), stored, []
        folder = Path(entry.path)
        md = os.fspath(skill_md)
        rels = ["SKILL.md", *sorted(set(self.catalog.files(ref, index="all")) - {"SKILL.md"})]
        sizes: list[tuple[str, int, StatKey]] = []
        for rel in rels:
            try:
                st = os.stat(md if rel == "SKILL.md" else folder / rel)
            except OSError:
                continue
            key = (str(folder / rel), st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns)
            sizes.append((rel, st.st_size, key))
        sizes = [s for s in sizes if s[1] <= MAX_TOTAL_BYTES]
        dynamic = len(sizes) > MAX_FILES or sum(s[1] for s in sizes) > MAX_TOTAL_BYTES
        refs: list[FileRef] = []
        stats: list[FileStat | None] = []
        for rel, size, key in sizes:
            uri = _uris.join(skill_path, rel)
            path = md if rel == "SKILL.md" else None
            if dynamic:
                mime = _uris.mime_type(rel, text=False)
                refs.append(FileRef(uri, ref, rel, size, None, mime, path))
                stats.append(None)
                continue
            known = self._digests.get(key)
            if known is None:
                # The catalog listed this file; it is read beneath the skill folder
                # (skilldeck._tree), as serving it through the catalog does.
                data = read_all(self.catalog, ref, rel)
                known = f"{bytes_digest(data)}|{len(data)}|{int(_uris.is_text(data))}"
                self._digests[key] = known
            digest, size_s, text_s = known.split("|")
            stats.append((key[1], key[2], key[3], key[4], text_s == "1"))
            mime = _uris.mime_type(rel, text=text_s == "1")
            refs.append(FileRef(uri, ref, rel, int(size_s), digest, mime, path))
        return _record(skill_path, ref, entry, frontmatter, refs), refs, stats

    def _remember_digests(self, row: SkillRow) -> None:
        """The digests a skill's last build computed, by stat key (for its rebuild)."""
        for file, stat in zip(row.files, row.stats, strict=False):
            if stat is None or file[4] is None:
                continue
            ino, mtime, size, ctime, text = stat
            key: StatKey = (str(Path(row.key) / file[2]), ino, mtime, size, ctime)
            self._digests[key] = f"{file[4]}|{file[3]}|{int(text)}"

    def _stored_files(self, skill_path: str, ref: str) -> list[FileRef]:
        """The files of a skill without a folder, read through the catalog's store API.

        Same rules as a folder: files over the size limit are left out, and a skill
        past the file-count or total-size limit is dynamic (no digests).
        """
        rels = ["SKILL.md", *sorted(set(self.catalog.files(ref, index="all")) - {"SKILL.md"})]
        blobs: list[tuple[str, bytes]] = []
        for rel in rels:
            if rel == "SKILL.md":
                got = self.catalog.skill_md_bytes(ref, max_bytes=MAX_TOTAL_BYTES, truncate=True)
            else:
                got = self.catalog.read_bundled(
                    ref, rel, max_bytes=MAX_TOTAL_BYTES, truncate=True, index="all"
                )
            if got.size <= MAX_TOTAL_BYTES and not got.truncated:
                blobs.append((rel, bytes(got.data)))
        dynamic = len(blobs) > MAX_FILES or sum(len(b) for _, b in blobs) > MAX_TOTAL_BYTES
        refs: list[FileRef] = []
        for rel, data in blobs:
            uri = _uris.join(skill_path, rel)
            if dynamic:
                mime = _uris.mime_type(rel, text=False)
                refs.append(FileRef(uri, ref, rel, len(data), None, mime))
                continue
            mime = _uris.mime_type(rel, text=_uris.is_text(data))
            refs.append(FileRef(uri, ref, rel, len(data), bytes_digest(data), mime))
        return refs


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
    return (ref.uri, ref.ref, ref.relpath, ref.size, ref.digest, ref.mime, ref.skill_md)


def _directories(
    records: Sequence[SkillRecord], files: Mapping[str, FileRef]
) -> dict[str, tuple[dict[str, Any], ...]]:
    """Every folder URI (prefixes, skill roots, sub-folders) and its direct children."""
    children: dict[str, dict[str, dict[str, Any]]] = {}

    def add_dir(uri: str) -> None:
        while True:
            children.setdefault(uri, {})
            parent, _, name = uri[len(_uris.SCHEME) :].rpartition("/")
            if not parent:
                return
            parent_uri = _uris.SCHEME + parent
            children.setdefault(parent_uri, {})[uri] = {
                "uri": uri,
                "name": unquote(name),
                "mimeType": DIRECTORY_MIME,
            }
            uri = parent_uri

    by_uri = {r.uri: r for r in records}
    for record in records:
        add_dir(record.root)
    for uri, ref in files.items():
        parent = uri.rsplit("/", 1)[0]
        add_dir(parent)
        item: dict[str, Any] = {"uri": uri, "name": ref.relpath.rsplit("/", 1)[-1]}
        item["mimeType"] = ref.mime
        item["size"] = ref.size
        skill = by_uri.get(uri)
        if skill is not None:
            item["name"], item["description"] = skill.name, skill.description
        children[parent][uri] = item
    return {uri: tuple(kids[k] for k in sorted(kids)) for uri, kids in children.items()}
