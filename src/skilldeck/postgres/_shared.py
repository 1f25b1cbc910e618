"""Approvals and the audit log, in PostgreSQL.

Approvals and audit rows are tenant rows like the skills: row-level security
keeps each tenant's to itself. ``read_audit`` reads one tenant's rows, or every
tenant's as the ``skilldeck_auditor`` role (which sees the audit table only).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from skilldeck import InvalidArgumentsError, SkillNotFoundError
from skilldeck.events import Event, redact
from skilldeck.execution import Approval
from skilldeck.postgres._db import Database, check_tenant, lock_name

__all__ = [
    "AuditRow",
    "PostgresApprovalStore",
    "PostgresAuditSink",
    "read_audit",
]

MAX_AUDIT_PAGE = 10_000


def _db(db: Database | str) -> Database:
    return db if isinstance(db, Database) else Database(db)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class PostgresApprovalStore:
    """One tenant's approvals (``ApprovalStore`` protocol): shared by every replica."""

    def __init__(self, db: Database | str, tenant: str) -> None:
        self.db = _db(db)
        self.tenant = check_tenant(tenant)

    def get(self, name: str) -> Approval | None:
        with self.db.tenant(self.tenant) as conn:
            row = conn.execute(
                "SELECT name, digest, trust, path, approved_at FROM skilldeck_approvals "
                "WHERE name = %s",
                (name,),
            ).fetchone()
        return Approval(*row) if row else None

    def grant(
        self, name: str, digest: str, *, trust: str | None = None, path: str | None = None
    ) -> Approval:
        """Store a yes for ``name``'s version ``digest``, which must still be published:
        under the name's lock, the lock an unpublish holds, so a yes given while its
        version is taken back is refused instead of outliving it (``SkillNotFoundError``)."""
        approval = Approval(name, digest, trust, path, _now())
        with self.db.tenant(self.tenant) as conn:
            lock_name(conn, self.tenant, name)
            live = conn.execute(
                "SELECT 1 FROM skilldeck_versions WHERE name = %s AND digest = %s "
                "AND unpublished_at IS NULL LIMIT 1",
                (name, digest),
            ).fetchone()
            if live is None:
                raise SkillNotFoundError(
                    f"{name} has no published version {digest[:19]}: it was unpublished",
                    skill=name,
                    hint="list the skills again; the current version asks for its own approval",
                )
            conn.execute(
                "INSERT INTO skilldeck_approvals (tenant, name, digest, trust, path, approved_at) "
                "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (tenant, name) DO UPDATE SET "
                "digest = EXCLUDED.digest, trust = EXCLUDED.trust, path = EXCLUDED.path, "
                "approved_at = EXCLUDED.approved_at",
                (self.tenant, name, digest, trust, path, approval.approved_at),
            )
            _audit(conn, self.tenant, "approval_stored", {"skill": name, "digest": digest})
        return approval

    def revoke(self, name: str) -> bool:
        with self.db.tenant(self.tenant) as conn:
            row = conn.execute(
                "DELETE FROM skilldeck_approvals WHERE name = %s RETURNING name", (name,)
            ).fetchone()
            if row is not None:
                _audit(conn, self.tenant, "approval_revoked", {"skill": name})
        return row is not None

    def list(self) -> list[Approval]:
        with self.db.tenant(self.tenant) as conn:
            rows = conn.execute(
                "SELECT name, digest, trust, path, approved_at FROM skilldeck_approvals "
                "ORDER BY name"
            ).fetchall()
        return [Approval(*r) for r in rows]


def _audit(conn: Any, tenant: str, kind: str, record: dict[str, Any]) -> None:
    """One audit row in the caller's transaction (it commits with the action)."""
    payload = {"event": kind, **record} if "event" not in record else record
    conn.execute(
        "INSERT INTO skilldeck_audit (tenant, kind, event) VALUES (%s, %s, %s::jsonb)",
        (tenant, kind, json.dumps(redact(payload), ensure_ascii=False, default=str)),
    )


class PostgresAuditSink:
    """An ``EventSink`` writing one tenant's events (redacted) as audit rows.

    Each event is committed before ``emit`` returns. ``read()`` returns the
    tenant's rows oldest first.
    """

    def __init__(self, db: Database | str, tenant: str) -> None:
        self.db = _db(db)
        self.tenant = check_tenant(tenant)

    def emit(self, event: Event) -> None:
        record = event.to_dict()
        with self.db.tenant(self.tenant) as conn:
            _audit(conn, self.tenant, str(record.get("event", event.kind)), record)

    def read(self, *, limit: int = 10_000) -> list[dict[str, Any]]:
        with self.db.tenant(self.tenant) as conn:
            rows = conn.execute(
                "SELECT event FROM skilldeck_audit ORDER BY number LIMIT %s", (limit,)
            ).fetchall()
        return [dict(r[0]) for r in rows]


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One audit row: ``id`` orders the page it was read in (the tenant's own row number,
    1, 2, 3, ..., when one tenant's log is read; the store-wide row id when every
    tenant's is), ``number`` is its number among its tenant's rows, ``event`` the
    redacted record."""

    id: int
    tenant: str
    at: str
    kind: str
    event: dict[str, Any]
    number: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "number": self.number,
            "tenant": self.tenant,
            "at": self.at,
            "kind": self.kind,
            "event": self.event,
        }


def read_audit(
    db: Database | str,
    *,
    tenant: str | None = None,
    since: datetime | None = None,
    after: int = 0,
    limit: int = 100,
    kinds: tuple[str, ...] = (),
) -> list[AuditRow]:
    """One page of the audit log, oldest first: rows with an id above ``after`` (the
    last id of the previous page), at or after ``since``, of ``kinds`` when given.

    With ``tenant``, that tenant's rows (its own transaction, as every tenant read),
    whose ids are the tenant's own row numbers (nothing in them counts other tenants'
    rows); without, every tenant's, read as the ``skilldeck_auditor`` role, by row id.
    """
    if isinstance(after, bool) or not isinstance(after, int) or after < 0:
        raise InvalidArgumentsError(
            "after is the last id of the previous page", field="after", hint="e.g. --after 0"
        )
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_AUDIT_PAGE:
        raise InvalidArgumentsError(
            f"a page holds 1 to {MAX_AUDIT_PAGE} rows", field="limit", hint="e.g. --limit 100"
        )
    if since is not None and since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    order = "number" if tenant is not None else "id"
    sql = (
        f"SELECT {order}, tenant, at, kind, event, number FROM skilldeck_audit "  # noqa: S608
        f"WHERE {order} > %s AND (%s::timestamptz IS NULL OR at >= %s) "
        f"AND (%s::text[] IS NULL OR kind = ANY(%s)) ORDER BY {order} LIMIT %s"
    )
    wanted = list(kinds) if kinds else None
    args = (after, since, since, wanted, wanted, limit)
    database = _db(db)
    scope = database.tenant(tenant) if tenant is not None else database.auditor()
    with scope as conn:
        rows = conn.execute(sql, args).fetchall()
    return [
        AuditRow(int(i), str(t), at.astimezone(UTC).isoformat(), str(k), dict(e), int(n))
        for i, t, at, k, e, n in rows
    ]
