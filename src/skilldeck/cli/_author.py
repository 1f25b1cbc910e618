"""Authoring commands: ``validate``, ``lint``, ``show``, ``new``.

``validate`` and ``lint`` accept any mix of skill folders, SKILL.md files and
folders holding skills anywhere below. Text output is compiler style
(``path:line:col: CODE severity: message``) with a summary line; ``--format
json`` prints one object whose shape is a public contract::

    {"skills": [{"path": str, "name": str | null, "valid": bool,
                 "diagnostics": [{"code", "severity", "message", "line", "column", "hint"}]}],
     "summary": {"skills": int, "errors": int, "warnings": int}}

Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage or I/O problem.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import click

import skilldeck
import skilldeck.format
from skilldeck.cli._app import (
    EXIT_FINDINGS,
    EXIT_OK,
    complete_skill_names_or_paths,
    echo_json,
    format_option,
    main,
    recursive_option,
    root_option,
    use_colour,
)
from skilldeck.cli._showing import format_diagnostic, plural, show_skill, skill_dirs, skill_files
from skilldeck.cli._stored import store_options
from skilldeck.config import hint_command

Checker = Callable[[Path], "skilldeck.ValidationReport"]


# --- shared plumbing -----------------------------------------------------------


def _summary(reports: Sequence[skilldeck.ValidationReport]) -> dict[str, int]:
    diags = [d for r in reports for d in r.diagnostics]
    return {
        "skills": len(reports),
        "errors": sum(d.severity is skilldeck.Severity.ERROR for d in diags),
        "warnings": sum(d.severity is skilldeck.Severity.WARNING for d in diags),
    }


def _render_text(reports: Sequence[skilldeck.ValidationReport], verb: str) -> None:
    colour = use_colour()
    for report in reports:
        fallback = str(report.skill_md or report.path)
        for diag in report.diagnostics:
            click.echo(format_diagnostic(diag, fallback, click.style), color=colour)
    counts = _summary(reports)
    infos = sum(d.severity is skilldeck.Severity.INFO for r in reports for d in r.diagnostics)
    invalid = sum(not r.valid for r in reports)
    line = (
        f"{verb} {plural(counts['skills'], 'skill')}: "
        f"{plural(counts['errors'], 'error')}, {plural(counts['warnings'], 'warning')}"
    )
    if infos:
        line += f", {infos} info"
    if invalid:
        line += f" ({invalid} invalid)"
    style = "red" if counts["errors"] else ("yellow" if counts["warnings"] else "green")
    click.echo(click.style(line, fg=style, bold=True), color=colour)


def _run_checks(paths: Sequence[str], check: Checker, fmt: str, verb: str) -> None:
    folders = skill_dirs(paths)
    reports = [check(folder) for folder in folders]
    errors = any(d.is_error for r in reports for d in r.diagnostics)
    failed = errors or not all(r.valid for r in reports)
    if fmt == "json":
        payload = {"skills": [r.to_dict() for r in reports], "summary": _summary(reports)}
        bad = sum(not r.valid or any(d.is_error for d in r.diagnostics) for r in reports)
        found = skilldeck.FindingsError(
            f"{bad} of {len(reports)} skills have errors",
            hint="each skill's diagnostics say what to fix",
        )
        echo_json(payload, error=found if failed else None)
    else:
        _render_text(reports, verb)
    sys.exit(EXIT_FINDINGS if failed else EXIT_OK)


_PATHS = click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))


# --- validate / lint -----------------------------------------------------------


@main.command()
@click.option("--strict", is_flag=True, help="Apply the Agent Skills specification exactly.")
@format_option
@_PATHS
def validate(strict: bool, fmt: str, paths: tuple[str, ...]) -> None:
    """Check skills against the Agent Skills specification.

    PATH is a skill folder, a SKILL.md file, or any folder (every skill below it
    is checked). Default mode is lenient: what real skills do is accepted and
    reported as warnings. Exit status: 0 no errors, 1 errors, 2 usage or I/O problem.
    """
    _run_checks(paths, lambda p: skilldeck.validate_skill(p, strict=strict), fmt, "validated")


@main.command()
@click.option(
    "--catalog",
    "catalog_roots",
    multiple=True,
    type=click.Path(file_okay=False, path_type=str),
    help="Report on a whole catalog's routing (repeatable ROOT, searched at any depth).",
)
@format_option
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
def lint(catalog_roots: tuple[str, ...], fmt: str, paths: tuple[str, ...]) -> None:
    """Validate skills and check their style and quality.

    Adds lint findings (SK3xx: long bodies, descriptions that do not say when to
    use the skill, broken file references, unmentioned scripts, tools missing from
    allowed-tools) to lenient validation. Lint findings never fail the run; only
    validation errors give exit status 1. With --catalog ROOT, reports what makes
    routing fail across the skills below ROOT instead: identical and
    near-identical descriptions (with a suggested disambiguation), template
    descriptions, missing when / not-for clauses, colliding names.
    """
    if catalog_roots:
        from skilldeck.cli._routing import lint_catalog_command

        lint_catalog_command(catalog_roots, True, fmt)
        return
    if not paths:
        raise click.UsageError("give a skill PATH to lint, or --catalog ROOT")
    _run_checks(paths, skilldeck.lint_skill, fmt, "linted")


# --- show ----------------------------------------------------------------------


@main.command()
@click.argument(
    "skill",
    metavar="NAME|PATH",
    type=click.Path(path_type=str),
    shell_complete=complete_skill_names_or_paths,
)
@root_option
@recursive_option
@format_option
@store_options
def show(skill: str, roots: tuple[str, ...], recursive: bool, fmt: str) -> None:
    """Show one skill's parsed properties and its diagnostics.

    NAME is a skill the catalog lists (as `skilldeck list` shows it, or as the
    --root folders hold it); PATH a skill folder or its SKILL.md. Exit status 1
    when the skill is invalid.
    """
    show_skill(skill, fmt, use_colour(), roots=roots, recursive=recursive)


# --- new -----------------------------------------------------------------------


def _parse_resources(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    chosen = [part.strip() for part in value.split(",") if part.strip()]
    unknown = [part for part in chosen if part not in skilldeck.format.RESOURCE_FOLDERS]
    if unknown:
        raise click.BadParameter(
            f"unknown resource folder(s): {skilldeck.shown_text(', '.join(unknown))}; choose from "
            + ",".join(skilldeck.format.RESOURCE_FOLDERS),
            param_hint="--resources",
        )
    return tuple(chosen)


@main.command()
@click.argument("name")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=str),
    default=None,
    help="Folder to create the skill in (default: .agents/skills of the project, "
    "where skilldeck and other agents find it).",
)
@click.option(
    "--resources",
    default=None,
    metavar="LIST",
    help="Comma-separated resource folders to add: scripts,references,assets.",
)
@format_option
def new(name: str, directory: str | None, resources: str | None, fmt: str) -> None:
    """Create a new skill folder NAME with a SKILL.md to fill in.

    Without --dir the skill goes in .agents/skills at the project root (the
    repository holding the current folder, else the current folder), which
    `skilldeck list` and other agents read. `skilldeck lint` flags the
    placeholder description until you replace it.
    """
    chosen = _parse_resources(resources)
    if not name or Path(name).name != name:
        raise click.BadParameter(
            "give a bare name; use --dir for the parent folder", param_hint="NAME"
        )
    if directory is None:
        from skilldeck.config import project_base

        directory = str(project_base() / ".agents" / "skills")
    target = Path(directory) / name
    try:
        skilldeck.scaffold_skill(target, resources=chosen)
    except skilldeck.InvalidArgumentsError as exc:
        raise click.BadParameter(
            f"{exc.message} ({exc.hint})" if exc.hint else exc.message, param_hint="NAME"
        ) from exc
    except skilldeck.InstallError as exc:
        raise click.UsageError(f"{exc.message}; {exc.hint}") from exc
    shown = _relative(target)
    visible = _catalog_sees(name, target)
    if fmt == "json":
        payload = {
            "path": str(target),
            "files": ["SKILL.md", *skill_files(target)],
            "visible": visible,
        }
        echo_json(payload)
        return
    click.echo(f"created {shown}")
    for rel in ["SKILL.md", *skill_files(target)]:
        click.echo(f"  {rel}")
    click.echo(f"next: edit {shown}/SKILL.md, then run: {hint_command('lint', shown)}")
    if not visible:
        listing = hint_command("list", "--root", target.parent)
        click.echo(
            f"note: skilldeck does not look in {target.parent}; move the skill to "
            f".agents/skills of your project, or run: {listing}"
        )


def _relative(path: Path) -> str:
    """``path`` relative to the current folder when inside it (shorter to paste)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


def _catalog_sees(name: str, target: Path) -> bool:
    """The default catalog lists the new skill from ``target``."""
    try:
        entries = skilldeck.Catalog.default().entries()
    except skilldeck.SkillError:
        return False
    real = target.resolve()
    return any(e.path is not None and e.path.resolve() == real for e in entries)
