"""Connections, versioned migrations and tenant-scoped transactions.

Tenants are isolated by PostgreSQL row-level security: every tenant table has a
``tenant`` column and a policy that shows and accepts only rows whose tenant
equals the transaction's ``skilldeck.tenant`` setting. Each tenant transaction
switches to the ``skilldeck_tenant`` role (``SET LOCAL ROLE``), which owns
nothing and is subject to every policy, so the rule holds even when skilldeck
connects as the tables' owner or a superuser: a query that forgot its
``WHERE tenant = ...`` still sees one tenant. (Schema per tenant was the other
choice; it multiplies tables, migrations and catalog size by the number of
tenants and makes ``search_path`` the only thing between two tenants.)

The ``skilldeck_auditor`` role sees every tenant's audit rows and nothing else:
the store-wide audit reader switches to it instead of lifting the policies.
"""

from __future__ import annotations

import hashlib
import re
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from skilldeck import ConfigError, InvalidArgumentsError
from skilldeck.postgres._cache import DEFAULT_CACHE_BYTES, BlobCache

__all__ = [
    "AUDIT_ROLE",
    "CHANNEL",
    "COMPATIBLE_AHEAD",
    "SCHEMA_VERSION",
    "TENANT_ROLE",
    "TOKENS_CHANNEL",
    "UNAVAILABLE",
    "Database",
    "check_tenant",
    "enter_tenant",
    "lock_name",
    "refusals",
    "token_hash",
]

try:
    import psycopg
except ImportError:  # pragma: no cover - the extra is missing
    psycopg = None  # type: ignore[assignment]

CHANNEL = "skilldeck_changes"
"""The ``LISTEN/NOTIFY`` channel: its payload is the tenant whose skills changed."""
TOKENS_CHANNEL = "skilldeck_tokens"
"""The channel told of a revoked token: its payload is the token's tenant."""

TENANT_ROLE = "skilldeck_tenant"
AUDIT_ROLE = "skilldeck_auditor"
_TENANT = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
_TABLES = ("blobs", "versions", "version_files", "approvals", "audit")

_RLS = """
ALTER TABLE skilldeck_@T@ ENABLE ROW LEVEL SECURITY;
ALTER TABLE skilldeck_@T@ FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON skilldeck_@T@
  USING (tenant = current_setting('skilldeck.tenant', true))
  WITH CHECK (tenant = current_setting('skilldeck.tenant', true));
GRANT SELECT, INSERT ON skilldeck_@T@ TO @ROLE@;
"""

_V1 = """
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '@ROLE@') THEN
    CREATE ROLE @ROLE@ NOLOGIN;
  END IF;
END $$;
GRANT @ROLE@ TO CURRENT_USER;
CREATE TABLE skilldeck_tenants (
  tenant text PRIMARY KEY CHECK (tenant ~ '^[a-z0-9][a-z0-9._-]{0,62}$'),
  token_sha256 bytea NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE skilldeck_blobs (
  tenant text NOT NULL REFERENCES skilldeck_tenants ON DELETE CASCADE,
  digest text NOT NULL,
  size integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (tenant, digest)
);
CREATE TABLE skilldeck_versions (
  id bigserial PRIMARY KEY,
  tenant text NOT NULL REFERENCES skilldeck_tenants ON DELETE CASCADE,
  name text NOT NULL,
  digest text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX skilldeck_versions_current ON skilldeck_versions (tenant, name, id DESC);
CREATE TABLE skilldeck_version_files (
  version_id bigint NOT NULL REFERENCES skilldeck_versions ON DELETE CASCADE,
  tenant text NOT NULL,
  relpath text NOT NULL,
  digest text NOT NULL,
  size integer NOT NULL,
  executable boolean NOT NULL DEFAULT false,
  PRIMARY KEY (version_id, relpath),
  FOREIGN KEY (tenant, digest) REFERENCES skilldeck_blobs (tenant, digest)
);
CREATE TABLE skilldeck_approvals (
  tenant text NOT NULL REFERENCES skilldeck_tenants ON DELETE CASCADE,
  name text NOT NULL,
  digest text NOT NULL,
  trust text,
  path text,
  approved_at text NOT NULL,
  PRIMARY KEY (tenant, name)
);
CREATE TABLE skilldeck_audit (
  id bigserial PRIMARY KEY,
  tenant text NOT NULL REFERENCES skilldeck_tenants ON DELETE CASCADE,
  at timestamptz NOT NULL DEFAULT now(),
  kind text NOT NULL,
  event jsonb NOT NULL
);
CREATE INDEX skilldeck_audit_tenant ON skilldeck_audit (tenant, id);
@RLS@
GRANT UPDATE, DELETE ON skilldeck_approvals TO @ROLE@;
GRANT USAGE ON SEQUENCE skilldeck_versions_id_seq TO @ROLE@;
GRANT USAGE ON SEQUENCE skilldeck_audit_id_seq TO @ROLE@;
"""

_V2 = """
ALTER TABLE skilldeck_versions ADD COLUMN unpublished_at timestamptz;
GRANT UPDATE (unpublished_at) ON skilldeck_versions TO @ROLE@;
GRANT DELETE ON skilldeck_version_files TO @ROLE@;
GRANT DELETE ON skilldeck_blobs TO @ROLE@;
CREATE INDEX skilldeck_version_files_digest ON skilldeck_version_files (tenant, digest);
CREATE TABLE skilldeck_tokens (
  id bigserial PRIMARY KEY,
  tenant text NOT NULL REFERENCES skilldeck_tenants ON DELETE CASCADE,
  token_sha256 bytea NOT NULL UNIQUE,
  label text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX skilldeck_tokens_tenant ON skilldeck_tokens (tenant, id);
INSERT INTO skilldeck_tokens (tenant, token_sha256, created_at)
  SELECT tenant, token_sha256, created_at FROM skilldeck_tenants;
ALTER TABLE skilldeck_tenants DROP COLUMN token_sha256;
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '@AUDITOR@') THEN
    CREATE ROLE @AUDITOR@ NOLOGIN;
  END IF;
END $$;
GRANT @AUDITOR@ TO CURRENT_USER;
GRANT SELECT ON skilldeck_audit TO @AUDITOR@;
CREATE POLICY audit_reader ON skilldeck_audit FOR SELECT TO @AUDITOR@ USING (true);
CREATE INDEX skilldeck_audit_at ON skilldeck_audit (at);
"""

_V3 = """
ALTER TABLE skilldeck_version_files ADD COLUMN is_text boolean;
"""
"""Whether each file is UTF-8 text without NUL, written by publish with its digest, so
a replica lists a version's files without reading them (``NULL``: published before;
``migrate`` fills those in)."""

_V4 = """
ALTER TABLE skilldeck_versions ADD COLUMN number bigint;
DO $$ DECLARE t text; BEGIN
  FOR t IN SELECT tenant FROM skilldeck_tenants LOOP
    PERFORM set_config('skilldeck.tenant', t, true);
    UPDATE skilldeck_versions v SET number = r.n FROM (
      SELECT id, row_number() OVER (ORDER BY id) AS n FROM skilldeck_versions WHERE tenant = t
    ) r WHERE v.id = r.id;
  END LOOP;
  PERFORM set_config('skilldeck.tenant', '', true);
END $$;
CREATE UNIQUE INDEX skilldeck_versions_number ON skilldeck_versions (tenant, number);
CREATE FUNCTION skilldeck_number_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(NEW.tenant || ':number'));
  SELECT coalesce(max(number), 0) + 1 INTO NEW.number
    FROM skilldeck_versions WHERE tenant = NEW.tenant;
  RETURN NEW;
END $$;
CREATE TRIGGER skilldeck_number_version BEFORE INSERT ON skilldeck_versions
  FOR EACH ROW EXECUTE FUNCTION skilldeck_number_version();
"""
"""Version numbers per tenant (1, 2, 3, ... over the tenant's versions), what publishers
see and name, so no tenant learns from its numbers how much others publish (the ``id``
stays, shared by all, for the rows that refer to a version). The database numbers every
inserted version, so a replica of the previous release publishing here gets numbers too."""

_V5 = """
CREATE TABLE skilldeck_search_terms (
  version_id bigint NOT NULL REFERENCES skilldeck_versions ON DELETE CASCADE,
  tenant text NOT NULL REFERENCES skilldeck_tenants ON DELETE CASCADE,
  format integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (version_id, format)
);
""" + _RLS.replace("@T@", "search_terms")
"""Each version's search terms (counted per field), written by the first replica that
reads the version's body, so the others build a tenant's index without reading every
body (``format``: the search index's format; rows of another are left alone)."""

_V6 = """
ALTER TABLE skilldeck_audit ADD COLUMN number bigint;
ALTER TABLE skilldeck_tokens ADD COLUMN number bigint;
DO $$ DECLARE t text; BEGIN
  FOR t IN SELECT tenant FROM skilldeck_tenants LOOP
    PERFORM set_config('skilldeck.tenant', t, true);
    UPDATE skilldeck_audit a SET number = r.n FROM (
      SELECT id, row_number() OVER (ORDER BY id) AS n FROM skilldeck_audit WHERE tenant = t
    ) r WHERE a.id = r.id;
    UPDATE skilldeck_tokens k SET number = r.n FROM (
      SELECT id, row_number() OVER (ORDER BY id) AS n FROM skilldeck_tokens WHERE tenant = t
    ) r WHERE k.id = r.id;
  END LOOP;
  PERFORM set_config('skilldeck.tenant', '', true);
END $$;
CREATE UNIQUE INDEX skilldeck_audit_number ON skilldeck_audit (tenant, number);
CREATE UNIQUE INDEX skilldeck_tokens_number ON skilldeck_tokens (tenant, number);
CREATE FUNCTION skilldeck_number_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(NEW.tenant || ':' || TG_TABLE_NAME));
  IF TG_TABLE_NAME = 'skilldeck_audit' THEN
    SELECT coalesce(max(number), 0) + 1 INTO NEW.number
      FROM skilldeck_audit WHERE tenant = NEW.tenant;
  ELSE
    SELECT coalesce(max(number), 0) + 1 INTO NEW.number
      FROM skilldeck_tokens WHERE tenant = NEW.tenant;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER skilldeck_number_audit BEFORE INSERT ON skilldeck_audit
  FOR EACH ROW EXECUTE FUNCTION skilldeck_number_row();
CREATE TRIGGER skilldeck_number_token BEFORE INSERT ON skilldeck_tokens
  FOR EACH ROW EXECUTE FUNCTION skilldeck_number_row();
"""
"""Audit rows and tokens numbered per tenant, as versions are (schema 4): what a tenant is
shown of them (its audit log's row numbers, the token numbers its audit rows and token
lists name) says nothing of other tenants' activity. The ``id`` columns stay, for the
store-wide audit and row identity. A tenant's numbers are taken under a lock held to
commit, so they also follow commit order: a reader of one tenant's log never sees a lower
number appear after a higher one. Rows inserted by a replica of the previous release are
numbered too (the trigger)."""

_FILL_BATCH = 500  # distinct files whose bytes are read at once to learn their text flag

_MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        _V1.replace("@RLS@", "".join(_RLS.replace("@T@", t) for t in _TABLES)).replace(
            "@ROLE@", TENANT_ROLE
        ),
    ),
    (2, _V2.replace("@ROLE@", TENANT_ROLE).replace("@AUDITOR@", AUDIT_ROLE)),
    (3, _V3),
    (4, _V4),
    (5, _V5.replace("@ROLE@", TENANT_ROLE)),
    (6, _V6),
)
SCHEMA_VERSION = _MIGRATIONS[-1][0]
"""The schema version this skilldeck needs (``skilldeck store init`` migrates to it)."""
COMPATIBLE_AHEAD = 1
"""A replica also serves a store one schema version newer than its own, so replicas are
upgraded one at a time after ``store init`` of the new release: every migration keeps
the previous release working (it adds; what it replaces is dropped one release later)."""


def token_hash(token: str) -> bytes:
    """What is stored of a bearer token: its SHA-256 (tokens are 256-bit random)."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


def check_tenant(tenant: str) -> str:
    """``tenant`` when it is a valid tenant id, else ``InvalidArgumentsError``."""
    if not isinstance(tenant, str) or not _TENANT.fullmatch(tenant):
        raise InvalidArgumentsError(
            f"{tenant!r} is not a valid tenant id",
            field="tenant",
            hint="use lowercase letters, digits, '.', '_' and '-' (at most 63, first a "
            "letter or digit)",
        )
    return tenant


def enter_tenant(conn: Any, tenant: str) -> None:
    """From here to the end of ``conn``'s transaction, see and write only ``tenant``'s rows."""
    conn.execute(f"SET LOCAL ROLE {TENANT_ROLE}")
    conn.execute("SELECT set_config('skilldeck.tenant', %s, true)", (check_tenant(tenant),))


def lock_name(conn: Any, tenant: str, name: str) -> None:
    """Until ``conn``'s transaction ends, hold ``tenant``'s lock on skill ``name``: taken by
    publishing, unpublishing and storing an approval of it, so none of them interleave."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"{tenant}/{name}",))


def _fill_text_flags(conn: Any) -> int:
    """Record the text flag of files published before schema 3 (their bytes read once,
    ``_FILL_BATCH`` distinct files per transaction, tenant by tenant: the policies hold
    for the tables' owner too). Idempotent and best effort (a user that may not update
    the rows leaves them: replicas then read those files, as before); returns the file
    rows filled in."""
    from skilldeck.disclosure import is_text

    filled = 0
    try:
        with conn.transaction():
            tenants = [str(r[0]) for r in conn.execute("SELECT tenant FROM skilldeck_tenants")]
        for tenant in tenants:
            changed = 1
            while changed > 0:
                with conn.transaction():
                    conn.execute("SELECT set_config('skilldeck.tenant', %s, true)", (tenant,))
                    # the tenant named too: a superuser passes the policies, and each
                    # pass should read one tenant's rows, not the whole table's
                    rows = conn.execute(
                        "SELECT b.digest, b.data FROM skilldeck_blobs b WHERE b.tenant = %s "
                        "AND b.digest IN (SELECT DISTINCT f.digest FROM skilldeck_version_files f "
                        "WHERE f.tenant = %s AND f.is_text IS NULL LIMIT %s)",
                        (tenant, tenant, _FILL_BATCH),
                    ).fetchall()
                    flags = {str(digest): is_text(bytes(data)) for digest, data in rows}
                    changed = conn.execute(
                        "UPDATE skilldeck_version_files f SET is_text = v.flag "
                        "FROM unnest(%s::text[], %s::boolean[]) AS v(digest, flag) "
                        "WHERE f.tenant = %s AND f.digest = v.digest AND f.is_text IS NULL",
                        (list(flags), list(flags.values()), tenant),
                    ).rowcount
                    filled += max(changed, 0)
    except _require_driver().Error:
        pass  # not this user's to fill in
    return filled


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _close_pool(pool: Any) -> None:
    pool.close(timeout=1.0)


def _require_driver() -> Any:
    if psycopg is None:
        from skilldeck.config import install_hint

        raise ConfigError(
            "the PostgreSQL store needs psycopg",
            hint=install_hint("postgres"),
        )
    return psycopg


def _redact_url(url: str) -> str:
    """``url`` without its password: the userinfo of a URL (up to the last ``@`` before
    the path, so a password holding ``@`` goes whole), a ``password=`` query parameter,
    and ``password=`` in a ``key=value`` string (quoted or not)."""
    url = re.sub(r"^([a-z][a-z0-9+.-]*://[^:/?#@]*):[^/?#]*@", r"\1:***@", url, flags=re.I)
    url = re.sub(r"([?&]password=)[^&#]*", r"\1***", url, flags=re.I)
    return re.sub(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", url, flags=re.I)


POOL_TIMEOUT = 10.0
"""Seconds a caller waits for a pooled connection before the store counts as unavailable."""
RECONNECT_SECONDS = 3.0
"""How long the pool keeps retrying one failed connection attempt (1 s, then 2 s apart)
before giving up; the next caller starts a new attempt at once. Kept short so a replica
reconnects within seconds of the database coming back, not after a long backoff."""


UNAVAILABLE = "store_unavailable"
"""The ``reason`` of a ``ConfigError`` raised when the store cannot be reached in time (the
database down, restarting or out of connections): a replica answers ``503`` with
``Retry-After``, a command may simply be run again."""


_REFUSALS: dict[str, tuple[str, str]] = {
    "53100": (
        "store_full",
        "the database's disk is full: free space or grow its volume (or tablespace), then "
        "run it again",
    ),
    "25006": (
        "store_read_only",
        "the database takes no writes (a standby, or default_transaction_read_only): run it "
        "again against the primary once it is writable",
    ),
}


@contextmanager
def refusals(doing: str) -> Iterator[None]:
    """A database error inside becomes a ``ConfigError`` whose ``reason`` says why:
    ``store_full`` (disk full), ``store_read_only``, ``store_unavailable`` (the
    connection failed or the server is shutting down) or ``store_failed``. Used around a
    write's one transaction, so the message can say that nothing was written."""
    driver = _require_driver()
    try:
        yield
    except driver.Error as exc:
        state = str(getattr(exc, "sqlstate", None) or "")
        reason, hint = _REFUSALS.get(state, ("store_failed", ""))
        lost = not state and isinstance(exc, driver.OperationalError)  # no answer at all
        if reason == "store_failed" and (lost or state.startswith(("08", "57P"))):
            reason = UNAVAILABLE
            hint = "check that PostgreSQL is running and accepts connections; run it again"
        raise ConfigError(
            f"{doing} failed, nothing was written: {_first_line(exc)}",
            hint=hint or "see the database's log; run it again once the cause is fixed",
            reason=reason,
        ) from None


class Database:
    """A PostgreSQL database reached by ``url`` (a libpq URL or ``key=value`` string).

    Holds a pool of connections (``psycopg_pool``: at most ``max_connections`` open
    at once, each checked before it is handed out, none older than an hour, idle
    ones closed after five minutes; callers wait up to ``timeout`` seconds for one)
    and the cache of file bytes read through it (``blobs``, at most
    ``cache_bytes``). The pool opens on first use. Thread-safe.
    """

    def __init__(
        self,
        url: str,
        *,
        max_connections: int = 4,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        timeout: float = POOL_TIMEOUT,
        application_name: str = "skilldeck",
    ) -> None:
        self.url = url
        self.blobs = BlobCache(cache_bytes)
        self.timeout = timeout
        self.max_connections = max_connections
        self.application_name = application_name
        self._driver = _require_driver()
        self._pool: Any = None
        self._pool_lock = threading.Lock()
        self._checked = False
        self.schema_version = 0
        """The store's schema version, once checked."""
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def __repr__(self) -> str:
        return f"Database({_redact_url(self.url)!r})"

    def open(self, *, autocommit: bool = False) -> Any:
        """A new connection of its own (the caller closes it)."""
        try:
            return self._driver.connect(
                self.url,
                autocommit=autocommit,
                connect_timeout=10,
                application_name=self.application_name,
            )
        except self._driver.Error as exc:
            raise ConfigError(
                f"cannot connect to the store {_redact_url(self.url)}: {_first_line(exc)}",
                hint="check --store (or SKILLDECK_STORE) and that PostgreSQL is running",
            ) from None

    def pool(self) -> Any:
        """The connection pool, opened on first use."""
        with self._pool_lock:
            if self._pool is None:
                from psycopg_pool import ConnectionPool

                if not self._checked:
                    # the first connection is a direct one: an unreachable store or a
                    # missing schema is reported at once, not after the pool's timeout
                    conn = self.open()
                    try:
                        self._check_schema(conn)
                    finally:
                        conn.close()
                self._pool = ConnectionPool(
                    self.url,
                    min_size=0,
                    max_size=self.max_connections,
                    kwargs={"connect_timeout": 5, "application_name": self.application_name},
                    check=ConnectionPool.check_connection,
                    timeout=self.timeout,
                    max_lifetime=3600.0,
                    max_idle=300.0,
                    reconnect_timeout=RECONNECT_SECONDS,
                    name="skilldeck",
                    open=True,
                )
                self._finalizer = weakref.finalize(self, _close_pool, self._pool)
            return self._pool

    def pool_stats(self) -> dict[str, int]:
        """The pool's counters (``psycopg_pool`` names: ``pool_size``, ``pool_available``,
        ``requests_waiting``, ``connections_lost``, ...); empty before first use."""
        pool = self._pool
        return dict(pool.get_stats()) if pool is not None else {}

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A pooled connection, checked alive before it is handed out; one left broken
        is discarded by the pool. A ``ConfigError`` (reason ``store_unavailable``) when none
        comes in time."""
        from psycopg_pool import PoolTimeout

        pool = self.pool()
        try:
            conn = pool.getconn()
        except PoolTimeout as exc:
            raise ConfigError(
                f"the store {_redact_url(self.url)} is unavailable: {_first_line(exc)}",
                hint="check that PostgreSQL is running and accepts connections; retry shortly",
                reason=UNAVAILABLE,
            ) from None
        try:
            yield conn
        finally:
            states = self._driver.pq.TransactionStatus
            if conn.info.transaction_status in (states.INTRANS, states.INERROR):
                # a read outside conn.transaction() left one open: end it quietly
                try:
                    conn.rollback()
                except self._driver.Error:
                    pass  # broken: the pool drops it
            pool.putconn(conn)

    def _check_schema(self, conn: Any) -> None:
        with conn.transaction():
            row = conn.execute("SELECT to_regclass('skilldeck_migrations') IS NOT NULL").fetchone()
            version = 0
            if row and row[0]:
                got = conn.execute("SELECT max(version) FROM skilldeck_migrations").fetchone()
                version = int(got[0] or 0)
        if version < SCHEMA_VERSION:
            raise ConfigError(
                f"the store {_redact_url(self.url)} has schema version {version}, "
                f"this skilldeck needs {SCHEMA_VERSION}",
                hint="run 'skilldeck store init --store URL' to create or migrate it",
            )
        if version > SCHEMA_VERSION + COMPATIBLE_AHEAD:
            raise ConfigError(
                f"the store {_redact_url(self.url)} has schema version {version}, newer than "
                f"this skilldeck can serve ({SCHEMA_VERSION}, or {SCHEMA_VERSION + 1} during "
                "an upgrade)",
                hint="upgrade skilldeck on this machine",
            )
        self.schema_version = version
        self._checked = True

    @contextmanager
    def tenant(self, tenant: str) -> Iterator[Any]:
        """One transaction that sees and writes only ``tenant``'s rows."""
        check_tenant(tenant)
        with self.connection() as conn, conn.transaction():
            enter_tenant(conn, tenant)
            yield conn

    @contextmanager
    def auditor(self) -> Iterator[Any]:
        """One transaction as the ``skilldeck_auditor`` role: it reads every tenant's
        audit rows and nothing else (the store-wide ``skilldeck audit``)."""
        with self.connection() as conn, conn.transaction():
            conn.execute(f"SET LOCAL ROLE {AUDIT_ROLE}")
            yield conn

    @contextmanager
    def admin(self) -> Iterator[Any]:
        """One transaction as the connecting user (tenants table, migrations)."""
        with self.connection() as conn, conn.transaction():
            yield conn

    def close(self) -> None:
        """Close the pool (connections in use close when returned); a later use opens
        a new one."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
            if self._finalizer is not None:
                self._finalizer.detach()
                self._finalizer = None
        if pool is not None:
            _close_pool(pool)

    # -- migrations --------------------------------------------------------------

    def migrate(self) -> tuple[int, int]:
        """Create or migrate the schema; returns (version before, version after).

        Each migration runs in its own transaction under an advisory lock, so
        two concurrent ``store init`` runs apply each migration once.
        """
        conn = self.open()
        try:
            before = now = -1
            while now < SCHEMA_VERSION:
                with conn.transaction():  # one transaction per migration
                    conn.execute("SELECT pg_advisory_xact_lock(hashtext('skilldeck_migrations'))")
                    conn.execute(
                        "CREATE TABLE IF NOT EXISTS skilldeck_migrations ("
                        " version integer PRIMARY KEY,"
                        " applied_at timestamptz NOT NULL DEFAULT now())"
                    )
                    row = conn.execute("SELECT max(version) FROM skilldeck_migrations").fetchone()
                    now = int(row[0] or 0) if row else 0
                    before = now if before < 0 else before
                    todo = [(v, sql) for v, sql in _MIGRATIONS if v > now][:1]
                    for version, sql in todo:
                        conn.execute(sql)
                        conn.execute(
                            "INSERT INTO skilldeck_migrations (version) VALUES (%s)", (version,)
                        )
                        now = version
            if before > SCHEMA_VERSION:
                raise ConfigError(
                    f"the store has schema version {before}, newer than this skilldeck "
                    f"knows ({SCHEMA_VERSION})",
                    hint="upgrade skilldeck on this machine",
                )
            _fill_text_flags(conn)
            self._checked = False
            return before, max(before, SCHEMA_VERSION)
        except self._driver.Error as exc:
            raise ConfigError(
                f"cannot migrate the store {_redact_url(self.url)}: {exc}",
                hint="connect as a user that may create tables and roles",
            ) from None
        finally:
            conn.close()
