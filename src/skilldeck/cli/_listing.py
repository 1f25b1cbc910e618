"""The body of ``skilldeck list`` and the catalog a command opens, without click:
``_list`` registers the command, and ``_plain`` runs a bare ``list`` / ``list --json``
through ``list_skills`` without click at all."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import skilldeck
from skilldeck.cli._plain import echo, echo_json_rows, looked_in
from skilldeck.cli._stored import active_catalog
from skilldeck.config import root_flags

if TYPE_CHECKING:
    import skilldeck.dist

__all__ = ["list_skills", "one_line", "open_catalog"]

_SYMBOL = {
    skilldeck.SkillStatus.ENABLED: "✓",
    skilldeck.SkillStatus.DISABLED: "○",
    skilldeck.SkillStatus.UNAVAILABLE: "✗",
    skilldeck.SkillStatus.INVALID: "✗",
    skilldeck.SkillStatus.SHADOWED: "·",
}


def open_catalog(roots: Sequence[str], recursive: bool = False) -> skilldeck.Catalog:
    """The catalog a command works on: the store's (``--store``), else the ``--root``
    folders', else the configured sources'."""
    stored = active_catalog()  # --store URL --tenant T
    if stored is not None:
        return stored
    config = skilldeck.load_config()
    if roots:
        looked_in(roots, recursive)  # a hint's pasted command must look there too
        return skilldeck.Catalog.from_roots(roots, recursive=recursive, config=config)
    return skilldeck.Catalog.default(config=config)


def one_line(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` (0: not cut; at least 40 when cut), with
    the control characters a skill may hold escaped (an escape sequence in a
    description would otherwise reach the terminal)."""
    text = skilldeck.shown_text(" ".join(text.split()))
    width = max(width, 40) if width else 0
    return text if not width or len(text) <= width else text[: width - 1] + "…"


def list_skills(
    roots: Sequence[str], *, recursive: bool, show_all: bool, installed: bool, fmt: str
) -> None:
    """``skilldeck list``: the catalog's skills, one line each (or the JSON envelope)."""
    catalog = open_catalog(roots, recursive)
    kinds = {s.name: s.kind for s in catalog.sources}
    for diag in catalog.diagnostics:  # roots that are files, unreadable, escaping links
        if diag.severity is not skilldeck.Severity.INFO:
            echo(f"{diag.severity.value}: {diag.code} {diag.message}", err=True)
    entries = [
        e
        for e in catalog.entries(include_shadowed=show_all)
        if not installed or kinds.get(e.source) == "installed"
    ]
    placed = _installed_by_folder()
    if fmt == "json":

        def rows() -> Iterator[dict[str, Any]]:
            for e in entries:
                row = e.to_dict()
                info = placed.get(_real(e.metadata.folder)) if placed else None
                if info is not None:
                    row["scope"] = info.scope
                    if info.agents:
                        row["agents"] = list(info.agents)
                yield row

        echo_json_rows({}, "skills", rows())  # streamed: 100,000 rows never exist at once
        return
    if not entries:
        again = "skilldeck doctor" + root_flags(roots, recursive=recursive)
        echo(f"no skills found (run `{again}` to see where skilldeck looked)")
        return
    width = min(max(len(e.name) for e in entries), 32)
    infos = [placed.get(_real(e.metadata.folder)) if placed else None for e in entries]
    sources = [
        e.source if i is None else f"{e.source} ({i.scope})"
        for e, i in zip(entries, infos, strict=True)
    ]
    swidth = min(max(len(s) for s in sources), 20)
    # on a terminal a line fits its width; into a pipe or file nothing is cut
    room = _columns() - width - swidth - 6 if sys.stdout.isatty() else 0
    lines: list[str] = []  # written 1,000 at a time: an echo per line costs more than listing
    for e, info, source in zip(entries, infos, sources, strict=True):
        if e.status is skilldeck.SkillStatus.ENABLED:
            detail = one_line(e.metadata.description, room)
        elif e.status is skilldeck.SkillStatus.SHADOWED:
            detail = f"shadowed by {e.shadowed_by}"
        else:
            detail = f"{e.status.value}: {one_line(e.reason or '', room)}"
        if info is not None and info.agents:
            detail += f"  [agents: {', '.join(info.agents)}]"
        lines.append(f"{_SYMBOL[e.status]} {e.name:<{width}}  {source:<{swidth}}  {detail}")
        if len(lines) == 1000:
            echo("\n".join(lines))
            lines.clear()
    if lines:
        echo("\n".join(lines))


def _columns() -> int:
    """The terminal's width (``COLUMNS`` first)."""
    import shutil  # a listing into a pipe never asks; shutil costs start-up time

    return shutil.get_terminal_size().columns


def _real(folder: str | None) -> str:
    return os.path.realpath(folder) if folder is not None else ""


def _installed_by_folder() -> dict[str, skilldeck.dist.InstalledInfo]:
    """Installed skills' folders (both scopes) -> what ``list_installed`` says of them."""
    from skilldeck.config import PROJECT_DIR, install_base, project_base

    # no lockfile in either scope (the layout of skilldeck.dist): nothing is installed,
    # and the installer need not be imported
    try:
        lockfiles = (install_base() / "skills.lock", project_base() / PROJECT_DIR / "skills.lock")
        if not any(os.path.lexists(p) for p in lockfiles):
            return {}
    except OSError:
        pass  # list_installed reports it
    from skilldeck.dist import list_installed

    try:
        infos = list_installed()
    except skilldeck.SkillError:
        return {}  # a damaged lockfile is reported by verify and doctor
    return {os.path.realpath(i.path): i for i in infos}
