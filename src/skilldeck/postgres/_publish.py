"""Publishing and unpublishing versions of a tenant's skills (one transaction each).

``publish_folder`` validates and scans a private copy of the bytes it read once and
publishes exactly those bytes: blobs shared by digest, a version row, its file rows,
an audit row and a ``NOTIFY``. ``unpublish_version`` marks a version unpublished,
deletes its file rows and the bytes no other version uses, revokes the approval
bound to its digest, audits and notifies. A tenant-wide advisory lock keeps an
unpublish deleting unused bytes from racing a publish that reuses them.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilldeck import Diagnostic, SkillNotFoundError
from skilldeck.catalog import bytes_digest, digest_of_files
from skilldeck.disclosure import is_text
from skilldeck.postgres._db import CHANNEL, lock_name, refusals
from skilldeck.postgres._folder import PublishLimits, read_folder, validate_copy
from skilldeck.postgres._shared import _audit

if TYPE_CHECKING:
    from skilldeck.postgres._store import PostgresStore

__all__ = ["PublishResult", "UnpublishResult", "publish_folder", "unpublish_version"]


@dataclass(frozen=True, slots=True)
class PublishResult:
    """One published skill: its version number (counted per tenant), digest, and whether a
    new version was made."""

    name: str
    version: int
    digest: str
    created: bool
    files: int
    warnings: tuple[Diagnostic, ...] = ()


@dataclass(frozen=True, slots=True)
class UnpublishResult:
    """An unpublished version, and the version now current (``None``: none is left)."""

    name: str
    version: int
    digest: str
    current: int | None
    current_digest: str | None
    files_freed: int
    approval_revoked: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "skill": self.name,
            "version": self.version,
            "digest": self.digest,
            "current": self.current,
            "current_digest": self.current_digest,
            "files_freed": self.files_freed,
            "approval_revoked": self.approval_revoked,
        }


def publish_folder(
    store: PostgresStore,
    folder: str | os.PathLike[str],
    *,
    scan: str = "block",
    limits: PublishLimits | None = None,
) -> PublishResult:
    """``PostgresStore.publish``: a private copy of the bytes read once is validated and
    scanned, then exactly those bytes go into one transaction."""
    from skilldeck.security import install_scan

    lim = limits or PublishLimits()
    files = read_folder(Path(folder), lim)
    with tempfile.TemporaryDirectory(prefix="skilldeck-publish-") as tmp:
        copy = Path(tmp) / (Path(os.path.abspath(folder)).name or "skill")
        for rel, (data, executable) in files.items():
            target = copy / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, 0o755 if executable else 0o644)
        name, warnings = validate_copy(copy, Path(folder))
        findings = install_scan(copy, mode=scan, skill=name)
    warnings += tuple(d for d in findings)
    digests = {rel: bytes_digest(data) for rel, (data, _x) in files.items()}
    digest = digest_of_files(digests)
    with refusals(f"publishing {name}"), store.db.tenant(store.tenant) as conn:
        lock_name(conn, store.tenant, name)
        # blobs are shared by versions: an unpublish deleting unused ones waits for us
        conn.execute("SELECT pg_advisory_xact_lock_shared(hashtext(%s))", (_blob_lock(store),))
        row = conn.execute(
            "SELECT number, digest FROM skilldeck_versions WHERE name = %s "
            "AND unpublished_at IS NULL ORDER BY id DESC LIMIT 1",
            (name,),
        ).fetchone()
        if row is not None and row[1] == digest:
            return PublishResult(name, int(row[0]), digest, False, len(files), warnings)
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO skilldeck_blobs (tenant, digest, size, data) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                [
                    (store.tenant, digests[rel], len(data), data)
                    for rel, (data, _x) in files.items()
                ],
            )
        got = conn.execute(  # the database numbers it (a trigger, per tenant)
            "INSERT INTO skilldeck_versions (tenant, name, digest) VALUES (%s, %s, %s) "
            "RETURNING id, number",
            (store.tenant, name, digest),
        ).fetchone()
        vid, number = int(got[0]), int(got[1])
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO skilldeck_version_files "
                "(version_id, tenant, relpath, digest, size, executable, is_text) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s)",
                [
                    (vid, store.tenant, rel, digests[rel], len(data), x, is_text(data))
                    for rel, (data, x) in files.items()
                ],
            )
        _audit(
            conn,
            store.tenant,
            "skill_published",
            {"skill": name, "version": number, "digest": digest, "files": len(files)},
        )
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, store.tenant))
    return PublishResult(name, number, digest, True, len(files), warnings)


def unpublish_version(
    store: PostgresStore, name: str, version: int | str | None = None
) -> UnpublishResult:
    """Take back ``name``'s current version, or the one given by id or digest.

    One transaction: the version is marked unpublished (its row stays for the
    history), its file rows and the bytes no other version of the tenant uses
    are deleted, the approval bound to its digest is revoked, an audit row is
    written and replicas are notified. The previous version, if any, becomes
    current. ``SkillNotFoundError`` when there is no such published version.
    """
    with refusals(f"unpublishing {name}"), store.db.tenant(store.tenant) as conn:
        lock_name(conn, store.tenant, name)
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (_blob_lock(store),))
        live = conn.execute(
            "SELECT number, digest, id FROM skilldeck_versions WHERE name = %s "
            "AND unpublished_at IS NULL ORDER BY id DESC",
            (name,),
        ).fetchall()
        target = _pick(live, name, version)
        number, digest, vid = int(target[0]), str(target[1]), int(target[2])
        conn.execute("UPDATE skilldeck_versions SET unpublished_at = now() WHERE id = %s", (vid,))
        gone = conn.execute(
            "DELETE FROM skilldeck_version_files WHERE version_id = %s RETURNING digest",
            (vid,),
        ).fetchall()
        freed = conn.execute(
            "DELETE FROM skilldeck_blobs b WHERE b.digest = ANY(%s) AND NOT EXISTS ("
            "SELECT 1 FROM skilldeck_version_files f "
            "WHERE f.tenant = b.tenant AND f.digest = b.digest) RETURNING b.digest",
            (sorted({str(r[0]) for r in gone}),),
        ).fetchall()
        revoked = conn.execute(
            "DELETE FROM skilldeck_approvals WHERE name = %s AND digest = %s RETURNING name",
            (name, digest),
        ).fetchone()
        rest = [r for r in live if int(r[2]) != vid]
        current = (int(rest[0][0]), str(rest[0][1])) if rest else None
        result = UnpublishResult(
            name,
            number,
            digest,
            current[0] if current else None,
            current[1] if current else None,
            len(freed),
            revoked is not None,
        )
        _audit(conn, store.tenant, "skill_unpublished", result.to_dict())
        conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, store.tenant))
    for (file_digest,) in freed:  # this replica lets go of them now, the others on use
        store.db.blobs.drop((store.tenant, str(file_digest)))
    return result


def _blob_lock(store: PostgresStore) -> str:
    return f"{store.tenant}:blobs"  # ':' is in no skill name, so no name's lock is this


def _pick(live: list[Any], name: str, version: int | str | None) -> Any:
    """The row of ``live`` (number, digest, id; newest first) that ``version`` names."""
    if not live:
        raise SkillNotFoundError(
            f"no published version of {name!r} in this store",
            skill=name,
            hint="see the published skills with 'skilldeck list --store URL --tenant T'",
        )
    if version is None:
        return live[0]
    for row in live:
        if (isinstance(version, int) and int(row[0]) == version) or row[1] == version:
            return row
    raise SkillNotFoundError(
        f"{name} has no published version {version}",
        skill=name,
        hint="published versions: " + ", ".join(f"{int(r[0])} ({r[1][:19]})" for r in live[:10]),
    )
