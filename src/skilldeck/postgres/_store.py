"""``PostgresStore``: one tenant's skills in PostgreSQL, as immutable versions.

A published version is a row naming the skill and its digest plus one row per
file (path, file digest, size); file bytes live once per tenant in the blob
table, keyed by digest. A name's current version is its newest (highest id).
Publishing is one transaction (blobs, version, files, ``NOTIFY``): a killed
publish leaves nothing behind and a reader never sees a version without all
its files. Versions are never changed, so what a replica has read stays true;
``discover`` asks only whether the tenant's version count, newest id or count
of unpublished versions moved.

A replica keeps each current version's metadata and file list, not the file
bytes: reads fetch them on demand through the replica's bounded ``BlobCache``.
A reader going through the skills in order (the MCP index being built) is
noticed and served by read-ahead, many versions' files per query.

``unpublish`` takes a version back: the version row stays as a marker for the
history, its file rows and the bytes no other version uses are deleted, the
approval bound to its digest is revoked, the previous version (if any) becomes
current, and replicas are notified, all in one transaction.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skilldeck import (
    FileNotFoundInSkillError,
    InstallError,
    Skill,
    SkillMetadata,
    SkillNotFoundError,
    parse_skill_md,
)
from skilldeck.catalog import (
    DEFAULT_FILE_LIMIT,
    Discovery,
    FileData,
    FileFacts,
    IndexMode,
    StoreBase,
    bundled_relpath,
    bytes_digest,
    check_read,
    digest_of_files,
    index_of,
    linked_of,
)
from skilldeck.postgres._db import Database, check_tenant
from skilldeck.postgres._folder import PublishLimits
from skilldeck.postgres._publish import (
    PublishResult,
    UnpublishResult,
    publish_folder,
    unpublish_version,
)

__all__ = [
    "PostgresStore",
    "PublishLimits",
    "PublishResult",
    "StoredVersion",
    "UnpublishResult",
]

_LOAD_BATCH = 500  # versions whose SKILL.md bytes are read at once by a scan
_AHEAD_BYTES = 4 * 1024 * 1024  # what one read-ahead fetches at most (plus the file asked)
_AHEAD_MAX_VERSIONS = 1024

#: a version's file: (digest, size, executable, UTF-8 text without NUL or None: unknown)
_File = tuple[str, int, bool, bool | None]


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One immutable version: ``files`` maps path to (digest, size, executable, is_text);
    ``is_text`` is ``None`` for a file published before the store recorded it. ``number``
    is what publishers see and name (counted per tenant); ``id`` is the row's own."""

    id: int
    name: str
    digest: str
    files: dict[str, _File]
    meta: SkillMetadata = field(compare=False)
    number: int = 0


class PostgresStore(StoreBase):
    """The skills of one tenant (``Store`` protocol plus what the catalog uses).

    ``db`` is a ``Database`` or a URL. The store keeps the current version of
    every skill in memory (metadata, file list and digests: a snapshot refreshed
    by ``discover``); file bytes come from the database through ``db.blobs``, a
    bounded cache. Thread-safe.
    """

    def __init__(
        self,
        db: Database | str,
        tenant: str,
        *,
        source: str = "store",
        index: IndexMode = "bundled",
    ) -> None:
        self.db = db if isinstance(db, Database) else Database(db)
        self.tenant = check_tenant(tenant)
        self.source = source
        self._index: IndexMode = index
        self._lock = threading.Lock()
        self._mark: tuple[int, int, int] | None = None
        self._versions: dict[str, StoredVersion] = {}
        self._order: dict[str, int] = {}  # name -> position in name order (read-ahead)
        self._names: list[str] = []
        self._ahead = threading.Lock()
        self._ahead_span = (-1, -1, 0)  # (first, next expected, window) of the last fetch
        self.fetches = 0
        """Queries that read file bytes (each may fetch many files)."""
        self._found = Discovery(())
        self._links: dict[int, frozenset[str]] = {}  # version id -> SKILL.md's links

    def __repr__(self) -> str:
        return f"PostgresStore({self.db!r}, tenant={self.tenant!r})"

    # -- snapshot --------------------------------------------------------------

    def discover(self, *, refresh: bool = False) -> Discovery:
        """The current versions (the same object while nothing was published)."""
        with self._lock:
            with self.db.tenant(self.tenant) as conn:
                mark = change_mark(conn)
                if mark != self._mark:
                    self._load(conn)
                    self._mark = mark
            return self._found

    def change_mark(self) -> tuple[int, int, int]:
        """The tenant's change mark in the database now (one indexed query, nothing
        loaded): it moves with every publish and unpublish. A replica compares it
        with the mark read before its last good refresh to know it is behind."""
        with self.db.tenant(self.tenant) as conn:
            return change_mark(conn)

    def _load(self, conn: Any) -> None:
        current = conn.execute(
            "SELECT DISTINCT ON (name) id, name, digest, number FROM skilldeck_versions "
            "WHERE unpublished_at IS NULL ORDER BY name, id DESC"
        ).fetchall()
        numbers = {int(row[0]): int(row[3] or 0) for row in current}
        current = [row[:3] for row in current]
        known = {v.id: v for v in self._versions.values()}
        new = [(int(vid), name, digest) for vid, name, digest in current if int(vid) not in known]
        versions: dict[str, StoredVersion] = {
            name: known[int(vid)] for vid, name, _d in current if int(vid) in known
        }
        for start in range(0, len(new), _LOAD_BATCH):
            batch = self._load_batch(conn, new[start : start + _LOAD_BATCH], numbers)
            versions.update(batch)
        self._versions = versions
        live = {v.id for v in versions.values()}  # what is kept per version goes with it
        self._links = {vid: found for vid, found in self._links.items() if vid in live}
        self._names = sorted(versions)
        self._order = {name: i for i, name in enumerate(self._names)}
        self._found = Discovery(tuple(versions[n].meta for n in self._names))

    def _load_batch(
        self, conn: Any, batch: list[tuple[int, str, str]], numbers: dict[int, int]
    ) -> dict[str, StoredVersion]:
        """New versions' file rows and metadata; only their SKILL.md bytes are read
        (a batch at a time, parsed, then let go)."""
        ids = [vid for vid, _n, _d in batch]
        files: dict[int, dict[str, _File]] = {v: {} for v in ids}
        for vid, rel, digest, size, executable, text in conn.execute(
            "SELECT version_id, relpath, digest, size, executable, is_text "
            "FROM skilldeck_version_files WHERE version_id = ANY(%s)",
            (ids,),
        ):
            files[int(vid)][rel] = (digest, int(size), bool(executable), text)
        wanted = list({f["SKILL.md"][0] for f in files.values() if "SKILL.md" in f})
        mds: dict[str, bytes] = {}
        for digest, data in conn.execute(
            "SELECT digest, data FROM skilldeck_blobs WHERE digest = ANY(%s)", (wanted,)
        ):
            mds[digest] = bytes(data)
        out: dict[str, StoredVersion] = {}
        for vid, name, digest in batch:
            built = self._version(vid, name, digest, files[vid], mds, numbers.get(vid, 0))
            if built is not None:
                out[name] = built
        return out

    def _version(
        self,
        vid: int,
        name: str,
        digest: str,
        files: dict[str, _File],
        blobs: dict[str, bytes],
        number: int = 0,
    ) -> StoredVersion | None:
        md = files.get("SKILL.md")
        if md is None or md[0] not in blobs:
            return None  # not written by skilldeck: never serve a version without its SKILL.md
        parsed = parse_skill_md(blobs[md[0]])
        m = parsed.manifest
        if m is None or not parsed.ok or m.name != name:
            return None
        meta = SkillMetadata.of_manifest(m, source=self.source, diagnostics=parsed.diagnostics)
        return StoredVersion(vid, name, digest, files, meta, number)

    def _get(self, name: str) -> StoredVersion:
        if self._mark is None:
            self.discover()
        found = self._versions.get(name)
        if found is None:
            raise SkillNotFoundError(f"no skill named {name!r} in this store", skill=name)
        return found

    def version(self, name: str) -> StoredVersion:
        """The current version of ``name`` (as of the last look at the database)."""
        return self._get(name)

    # -- Store protocol and what the catalog uses --------------------------------

    def list_skills(self) -> list[SkillMetadata]:
        return list(self.discover().skills)

    def files(self, name: str, *, index: IndexMode | None = None) -> tuple[str, ...]:
        version = self._get(name)
        return index_of(version.files, index or self._index, self._linked(version))

    def _linked(self, version: StoredVersion) -> frozenset[str]:
        """The paths the version's SKILL.md links to (read once per version)."""
        found = self._links.get(version.id)
        if found is None:
            found = self._links[version.id] = linked_of(self._blob(version, "SKILL.md"))
        return found

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> Skill:
        version = self._get(name)
        raw = self._blob(version, "SKILL.md")
        parsed = parse_skill_md(raw)  # the body is not kept in memory between loads
        body, truncated = parsed.body, False
        if max_bytes is not None and len(raw) > max_bytes:
            body, truncated = parse_skill_md(raw[:max_bytes], complete=False).body, True
        return Skill(
            version.meta,
            parsed.manifest,
            body,
            truncated,
            self.files(name),
            parsed.body_line,
            parsed.diagnostics,
        )

    def _blob(self, version: StoredVersion, rel: str) -> bytes:
        digest = version.files[rel][0]
        data = self.db.blobs.get((self.tenant, digest))
        if data is None:
            data = self._fetch(version, digest)
        if data is None:
            raise FileNotFoundInSkillError(
                f"no file {rel} in skill {version.name}",
                skill=version.name,
                path=rel,
                hint="the version was unpublished meanwhile; list the skills again",
            )
        return data

    def _fetch(self, version: StoredVersion, digest: str) -> bytes | None:
        """``digest``'s bytes from the database, with the files of the versions that
        follow in name order when reads go through them in order (read-ahead)."""
        wanted = {digest}
        with self._ahead:
            first, expected, window = self._ahead_span
            pos = self._order.get(version.name, -1)
            in_order = pos >= 0 and first <= pos <= expected
            window = min(max(1, window * 2), _AHEAD_MAX_VERSIONS) if in_order else 0
            budget, covered = _AHEAD_BYTES, 0
            names, versions = self._names, self._versions  # a scan may swap them meanwhile
            for name in names[pos : pos + window] if pos >= 0 else ():
                ahead = versions.get(name)
                if ahead is None:
                    break
                files = ahead.files.values()
                todo = [(d, n) for d, n, *_x in files if (self.tenant, d) not in self.db.blobs]
                size = sum(n for _d, n in todo)
                if size > budget:
                    break
                wanted.update(d for d, _n in todo)
                budget -= size
                covered += 1
            self._ahead_span = (pos, pos + max(covered, 1), window)
        found: bytes | None = None
        self.fetches += 1
        with self.db.tenant(self.tenant) as conn:
            for got, data in conn.execute(
                "SELECT digest, data FROM skilldeck_blobs WHERE digest = ANY(%s)",
                (sorted(wanted),),
            ):
                data = bytes(data)
                self.db.blobs.put((self.tenant, got), data)
                if got == digest:
                    found = data
        return found

    def read_bundled(
        self,
        name: str,
        relpath: str,
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> FileData:
        version = self._get(name)
        clean = bundled_relpath(relpath, skill=name)
        check_read(
            clean,
            index or self._index,
            lambda: self._linked(version),
            skill=name,
            exists=version.files.__contains__,
            must_exist=True,
        )
        return FileData.of(
            self._blob(version, clean), clean, max_bytes=max_bytes, truncate=truncate, skill=name
        )

    def read_file(self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT) -> bytes:
        return self.read_bundled(name, relpath, max_bytes=max_bytes).data

    def skill_md_bytes(
        self, name: str, *, max_bytes: int = DEFAULT_FILE_LIMIT, truncate: bool = False
    ) -> FileData:
        version = self._get(name)
        return FileData.of(
            self._blob(version, "SKILL.md"),
            "SKILL.md",
            max_bytes=max_bytes,
            truncate=truncate,
            skill=name,
        )

    def digest(self, name: str) -> str:
        return self._get(name).digest

    def file_facts(self, name: str, digest: str) -> list[FileFacts] | None:
        """(path, size, digest, is_text) of every file of ``name``'s version ``digest``,
        from its file rows, without reading a byte (``None``: that version is no longer
        current, or a path a read would refuse; the catalog then reads the files)."""
        version = self._versions.get(name)
        if version is None or version.digest != digest:
            return None
        if not all(_plain(rel) for rel in version.files):
            return None
        return [(rel, size, d, text) for rel, (d, size, _x, text) in version.files.items()]

    def materialize(self, name: str, dest: str | os.PathLike[str]) -> StoredVersion:
        """Write the current version's files under ``dest`` (a new, empty folder) and
        check every file's digest and the skill's digest on the bytes written."""
        version = self._get(name)
        root = Path(dest)
        pairs: dict[str, str] = {}
        for rel, (digest, _size, executable, _text) in sorted(version.files.items()):
            data = self._blob(version, rel)
            if bytes_digest(data) != digest:
                raise InstallError(
                    f"{name}: {rel} does not match its digest in the store",
                    skill=name,
                    path=rel,
                    hint="the store is damaged; publish the skill again",
                )
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with open(fd, "wb", closefd=True) as fh:
                fh.write(data)
            os.chmod(target, 0o755 if executable else 0o644)
            pairs[rel] = digest
        if digest_of_files(pairs) != version.digest:
            raise InstallError(
                f"{name}: the files do not add up to the version's digest",
                skill=name,
                hint="the store is damaged; publish the skill again",
            )
        return version

    # -- publishing --------------------------------------------------------------

    def publish(
        self,
        folder: str | os.PathLike[str],
        *,
        scan: str = "block",
        limits: PublishLimits | None = None,
    ) -> PublishResult:
        """Validate, scan and publish one skill folder as a new version (one transaction).

        What is validated and scanned is a private copy of the bytes read once;
        the same bytes are published. The same content as the current version
        makes no new version (``created`` is False). A database that refuses the
        write (disk full, read-only, gone) rolls it back whole and raises
        ``ConfigError`` with ``reason`` ``store_full``, ``store_read_only``,
        ``store_unavailable`` or ``store_failed``.
        """
        return publish_folder(self, folder, scan=scan, limits=limits)

    def unpublish(self, name: str, version: int | str | None = None) -> UnpublishResult:
        """Take back ``name``'s current version, or the one given by id or digest
        (see ``skilldeck.postgres._publish.unpublish_version``)."""
        return unpublish_version(self, name, version)

    def verify(self, names: Iterable[str] | None = None) -> list[tuple[str, int, str | None]]:
        """Re-read the current versions from the database and check every blob against its
        digest and size, and the files against the version's digest.

        Returns ``(name, version number, problem or None)`` per skill (all, or ``names``).
        """
        wanted = set(names) if names is not None else None
        out: list[tuple[str, int, str | None]] = []
        with self.db.tenant(self.tenant) as conn:
            current = conn.execute(
                "SELECT DISTINCT ON (name) id, name, digest, number FROM skilldeck_versions "
                "WHERE unpublished_at IS NULL ORDER BY name, id DESC"
            ).fetchall()
            for vid, name, digest, number in current:
                if wanted is not None and name not in wanted:
                    continue
                rows = conn.execute(
                    "SELECT f.relpath, f.digest, f.size, b.data FROM skilldeck_version_files f "
                    "LEFT JOIN skilldeck_blobs b ON b.digest = f.digest AND b.tenant = f.tenant "
                    "WHERE f.version_id = %s",
                    (vid,),
                ).fetchall()
                out.append((name, int(number or 0), _check_version(rows, digest)))
        if wanted is not None:
            found = {name for name, _v, _p in out}
            out += [(n, 0, "no such skill in the store") for n in sorted(wanted - found)]
        return out

    # -- search terms (``RuntimeSearch.terms_store``) --------------------------------

    def load_terms(self, metas: Sequence[SkillMetadata]) -> list[bytes | None]:
        """The search terms a replica kept for the current version of each of ``metas``
        (``None``: none yet, or ``metas`` is not a current version's)."""
        from skilldeck.search import FORMAT

        ids = [self._version_of(m) for m in metas]
        wanted = [v for v in ids if v is not None]
        found: dict[int, bytes] = {}
        if wanted:
            try:
                with self.db.tenant(self.tenant) as conn:
                    for vid, data in conn.execute(
                        "SELECT version_id, data FROM skilldeck_search_terms "
                        "WHERE format = %s AND version_id = ANY(%s)",
                        (FORMAT, wanted),
                    ):
                        found[int(vid)] = bytes(data)
            except Exception:  # the bodies are read instead (and fail as reads fail)
                found = {}
        return [None if v is None else found.get(v) for v in ids]

    def save_terms(self, items: Sequence[tuple[SkillMetadata, bytes]]) -> None:
        """Keep the search terms of current versions for the other replicas (best
        effort: a database that refuses the write only costs them a read)."""
        from skilldeck.search import FORMAT

        rows = [(v, self.tenant, FORMAT, data) for m, data in items if (v := self._version_of(m))]
        if not rows:
            return
        try:
            with self.db.tenant(self.tenant) as conn, conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO skilldeck_search_terms (version_id, tenant, format, data) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    rows,
                )
        except Exception:  # never fails a search (read-only, full or gone: psycopg or ours)
            return

    def _version_of(self, meta: SkillMetadata) -> int | None:
        version = self._versions.get(meta.name)
        return version.id if version is not None and version.meta is meta else None

    def history(self, name: str) -> list[tuple[int, str, str]]:
        """(version number, digest, published at) of every published version of ``name``,
        newest (the current one) first; unpublished versions are left out."""
        with self.db.tenant(self.tenant) as conn:
            rows = conn.execute(
                "SELECT number, digest, published_at FROM skilldeck_versions WHERE name = %s "
                "AND unpublished_at IS NULL ORDER BY id DESC",
                (name,),
            ).fetchall()
        return [(int(i), d, t.isoformat()) for i, d, t in rows]


def change_mark(conn: Any) -> tuple[int, int, int]:
    """(versions, newest id, unpublished versions) of the transaction's tenant. Every
    publish adds a version and every unpublish marks one, so any committed change moves
    it (a version committed late with a lower id still moves the count)."""
    row = conn.execute(
        "SELECT count(*), coalesce(max(id), 0), count(unpublished_at) FROM skilldeck_versions"
    ).fetchone()
    return (int(row[0]), int(row[1]), int(row[2]))


def _check_version(rows: list[Any], digest: str) -> str | None:
    pairs: dict[str, str] = {}
    for rel, file_digest, size, data in rows:
        if data is None:
            return f"{rel}: its bytes are missing"
        if bytes_digest(bytes(data)) != file_digest or len(data) != size:
            return f"{rel}: its bytes do not match the digest"
        pairs[rel] = file_digest
    if "SKILL.md" not in pairs:
        return "the version has no SKILL.md"
    if digest_of_files(pairs) != digest:
        return "the files do not add up to the version's digest"
    return None


def _plain(relpath: str) -> bool:
    """Is ``relpath`` a path a read may name (relative, no ``.``/``..``/empty part)?"""
    return (
        isinstance(relpath, str)
        and bool(relpath)
        and not relpath.startswith("/")
        and "\\" not in relpath
        and "\0" not in relpath
        and not any(p in ("", ".", "..") for p in relpath.split("/"))
    )
