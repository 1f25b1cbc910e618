"""The body of ``skilldeck run``, without click: ``_run`` registers the command, and
``_plain`` runs the common command lines of it (``plain_words``) through ``run_skill``
without click at all. Click is imported only for the interactive approval prompt,
which never shows on those command lines."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import skilldeck
from skilldeck._gc import paused
from skilldeck.cli._plain import EXIT_FINDINGS, echo, echo_json
from skilldeck.config import with_roots

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import skilldeck.execution

__all__ = ["catalog_and_config", "exec_config", "plain_words", "run_skill"]

_FLAGS = {"--yes": "yes", "-y": "yes", "--json": "as_json", "--recursive": "recursive"}
"""The flags of ``run`` a command line without a parser may give."""


def plain_words(argv: Sequence[str]) -> dict[str, Any] | None:
    """The arguments of ``run_skill`` for the words after ``skilldeck run``, when they
    need no parser: ``NAME TARGET [ARG...]``, script arguments after ``--``, and only
    ``--root DIR`` (or ``--root=DIR``), ``--yes``/``-y``, ``--json`` and
    ``--recursive`` among them, anywhere before ``--``, as click reads them. ``None``
    for anything else (click parses it and reports what is wrong), and where the run
    could ask for approval at a terminal (click's prompt)."""
    words: dict[str, Any] = dict.fromkeys(("yes", "as_json", "recursive"), False)
    roots: list[str] = []
    positional: list[str] = []
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        if word == "--":
            positional += rest
            break
        if word in _FLAGS:
            words[_FLAGS[word]] = True
        elif word == "--root" or word.startswith("--root="):
            value = word[len("--root=") :] if "=" in word else (rest.pop(0) if rest else "")
            if not value or value.startswith("-"):
                return None  # let click say what it makes of it
            roots.append(value)
        elif word.startswith("-"):
            return None  # another option: click parses it
        else:
            positional.append(word)
    if len(positional) < 2:
        return None
    if os.name == "nt" and any(c in word for word in argv for c in "*?[~"):
        return None  # click expands wildcards and ~ in a Windows command line
    if not words["yes"] and _interactive():
        return None
    name, target, *args = positional
    return {
        **words,
        "name": name,
        "target": target,
        "args": tuple(args),
        "roots": tuple(roots),
    }


def run_skill(
    name: str,
    target: str,
    args: tuple[str, ...] = (),
    *,
    pairs: tuple[str, ...] = (),
    sandbox: str | None = None,
    workdir: str | None = None,
    run_as: str | None = None,
    mounts: tuple[str, ...] = (),
    yes: bool = False,
    as_json: bool = False,
    roots: tuple[str, ...] = (),
    recursive: bool = False,
    config: skilldeck.Config | None = None,
) -> None:
    """``skilldeck run``: run TARGET of skill NAME and print its output (exit status 1
    when it failed). ``config``: the config files as already parsed for this command
    (``None``: read here)."""
    try:
        # imports, config, catalog and the run's plan: long-lived objects, no garbage;
        # what is left lives until the command ends, so none of it is traversed again
        with paused(promote_after=0):
            catalog, settings = catalog_and_config(roots, recursive, config)
            _run(
                name,
                target,
                args,
                pairs,
                sandbox,
                workdir,
                run_as,
                mounts,
                yes,
                as_json,
                catalog,
                settings,
            )
    except skilldeck.SkillError as exc:
        exc.hint = with_roots(exc.hint, roots, recursive=recursive)
        raise


def catalog_and_config(
    roots: Sequence[str], recursive: bool = False, config: skilldeck.Config | None = None
) -> tuple[skilldeck.Catalog, skilldeck.Config | None]:
    """The catalog, and the config files it was made from (read once: ``config`` when
    the command has them already; ``None`` for a store's catalog)."""
    from skilldeck.cli._stored import active_catalog

    stored = active_catalog()  # --store URL --tenant T
    if stored is not None:
        return stored, None
    if config is None:
        config = skilldeck.load_config()
    if roots:
        return skilldeck.Catalog.from_roots(roots, recursive=recursive, config=config), config
    return skilldeck.Catalog.default(config=config), config


def _interactive() -> bool:
    """Whether a human can answer a prompt (stdin is a terminal)."""
    return sys.stdin.isatty()


def _prompt(request: skilldeck.execution.ApprovalRequest) -> bool:
    """The interactive approval prompt (stderr, so stdout stays the program's output)."""
    import click

    from skilldeck.cli._app import use_colour

    err = True
    if request.warning:
        click.secho(
            f"WARNING: {skilldeck.shown_text(request.warning)}",
            fg="red",
            bold=True,
            err=err,
            color=use_colour(),
        )
    why = {
        "first_run": "first run of this skill",
        "changed": "the skill changed since it was approved",
        "always_ask": "this skill asks before every run",
        "untrusted": "the skill is untrusted",
    }.get(request.reason, request.reason)
    iso = request.isolation
    fs = iso.get("filesystem", {})
    # a skill's own text, its script's arguments and the paths reach a terminal with
    # control characters escaped: an escape sequence could hide or rewrite a line of
    # what the user is asked to approve
    shown = skilldeck.shown_text
    click.echo(f"Skill:     {shown(request.skill)} ({request.trust.value}, {why})", err=err)
    if request.description:
        click.echo(f"About:     {shown(request.description)}", err=err)
    click.echo(f"Runs:      {shown(request.preview)}", err=err)
    click.echo(f"In:        {shown(str(request.workdir))}", err=err)
    click.echo(
        f"Isolation: sandbox={iso.get('sandbox')} user={iso.get('user')} "
        f"network={iso.get('network')} workdir={shown(str(fs.get('workdir')))} "
        f"timeout={iso.get('timeout_s')}s",
        err=err,
    )
    click.echo(f"As:        {iso.get('user')}", err=err)
    for key in ("fallback", "user_reason"):
        if iso.get(key):
            click.echo(f"           ({shown(str(iso[key]))})", err=err)
    if iso.get("mounts"):
        click.echo(f"Visible:   {shown(', '.join(iso['mounts']))}", err=err)
    if request.persist:
        click.echo("A yes is remembered until the skill's files change.", err=err)
    if not click.confirm("Run it?", default=False, err=err):
        raise skilldeck.Cancelled()
    return True


def _on_terminal() -> bool:
    """Whether stdout is a terminal: a program's output is shown there with control
    characters escaped. The program itself has no terminal (a pipe, a session of its
    own); its output written as it is gave one back to it: an escape sequence could
    set the clipboard (OSC 52), retitle the terminal or hide lines."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


def _approve(_request: skilldeck.execution.ApprovalRequest) -> bool:
    """``--yes``: the person running the command approves the run."""
    return True


def exec_config(
    sandbox: str | None,
    workdir: str | None,
    run_as: str | None = None,
    mounts: Sequence[str] = (),
    *,
    settings: skilldeck.Config | None = None,
) -> skilldeck.ExecConfig:
    """The ``[execution]`` config with the command line's choices on top.

    On the command line, paths given as arguments are made visible under the
    sandbox (the person typed them), unless the config says otherwise.
    """
    from skilldeck.execution import parse_mount, parse_run_as

    config = skilldeck.ExecConfig.load(config=settings)
    changes: dict[str, Any] = {}
    if sandbox:
        changes["sandbox"] = sandbox
    if workdir:
        known = ("skill", "project", "temp")
        changes["workdir"] = workdir if workdir in known else os.path.abspath(workdir)
    if run_as:
        changes["run_as"] = parse_run_as(run_as)
    if mounts:
        cwd = os.getcwd()
        extra = tuple(parse_mount(m, base=cwd) for m in mounts)
        changes["mounts"] = (*config.mounts, *extra)
    if config.mount_arguments is None:
        changes["mount_arguments"] = True
    return config.replace(**changes)


def _run(
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
    catalog: skilldeck.Catalog,
    settings: skilldeck.Config | None,
) -> None:
    from skilldeck.cli._stored import active_executor

    config = exec_config(sandbox, workdir, run_as, mounts, settings=settings)
    approver = _approve if yes else (_prompt if _interactive() else None)
    executor = active_executor(config, approver) or skilldeck.Executor(config, approver=approver)
    result = executor.run(
        catalog.runnable(name), target, args, arguments=pairs or None, trust=catalog.trust(name)
    )
    if as_json:
        failed = skilldeck.ScriptFailedError(result.error or "the run failed", hint=result.hint)
        echo_json(result.to_dict(), error=None if result.success else failed)
    else:
        output = result.output
        if _on_terminal():  # lines and tabs as they are; no escape sequence reaches it
            output = skilldeck.shown_text(output.replace("\r\n", "\n"), keep="\n\t")
        echo(output, nl=not output.endswith("\n"))
        if not result.success:
            echo(f"error: {result.error}", err=True)
            if result.hint:
                echo(f"hint: {result.hint}", err=True)
    if not result.success:
        sys.exit(EXIT_FINDINGS)
