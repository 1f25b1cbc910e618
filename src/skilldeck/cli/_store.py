"""The PostgreSQL store on the command line: ``store init``, ``tenant create``,
``tenant list``, ``tenant token create|list|revoke|rotate``, ``publish``, and the
``--store URL --tenant T`` options of the catalog and approval commands
(``unpublish`` and ``audit`` are in ``_store_ops``).

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
from typing import TYPE_CHECKING, Any, TypeVar

import click

import skilldeck
from skilldeck.cli._app import echo_json, json_option, main

if TYPE_CHECKING:
    import skilldeck.execution
    from skilldeck.postgres import PostgresStore

__all__ = [
    "TENANT_ENV",
    "active_approval_store",
    "active_catalog",
    "active_executor",
    "postgres_api",
    "required_store",
    "store_errors",
    "store_options",
    "store_verify",
    "stored_copy",
]

F = TypeVar("F", bound=Callable[..., Any])

STORE_ENV = "SKILLDECK_STORE"
TENANT_ENV = "SKILLDECK_TENANT"

_ACTIVE: ContextVar[tuple[str, str] | None] = ContextVar("skilldeck_cli_store", default=None)


def postgres_api() -> Any:
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


def _resolve(store: str | None, tenant: str | None, roots: Any) -> tuple[str, str] | None:
    """(url, tenant) when the command should read the store, else ``None``."""
    if store and roots:
        raise click.UsageError("give --store or --root, not both")
    if roots:
        return None
    url = store or _from_config("url")
    if not url:
        return None
    chosen = tenant or _from_config("tenant")
    if not chosen:
        raise click.UsageError(f"--tenant (or {TENANT_ENV}) is needed with a store")
    return url, chosen


def store_options(func: F) -> F:
    """``--store URL --tenant T`` on a catalog or approvals command."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        store, tenant = kwargs.pop("store_url", None), kwargs.pop("tenant", None)
        chosen = _resolve(store, tenant, kwargs.get("roots"))
        token = _ACTIVE.set(chosen)
        try:
            return store_errors(func)(*args, **kwargs)
        finally:
            _ACTIVE.reset(token)

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
    return click.option(
        "--store",
        "store_url",
        envvar=STORE_ENV,
        required=True,
        metavar="URL",
        help=f"The PostgreSQL store (a libpq URL; env: {STORE_ENV}).",
    )(func)


@main.group("store")
def store_group() -> None:
    """The PostgreSQL store shared by many tenants and server replicas."""


@store_group.command("init")
@required_store
@json_option
@store_errors
def store_init(store_url: str, as_json: bool) -> None:
    """Create the store's tables or migrate them to this skilldeck's version."""
    before, after = postgres_api().init_store(store_url)
    if as_json:
        echo_json({"from_version": before, "version": after})
    elif before == after:
        click.echo(f"store is at schema version {after}; nothing to do")
    else:
        click.echo(f"store migrated from schema version {before} to {after}")


@main.group("tenant")
def tenant_group() -> None:
    """Tenants of a PostgreSQL store (each sees only its own skills)."""


@tenant_group.command("create")
@click.argument("tenant")
@required_store
@json_option
@store_errors
def tenant_create(tenant: str, store_url: str, as_json: bool) -> None:
    """Create TENANT and print its bearer token (shown once; only its hash is kept)."""
    token = postgres_api().create_tenant(store_url, tenant)
    if as_json:
        echo_json({"tenant": tenant, "token": token})
    else:
        click.echo(token)
        click.echo(
            f"tenant {tenant} created; the line above is its bearer token, shown only now",
            err=True,
        )


@tenant_group.command("list")
@required_store
@json_option
@store_errors
def tenant_list(store_url: str, as_json: bool) -> None:
    """List the store's tenants: created, valid tokens, published skills."""
    tenants = postgres_api().describe_tenants(store_url)
    if as_json:
        echo_json({"tenants": [t.to_dict() for t in tenants]})
        return
    for t in tenants:
        created = t.created_at[:19]
        click.echo(f"{t.tenant:<24} created {created}  tokens {t.tokens}  skills {t.skills}")
    if not tenants:
        click.echo("no tenants; create one with 'skilldeck tenant create TENANT'")


@tenant_group.group("token")
def token_group() -> None:
    """A tenant's bearer tokens: several per tenant, each with an id; only hashes are kept."""


def _token_ref(value: str | None) -> int | str | None:
    """A token id (digits) or the token itself (``sdk_...``)."""
    if value is None:
        return None
    if value.isdigit() and len(value) < 19:
        return int(value)
    if value.startswith("sdk_"):
        return value
    raise click.BadParameter(
        "give a token id (see 'skilldeck tenant token list TENANT') or the token itself"
    )


def _token_out(info: Any, token: str | None, as_json: bool, what: str, **extra: Any) -> None:
    if as_json:
        data = {**info.to_dict(), **extra}
        if token is not None:
            data["token"] = token
        echo_json(data)
        return
    if token is not None:
        click.echo(token)
    click.echo(f"{what}: token {info.id} of tenant {info.tenant}", err=True)


@token_group.command("create")
@click.argument("tenant")
@click.option("--label", default=None, help="A note saying who or what uses the token.")
@required_store
@json_option
@store_errors
def token_create(tenant: str, label: str | None, store_url: str, as_json: bool) -> None:
    """Give TENANT another token (printed once; its other tokens keep working)."""
    info, token = postgres_api().create_token(store_url, tenant, label=label)
    _token_out(info, token, as_json, "created; the line above is the token, shown only now")


@token_group.command("list")
@click.argument("tenant")
@required_store
@json_option
@store_errors
def token_list(tenant: str, store_url: str, as_json: bool) -> None:
    """List TENANT's tokens (ids, labels, creation and revocation times; never the tokens)."""
    tokens = postgres_api().list_tokens(store_url, tenant)
    if as_json:
        echo_json({"tokens": [t.to_dict() for t in tokens]})
        return
    for t in tokens:
        state = f"revoked {t.revoked_at[:19]}" if t.revoked_at else "valid"
        label = f"  {t.label}" if t.label else ""
        click.echo(f"{t.id:>6}  created {t.created_at[:19]}  {state}{label}")


@token_group.command("revoke")
@click.argument("tenant")
@click.argument("token")
@required_store
@json_option
@store_errors
def token_revoke(tenant: str, token: str, store_url: str, as_json: bool) -> None:
    """Revoke one of TENANT's tokens, by id or the token itself: every replica refuses it."""
    info = postgres_api().revoke_token(store_url, tenant, _token_ref(token))
    _token_out(info, None, as_json, "revoked")


@token_group.command("rotate")
@click.argument("tenant")
@click.argument("token", required=False)
@click.option("--label", default=None, help="The new token's label (default: the old one's).")
@required_store
@json_option
@store_errors
def token_rotate(
    tenant: str, token: str | None, label: str | None, store_url: str, as_json: bool
) -> None:
    """A new token for TENANT replacing TOKEN (an id or the token), or all its tokens.

    The new token is printed once; the replaced ones stop working on every replica.
    """
    info, new, revoked = postgres_api().rotate_token(
        store_url, tenant, _token_ref(token), label=label
    )
    _token_out(
        info,
        new,
        as_json,
        "created; the line above is the token, shown only now; revoked "
        + (", ".join(str(i) for i in revoked) or "none"),
        revoked=revoked,
    )


@main.command("publish")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@required_store
@click.option("--tenant", envvar=TENANT_ENV, required=True, help=f"Tenant (env: {TENANT_ENV}).")
@click.option(
    "--scan",
    "scan",
    type=click.Choice(["warn", "block", "off"]),
    default=None,
    help="Security scan: block stops on an error-level finding (default: [install] scan).",
)
@json_option
@store_errors
def publish_command(
    paths: tuple[str, ...], store_url: str, tenant: str, scan: str | None, as_json: bool
) -> None:
    """Validate, scan and publish skill folders as new versions for TENANT.

    Each folder is one transaction: every replica serving the tenant sees the new
    version at once, or (if anything fails) nothing of it.
    """
    from skilldeck.security import scan_mode

    mode = scan or scan_mode(skilldeck.load_config())
    store = postgres_api().PostgresStore(store_url, tenant)
    results: list[Any] = []
    for n, path in enumerate(paths):
        try:
            result = store.publish(path, scan=mode)
        except skilldeck.SkillError as exc:
            if not as_json:
                raise  # the versions published so far were printed above
            # the versions committed before this folder stay published: say which
            out = _published_json(results)
            out["not_published"] = list(paths[n:])
            echo_json(out, error=exc)
        results.append(result)
        if not as_json:
            what = "published" if result.created else "unchanged"
            click.echo(f"{what} {result.name} version {result.version} {result.digest}")
            for warning in result.warnings:
                click.echo(f"  warning: {warning.code} {warning.message}", err=True)
    if as_json:
        echo_json(_published_json(results))


def _published_json(results: list[Any]) -> dict[str, Any]:
    return {
        "published": [
            {
                "name": r.name,
                "version": r.version,
                "digest": r.digest,
                "created": r.created,
                "files": r.files,
                "warnings": [w.code for w in r.warnings],
            }
            for r in results
        ],
    }


def serve_store(
    url: str,
    transport: str,
    roots: tuple[str, ...],
    host: str,
    port: int,
    allow_exec: bool,
    options: skilldeck.RuntimeOptions,
    session_timeout: float,
    max_sessions: int,
) -> None:
    """``skilldeck serve --store URL``: every tenant of the store over streamable HTTP."""
    if transport != "http":
        raise click.UsageError("--store serves many tenants: use --transport http")
    if roots:
        raise click.UsageError("give --store or --root, not both")
    from skilldeck.postgres import run_store_http

    postgres_api()
    click.echo(f"skilldeck: serving the store's tenants at http://{host}:{port}/mcp", err=True)
    run_store_http(
        url,
        host=host,
        port=port,
        server_options={
            "allow_exec": allow_exec,
            "runtime_options": options,
            "session_timeout": session_timeout,
            "max_sessions": max_sessions,
        },
    )
