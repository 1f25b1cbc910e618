"""The PostgreSQL store on the command line: ``store init``, ``tenant create``,
``tenant list``, ``tenant token create|list|revoke|rotate``, ``publish``
(``unpublish`` and ``audit`` are in ``_store_ops``; the ``--store URL --tenant T``
options of the catalog and approval commands in ``_stored``).
"""

from __future__ import annotations

from typing import Any

import click

import skilldeck
from skilldeck.cli._app import echo_json, json_option, main
from skilldeck.cli._stored import TENANT_ENV, postgres_api, required_store, store_errors


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
