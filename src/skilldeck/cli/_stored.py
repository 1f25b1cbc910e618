"""The ``--store URL --tenant T`` options of the catalog and approval commands, and the
store they put in effect for the command (the commands about the store itself are in
``_store`` and ``_store_ops``; a listing need not import them).

``--store`` also reads ``SKILLDECK_STORE`` and ``[store] url`` of the user's config
file (never a project's); ``--tenant`` reads ``SKILLDECK_TENANT`` and ``[store] tenant``.
An explicit ``--root`` wins over a store from the environment or config.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from contextvars import ContextVar

import skilldeck
from skilldeck.cli._plain import usage_error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    import skilldeck.execution
    from skilldeck.postgres import PostgresStore

__all__ = [
    "STORE_ENV",
    "TENANT_ENV",
    "active_approval_store",
    "active_catalog",
    "active_executor",
    "postgres_api",
    "required_store",
    "resolve_store",
    "store_errors",
    "store_options",
    "store_verify",
    "stored_copy",
]

if TYPE_CHECKING:
    F = TypeVar("F", bound=Callable[..., Any])

STORE_ENV = "SKILLDECK_STORE"
TENANT_ENV = "SKILLDECK_TENANT"

_ACTIVE: ContextVar[tuple[str, str] | None] = ContextVar("skilldeck_cli_store", default=None)


def postgres_api() -> Any:
    import click

    try:
        import skilldeck.postgres as pg
    except ImportError as exc:  # pragma: no cover - the package ships with skilldeck
        raise click.ClickException(f"the PostgreSQL store is unavailable: {exc}") from None
    try:
        import psycopg  # noqa: F401
    except ImportError:
        from skilldeck.config import install_hint

        raise click.ClickException(
            f"the PostgreSQL store needs psycopg; install it with:\n  {install_hint('postgres')}"
        ) from None
    return pg


def store_errors(func: F) -> F:
    """The database's own errors (a missing grant, a dropped connection, a timeout)
    become a coded ``CONFIG_INVALID`` with a hint, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            driver = sys.modules.get("psycopg")
            if driver is None or not isinstance(exc, driver.Error):
                raise
            text = str(exc).strip()
            raise skilldeck.ConfigError(
                "the store failed: " + (text.splitlines()[0] if text else type(exc).__name__),
                hint="check that PostgreSQL is reachable and that the database user has the "
                "grants docs/scaling.md lists for this command",
            ) from None

    return wrapper  # type: ignore[return-value]


def _from_config(key: str) -> str | None:
    """``[store] KEY`` of the user's config file only: a project's file must not point
    skilldeck at a database (a cloned repository would choose what is served and run)."""
    from skilldeck.config import user_setting

    value = user_setting("store", key)
    return value if isinstance(value, str) and value else None


def resolve_store(store: str | None, tenant: str | None, roots: Any) -> tuple[str, str] | None:
    """(url, tenant) when the command should read the store, else ``None``."""
    if store and roots:
        raise usage_error("give --store or --root, not both")
    if roots:
        return None
    url = store or _from_config("url")
    if not url:
        return None
    chosen = tenant or _from_config("tenant")
    if not chosen:
        raise usage_error(f"--tenant (or {TENANT_ENV}) is needed with a store")
    return url, chosen


def store_options(func: F) -> F:
    """``--store URL --tenant T`` on a catalog or approvals command."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        store, tenant = kwargs.pop("store_url", None), kwargs.pop("tenant", None)
        chosen = resolve_store(store, tenant, kwargs.get("roots"))
        token = _ACTIVE.set(chosen)
        try:
            return store_errors(func)(*args, **kwargs)
        finally:
            _ACTIVE.reset(token)

    import click

    wrapped = click.option(
        "--tenant",
        envvar=TENANT_ENV,
        default=None,
        help=f"The store's tenant to use (env: {TENANT_ENV}).",
    )(wrapper)
    return click.option(  # type: ignore[return-value]
        "--store",
        "store_url",
        envvar=STORE_ENV,
        default=None,
        metavar="URL",
        help=f"Read skills from a PostgreSQL store instead of folders (env: {STORE_ENV}).",
    )(wrapped)


_STORES: dict[tuple[str, str], Any] = {}


def _store() -> PostgresStore | None:
    chosen = _ACTIVE.get()
    if chosen is None:
        return None
    if chosen not in _STORES:  # one store per command: the catalog and runs share it
        _STORES[chosen] = postgres_api().PostgresStore(chosen[0], chosen[1])
    return _STORES[chosen]  # type: ignore[no-any-return]


def stored_copy(name: str) -> str | None:
    """With ``--store``: a private copy of the current version of ``name`` (digests
    checked), removed when the command ends; else ``None``."""
    store = _store()
    if store is None:
        return None
    import shutil
    import tempfile

    import click

    tmp = tempfile.mkdtemp(prefix="skilldeck-store-show-")
    click.get_current_context().call_on_close(lambda: shutil.rmtree(tmp, ignore_errors=True))
    folder = os.path.join(tmp, name)
    os.mkdir(folder, 0o700)
    store.materialize(name, folder)
    return folder


def active_executor(config: Any, approver: Any) -> skilldeck.Executor | None:
    """With ``--store``: an executor that materialises the stored version (digest
    checked) before the ordinary run, with the tenant's approvals."""
    store = _store()
    if store is None:
        return None
    from skilldeck.postgres import StoreExecutor

    approvals = postgres_api().PostgresApprovalStore(store.db, store.tenant)
    return StoreExecutor(store, config=config, approver=approver, approvals=approvals)


def active_catalog() -> skilldeck.Catalog | None:
    """The tenant's catalog when ``--store`` is in effect, else ``None``."""
    store = _store()
    if store is None:
        return None
    return postgres_api().store_catalog(store)  # type: ignore[no-any-return]


def active_approval_store() -> skilldeck.execution.ApprovalStore:
    """The tenant's approvals with ``--store``, else the local approvals file."""
    store = _store()
    if store is None:
        from skilldeck.execution import FileApprovalStore

        return FileApprovalStore()
    return postgres_api().PostgresApprovalStore(store.db, store.tenant)  # type: ignore[no-any-return]


def store_verify(names: tuple[str, ...], as_json: bool) -> bool:
    """``verify --store``: check the tenant's current versions; False when not in effect."""
    store = _store()
    if store is None:
        return False
    import click

    from skilldeck.cli._app import echo_json

    results = store.verify(names or None)
    ok = all(problem is None for _n, _v, problem in results)
    if as_json:
        changed = skilldeck.FindingsError(
            "published versions differ from their digests",
            hint="publish the skill again, or unpublish the damaged version",
        )
        skills = [{"name": n, "version": v, "ok": p is None, "problem": p} for n, v, p in results]
        echo_json({"skills": skills}, error=None if ok else changed)
    else:
        for name, version, problem in results:
            if problem is None:
                click.echo(f"ok       {name} (version {version})")
            else:
                click.echo(f"FAILED   {name}: {problem}")
        if not results:
            click.echo("no skills published for this tenant")
    if not ok:
        raise SystemExit(1)
    return True


def required_store(func: F) -> F:
    import click

    return click.option(
        "--store",
        "store_url",
        envvar=STORE_ENV,
        required=True,
        metavar="URL",
        help=f"The PostgreSQL store (a libpq URL; env: {STORE_ENV}).",
    )(func)
