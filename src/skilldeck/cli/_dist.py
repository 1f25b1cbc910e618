"""Distribution commands: ``install``, ``update``, ``remove``, ``verify``, ``export``,
``agents``, ``sync`` and the interactive ``manage`` picker.

Every command is one library call; ``--json`` prints ``{"ok": true, "data": ...}``
(or the error envelope). Exit status: 0 success, 1 a failed operation or a
failed verification, 2 usage problems.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import click

import skilldeck
import skilldeck.dist
from skilldeck.cli._app import (
    EXIT_FINDINGS,
    complete_installed_names,
    echo_json,
    json_option,
    main,
    root_option,
    use_colour,
)
from skilldeck.cli._stored import store_options, store_verify
from skilldeck.config import hint_command

_SCOPE = click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default="user",
    show_default=True,
    help="user: skilldeck's data folder; project: .skilldeck/ at the repository root.",
)


_EITHER_SCOPE = click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default=None,
    help="Only this scope. Default: both (the user's and this project's installed skills).",
)


def _by_scope(names: Sequence[str], scope: str | None) -> dict[str, list[str] | None]:
    """Which scopes to act on, with the names for each (``None``: every skill there).

    With ``--scope`` only that one; otherwise each name in the scope(s) it is
    installed in, and without names the user scope plus the project's when it
    has installed skills. A name installed nowhere goes to the user scope, whose
    error lists what is installed.
    """
    if scope is not None:
        return {scope: list(names) or None}
    infos = skilldeck.dist.list_installed()
    if not names:
        wanted = ["user"] + (["project"] if any(i.scope == "project" for i in infos) else [])
        return dict.fromkeys(wanted)
    out: dict[str, list[str] | None] = {}
    for name in names:
        for sc in sorted({i.scope for i in infos if i.name == name}, reverse=True) or ["user"]:
            got = out.setdefault(sc, [])
            assert got is not None
            got.append(name)
    return out


def _merged(reports: Sequence[Any]) -> Any:
    """One JSON report for several scopes: ``scope`` null, each skill with its ``scope``."""
    if len(reports) == 1:
        return skilldeck.json_safe(reports[0])
    out: dict[str, Any] = {"scope": None}
    for report in reports:
        data = skilldeck.json_safe(report)
        for key, value in data.items():
            if key == "scope":
                continue
            if key == "skills":
                value = [{**item, "scope": report.scope} for item in value]
            if isinstance(value, list):
                out.setdefault(key, []).extend(value)
            elif isinstance(value, bool) and key in ("ok",):
                out[key] = out.get(key, True) and value
            else:
                out.setdefault(key, value)
    return out


class _Reporter:
    """Renders progress on stderr: rich when installed, plain lines otherwise.

    ``paused()`` hides a live display while the user answers a prompt.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Reporter:
        if not self.enabled:
            return self
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress as RichProgress,
                SpinnerColumn,
                TextColumn,
            )
        except ImportError:
            return self
        self._bar = RichProgress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            transient=True,
            console=Console(stderr=True, no_color=use_colour() is False),
        )
        self._bar.start()
        self._task = self._bar.add_task("starting", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    @property
    def callback(self) -> Callable[[skilldeck.dist.InstallProgress], None] | None:
        return self._report if self.enabled else None

    def _report(self, p: skilldeck.dist.InstallProgress) -> None:
        if self._bar is None:
            counts = f" ({p.done}/{p.total})" if p.total else ""
            click.echo(f"{p.stage}: {p.message}{counts}", err=True)
            return
        fields: dict[str, Any] = {"description": p.message}
        if p.total is not None:
            fields.update(completed=p.done or 0, total=p.total)
        self._bar.update(self._task, **fields)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        if self._bar is None:
            yield
            return
        self._bar.stop()
        try:
            yield
        finally:
            self._bar.start()


def _warn_diags(diags: tuple[skilldeck.Diagnostic, ...], name: str) -> None:
    for d in diags:
        click.echo(f"warning: {name}: {d.code} {d.message}", err=True)


def _limit_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--max-files`` and ``--max-bytes``: a skill's size caps, raised for a source the
    user trusts (``InstallLimits``; the defaults are the MCP Skills extension's)."""
    func = click.option(
        "--max-bytes",
        type=click.IntRange(min=0),
        default=None,
        metavar="N",
        help="Bytes a skill may hold (default 16 MiB; 0: no limit). For a source you trust.",
    )(func)
    return click.option(
        "--max-files",
        type=click.IntRange(min=1),
        default=None,
        metavar="N",
        help="Files a skill may hold (default 512). For a source you trust.",
    )(func)


def _limits(max_files: int | None, max_bytes: int | None) -> skilldeck.dist.InstallLimits | None:
    """The caps the options ask for (``None``: the defaults)."""
    raised = {
        key: value
        for key, value in (("max_files", max_files), ("max_bytes", max_bytes))
        if value is not None
    }
    return skilldeck.dist.InstallLimits(**raised) if raised else None


@contextlib.contextmanager
def _limits_hint() -> Iterator[None]:
    """A skill over the caps: the hint is this command again with larger ones."""
    try:
        yield
    except skilldeck.InstallError as exc:
        over = exc.context.get("limits")
        if isinstance(over, dict):
            files, size = over.get("max_files", 512), over.get("max_bytes", 0)
            again = hint_command(
                *sys.argv[1:], "--max-files", str(4 * files), "--max-bytes", str(4 * size)
            )
            exc.hint = f"for a source you trust, raise the limits: {again}"
        raise


@main.command()
@click.argument("source")
@click.option("--ref", help="Branch, tag or commit to install (git sources).")
@click.option("--path", "subpath", help="Sub-folder of the source to install from (or SOURCE#DIR).")
@click.option(
    "--skill", "skills", multiple=True, help="Skill to install from a multi-skill source."
)
@click.option("--all", "all_skills", is_flag=True, help="Install every skill the source holds.")
@click.option("--name", help="Install the (single) skill under this name.")
@_SCOPE
@click.option(
    "--agent",
    "agents",
    multiple=True,
    metavar="ID",
    help="Also place the skill in this agent's folder (repeatable; '*' = every agent "
    "found here; ids: `skilldeck agents`).",
)
@click.option("--copy", is_flag=True, help="Place copies in agent folders instead of links.")
@click.option(
    "--force", is_flag=True, help="Replace an installed skill (or agent folder) of the same name."
)
@click.option(
    "--skip-existing", is_flag=True, help="Leave skills already installed alone; install the rest."
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Leave out skills that cannot be installed (invalid, a name twice); install the rest.",
)
@click.option(
    "--packages",
    "build_packages",
    is_flag=True,
    help="Also build the Python packages the skills' scripts declare (uv, network, your "
    "package index settings). Default: print the command that builds them.",
)
@_limit_options
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@json_option
def install(
    source: str,
    ref: str | None,
    subpath: str | None,
    skills: tuple[str, ...],
    all_skills: bool,
    name: str | None,
    scope: str,
    agents: tuple[str, ...],
    copy: bool,
    force: bool,
    skip_existing: bool,
    skip_invalid: bool,
    build_packages: bool,
    max_files: int | None,
    max_bytes: int | None,
    yes: bool,
    as_json: bool,
) -> None:
    """Install skills from a git URL, owner/repo, a folder or an archive.

    SOURCE may end in #SUBDIR. A source holding several skills needs --skill
    or --all. Installs are staged, validated and swapped in atomically. The
    Python packages scripts declare are built by `skilldeck approve NAME` (or
    --packages here), never silently by an install.
    """
    _check_agents(agents)
    ask = not yes and not as_json and sys.stdin.isatty()

    with _limits_hint(), _Reporter(not as_json) as reporter:

        def confirm(plan: skilldeck.dist.InstallPlan) -> bool:
            with reporter.paused():
                for s in plan.skills:
                    verb = "replace" if s.replaces else "install"
                    click.echo(f"{verb} {s.name} ({s.file_count} files) from {plan.source.display}")
                    _warn_diags(s.warnings, s.name)
                if not click.confirm("proceed?", default=True):
                    raise skilldeck.Cancelled()  # the staging folder is cleaned up on the way out
                return True

        result = skilldeck.dist.install(
            source,
            ref=ref,
            subpath=subpath,
            skills=skills or None,
            all_skills=all_skills,
            name=name,
            scope=scope,  # type: ignore[arg-type]
            force=force,
            on_progress=reporter.callback,
            confirm=confirm if ask else None,
            agents=agents or None,
            copy=copy,
            choose=_picker(reporter) if ask else None,
            skip_existing=skip_existing,
            skip_invalid=skip_invalid,
            limits=_limits(max_files, max_bytes),
        )
    built = _build_packages(result, quiet=as_json) if build_packages else {}
    if as_json:
        payload = skilldeck.json_safe(result)
        if build_packages:
            payload["environments"] = built
        echo_json(payload)
        return
    for why in result.skipped:
        click.echo(f"warning: skipped {why}", err=True)
    if result.existing:
        names = ", ".join(result.existing)
        update_cmd = "skilldeck update" + (" --scope project" if result.scope == "project" else "")
        click.echo(f"already installed, left alone: {names} (`{update_cmd}` fetches new versions)")
    at = f" @ {result.commit[:12]}" if result.commit else ""
    for s in result.skills:
        if not ask:
            _warn_diags(s.warnings, s.name)
        verb = "replaced" if s.replaced else "installed"
        click.echo(f"{verb} {s.name} ({result.scope}) from {s.source}{at} -> {s.path}")
        for where in s.placed:
            click.echo(f"  placed in {where}")
        for line in s.packages:
            click.echo(f"  Python packages: {line}")
        if s.packages and s.name in built:
            for env in built[s.name]:
                click.echo(f"  built {env['origin']} -> {env['python']}")
        elif s.packages:
            click.echo(
                f"  not built (an install never runs a package resolver): run "
                f"`{hint_command('approve', s.name)}` to approve its scripts and build them, "
                f"or `{hint_command('packages', s.name)}` to build them only"
            )


def _build_packages(
    result: skilldeck.dist.InstallResult, *, quiet: bool
) -> dict[str, list[dict[str, str]]]:
    """``--packages``: build the environments the installed skills' scripts declare."""
    from pathlib import Path

    import skilldeck.execution

    progress = None if quiet else (lambda message: click.echo(message, err=True))
    built: dict[str, list[dict[str, str]]] = {}
    for s in result.skills:
        if s.packages:
            folder = Path(s.path)
            envs = skilldeck.execution.install_packages(s.name, folder, progress=progress)
            built[s.name] = [{"origin": p.origin, "python": str(py)} for p, py in envs]
    return built


def _picker(reporter: _Reporter) -> Callable[[Sequence[str]], list[str]]:
    """Ask which skills of a multi-skill source to install (numbers, ranges or 'all')."""

    def choose(paths: Sequence[str]) -> list[str]:
        with reporter.paused():
            click.echo("the source holds several skills:")
            for n, path in enumerate(paths, 1):
                click.echo(f"{n:>3}. {skilldeck.shown_text(path)}")
            while True:
                answer = click.prompt(
                    "install which? (numbers like 1,3-4, 'all', or empty to cancel)",
                    default="",
                    show_default=False,
                ).strip()
                if not answer:
                    raise skilldeck.Cancelled()
                picked = _parse_picks(answer, len(paths))
                if picked is not None:
                    return [paths[i] for i in picked]
                click.echo(f"give numbers from 1 to {len(paths)}, ranges like 2-4, or 'all'")

    return choose


def _parse_picks(answer: str, count: int) -> list[int] | None:
    if answer == "all":
        return list(range(count))
    out: list[int] = []
    for part in answer.replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return None
        first, last = int(lo), int(hi or lo)
        if not 1 <= first <= last <= count:
            return None
        out.extend(i - 1 for i in range(first, last + 1) if i - 1 not in out)
    return out


def _check_agents(agents: tuple[str, ...]) -> None:
    """Unknown agent ids are a usage error (exit 2), before anything is fetched."""
    from skilldeck.dist import AGENTS, ALIASES

    for a in agents:
        if a != "*" and ALIASES.get(a, a) not in AGENTS:
            raise click.BadParameter(
                f"unknown agent {a!r}; `skilldeck agents` lists the ids", param_hint="--agent"
            )


@main.command("agents")
@click.option("--detected", is_flag=True, help="Only agents found on this machine.")
@json_option
def agents_command(detected: bool, as_json: bool) -> None:
    """List the agent ids for --agent and export --to, with their skills folders."""
    from skilldeck.dist import AGENTS, detected_agents

    found = {a.id for a in detected_agents()}
    rows = [a for a in AGENTS.values() if not detected or a.id in found]
    if as_json:
        echo_json(
            [
                {
                    "id": a.id,
                    "name": a.display,
                    "project": a.project_dir,
                    "user": a.user_dir,
                    "detected": a.id in found,
                }
                for a in rows
            ]
        )
        return
    for a in rows:
        mark = "*" if a.id in found else " "
        click.echo(f"{mark} {a.id:<16} {a.project_dir:<24} {a.user_dir or '(project only)'}")
    if not detected:
        click.echo("(* = found on this machine)")


@main.command()
@click.argument("names", nargs=-1, shell_complete=complete_installed_names)
@click.option("--all", "all_skills", is_flag=True, help="Update every installed skill (default).")
@click.option("--dry-run", is_flag=True, help="Fetch and compare, change nothing.")
@click.option("--yes", "-y", is_flag=True, help="Never ask (update does not ask; for scripts).")
@_limit_options
@_EITHER_SCOPE
@json_option
def update(
    names: tuple[str, ...],
    all_skills: bool,
    dry_run: bool,
    yes: bool,
    max_files: int | None,
    max_bytes: int | None,
    scope: str | None,
    as_json: bool,
) -> None:
    """Fetch installed skills again; install the ones whose content changed.

    Without NAMES every installed skill is updated, in both scopes unless
    --scope says one (--all says the same); --dry-run shows what would change.
    Agent folders follow, and a missing or broken one is put back.
    """
    plan = _by_scope(names, scope)
    results = []
    with _Reporter(not as_json) as reporter:
        for sc, chosen in plan.items():
            results.append(
                skilldeck.dist.update(
                    chosen,
                    all_skills=all_skills,
                    scope=sc,  # type: ignore[arg-type]
                    dry_run=dry_run,
                    on_progress=reporter.callback,
                    limits=_limits(max_files, max_bytes),
                )
            )
    ok = all(r.ok for r in results)
    if as_json:
        failed = skilldeck.InstallError(
            "some skills could not be updated", hint="each failed skill's error says why"
        )
        echo_json(_merged(results), error=None if ok else failed)
    else:
        if not any(r.skills for r in results):
            where = " and ".join(plan)
            click.echo(f"no installed skills in the {where} scope{'s' if len(plan) > 1 else ''}")
        both = len(results) > 1
        for u, sc in ((u, r.scope) for r in results for u in r.skills):
            if u.status == "failed":
                click.echo(f"{u.name}: update failed: {u.error}", err=True)
                continue
            moved = ""
            if u.old_commit and u.new_commit and u.old_commit != u.new_commit:
                moved = f" {u.old_commit[:12]} -> {u.new_commit[:12]}"
            click.echo(f"{u.name}{f' ({sc})' if both else ''}: {u.status}{moved}")
            for label, paths in (
                ("+", u.changes.added),
                ("-", u.changes.removed),
                ("M", u.changes.modified),
            ):
                for p in paths:
                    click.echo(f"  {label} {p}")
            if u.status == "updated":
                done = "was revoked" if u.approvals_revoked else "no longer applies"
                click.echo(f"  content changed: any script approval for it {done}")
                for where in u.placed:
                    if where not in u.repaired:
                        click.echo(f"  agent folder in step: {where}")
            for where in u.repaired:
                click.echo(f"  agent folder put back: {where}")
            if u.error:
                click.echo(f"  warning: {u.error}", err=True)
    if not ok:
        sys.exit(EXIT_FINDINGS)


@main.command()
@click.argument("name", shell_complete=complete_installed_names)
@click.option("--yes", "-y", is_flag=True, help="Never ask (remove does not ask; for scripts).")
@click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default=None,
    help="The scope to remove it from. Default: the one it is installed in.",
)
@json_option
def remove(name: str, yes: bool, scope: str | None, as_json: bool) -> None:
    """Remove an installed skill (folder, lockfile entry and config table)."""
    del yes  # accepted like install's and update's: `skills remove NAME -y` works as typed
    plan = _by_scope([name], scope)
    if len(plan) > 1:
        raise click.UsageError(
            f"{name} is installed in both scopes; say which: "
            f"`{hint_command('remove', name, '--scope', 'user')}` or `--scope project`"
        )
    result = skilldeck.dist.remove(name, scope=next(iter(plan)))  # type: ignore[arg-type]
    if as_json:
        echo_json(result)
    else:
        click.echo(f"removed {result.name} ({result.scope})")
        for where in result.unplaced:
            click.echo(f"  removed from {where}")
        for why in result.kept:
            click.echo(f"  warning: kept {why}", err=True)


@main.command()
@click.argument("names", nargs=-1, shell_complete=complete_installed_names)
@_EITHER_SCOPE
@json_option
@store_options
def verify(names: tuple[str, ...], scope: str | None, as_json: bool) -> None:
    """Check installed skills' files against the lockfile digests, in both scopes
    unless --scope says one (with --store: the tenant's published versions against
    their digests). Writes nothing."""
    if store_verify(names, as_json):
        return
    plan = _by_scope(names, scope)
    reports = [
        skilldeck.dist.verify(chosen, scope=sc)  # type: ignore[arg-type]
        for sc, chosen in plan.items()
    ]
    ok = all(r.ok for r in reports)
    if as_json:
        drifted = skilldeck.FindingsError(
            "installed skills differ from the lockfile",
            hint="`skilldeck update` puts them back",
        )
        echo_json(_merged(reports), error=None if ok else drifted)
        return
    both = len(reports) > 1
    for report in reports:
        tag = f" ({report.scope})" if both else ""
        for s in report.skills:
            if s.ok:
                click.echo(f"ok       {s.name}{tag}")
                continue
            click.echo(f"FAILED   {s.name}{tag}: {s.problem}")
            for pc in s.placements:
                if pc.problem:
                    click.echo(f"  {','.join(pc.agents)}: {pc.path}: {pc.problem}")
            for label, paths in (
                ("added", s.changes.added),
                ("removed", s.changes.removed),
                ("modified", s.changes.modified),
            ):
                for p in paths:
                    click.echo(f"  {label}: {p}")
        for name in report.untracked:
            click.echo(f"untracked {name}{tag} (not in the lockfile)")
    if not any(r.skills for r in reports):
        where = " and ".join(plan)
        click.echo(f"no skills installed in the {where} scope{'s' if both else ''}")
    if not ok:
        sys.exit(EXIT_FINDINGS)


@main.command()
@click.argument("skills", nargs=-1, required=True)
@click.option(
    "--to",
    "to",
    required=True,
    metavar="AGENT|DIR",
    help="An agent id (claude-code, codex, cursor... see `skilldeck agents`) or a folder "
    "(./path). --scope user: the agent's folder in your home; project: in the project.",
)
@_SCOPE
@click.option("--home", type=click.Path(file_okay=False), help="Use this home (isolated agent).")
@click.option("--force", is_flag=True, help="Replace a different copy already there.")
@_limit_options
@json_option
def export(
    skills: tuple[str, ...],
    to: str,
    scope: str,
    home: str | None,
    force: bool,
    max_files: int | None,
    max_bytes: int | None,
    as_json: bool,
) -> None:
    """Copy skills (names or folders) into another agent's skills folder."""
    from skilldeck.dist import AGENTS, ALIASES

    if ALIASES.get(to, to) not in AGENTS and not ("/" in to or to.startswith((".", "~"))):
        raise click.BadParameter(
            f"unknown agent {to!r}; `skilldeck agents` lists the ids, or give a folder as ./{to}",
            param_hint="--to",
        )
    with _limits_hint():
        result = skilldeck.dist.export_skills(
            list(skills),
            to,
            scope=scope,  # type: ignore[arg-type]
            home=home,
            force=force,
            limits=_limits(max_files, max_bytes),
        )
    if as_json:
        echo_json(result)
        return
    for s in result.skills:
        click.echo(f"{s.status} {s.name} -> {s.path}")


@main.command()
@click.option(
    "--agents-md",
    "agents_md",
    is_flag=False,
    flag_value="AGENTS.md",
    default=None,
    metavar="[FILE]",
    help="Write the skill list into FILE (default AGENTS.md), between skilldeck's markers.",
)
@root_option
@json_option
def sync(agents_md: str | None, roots: tuple[str, ...], as_json: bool) -> None:
    """Write the skill list for agents that have no skill support of their own.

    Only the block between skilldeck's markers is replaced; the rest of the
    file stays as it is. Run it again after installing or removing skills.
    """
    from skilldeck.dist import sync_agents_md

    if agents_md is None:
        raise click.UsageError("say what to write: --agents-md [FILE]")
    config = skilldeck.load_config()
    catalog = (
        skilldeck.Catalog.from_roots(roots, config=config)
        if roots
        else skilldeck.Catalog.default(config=config)
    )
    listed = catalog.list()
    text = skilldeck.render_skills(listed, format="xml", empty="element")
    changed = sync_agents_md(agents_md, text)
    if as_json:
        echo_json({"file": agents_md, "changed": changed, "skills": [m.name for m in listed]})
        return
    state = "updated" if changed else "already up to date"
    click.echo(f"{agents_md}: {state} ({len(listed)} skills)")


# --- the interactive picker ------------------------------------------------------

_ACTIONS = ("enable", "disable", "update", "remove")


@main.command()
@click.argument("action", required=False, type=click.Choice(["list", *_ACTIONS]))
@click.argument("names", nargs=-1)
@click.option(
    "--scope", type=click.Choice(["user", "project"]), default=None, help="Only this scope."
)
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Never ask (with ACTION nothing is asked; for scripts, as remove and update take it).",
)
@json_option
@click.pass_context
def manage(
    ctx: click.Context,
    action: str | None,
    names: tuple[str, ...],
    scope: str | None,
    yes: bool,
    as_json: bool,
) -> None:
    """Pick installed skills to enable, disable, update or remove (on a terminal).

    With ACTION and NAMES, do it without asking: `manage disable gh` is
    `skilldeck disable gh`, and likewise enable, update and remove; `manage list`
    lists the installed skills. With --format json and no ACTION, print the
    installed skills.
    """
    if action is not None:
        _manage_action(ctx, action, names, scope, as_json)
        return
    items = skilldeck.dist.list_installed(scope=scope)  # type: ignore[arg-type]
    if as_json:
        echo_json(items)
        return
    if yes or not sys.stdin.isatty():
        raise click.UsageError(
            "manage asks on a terminal; without asking give an ACTION and names "
            "(`skilldeck manage remove NAME`), or use `skilldeck list --installed`, "
            "`skilldeck enable|disable|update|remove NAME`"
        )
    while True:
        items = skilldeck.dist.list_installed(scope=scope)  # type: ignore[arg-type]
        if not items:
            click.echo("no installed skills")
            return
        for n, i in enumerate(items, 1):
            state = "enabled " if i.enabled else "disabled"
            agents = f"  [agents: {', '.join(i.agents)}]" if i.agents else ""
            click.echo(f"{n:>3}. {i.name:<24} {i.scope:<8} {state}{agents}")
        answer = click.prompt(
            "number and action (e.g. '1 disable'; actions: " + ", ".join(_ACTIONS) + "; "
            "empty to finish)",
            default="",
            show_default=False,
        ).split()
        if not answer:
            return
        if len(answer) != 2 or not answer[0].isdigit() or answer[1] not in _ACTIONS:
            click.echo("give a number and one of: " + ", ".join(_ACTIONS))
            continue
        index = int(answer[0]) - 1
        if not 0 <= index < len(items):
            click.echo(f"pick a number from 1 to {len(items)}")
            continue
        _apply(items[index], answer[1])


def _manage_action(
    ctx: click.Context, action: str, names: tuple[str, ...], scope: str | None, as_json: bool
) -> None:
    """``manage ACTION NAME...``: the command of that name, for each name."""
    items = skilldeck.dist.list_installed(scope=scope)  # type: ignore[arg-type]
    if action == "list":
        if names:
            raise click.UsageError("manage list takes no skill names")
        if as_json:
            echo_json(items)
        for i in [] if as_json else items:
            state = "enabled " if i.enabled else "disabled"
            click.echo(f"{i.name:<24} {i.scope:<8} {state}")
        if not items and not as_json:
            click.echo("no installed skills")
        return
    if not names:
        raise click.UsageError(f"manage {action} needs the name of a skill")
    command = main.get_command(ctx, action)  # each action is a command of that name
    if command is None:  # pragma: no cover - the choice lists only existing commands
        raise click.UsageError(f"no command {action}")
    values: dict[str, Any] = {"output_format": "json" if as_json else "text"}
    groups: dict[str, list[str]] = {}
    for name in names:  # an installed skill's own scope, unless --scope says
        scopes = {i.scope for i in items if i.name == name}
        chosen = scope or (scopes.pop() if len(scopes) == 1 else None)
        groups.setdefault(chosen or "", []).append(name)
    for chosen, group in groups.items():
        if chosen:
            values["scope"] = chosen
        else:
            values.pop("scope", None)
        if action == "update":
            ctx.invoke(command, names=tuple(group), **values)
            continue
        for name in group:
            ctx.invoke(command, name=name, **values)


def _apply(item: skilldeck.dist.InstalledInfo, action: str) -> None:
    try:
        if action in ("enable", "disable"):
            skilldeck.dist.set_skill_enabled(item.name, action == "enable", scope=item.scope)
            click.echo(f"{action}d {item.name}")
        elif action == "update":
            for u in skilldeck.dist.update([item.name], scope=item.scope).skills:
                click.echo(f"{u.name}: {u.status}" + (f" ({u.error})" if u.error else ""))
        elif click.confirm(f"remove {item.name}?", default=False):
            skilldeck.dist.remove(item.name, scope=item.scope)
            click.echo(f"removed {item.name}")
        else:
            click.echo("cancelled")
    except skilldeck.SkillError as exc:
        click.echo(f"error: {exc.message} [{exc.code}]")
