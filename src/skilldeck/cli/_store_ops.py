"""Operating a PostgreSQL store: ``unpublish`` a version, read the store's ``audit`` log."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import click

from skilldeck.cli._app import echo_json, json_option, main
from skilldeck.cli._stored import TENANT_ENV, postgres_api, required_store, store_errors

__all__ = ["parse_since"]

_AGO = re.compile(r"^(\d{1,6})([smhd])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """``--since``: an ISO 8601 date or time (UTC unless it says otherwise) or an age
    such as ``30m``, ``12h``, ``7d``."""
    now = now or datetime.now(UTC)
    text = value.strip()
    ago = _AGO.fullmatch(text)
    if ago:
        return now - timedelta(**{_UNITS[ago.group(2)]: int(ago.group(1))})
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is neither a date, a time nor an age (e.g. 2026-11-24, "
            "2026-11-24T03:00:00Z, 30m, 12h, 7d)",
            param_hint="--since",
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _version_ref(spec: str) -> tuple[str, int | str | None]:
    """``NAME``, ``NAME@ID`` or ``NAME@sha256:...``."""
    name, at, version = spec.partition("@")
    if not name:
        raise click.BadParameter("give NAME or NAME@VERSION", param_hint="NAME")
    if not at:
        return name, None
    if version.isdigit() and len(version) < 19:
        return name, int(version)
    if re.fullmatch(r"sha256:[0-9a-f]{64}", version):
        return name, version
    raise click.BadParameter(
        f"{version!r} is not a version: give its id (as 'publish' printed it) or its "
        "sha256: digest",
        param_hint="NAME@VERSION",
    )


@main.command("unpublish")
@click.argument("spec", metavar="NAME[@VERSION]")
@required_store
@click.option("--tenant", envvar=TENANT_ENV, required=True, help=f"Tenant (env: {TENANT_ENV}).")
@json_option
@store_errors
def unpublish_command(spec: str, store_url: str, tenant: str, as_json: bool) -> None:
    """Take back a published version of a skill (default: its current one).

    VERSION is the number 'publish' printed or the version's sha256: digest. The
    previous version becomes current (or the skill is gone when none is left),
    the approval given to the removed version no longer applies, every replica
    serving TENANT tells its clients, and the store's audit log records it.
    """
    name, version = _version_ref(spec)
    result = postgres_api().PostgresStore(store_url, tenant).unpublish(name, version)
    if as_json:
        echo_json(result.to_dict())
        return
    click.echo(f"unpublished {result.name} version {result.version} {result.digest}")
    if result.current is not None:
        click.echo(f"current: {result.name} version {result.current} {result.current_digest}")
    else:
        click.echo(f"{result.name} has no published version left")
    if result.approval_revoked:
        click.echo("its approval was revoked: the next run asks again", err=True)


def _printable(text: str) -> str:
    return text if text.isprintable() and text.isascii() else json.dumps(text)


def _summary(event: dict[str, Any]) -> str:
    rest = {k: v for k, v in event.items() if k not in ("event", "ts", "time")}
    text = json.dumps(rest, sort_keys=True, default=str)  # ASCII: no control characters
    return text if len(text) <= 160 else text[:157] + "..."


@main.command("audit")
@required_store
@click.option("--tenant", default=None, help="One tenant's rows (default: every tenant's).")
@click.option("--since", default=None, help="Rows from this time on: 2026-11-24, 12h, 7d, ...")
@click.option("--after", type=click.IntRange(min=0), default=0, help="Rows after this id.")
@click.option(
    "--limit",
    type=click.IntRange(1, 10_000),
    default=100,
    show_default=True,
    help="Rows per page.",
)
@click.option("--kind", "kinds", multiple=True, help="Only these events (repeatable).")
@json_option
@store_errors
def audit_command(
    store_url: str,
    tenant: str | None,
    since: str | None,
    after: int,
    limit: int,
    kinds: tuple[str, ...],
    as_json: bool,
) -> None:
    """Read the store's audit log, oldest first, one page at a time.

    Publishes, unpublishes, approvals, token changes and the served sessions'
    events, of every tenant (read through a role that sees the audit log and
    nothing else) or of --tenant. The next page starts --after the last id shown.
    """
    when = parse_since(since) if since else None
    rows = postgres_api().read_audit(
        store_url, tenant=tenant, since=when, after=after, limit=limit, kinds=kinds
    )
    more = rows[-1].id if len(rows) == limit else None
    if as_json:
        echo_json({"rows": [r.to_dict() for r in rows], "next_after": more})
        return
    for row in rows:
        click.echo(
            f"{row.id:>8}  {row.at[:19]}  {row.tenant:<16} "
            f"{_printable(row.kind):<20} {_summary(row.event)}"
        )
    if more is not None:
        click.echo(f"more rows: add --after {more}", err=True)
    elif not rows:
        click.echo("no audit rows match", err=True)
