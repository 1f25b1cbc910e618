"""``skilldeck trust``: apply a project's guarded config settings, bound to the file's digest.

(The warning every other command prints about such settings is ``_app``'s.)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

import skilldeck
import skilldeck.config
from skilldeck.cli._app import EXIT_FINDINGS, echo_json, json_option, main


@main.command("trust")
@click.argument(
    "project",
    required=False,
    type=click.Path(file_okay=False, dir_okay=True, exists=True, path_type=Path),
)
@click.option("--revoke", is_flag=True, help="Stop trusting the project's config file.")
@click.option("--list", "list_all", is_flag=True, help="List trusted config files.")
@json_option
def trust_command(project: Path | None, revoke: bool, list_all: bool, as_json: bool) -> None:
    """Trust PROJECT's .skilldeck/config.toml (default: the current project) as it is now.

    A project config file may ask for settings that run programs or weaken
    isolation, approvals, checks or trust (for example [execution] bwrap,
    sandbox, env_allow); they are ignored until you trust the file. The trust
    is bound to the file's sha256 digest: any change to the file lapses it.
    Read the file before you trust it.
    """
    cwd = os.fspath(project) if project is not None else None
    if list_all:
        items = skilldeck.config.trusted_configs()
        if as_json:
            echo_json([t.to_dict() for t in items])
        elif not items:
            click.echo("no trusted config files")
        for t in items if not as_json else ():
            click.echo(f"{t.state:<8} {t.file}  {t.digest[:19]}…  trusted {t.trusted_at}")
        return
    path = skilldeck.config.config_path("project", cwd=cwd)
    if revoke:
        found = skilldeck.config.revoke_project_trust(cwd=cwd)
        if as_json:
            untrusted = skilldeck.InvalidArgumentsError(
                f"{path} was not trusted",
                field="revoke",
                hint="`skilldeck trust --list` lists them",
            )
            echo_json({"file": str(path), "revoked": found}, error=None if found else untrusted)
        else:
            click.echo(f"{'revoked' if found else 'was not trusted'}: {path}")
        if not found:
            sys.exit(EXIT_FINDINGS)
        return
    before = skilldeck.load_config(cwd=cwd).untrusted
    record = skilldeck.config.trust_project_config(cwd=cwd)
    keys = list(before.keys) if before is not None else []
    if as_json:
        echo_json({**record.to_dict(), "applies": keys})
        return
    click.echo(f"trusted {record.file} ({record.digest})")
    if before is not None:
        click.echo("now applied:")
        for key, value in before.values:
            click.echo(f"  {key} = {value}")
    click.echo("any change to the file lapses this; `skilldeck trust --revoke` forgets it")
