"""The body of ``skilldeck show`` and the diagnostic lines it shares with ``validate`` and
``lint``, without click: ``_author`` registers the commands, and ``_plain`` runs a bare
``show NAME`` (or ``show NAME --json``) through ``show_skill`` without click at all.
Click is imported only to colour text that will be shown in colour, and to report a
usage problem."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import skilldeck
import skilldeck.format
from skilldeck.cli._plain import (
    EXIT_FINDINGS,
    EXIT_OK,
    echo,
    echo_json,
    styler,
    usage_error,
)
from skilldeck.cli._stored import stored_copy

__all__ = ["format_diagnostic", "plural", "show_skill", "skill_dirs", "skill_files"]

_SEVERITY_COLOUR = {"error": "red", "warning": "yellow", "info": "cyan"}


def skill_dirs(paths: Sequence[str]) -> list[Path]:
    """Every skill folder named by ``paths``, in order, without repeats.

    A path that does not exist is a usage problem (exit 2). A folder with no skill
    anywhere below is kept as is, so validation reports its missing SKILL.md.
    """
    out: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if not os.path.lexists(path):
            raise usage_error(f"{raw}: no such file or folder")
        try:
            found = skilldeck.find_skill_dirs(path)
        except OSError as exc:
            raise usage_error(f"{raw}: {exc.strerror or exc}") from exc
        if not found:
            if not path.is_dir():
                raise usage_error(f"{raw}: not a skill folder, SKILL.md file or folder")
            found = [path]
        for folder in found:
            key = folder.resolve()
            if key not in seen:
                seen.add(key)
                out.append(folder)
    return out


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def format_diagnostic(
    diag: skilldeck.Diagnostic, fallback_path: str, style: Callable[..., str]
) -> str:
    """``path:line:col: CODE severity: message`` and its hint, styled by ``style``
    (``click.style``, or ``_plain.styler``'s choice)."""
    loc = diag.path or fallback_path
    if diag.line is not None:
        loc += f":{diag.line}"
        if diag.column is not None:
            loc += f":{diag.column}"
    severity = diag.severity.value
    head = (
        f"{style(loc, bold=True)}: {style(diag.code, bold=True)} "
        f"{style(severity, fg=_SEVERITY_COLOUR[severity])}: {diag.message}"
    )
    if diag.hint:
        hint = diag.hint.replace("\n", "\n          ")
        head += f"\n    {style('hint:', fg='green')} {hint}"
    return head


def skill_files(folder: Path) -> list[str]:
    """The skill's files other than SKILL.md, relative, sorted: the walker's set, so
    exactly what is served (no hidden files, compiled caches, links leaving the
    folder, special files or names that are not UTF-8)."""
    from skilldeck import walk_skill

    if not folder.is_dir():
        return []
    try:
        walk = walk_skill(folder, strict=False)
    except skilldeck.SkillError:
        return []
    return [p for p in walk.paths if p not in ("SKILL.md", "skill.md")]


def show_skill(
    skill: str,
    fmt: str,
    colour: bool | None,
    *,
    roots: Sequence[str] = (),
    recursive: bool = False,
) -> None:
    """``skilldeck show NAME|PATH``: one skill's parsed properties and diagnostics;
    exits with status 1 when the skill is invalid. ``colour`` is ``click.echo``'s;
    a NAME is looked up in the ``roots`` folders when given, else in the catalog."""
    stored = stored_copy(skill)  # --store URL --tenant T: the stored version's files
    path = stored or (skill if os.path.lexists(skill) else _path_of(skill, roots, recursive))
    given = Path(path)
    if given.is_dir() and any(os.path.lexists(given / n) for n in ("SKILL.md", "skill.md")):
        folders = [given]  # a skill folder, even if other skills are nested inside it
    else:
        folders = skill_dirs([path])
    if len(folders) != 1:
        raise usage_error(
            f"{path} holds {len(folders)} skills; name one of them: "
            + ", ".join(str(f) for f in folders[:5])
            + (" ..." if len(folders) > 5 else "")
        )
    report = skilldeck.validate_skill(folders[0])
    files = skill_files(report.path)
    body = report.body or ""
    body_lines = len(body.splitlines())
    if fmt == "json":
        data = report.to_dict()
        data["skill_md"] = None if report.skill_md is None else str(report.skill_md)
        data["manifest"] = None if report.manifest is None else _manifest_json(report.manifest)
        data["body_lines"] = body_lines
        data["files"] = files
        data["tools"] = [
            {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.input_schema(),
                "command": tool.command.raw,
                "line": tool.line,
            }
            for tool in _declared(report)
        ]
        invalid = skilldeck.FindingsError(
            f"{report.path} is not a valid skill", hint="its diagnostics say what to fix"
        )
        echo_json(data, error=None if report.valid else invalid)
    else:
        _show_text(report, files, body_lines, colour)
    sys.exit(EXIT_OK if report.valid else EXIT_FINDINGS)


def _declared(report: skilldeck.ValidationReport) -> tuple[skilldeck.format.DeclaredTool, ...]:
    """The command tools the body declares (those the run of a loaded skill offers);
    their problems are among the report's diagnostics already."""
    if report.manifest is None or "####" not in (report.body or ""):
        return ()  # no '#### Command' heading: the tool parser is not even imported
    return skilldeck.format.parse_declared_tools(report.body, body_line=report.body_line)[0]


def _tool_text(tool: skilldeck.format.DeclaredTool) -> str:
    """``name(required, optional?)``: one declared tool in a line of ``show``."""
    params = ", ".join(p.name + ("" if p.required else "?") for p in tool.parameters)
    return f"{tool.name}({params})"


def _path_of(name: str, roots: Sequence[str], recursive: bool) -> str:
    """The folder of the skill the catalog (of ``roots``, if any) lists as ``name``
    (any status)."""
    if "/" in name or os.sep in name:
        raise usage_error(f"{name}: no such file or folder")
    if roots:
        from skilldeck.cli._listing import open_catalog

        catalog = open_catalog(roots, recursive)
    else:
        catalog = skilldeck.Catalog.default()
    matches = [e for e in catalog.entries() if e.name == name]
    if not matches:
        raise skilldeck.SkillNotFoundError(
            f"no skill named {name!r} and no such path",
            skill=name,
            hint="see `skilldeck list --all` for the names, or give a skill folder's path",
        )
    visible = [e for e in matches if e.visible] or matches
    folder = visible[0].path
    if folder is None:
        raise usage_error(f"{name}: the catalog has no folder for it")
    return str(folder)


def _manifest_json(manifest: skilldeck.Manifest) -> dict[str, Any]:
    requires = manifest.requires
    return {
        "name": manifest.name,
        "description": manifest.description,
        "license": manifest.license,
        "compatibility": manifest.compatibility,
        "allowed_tools": (
            None if manifest.allowed_tools is None else [t.raw for t in manifest.allowed_tools]
        ),
        "metadata": skilldeck.json_safe(manifest.metadata),
        "version": manifest.version,
        "author": manifest.author,
        "tags": list(manifest.tags),
        "requires": {
            "commands": list(requires.commands),
            "env": list(requires.env),
            "other": skilldeck.json_safe(requires.other),
        },
        "modes": None if manifest.modes is None else list(manifest.modes),
        "read_only": manifest.read_only,
        "always_ask": manifest.always_ask,
        "timeout": manifest.timeout,
        "network": manifest.network,
        "triggers": None
        if manifest.triggers is None
        else {
            "keywords": list(manifest.triggers.keywords),
            "verbs": list(manifest.triggers.verbs),
            "patterns": list(manifest.triggers.patterns),
        },
        "extra": skilldeck.json_safe(manifest.extra),
        "frontmatter": skilldeck.json_safe(manifest.frontmatter),
    }


def _show_text(
    report: skilldeck.ValidationReport, files: list[str], body_lines: int, colour: bool | None
) -> None:
    style = styler(colour)
    rows: list[tuple[str, str]] = [("path", str(report.path))]
    manifest = report.manifest
    if manifest is not None:
        rows += [("name", manifest.name), ("description", manifest.description)]
        optional: list[tuple[str, Any]] = [
            ("license", manifest.license),
            ("compatibility", manifest.compatibility),
            (
                "allowed-tools",
                None
                if manifest.allowed_tools is None
                else " ".join(t.raw for t in manifest.allowed_tools),
            ),
            ("version", manifest.version),
            ("author", manifest.author),
            ("tags", ", ".join(manifest.tags)),
            ("requires", " ".join((*manifest.requires.commands, *manifest.requires.env))),
            ("modes", ", ".join(manifest.modes or ())),
            ("read_only", "yes" if manifest.read_only else None),
            ("always_ask", "yes" if manifest.always_ask else None),
            ("timeout", None if manifest.timeout is None else f"{manifest.timeout} s"),
            ("network", "yes" if manifest.network else None),
        ]
        rows += [(k, str(v)) for k, v in optional if v]
        for key, value in manifest.metadata.items():
            rows.append((f"metadata.{key}", str(value)))
        for key, value in manifest.extra.items():
            rows.append((f"{key} (extra)", str(value)))
    elif report.name:
        rows.append(("name", report.name))
    tokens = skilldeck.format.estimate_tokens(report.body or "")
    rows.append(("body", f"{plural(body_lines, 'line')}, about {tokens:,} tokens"))
    rows.append(("files", ", ".join(files) if files else "(none)"))
    tools = _declared(report)
    if tools:
        rows.append(("tools", ", ".join(_tool_text(t) for t in tools)))
    rows.append(("valid", "yes" if report.valid else "no"))
    width = max(len(k) for k, _ in rows) + 1
    for key, value in rows:
        label = style(f"{key + ':':<{width}}", bold=True)
        echo(f"{label} {skilldeck.shown_text(value)}", color=colour)
    fallback = str(report.skill_md or report.path)
    for diag in report.diagnostics:
        echo(format_diagnostic(diag, fallback, style), color=colour)
