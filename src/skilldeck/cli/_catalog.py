"""Catalog commands: why, prompt, load, read, enable, disable, doctor (``list`` is ``_list``'s)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

import skilldeck
from skilldeck.cli._app import (
    EXIT_FINDINGS,
    complete_skill_names,
    echo_json,
    format_option,
    formats_option,
    main,
    recursive_option,
    root_option,
)
from skilldeck.cli._listing import open_catalog
from skilldeck.cli._stored import store_options

if TYPE_CHECKING:
    import skilldeck.dist


def _include_location() -> bool:
    """``[runtime] include_location`` (read without importing the runtime)."""
    return skilldeck.load_config().runtime.get("include_location") is True


@main.command()
@click.argument("name", shell_complete=complete_skill_names)
@root_option
@recursive_option
@format_option
def why(name: str, roots: tuple[str, ...], recursive: bool, fmt: str) -> None:
    """Explain why a skill is, or is not, the one the model sees."""
    catalog = open_catalog(roots, recursive)
    lines = catalog.why(name)
    visible = any(line.kind == "visible" for line in lines)
    if fmt == "json":
        failed = None
        if not visible:
            failed = skilldeck.FindingsError(
                f"{name} is not the skill the model sees", hint="the lines say why"
            )
        echo_json(
            {"name": name, "visible": visible, "lines": [x.to_dict() for x in lines]},
            error=failed,
        )
    else:
        for line in lines:
            click.echo(f"{line.kind}: {line.message}")
            if line.hint and line.kind != "visible":
                click.echo(f"    hint: {line.hint}")
    if not visible:
        sys.exit(EXIT_FINDINGS)


@main.command()
@root_option
@recursive_option
@formats_option("xml", "markdown", "json", "compact")
@click.option(
    "--budget",
    help="Size limit: characters (e.g. 4000) or tokens (e.g. '1000 tokens'). "
    "Default: [catalog] budget, else none.",
)
@click.option(
    "--location/--no-location",
    default=None,
    help="Include each SKILL.md's absolute path. Default: [runtime] include_location.",
)
@click.option("--empty", is_flag=True, help="Print the empty element when there are no skills.")
def prompt(
    roots: tuple[str, ...],
    recursive: bool,
    fmt: str,
    budget: str | None,
    location: bool | None,
    empty: bool,
) -> None:
    """Print the skill list exactly as a host puts it in the system prompt.

    Formats: xml (default), markdown, json, or compact (a short function list
    for small local models).
    """
    try:
        chosen = skilldeck.Budget.parse(budget) if budget is not None else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--budget") from None
    catalog = open_catalog(roots, recursive)
    if fmt == "compact":
        limit = chosen if chosen is not None else catalog.config.budget
        from skilldeck.adapters import render_compact_catalog

        options = skilldeck.RuntimeOptions.from_config()  # the tools as a server offers them
        runtime = skilldeck.SkillRuntime(catalog, options=options)
        text = render_compact_catalog(
            catalog,
            native_tools=runtime.tool_specs(runtime.session()),
            budget=limit.chars if limit is not None else None,
        )
        click.echo(text)
        return
    text = skilldeck.render_skills(
        catalog.list(),
        format=fmt,  # type: ignore[arg-type]
        budget=chosen if chosen is not None else catalog.config.budget,
        pinned=catalog.config.pinned,
        include_location=_include_location() if location is None else location,
        empty="element" if empty else "nothing",
    )
    if fmt == "json":  # the rendered list is the envelope's data
        import json

        echo_json(json.loads(text) if text else {"skills": []})
    elif text:
        click.echo(text)


@main.command()
@click.argument("name", shell_complete=complete_skill_names)
@root_option
@store_options
@recursive_option
@click.option("--max-bytes", type=click.IntRange(min=1), help="Read at most this much of SKILL.md.")
@click.option(
    "--all-files", is_flag=True, help="List every file, not only scripts/, references/, assets/."
)
@format_option
def load(
    name: str,
    roots: tuple[str, ...],
    recursive: bool,
    max_bytes: int | None,
    all_files: bool,
    fmt: str,
) -> None:
    """Print a skill's instructions and the list of its bundled files."""
    catalog = open_catalog(roots, recursive)
    skill = catalog.load(name, max_bytes=max_bytes, index="all" if all_files else None)
    files = skill.files
    from skilldeck.disclosure import skill_payload

    payload = skill_payload(skill)
    if fmt == "json":
        echo_json(payload)
        return
    click.echo(skill.body.rstrip("\n"))
    if skill.body_truncated:
        click.echo(f"\n[truncated: SKILL.md is longer than {max_bytes} bytes]", err=True)
    if files:
        click.echo("\nFiles:\n" + "\n".join(f"  {f}" for f in files))


@main.command()
@click.argument("name", shell_complete=complete_skill_names)
@click.argument("path")
@root_option
@store_options
@recursive_option
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=200_000,  # the default limit of a file read
    show_default=True,
    help="Size limit.",
)
@click.option("--truncate", is_flag=True, help="Over the limit, return the first bytes.")
@click.option(
    "--all-files", is_flag=True, help="Allow any file of the skill, not only bundled dirs."
)
@format_option
def read(
    name: str,
    path: str,
    roots: tuple[str, ...],
    recursive: bool,
    max_bytes: int,
    truncate: bool,
    all_files: bool,
    fmt: str,
) -> None:
    """Print one bundled file of a skill (binary files as base64 in JSON)."""
    catalog = open_catalog(roots, recursive)
    try:
        content = skilldeck.read_skill_file(
            catalog,
            name,
            path,
            max_bytes=max_bytes,
            oversize="truncate" if truncate else "error",
            index="all" if all_files else None,
        )
    except skilldeck.FileTooLargeError as exc:
        # the library's hint names no command: these options of this one read the file
        from skilldeck.config import hint_command, root_flags

        again = hint_command("read", name, path) + root_flags(roots, recursive=recursive)
        again += " --all-files" if all_files else ""
        size = exc.context.get("size")
        exc.hint = f"print its first {max_bytes} bytes: {again} --truncate" + (
            f"; or all of it: {again} --max-bytes {size}" if isinstance(size, int) else ""
        )
        raise
    if fmt == "json":
        out = content.to_dict()
        out["warnings"] = [dict(w) for w in content.warnings]
        echo_json(out)
        return
    for w in content.warnings:
        click.echo(f"warning: {w['message']}", err=True)
    if content.encoding == "base64":
        import base64

        sys.stdout.buffer.write(base64.b64decode(content.text))
        sys.stdout.flush()
    else:
        click.echo(content.text, nl=not content.text.endswith("\n"))


def _set_enabled(name: str, enabled: bool, scope: str, fmt: str) -> None:
    from skilldeck.dist import set_skill_enabled

    path = set_skill_enabled(name, enabled, scope=scope)  # type: ignore[arg-type]
    config = skilldeck.load_config()
    effective = name not in config.disabled
    verb = "enabled" if enabled else "disabled"
    if fmt == "json":
        echo_json({"name": name, "enabled": enabled, "config": str(path)})
    else:
        click.echo(f"{verb} {name} in {path}")
    if enabled and not effective:
        other = config.project_file or config.user_file
        click.echo(
            f"note: {name} is still disabled by {other}; run with --scope project",
            err=True,
        )
    bare = name.rpartition(":")[2]  # SOURCE:NAME names one copy
    if not any(e.name == bare for e in skilldeck.Catalog.default().entries()):
        click.echo(  # most often a typo: the setting is kept for a skill added later
            f"note: no skill named {bare!r} is in the catalog; the setting applies if one "
            "is added (see the names with `skilldeck list --all`)",
            err=True,
        )


_scope = click.option(
    "--scope",
    type=click.Choice(["user", "project"]),
    default="user",
    show_default=True,
    help="Which config file to change.",
)


@main.command()
@click.argument("name", shell_complete=complete_skill_names)
@_scope
@format_option
def enable(name: str, scope: str, fmt: str) -> None:
    """Enable a skill that the config disables (atomic write; comments kept)."""
    _set_enabled(name, True, scope, fmt)


@main.command()
@click.argument("name", shell_complete=complete_skill_names)
@_scope
@format_option
def disable(name: str, scope: str, fmt: str) -> None:
    """Disable a skill by name (or SOURCE:NAME) in the config file."""
    _set_enabled(name, False, scope, fmt)


@main.command()
@root_option
@recursive_option
@format_option
def doctor(roots: tuple[str, ...], recursive: bool, fmt: str) -> None:
    """Check the catalog: roots, invalid and unavailable skills, shadowing, budget."""
    from skilldeck.catalog import diagnose
    from skilldeck.execution import execution_status, packages_report

    catalog = open_catalog(roots, recursive)
    report = diagnose(catalog)
    execution = execution_status()  # what `skilldeck run` would do here
    drift = _installed_drift()
    packages = packages_report(
        (e.name, e.path) for e in catalog.entries(include_shadowed=False) if e.path is not None
    )
    missing = [row for row in packages["skills"] if not row.get("installed")]
    failed = bool(report.errors or execution.errors or drift)
    if fmt == "json":
        echo_json(
            {
                **report.to_dict(),
                "execution": execution.to_dict(),
                "installed_drift": drift,
                "packages": packages,
            },
            error=skilldeck.FindingsError(
                "doctor found problems", hint="the report in data says what and how to fix it"
            )
            if failed
            else None,
        )
    else:
        lines = report.lines()
        summary = lines.pop()  # "no problems found" / "N problem(s)": said last
        for line in lines:
            click.echo(line)
        for item in drift:
            click.echo(
                f"error: installed skill {item['name']} ({item['scope']}): {item['problem']}"
            )
            if item.get("hint"):  # a scope that cannot be read: update would fail too
                click.echo(f"hint: {item['hint']}")
        if any(not item.get("hint") for item in drift):
            click.echo(
                "hint: `skilldeck update` puts installed skills and their agent folders back"
            )
        if drift:
            drifted = f"installed: {len(drift)} drifted"
            summary = f"{summary}; {drifted}" if report.errors else drifted
        click.echo("execution (skilldeck run):")
        for line in execution.lines():
            click.echo("  " + line)
        if execution.findings:
            warnings = len(execution.findings) - execution.errors
            summary += f"; execution: {execution.errors} error(s), {warnings} warning(s)"
        if packages["skills"]:
            click.echo(f"python packages (uv: {packages['uv'] or 'not installed'}):")
            for row in packages["skills"]:
                if "error" in row:
                    click.echo(f"  ✗ {row['name']}: {row['error']}")
                    continue
                mark = "✓" if row["installed"] else "✗"
                wanted = " ".join(row["requirements"])
                click.echo(f"  {mark} {row['name']}: {row['origin']}: {wanted}")
                if row["hint"]:
                    click.echo(f"    hint: {row['hint']}")
            if missing:
                summary += f"; packages: {len(missing)} not installed"
        click.echo(summary)
    if failed:
        sys.exit(EXIT_FINDINGS)


def _installed_drift() -> list[dict[str, str | None]]:
    """Installed skills (both scopes) that differ from the lockfile, or whose agent
    folders drifted (a changed copy, a dangling link); a scope whose lockfile cannot
    be read is one item named ``*``, with the error's hint."""
    from skilldeck.dist import verify

    out: list[dict[str, str | None]] = []
    for scope in ("user", "project"):
        try:
            report = verify(scope=scope)
        except skilldeck.SkillError as exc:
            out.append({"name": "*", "scope": scope, "problem": exc.message, "hint": exc.hint})
            continue
        for check in report.skills:
            if not check.ok:
                out.append({"name": check.name, "scope": scope, "problem": check.problem or ""})
    return out
