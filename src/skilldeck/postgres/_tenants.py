"""Tenants and their bearer tokens.

A tenant may hold several tokens (one per client or deployment, say), each with
an id (counted per tenant: 1, 2, 3, ...), an optional label and its creation
time. A token is ``sdk_`` plus 256 random bits, shown once; only its SHA-256 is
stored, and a token is looked up by that hash (an index lookup on a value an
attacker cannot steer toward a near miss). Revoking marks the row and tells every
replica through ``NOTIFY skilldeck_tokens``, so the token stops working everywhere
within the notification's latency (and, should a replica miss it, within its
token cache's 30 seconds). Every change writes an audit row for the tenant in the
same transaction.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from skilldeck import InvalidArgumentsError
from skilldeck.postgres._db import TOKENS_CHANNEL, Database, check_tenant, enter_tenant, token_hash
from skilldeck.postgres._shared import _audit

__all__ = [
    "TOKEN_PREFIX",
    "TenantInfo",
    "TokenInfo",
    "create_tenant",
    "create_token",
    "describe_tenants",
    "list_tenants",
    "list_tokens",
    "revoke_token",
    "rotate_token",
    "tenant_for_token",
]

TOKEN_PREFIX = "sdk_"  # noqa: S105  (a prefix, not a secret)
MAX_LABEL = 200


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """One token of a tenant (never the token itself): ``id`` is its number among the
    tenant's tokens (1, 2, 3, ...; never a row id shared with other tenants),
    ``revoked_at`` is None while valid."""

    id: int
    tenant: str
    label: str | None
    created_at: str
    revoked_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tenant": self.tenant,
            "label": self.label,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
        }


@dataclass(frozen=True, slots=True)
class TenantInfo:
    """One tenant: when it was made, its valid tokens and its published skills."""

    tenant: str
    created_at: str
    tokens: int
    skills: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "created_at": self.created_at,
            "tokens": self.tokens,
            "skills": self.skills,
        }


def _db(db: Database | str) -> Database:
    return db if isinstance(db, Database) else Database(db)


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def _label(label: str | None) -> str | None:
    if label is None:
        return None
    if not isinstance(label, str) or len(label) > MAX_LABEL or not label.isprintable():
        raise InvalidArgumentsError(
            "a token label is printable text of at most 200 characters",
            field="label",
            hint="e.g. --label ci-runner",
        )
    return label


def _new_token(conn: Any, tenant: str, label: str | None) -> tuple[TokenInfo, str]:
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = conn.execute(
        "INSERT INTO skilldeck_tokens (tenant, token_sha256, label) VALUES (%s, %s, %s) "
        "RETURNING number, created_at",  # numbered per tenant (a trigger)
        (tenant, token_hash(token), label),
    ).fetchone()
    return TokenInfo(int(row[0]), tenant, label, str(_iso(row[1]))), token


def _require_tenant(conn: Any, tenant: str) -> None:
    row = conn.execute("SELECT 1 FROM skilldeck_tenants WHERE tenant = %s", (tenant,)).fetchone()
    if row is None:
        raise InvalidArgumentsError(
            f"no tenant {tenant!r} in this store",
            field="tenant",
            hint="list them with 'skilldeck tenant list'",
        )


def _audit_tenant(conn: Any, tenant: str, kind: str, record: dict[str, Any]) -> None:
    """The tenant's audit row, last thing in an admin transaction (it switches role)."""
    enter_tenant(conn, tenant)
    _audit(conn, tenant, kind, record)


def create_tenant(db: Database | str, tenant: str, *, label: str | None = None) -> str:
    """Create ``tenant`` and return its first bearer token (shown once, stored hashed).

    ``InvalidArgumentsError`` when the tenant exists already.
    """
    check_tenant(tenant)
    label = _label(label)
    with _db(db).admin() as conn:
        row = conn.execute(
            "INSERT INTO skilldeck_tenants (tenant) VALUES (%s) "
            "ON CONFLICT (tenant) DO NOTHING RETURNING tenant",
            (tenant,),
        ).fetchone()
        if row is None:
            raise InvalidArgumentsError(
                f"tenant {tenant!r} exists already",
                field="tenant",
                hint="pick another id, or give it a new token with 'skilldeck tenant token create'",
            )
        info, token = _new_token(conn, tenant, label)
        _audit_tenant(conn, tenant, "tenant_created", {"token_id": info.id})
    return token


def create_token(
    db: Database | str, tenant: str, *, label: str | None = None
) -> tuple[TokenInfo, str]:
    """A new, additional token for ``tenant``: (its record, the token, shown once)."""
    check_tenant(tenant)
    label = _label(label)
    with _db(db).admin() as conn:
        _require_tenant(conn, tenant)
        info, token = _new_token(conn, tenant, label)
        _audit_tenant(conn, tenant, "token_created", {"token_id": info.id, "label": label})
    return info, token


def _find(conn: Any, tenant: str, which: int | str) -> Any:
    columns = (
        "SELECT id, number, label, created_at, revoked_at FROM skilldeck_tokens WHERE tenant = %s"
    )
    if isinstance(which, str) and which.startswith(TOKEN_PREFIX):
        row = conn.execute(
            columns + " AND token_sha256 = %s FOR UPDATE", (tenant, token_hash(which))
        ).fetchone()
    elif isinstance(which, int) and not isinstance(which, bool) and which > 0:
        row = conn.execute(columns + " AND number = %s FOR UPDATE", (tenant, which)).fetchone()
    else:
        raise InvalidArgumentsError(
            f"{which!r} is neither a token id nor a token",
            field="token",
            hint="see the ids with 'skilldeck tenant token list TENANT'",
        )
    if row is None:
        raise InvalidArgumentsError(
            f"tenant {tenant!r} has no such token",
            field="token",
            hint="see the ids with 'skilldeck tenant token list TENANT'",
        )
    return row


def revoke_token(db: Database | str, tenant: str, which: int | str) -> TokenInfo:
    """Revoke one of ``tenant``'s tokens, by id or by the token itself.

    Every replica refuses it (``401``) once the notification arrives. Revoking a
    revoked token changes nothing and returns its record.
    """
    check_tenant(tenant)
    with _db(db).admin() as conn:
        _require_tenant(conn, tenant)
        row_id, number, label, created, revoked = _find(conn, tenant, which)
        if revoked is None:
            revoked = conn.execute(
                "UPDATE skilldeck_tokens SET revoked_at = now() WHERE id = %s RETURNING revoked_at",
                (row_id,),
            ).fetchone()[0]
            conn.execute("SELECT pg_notify(%s, %s)", (TOKENS_CHANNEL, tenant))
            _audit_tenant(conn, tenant, "token_revoked", {"token_id": int(number)})
    return TokenInfo(int(number), tenant, label, str(_iso(created)), _iso(revoked))


def rotate_token(
    db: Database | str, tenant: str, which: int | str | None = None, *, label: str | None = None
) -> tuple[TokenInfo, str, list[int]]:
    """A new token for ``tenant`` that replaces ``which`` (a token id or the token), or
    every valid token when ``which`` is None, in one transaction.

    Returns (the new token's record, the token, the ids revoked).
    """
    check_tenant(tenant)
    label = _label(label)
    with _db(db).admin() as conn:
        _require_tenant(conn, tenant)
        if which is None:
            rows = conn.execute(
                "UPDATE skilldeck_tokens SET revoked_at = now() "
                "WHERE tenant = %s AND revoked_at IS NULL RETURNING number",
                (tenant,),
            ).fetchall()
            revoked = sorted(int(r[0]) for r in rows)
        else:
            row_id, number, old_label, _c, was = _find(conn, tenant, which)
            revoked = []
            if was is None:
                conn.execute(
                    "UPDATE skilldeck_tokens SET revoked_at = now() WHERE id = %s", (row_id,)
                )
                revoked = [int(number)]
            label = label if label is not None else old_label
        info, token = _new_token(conn, tenant, label)
        conn.execute("SELECT pg_notify(%s, %s)", (TOKENS_CHANNEL, tenant))
        _audit_tenant(conn, tenant, "token_rotated", {"token_id": info.id, "revoked": revoked})
    return info, token, revoked


def list_tokens(db: Database | str, tenant: str) -> list[TokenInfo]:
    """Every token of ``tenant``, valid and revoked, oldest first (never the tokens)."""
    check_tenant(tenant)
    with _db(db).admin() as conn:
        _require_tenant(conn, tenant)
        rows = conn.execute(
            "SELECT number, label, created_at, revoked_at FROM skilldeck_tokens "
            "WHERE tenant = %s ORDER BY number",
            (tenant,),
        ).fetchall()
    return [TokenInfo(int(i), tenant, lb, str(_iso(c)), _iso(r)) for i, lb, c, r in rows]


def tenant_for_token(db: Database | str, token: str) -> str | None:
    """The tenant whose valid token this is, or ``None``."""
    if not isinstance(token, str) or not token or len(token) > 512:
        return None
    with _db(db).admin() as conn:
        row = conn.execute(
            "SELECT tenant FROM skilldeck_tokens WHERE token_sha256 = %s AND revoked_at IS NULL",
            (token_hash(token),),
        ).fetchone()
    return str(row[0]) if row else None


def list_tenants(db: Database | str) -> list[str]:
    """The store's tenant ids, sorted."""
    with _db(db).admin() as conn:
        return [str(r[0]) for r in conn.execute("SELECT tenant FROM skilldeck_tenants ORDER BY 1")]


def describe_tenants(db: Database | str) -> list[TenantInfo]:
    """Every tenant with its creation time, valid tokens and published skills."""
    database = _db(db)
    with database.admin() as conn:
        rows = conn.execute(
            "SELECT t.tenant, t.created_at, count(k.id) FILTER (WHERE k.revoked_at IS NULL) "
            "FROM skilldeck_tenants t LEFT JOIN skilldeck_tokens k ON k.tenant = t.tenant "
            "GROUP BY t.tenant, t.created_at ORDER BY t.tenant"
        ).fetchall()
    out = []
    for tenant, created, tokens in rows:
        with database.tenant(str(tenant)) as conn:
            got = conn.execute(
                "SELECT count(DISTINCT name) FROM skilldeck_versions WHERE unpublished_at IS NULL"
            ).fetchone()
        out.append(TenantInfo(str(tenant), str(_iso(created)), int(tokens), int(got[0])))
    return out
