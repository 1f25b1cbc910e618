"""skilldeck on PostgreSQL (extra: ``skilldeck[postgres]``): many tenants, many replicas.

One database holds every tenant's skills as immutable, content-addressed
versions, their approvals and their audit log; tenants are kept apart by
row-level security. Every ``skilldeck serve --store URL`` replica serves every
tenant (the bearer token picks one) and hears of publishes through
``LISTEN/NOTIFY``. See ``docs/scaling.md``.

::

    from skilldeck.postgres import PostgresStore, create_tenant, init_store

    init_store(url)
    token = create_tenant(url, "acme")
    store = PostgresStore(url, "acme")
    store.publish("./skills/pdf-tools")
    catalog = store_catalog(store)
    store.unpublish("pdf-tools")            # the previous version is current again
    info, token, revoked = rotate_token(url, "acme")  # the old tokens stop working
"""

from __future__ import annotations

from typing import Any

from skilldeck import Catalog, Config, Source
from skilldeck.postgres._cache import BlobCache
from skilldeck.postgres._db import CHANNEL, SCHEMA_VERSION, TOKENS_CHANNEL, Database, check_tenant
from skilldeck.postgres._run import StoreExecutor
from skilldeck.postgres._shared import (
    AuditRow,
    PostgresApprovalStore,
    PostgresAuditSink,
    read_audit,
)
from skilldeck.postgres._store import (
    PostgresStore,
    PublishLimits,
    PublishResult,
    StoredVersion,
    UnpublishResult,
)
from skilldeck.postgres._tenants import (
    TenantInfo,
    TokenInfo,
    create_tenant,
    create_token,
    describe_tenants,
    list_tenants,
    list_tokens,
    revoke_token,
    rotate_token,
    tenant_for_token,
)

CONVERGENCE_SECONDS = 5.0
"""The bound within which every replica that reaches the database lists what it holds,
whatever happened to notifications (``skilldeck.postgres._serve`` checks against it)."""


def run_store_http(*args: Any, **kwargs: Any) -> None:
    """Serve every tenant of the store over streamable HTTP (``skilldeck serve --store``).

    Imported on call: the server needs the ``mcp`` extra, the store alone does not."""
    from skilldeck.postgres._serve import run_store_http as run

    run(*args, **kwargs)


__all__ = [
    "CHANNEL",
    "CONVERGENCE_SECONDS",
    "SCHEMA_VERSION",
    "TOKENS_CHANNEL",
    "AuditRow",
    "BlobCache",
    "Database",
    "PostgresApprovalStore",
    "PostgresAuditSink",
    "PostgresStore",
    "PublishLimits",
    "PublishResult",
    "StoreExecutor",
    "StoredVersion",
    "TenantInfo",
    "TokenInfo",
    "UnpublishResult",
    "check_tenant",
    "create_tenant",
    "create_token",
    "describe_tenants",
    "init_store",
    "list_tenants",
    "list_tokens",
    "read_audit",
    "revoke_token",
    "rotate_token",
    "run_store_http",
    "store_catalog",
    "tenant_for_token",
]


def init_store(db: Database | str) -> tuple[int, int]:
    """Create or migrate the schema; returns (version before, version after)."""
    database = db if isinstance(db, Database) else Database(db)
    try:
        return database.migrate()
    finally:
        if not isinstance(db, Database):
            database.close()


def store_catalog(
    store: PostgresStore, *, config: Config | None = None, trust: str = "user"
) -> Catalog:
    """A catalog of one tenant's store only (no local folders, no local config).

    Published skills passed validation and the security scan and were published
    with the tenant's access to the store, so they are ``user`` trust by default:
    a run asks once per version and the yes is stored (``PostgresApprovalStore``)
    for every replica. ``trust="untrusted"`` asks before every run instead.
    """
    source = Source.of("store", "root", store=store, trust=trust)
    return Catalog([source], config=config or Config(), cache=False)
