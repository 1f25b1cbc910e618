"""Execution commands: run, approve, revoke, approvals, sandbox status."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

import skilldeck
import skilldeck.execution
import skilldeck.format
from skilldeck.cli._app import (
    EXIT_FINDINGS,
    command_config,
    complete_skill_names,
    echo_json,
    json_option,
    main,
    recursive_option,
    root_option,
    use_colour,
)
from skilldeck.cli._running import catalog_and_config, exec_config, run_skill
from skilldeck.cli._stored import active_approval_store, store_options


def _catalog(roots: Sequence[str], recursive: bool = False) -> skilldeck.Catalog:
    return catalog_and_config(roots, recursive, command_config())[0]


def _plan_options(func: Callable[..., None]) -> Callable[..., None]:
    """``--sandbox``, ``--workdir``, ``--run-as``, ``--mount``: a run's, and what
    ``sandbox status`` plans with."""
    for option in reversed(_PLAN_OPTIONS):
        func = option(func)
    return func


_PLAN_OPTIONS = [
    click.option(
        "--sandbox",
        type=click.Choice(["auto", "strict", "none"]),
        default=None,
        help="Override [execution] sandbox.",
    ),
    click.option(
        "--workdir",
        metavar="skill|project|temp|PATH",
        default=None,
        help="Working folder: project (default: the repository root, else the current "
        "folder), skill, temp or a folder.",
    ),
    click.option(
        "--run-as",
        "run_as",
        metavar="auto|self|USER",
        default=None,
        help="Who runs the program when skilldeck runs as root (default auto: nobody when it "
        "can reach everything, else yourself without capabilities).",
    ),
    click.option(
        "--mount",
        "mounts",
        multiple=True,
        metavar="PATH[:ro|rw]",
        help="Make PATH visible under the sandbox (read-only unless :rw; repeatable).",
    ),
]


@main.command("run", context_settings={"ignore_unknown_options": False})
@click.argument("name", shell_complete=complete_skill_names)
@click.argument("target")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--arg",
    "pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="An argument of a declared tool (repeatable; arrays collect repeats).",
)
@_plan_options
@click.option(
    "--yes", "-y", is_flag=True, help="Approve the run if it needs approval (without asking)."
)
@json_option
@root_option
@recursive_option
@store_options
def run_command(
    name: str,
    target: str,
    args: tuple[str, ...],
    pairs: tuple[str, ...],
    sandbox: str | None,
    workdir: str | None,
    run_as: str | None,
    mounts: tuple[str, ...],
    yes: bool,
    as_json: bool,
    roots: tuple[str, ...],
    recursive: bool,
) -> None:
    """Run TARGET of skill NAME: a script under scripts/ or a tool declared in SKILL.md.

    Script arguments follow `--`; tool arguments are given with --arg KEY=VALUE.
    Runs that need approval ask here when stdin is a terminal (--yes approves
    without asking); otherwise they fail with APPROVAL_REQUIRED (approve first
    with `skilldeck approve NAME`).
    Paths given as arguments are made visible under the sandbox.
    """
    run_skill(
        name,
        target,
        args,
        pairs=pairs,
        sandbox=sandbox,
        workdir=workdir,
        run_as=run_as,
        mounts=mounts,
        yes=yes,
        as_json=as_json,
        roots=roots,
        recursive=recursive,
        config=command_config(),
    )


@main.command("approve")
@click.argument("name", shell_complete=complete_skill_names)
@json_option
@root_option
@recursive_option
@store_options
def approve_command(name: str, as_json: bool, roots: tuple[str, ...], recursive: bool) -> None:
    """Approve skill NAME to run its scripts and tools, bound to its current content.

    Any change to any file of the skill voids the approval. Skills that set
    always_ask still ask before every run.
    """
    catalog = _catalog(roots, recursive)
    entry = catalog.get(name)
    trust = catalog.trust(name)
    digest = catalog.digest(name)
    store = active_approval_store()
    approval = store.grant(
        entry.name, digest, trust=trust.value, path=str(entry.path) if entry.path else None
    )
    # approving is when the network may be used: the packages its scripts declare
    built = _install_packages(entry.name, entry.path, quiet=as_json)
    if as_json:
        echo_json({**approval.to_dict(), "environments": built})
        return
    if trust is skilldeck.Trust.UNTRUSTED:
        click.secho(
            "WARNING: this skill comes from an untrusted source and can run arbitrary code.",
            fg="red",
            bold=True,
            err=True,
            color=use_colour(),
        )
    click.echo(f"approved {entry.name} ({trust.value}) at {digest}")


def _install_packages(name: str, folder: Any, *, quiet: bool) -> list[dict[str, Any]]:
    if folder is None:
        return []
    progress = None if quiet else (lambda message: click.echo(message, err=True))
    return [
        {"origin": p.origin, "requirements": list(p.requirements), "python": str(python)}
        for p, python in skilldeck.execution.install_packages(name, folder, progress=progress)
    ]


@main.command("packages")
@click.argument("name")
@json_option
@root_option
@recursive_option
@store_options
def packages_command(name: str, as_json: bool, roots: tuple[str, ...], recursive: bool) -> None:
    """Install the Python packages the scripts of skill NAME declare.

    Scripts declare them with inline metadata (a '# /// script' block) or a
    scripts/requirements.txt; runs then use that environment and never install.
    Approving a skill does this too.
    """
    entry = _catalog(roots, recursive).get(name)
    built = _install_packages(entry.name, entry.path, quiet=as_json)
    if as_json:
        echo_json({"name": entry.name, "environments": built})
        return
    if not built:
        click.echo(f"{entry.name} declares no Python packages")
    for env in built:
        click.echo(
            f"{entry.name}: {env['origin']}: {' '.join(env['requirements'])} -> {env['python']}"
        )


@main.command("revoke")
@click.argument("name", shell_complete=complete_skill_names)
@json_option
@store_options
def revoke_command(name: str, as_json: bool) -> None:
    """Remove the stored approval of skill NAME."""
    removed = active_approval_store().revoke(name)
    if as_json:
        missing = skilldeck.SkillNotFoundError(
            f"{name} had no stored approval", skill=name, hint="`skilldeck approvals` lists them"
        )
        echo_json({"name": name, "revoked": removed}, error=None if removed else missing)
    elif removed:  # the name as typed: shown with its control characters escaped
        click.echo(f"revoked {skilldeck.shown_text(name)}")
    else:
        click.echo(f"{skilldeck.shown_text(name)} had no stored approval", err=True)
    if not removed:
        sys.exit(EXIT_FINDINGS)


@main.command("approvals")
@json_option
@root_option
@store_options
def approvals_command(as_json: bool, roots: tuple[str, ...]) -> None:
    """List stored approvals and whether each still matches its skill's content."""
    catalog = _catalog(roots)
    rows = []
    for approval in active_approval_store().list():
        try:
            current = catalog.digest(approval.name)
            state = "valid" if current == approval.digest else "stale (skill changed)"
        except skilldeck.SkillError:
            state = "skill not found"
        rows.append({**approval.to_dict(), "state": state})
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no stored approvals")
        return
    for row in rows:
        click.echo(
            f"{row['name']:30s} {row['state']:22s} {row.get('trust') or '-':10s} "
            f"{row['digest'][:19]}…  {row.get('approved_at') or ''}"
        )


@main.group("sandbox")
def sandbox_group() -> None:
    """The execution sandbox (bubblewrap)."""


@sandbox_group.command("status")
@_plan_options
@json_option
def sandbox_status_command(
    sandbox: str | None,
    workdir: str | None,
    run_as: str | None,
    mounts: tuple[str, ...],
    as_json: bool,
) -> None:
    """Probe bubblewrap and show how a script would run from here: the same plan a
    run makes (user, working folder, isolation), with the same options."""
    from skilldeck.execution import execution_status

    project = command_config() or skilldeck.load_config()
    config = exec_config(sandbox, workdir, run_as, mounts, settings=project)
    untrusted = project.untrusted
    status = execution_status(config)
    data = {
        **status.to_dict(),
        "run_as": status.user,
        "untrusted_config": untrusted.to_dict() if untrusted is not None else None,
        "ignored_project": project.ignored_project,
    }
    if as_json:
        echo_json(data)
        return
    for line in status.lines():
        click.echo(line)
    for note in project.notices:
        click.echo(f"✗ project config: {note.message} [{note.code}]")
        click.echo(f"  hint: {note.hint}")
