"""A frozen snapshot of what the server publishes: skills, files, folders, digests.

Built from the catalog (same sources, precedence and status as ``skilldeck list``)
and swapped whole on refresh, so every request sees one consistent catalog.
Digests are cached by (path, inode, mtime, size): an unchanged file is never
read twice. The bytes digested are read through ``Catalog.read_file``, the same
call that serves them, so a digest always covers the bytes a client receives.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote

from skilldeck._digest import bytes_digest
from skilldeck.mcp import _uris
from skilldeck.mcp._wire import DIRECTORY_MIME, MAX_FILES, MAX_TOTAL_BYTES

__all__ = ["CatalogView", "FileRef", "IndexBuilder", "SkillIndex", "SkillRecord"]

SERVED_STATUSES = frozenset({"enabled", "shadowed"})


class CatalogView(Protocol):
    """The part of ``skilldeck.Catalog`` the server uses."""

    def entries(self, *, include_shadowed: bool = True) -> Sequence[Any]: ...
    def files(self, name: str) -> Sequence[str]: ...
    def read_file(self, name: str, relpath: str, *, max_bytes: int = ...) -> bytes: ...


@dataclass(frozen=True, slots=True)
class FileRef:
    """One served file: where the catalog finds it and what a client will receive."""

    uri: str
    ref: str  # catalog address: NAME or SOURCE:NAME
    relpath: str
    size: int
    digest: str | None  # None inside a dynamic skill
    mime: str


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


class IndexBuilder:
    """Builds ``SkillIndex`` snapshots from a catalog, reusing digests of unchanged files."""

    def __init__(self, catalog: CatalogView) -> None:
        self.catalog = catalog
        self._cache: dict[tuple[str, int, int, int], str] = {}
        self._lock = threading.Lock()

    def build(self) -> SkillIndex:
        """Scan the catalog now (blocking; run it in a worker thread from async code)."""
        with self._lock:
            return self._build()

    def _build(self) -> SkillIndex:
        published = _publishable(self.catalog.entries(include_shadowed=True))
        cache: dict[tuple[str, int, int, int], str] = {}
        records: list[SkillRecord] = []
        files: dict[str, FileRef] = {}
        skipped: list[tuple[str, str]] = []
        for skill_path, entry, frontmatter in published:
            ref = _ref(entry)
            try:
                record, refs = self._skill(skill_path, ref, entry, frontmatter, cache)
            except Exception as exc:  # one unreadable skill must not hide the others
                skipped.append((ref, f"{type(exc).__name__}: {exc}"))
                continue
            records.append(record)
            files.update((r.uri, r) for r in refs)
        self._cache = cache
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
        entry: Any,
        frontmatter: dict[str, Any],
        cache: dict[tuple[str, int, int, int], str],
    ) -> tuple[SkillRecord, list[FileRef]]:
        folder = Path(entry.path) if entry.path is not None else None
        rels = sorted(set(self.catalog.files(ref)) | {"SKILL.md"})
        sizes: list[tuple[str, int, tuple[str, int, int, int] | None]] = []
        for rel in rels:
            if folder is None:  # a store without folders (inline skills): no stat cache
                sizes.append((rel, len(self._read(ref, rel)), None))
                continue
            try:
                st = os.stat(folder / rel)
            except OSError:
                continue
            sizes.append((rel, st.st_size, (str(folder / rel), st.st_ino, st.st_mtime_ns, st.st_size)))
        sizes = [s for s in sizes if s[1] <= MAX_TOTAL_BYTES]
        dynamic = len(sizes) > MAX_FILES or sum(s[1] for s in sizes) > MAX_TOTAL_BYTES
        refs: list[FileRef] = []
        for rel, size, key in sizes:
            uri = _uris.join(skill_path, rel)
            if dynamic:
                refs.append(FileRef(uri, ref, rel, size, None, _uris.mime_type(rel, text=False)))
                continue
            known = self._cache.get(key) if key is not None else None
            if known is None:
                data = self._read(ref, rel)
                known = f"{bytes_digest(data)}|{len(data)}|{int(_uris.is_text(data))}"
            if key is not None:
                cache[key] = known
            digest, size_s, text_s = known.split("|")
            mime = _uris.mime_type(rel, text=text_s == "1")
            refs.append(FileRef(uri, ref, rel, int(size_s), digest, mime))
        skill_uri = _uris.join(skill_path, "SKILL.md")
        if not any(r.uri == skill_uri for r in refs):
            raise FileNotFoundError(f"{ref}: SKILL.md is not readable")
        resources: list[dict[str, Any]] | str = (
            "dynamic"
            if dynamic
            else [{"uri": r.uri, "digest": r.digest, "size": r.size} for r in refs]
        )
        record = SkillRecord(
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
        return record, refs

    def _read(self, ref: str, rel: str) -> bytes:
        return self.catalog.read_file(ref, rel, max_bytes=MAX_TOTAL_BYTES)


def _ref(entry: Any) -> str:
    """The catalog address of an entry (``SOURCE:NAME``), unambiguous whatever its status."""
    return f"{entry.source}:{entry.name}"


def _frontmatter(entry: Any) -> dict[str, Any] | None:
    """The verbatim frontmatter as JSON, or ``None`` when it lacks a usable name/description."""
    manifest = getattr(getattr(entry, "metadata", None), "manifest", None)
    raw = getattr(manifest, "frontmatter", None)
    if not isinstance(raw, Mapping):
        return None
    data = json.loads(json.dumps(dict(raw), default=str, ensure_ascii=False))
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not isinstance(description, str) or not description:
        return None
    if not _uris.valid_skill_name(name):
        return None
    return dict(data)


def _publishable(entries: Iterable[Any]) -> list[tuple[str, Any, dict[str, Any]]]:
    """(skill path, entry, frontmatter) of every served entry, winners at ``<name>``."""
    chosen: list[tuple[Any, dict[str, Any]]] = []
    for entry in entries:
        if str(entry.status) not in SERVED_STATUSES:
            continue
        frontmatter = _frontmatter(entry)
        if frontmatter is not None:
            chosen.append((entry, frontmatter))
    winners = {fm["name"] for e, fm in chosen if str(e.status) != "shadowed"}
    taken: set[str] = set()
    out: list[tuple[str, Any, dict[str, Any]]] = []
    for entry, fm in sorted(chosen, key=lambda c: str(c[0].status) == "shadowed"):
        if str(entry.status) != "shadowed":
            path = fm["name"]
        else:
            prefix = str(entry.source).replace("/", "-").replace(":", "-") or "source"
            if prefix in winners:
                prefix += ".shadowed"
            path, n = f"{prefix}/{fm['name']}", 2
            while path in taken:
                path, n = f"{prefix}~{n}/{fm['name']}", n + 1
        if path in taken:
            continue
        taken.add(path)
        out.append((path, entry, fm))
    return out


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


def generation_of(index: SkillIndex) -> str:
    """A short token naming the snapshot's content (changes whenever any file does)."""
    h = hashlib.sha256()
    for uri in index.file_uris:
        h.update(f"{uri}\0{index.files[uri].digest}\n".encode())
    return h.hexdigest()[:16]
