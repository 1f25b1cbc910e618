"""``PostgresStore``: one tenant's skills in PostgreSQL, as immutable versions.

A published version is a row naming the skill and its digest plus one row per
file (path, file digest, size); file bytes live once per tenant in the blob
table, keyed by digest. A name's current version is its newest (highest id).
Publishing is one transaction (blobs, version, files, ``NOTIFY``): a killed
publish leaves nothing behind and a reader never sees a version without all
its files. Versions are never changed, so what a replica has read stays true;
``discover`` asks only whether the tenant's version count or newest id moved.
"""

from __future__ import annotations

import os
import tempfile
import threading
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skilldeck import (
    FileNotFoundInSkillError,
    FileTooLargeError,
    InstallError,
    PathNotAllowedError,
    Skill,
    SkillMetadata,
    SkillNotFoundError,
    bytes_digest,
)
from skilldeck._catalog import DEFAULT_FILE_LIMIT, Discovery, FileData, IndexMode
from skilldeck._diagnostics import Diagnostic
from skilldeck._digest import digest_of_files
from skilldeck._format import parse_skill_md
from skilldeck.postgres._db import CHANNEL, Database, check_tenant
from skilldeck.postgres._shared import _audit

__all__ = ["PostgresStore", "PublishLimits", "PublishResult", "StoredVersion"]

_BUNDLED_DIRS = ("scripts", "references", "assets")


def _in_bundled_index(rel: str) -> bool:
    head, sep, tail = rel.partition("/")
    if not sep:
        return bool(head) and head != "SKILL.md"
    return head in _BUNDLED_DIRS and bool(tail) and "/" not in tail


@dataclass(frozen=True, slots=True)
class PublishLimits:
    """Caps of one published skill (files, total bytes, one file's bytes)."""

    max_files: int = 2_000
    max_total_bytes: int = 64 * 1024 * 1024
    max_file_bytes: int = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class PublishResult:
    """One published skill: its version id, digest, and whether a new version was made."""

    name: str
    version: int
    digest: str
    created: bool
    files: int
    warnings: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One immutable version: ``files`` maps path to (digest, size, executable)."""

    id: int
    name: str
    digest: str
    files: dict[str, tuple[str, int, bool]]
    meta: SkillMetadata = field(compare=False)


class PostgresStore:
    """The skills of one tenant (``Store`` protocol plus what the catalog uses).

    ``db`` is a ``Database`` or a URL. The store keeps the current version of
    every skill and the bytes of their files in memory (a snapshot refreshed by
    ``discover``); reads never go back to the database. Thread-safe.
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
        self._mark: tuple[int, int] | None = None
        self._versions: dict[str, StoredVersion] = {}
        self._blobs: dict[str, bytes] = {}
        self._found = Discovery(())

    def __repr__(self) -> str:
        return f"PostgresStore({self.db!r}, tenant={self.tenant!r})"

    # -- snapshot --------------------------------------------------------------

    def discover(self) -> Discovery:
        """The current versions (the same object while nothing was published)."""
        with self._lock:
            with self.db.tenant(self.tenant) as conn:
                row = conn.execute(
                    "SELECT count(*), coalesce(max(id), 0) FROM skilldeck_versions"
                ).fetchone()
                mark = (int(row[0]), int(row[1]))
                if mark != self._mark:
                    self._load(conn)
                    self._mark = mark
            return self._found

    def scan(self) -> Discovery:
        """Deprecated: the older name of :meth:`discover`."""
        warnings.warn(
            "PostgresStore.scan() is deprecated; use PostgresStore.discover() "
            "(skilldeck's scan means the security scan)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.discover()

    def _load(self, conn: Any) -> None:
        current = conn.execute(
            "SELECT DISTINCT ON (name) id, name, digest FROM skilldeck_versions "
            "ORDER BY name, id DESC"
        ).fetchall()
        known = {v.id: v for v in self._versions.values()}
        new_ids = [int(vid) for vid, _n, _d in current if int(vid) not in known]
        files: dict[int, dict[str, tuple[str, int, bool]]] = {v: {} for v in new_ids}
        if new_ids:
            for vid, rel, digest, size, executable in conn.execute(
                "SELECT version_id, relpath, digest, size, executable "
                "FROM skilldeck_version_files WHERE version_id = ANY(%s)",
                (new_ids,),
            ):
                files[int(vid)][rel] = (digest, int(size), bool(executable))
        wanted = {d for f in files.values() for d, _s, _x in f.values()}
        missing = [d for d in wanted if d not in self._blobs]
        blobs = dict(self._blobs)
        if missing:
            for digest, data in conn.execute(
                "SELECT digest, data FROM skilldeck_blobs WHERE digest = ANY(%s)", (missing,)
            ):
                blobs[digest] = bytes(data)
        versions: dict[str, StoredVersion] = {}
        for vid, name, digest in current:
            vid = int(vid)
            old = known.get(vid)
            if old is not None:
                versions[name] = old
                continue
            built = self._version(vid, name, digest, files[vid], blobs)
            if built is not None:
                versions[name] = built
        keep = {d for v in versions.values() for d, _s, _x in v.files.values()}
        self._blobs = {d: b for d, b in blobs.items() if d in keep}
        self._versions = versions
        metas = tuple(v.meta for v in sorted(versions.values(), key=lambda v: v.name))
        self._found = Discovery(metas)

    def _version(
        self,
        vid: int,
        name: str,
        digest: str,
        files: dict[str, tuple[str, int, bool]],
        blobs: dict[str, bytes],
    ) -> StoredVersion | None:
        md = files.get("SKILL.md")
        if md is None or md[0] not in blobs:
            return None  # not written by skilldeck: never serve a version without its SKILL.md
        parsed = parse_skill_md(blobs[md[0]])
        m = parsed.manifest
        if m is None or not parsed.ok or m.name != name:
            return None
        meta = SkillMetadata.of_manifest(m, source=self.source, diagnostics=parsed.diagnostics)
        return StoredVersion(vid, name, digest, files, meta)

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
        mode = index or self._index
        rels = self._get(name).files
        return tuple(
            sorted(r for r in rels if r != "SKILL.md" and (mode == "all" or _in_bundled_index(r)))
        )

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
        data = self._blobs.get(digest)
        if data is None:  # replaced by a newer scan meanwhile: fetch this version's bytes
            with self.db.tenant(self.tenant) as conn:
                row = conn.execute(
                    "SELECT data FROM skilldeck_blobs WHERE digest = %s", (digest,)
                ).fetchone()
            if row is None:
                raise FileNotFoundInSkillError(f"no file {rel} in skill {version.name}")
            data = bytes(row[0])
        return data

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
        clean = _clean_relpath(relpath, name)
        if clean not in self.files(name, index=index):
            if clean in version.files:
                raise PathNotAllowedError(
                    f"{clean} is not one of the bundled files of {name}",
                    skill=name,
                    path=clean,
                    hint="list the skill's files with skills_load; only those can be read",
                )
            raise FileNotFoundInSkillError(
                f"no file {clean} in skill {name}",
                skill=name,
                path=clean,
                hint="list the skill's files with skills_load",
            )
        return _limit(self._blob(version, clean), clean, max_bytes, truncate, name)

    def read_file(self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT) -> bytes:
        return self.read_bundled(name, relpath, max_bytes=max_bytes).data

    def skill_md_bytes(
        self, name: str, *, max_bytes: int = DEFAULT_FILE_LIMIT, truncate: bool = False
    ) -> FileData:
        version = self._get(name)
        return _limit(self._blob(version, "SKILL.md"), "SKILL.md", max_bytes, truncate, name)

    def digest(self, name: str) -> str:
        return self._get(name).digest

    def materialize(self, name: str, dest: str | os.PathLike[str]) -> StoredVersion:
        """Write the current version's files under ``dest`` (a new, empty folder) and
        check every file's digest and the skill's digest on the bytes written."""
        version = self._get(name)
        root = Path(dest)
        pairs: dict[str, str] = {}
        for rel, (digest, _size, executable) in sorted(version.files.items()):
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
        makes no new version (``created`` is False).
        """
        from skilldeck._scan import install_scan

        lim = limits or PublishLimits()
        files = _read_folder(Path(folder), lim)
        with tempfile.TemporaryDirectory(prefix="skilldeck-publish-") as tmp:
            copy = Path(tmp) / (Path(os.path.abspath(folder)).name or "skill")
            for rel, (data, executable) in files.items():
                target = copy / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                os.chmod(target, 0o755 if executable else 0o644)
            name, warnings = _validate(copy, Path(folder))
            findings = install_scan(copy, mode=scan, skill=name)
        warnings += tuple(d for d in findings)
        digests = {rel: bytes_digest(data) for rel, (data, _x) in files.items()}
        digest = digest_of_files(digests)
        with self.db.tenant(self.tenant) as conn:
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"{self.tenant}/{name}",))
            row = conn.execute(
                "SELECT id, digest FROM skilldeck_versions WHERE name = %s "
                "ORDER BY id DESC LIMIT 1",
                (name,),
            ).fetchone()
            if row is not None and row[1] == digest:
                return PublishResult(name, int(row[0]), digest, False, len(files), warnings)
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO skilldeck_blobs (tenant, digest, size, data) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    [
                        (self.tenant, digests[rel], len(data), data)
                        for rel, (data, _x) in files.items()
                    ],
                )
            got = conn.execute(
                "INSERT INTO skilldeck_versions (tenant, name, digest) VALUES (%s, %s, %s) "
                "RETURNING id",
                (self.tenant, name, digest),
            ).fetchone()
            vid = int(got[0])
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO skilldeck_version_files "
                    "(version_id, tenant, relpath, digest, size, executable) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    [
                        (vid, self.tenant, rel, digests[rel], len(data), x)
                        for rel, (data, x) in files.items()
                    ],
                )
            _audit(
                conn,
                self.tenant,
                "skill_published",
                {"skill": name, "version": vid, "digest": digest, "files": len(files)},
            )
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.tenant))
        return PublishResult(name, vid, digest, True, len(files), warnings)

    def verify(self, names: Iterable[str] | None = None) -> list[tuple[str, int, str | None]]:
        """Re-read the current versions from the database and check every blob against its
        digest and size, and the files against the version's digest.

        Returns ``(name, version id, problem or None)`` per skill (all, or ``names``).
        """
        wanted = set(names) if names is not None else None
        out: list[tuple[str, int, str | None]] = []
        with self.db.tenant(self.tenant) as conn:
            current = conn.execute(
                "SELECT DISTINCT ON (name) id, name, digest FROM skilldeck_versions "
                "ORDER BY name, id DESC"
            ).fetchall()
            for vid, name, digest in current:
                if wanted is not None and name not in wanted:
                    continue
                rows = conn.execute(
                    "SELECT f.relpath, f.digest, f.size, b.data FROM skilldeck_version_files f "
                    "LEFT JOIN skilldeck_blobs b ON b.digest = f.digest AND b.tenant = f.tenant "
                    "WHERE f.version_id = %s",
                    (vid,),
                ).fetchall()
                out.append((name, int(vid), _check_version(rows, digest)))
        if wanted is not None:
            found = {name for name, _v, _p in out}
            out += [(n, 0, "no such skill in the store") for n in sorted(wanted - found)]
        return out

    def history(self, name: str) -> list[tuple[int, str, str]]:
        """(version id, digest, published at) of every version of ``name``, newest first."""
        with self.db.tenant(self.tenant) as conn:
            rows = conn.execute(
                "SELECT id, digest, published_at FROM skilldeck_versions WHERE name = %s "
                "ORDER BY id DESC",
                (name,),
            ).fetchall()
        return [(int(i), d, t.isoformat()) for i, d, t in rows]


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


def _clean_relpath(relpath: str, name: str) -> str:
    parts = relpath.split("/") if isinstance(relpath, str) else [""]
    if (
        not isinstance(relpath, str)
        or not relpath
        or relpath.startswith("/")
        or "\\" in relpath
        or "\0" in relpath
        or any(p in ("", ".", "..") for p in parts)
    ):
        raise PathNotAllowedError(
            f"path {relpath!r} is not allowed",
            skill=name,
            path=str(relpath),
            hint="give a path relative to the skill folder, e.g. references/guide.md",
        )
    return relpath


def _limit(data: bytes, rel: str, max_bytes: int, truncate: bool, skill: str) -> FileData:
    if len(data) <= max_bytes:
        return FileData(rel, data, len(data))
    if truncate:
        return FileData(rel, data[:max_bytes], len(data), True)
    raise FileTooLargeError(
        f"{rel} is {len(data)} bytes, over the {max_bytes}-byte limit",
        skill=skill,
        hint="ask for a smaller file or raise max_bytes",
        size=len(data),
        limit=max_bytes,
    )


def _read_folder(folder: Path, lim: PublishLimits) -> dict[str, tuple[bytes, bool]]:
    """Every file of a skill folder (the one walker's file set), read once."""
    from skilldeck._errors import SkillError
    from skilldeck._tree import SkillTree, WalkLimits

    if not folder.is_dir():
        raise InstallError(
            f"{folder} is not a skill folder",
            path=str(folder),
            hint="give the folder that holds SKILL.md",
        )
    out: dict[str, tuple[bytes, bool]] = {}
    total = 0
    try:
        with SkillTree(folder) as tree:
            walk = tree.walk(limits=WalkLimits(max_files=lim.max_files))
            for entry in walk.files:
                fd = tree.open(entry.path)
                with open(fd, "rb", closefd=True) as fh:
                    data = fh.read(lim.max_file_bytes + 1)
                if len(data) > lim.max_file_bytes:
                    raise InstallError(
                        f"{entry.path} is over the {lim.max_file_bytes}-byte limit of a file",
                        path=str(folder / entry.path),
                        hint="publish skills without large binaries",
                    )
                total += len(data)
                if total > lim.max_total_bytes:
                    raise InstallError(
                        f"{folder.name} is over the {lim.max_total_bytes}-byte limit of a skill",
                        path=str(folder),
                        hint="publish skills without large binaries",
                    )
                out[entry.path] = (data, entry.executable)
    except InstallError:
        raise
    except SkillError as exc:
        raise InstallError(
            f"{folder.name}: {exc.message}", path=str(folder), hint=exc.hint
        ) from None
    return out


def _validate(copy: Path, folder: Path) -> tuple[str, tuple[Diagnostic, ...]]:
    from skilldeck import validate_skill
    from skilldeck._diagnostics import Severity

    report = validate_skill(copy)
    if report.manifest is None or not report.valid or not report.name:
        errors = [d for d in report.diagnostics if d.is_error][:5]
        detail = "; ".join(f"{d.code} {d.message}" for d in errors)
        raise InstallError(
            f"{folder.name} is not a valid skill" + (f": {detail}" if detail else ""),
            path=str(folder),
            hint=f"run 'skilldeck validate {folder}'",
        )
    if "SKILL.md" not in {p.name for p in copy.iterdir()} or not (copy / "SKILL.md").is_file():
        raise InstallError(
            f"{folder.name} has no SKILL.md (exactly that name is published)",
            path=str(folder),
            hint="rename the skill's file to SKILL.md",
        )
    warnings = tuple(d for d in report.diagnostics if d.severity is Severity.WARNING)
    return report.name, warnings


def publish_many(
    store: PostgresStore, folders: Iterable[str | os.PathLike[str]], *, scan: str = "block"
) -> list[PublishResult]:
    """Publish each folder in turn (each its own transaction)."""
    return [store.publish(f, scan=scan) for f in folders]
