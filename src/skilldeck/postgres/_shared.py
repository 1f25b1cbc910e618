"""Tenants and their tokens, approvals and the audit log, in PostgreSQL.

A tenant's bearer token is 256 random bits shown once; only its SHA-256 is
stored, and a token is looked up by that hash (an index lookup on a value an
attacker cannot steer toward a near miss). Approvals and audit rows are tenant
rows like the skills: row-level security keeps each tenant's to itself.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

from skilldeck import InvalidArgumentsError
from skilldeck._events import Event, redact
from skilldeck.execution import Approval
from skilldeck.postgres._db import Database, check_tenant, token_hash

__all__ = [
    "PostgresApprovalStore",
    "PostgresAuditSink",
    "create_tenant",
    "list_tenants",
    "tenant_for_token",
]

TOKEN_PREFIX = "sdk_"  # noqa: S105  (a prefix, not a secret)


def _db(db: Database | str) -> Database:
    return db if isinstance(db, Database) else Database(db)


def create_tenant(db: Database | str, tenant: str) -> str:
    """Create ``tenant`` and return its new bearer token (shown once, stored hashed).

    ``InvalidArgumentsError`` when the tenant exists already.
    """
    check_tenant(tenant)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with _db(db).admin() as conn:
        row = conn.execute(
            "INSERT INTO skilldeck_tenants (tenant, token_sha256) VALUES (%s, %s) "
            "ON CONFLICT (tenant) DO NOTHING RETURNING tenant",
            (tenant, token_hash(token)),
        ).fetchone()
    if row is None:
        raise InvalidArgumentsError(
            f"tenant {tenant!r} exists already",
            field="tenant",
            hint="pick another id; a tenant's token is shown only when it is created",
        )
    return token


def tenant_for_token(db: Database | str, token: str) -> str | None:
    """The tenant whose token this is, or ``None``."""
    if not token or len(token) > 512:
        return None
    with _db(db).admin() as conn:
        row = conn.execute(
            "SELECT tenant FROM skilldeck_tenants WHERE token_sha256 = %s", (token_hash(token),)
        ).fetchone()
    return str(row[0]) if row else None


def list_tenants(db: Database | str) -> list[str]:
    with _db(db).admin() as conn:
        return [str(r[0]) for r in conn.execute("SELECT tenant FROM skilldeck_tenants ORDER BY 1")]


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
        approval = Approval(name, digest, trust, path, _now())
        with self.db.tenant(self.tenant) as conn:
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
                "SELECT event FROM skilldeck_audit ORDER BY id LIMIT %s", (limit,)
            ).fetchall()
        return [dict(r[0]) for r in rows]
