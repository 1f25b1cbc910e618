"""``why NAME``: one line per candidate or near miss, with the reason it is (not) visible."""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import hint_command
from skilldeck._tree import PLACEHOLDER, REPOSITORY_DEPTH, SkillFinder
from skilldeck.catalog import _codes as C
from skilldeck.catalog._model import CatalogEntry, SkillStatus
from skilldeck.catalog._resolve import same_name_hint

if TYPE_CHECKING:
    from skilldeck.catalog._catalog import Catalog

__all__ = ["WhyLine", "explain"]

_PARSE_CODES = ("SK1",)
_NAME_CODES = frozenset({"SK202", "SK203", "SK204", "SK205"})
_PROBE_DEPTH = 6
_PROBE_DIRS = 2_000
_HIDDEN = {  # status -> (kind, words before the reason, hint template)
    SkillStatus.SHADOWED: ("shadowed", "", "address it as {address}, or remove the other copy"),
    SkillStatus.DISABLED: ("disabled", "", "run: {enable}"),
    SkillStatus.UNAVAILABLE: (
        "unavailable",
        "unavailable: ",
        "install what it requires, or set the variables",
    ),
}


@dataclass(frozen=True, slots=True)
class WhyLine:
    """One line of ``why``: a candidate (or a near miss) and why it is (not) visible.

    ``kind`` is stable for programs: ``visible``, ``shadowed``, ``disabled``,
    ``unavailable``, ``invalid``, ``invalid_name``, ``parse_error``,
    ``escaped_symlink``, ``dangling_symlink``, ``wrong_depth``, ``over_budget``,
    ``duplicate``, ``placeholder`` (a template, SK219), ``not_found``.
    """

    kind: str
    message: str
    source: str | None = None
    path: Path | None = None
    status: SkillStatus | None = None
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "source": self.source,
            "path": str(self.path) if self.path is not None else None,
            "status": self.status.value if self.status is not None else None,
            "hint": self.hint,
        }


def _status_line(entry: CatalogEntry) -> WhyLine:
    if entry.status is SkillStatus.ENABLED:
        where = f"{entry.address} at {entry.path}" if entry.path else entry.address
        return WhyLine("visible", f"{where} is visible", entry.source, entry.path, entry.status)
    hidden = _HIDDEN.get(entry.status)
    if hidden is not None:
        kind, state, hint = hidden
        if entry.shadowed_by == entry.address:  # its address names the other copy
            hint = same_name_hint(entry.path)
        else:
            hint = hint.format(address=entry.address, enable=hint_command("enable", entry.name))
        return WhyLine(
            kind,
            f"{entry.address} at {entry.path} is {state}{entry.reason}",
            entry.source,
            entry.path,
            entry.status,
            hint,
        )
    errors = [d for d in entry.diagnostics if d.is_error]
    kind = "invalid"
    if errors and errors[0].code.startswith(_PARSE_CODES):
        kind = "parse_error"
    elif errors and errors[0].code in _NAME_CODES:
        kind = "invalid_name"
    first = errors[0] if errors else None
    return WhyLine(
        kind,
        f"{entry.address} at {entry.path} is invalid: {entry.reason}",
        entry.source,
        entry.path,
        entry.status,
        (first.hint if first and first.hint else f"run: {hint_command('validate', entry.path)}"),
    )


def _warnings(entry: CatalogEntry) -> list[WhyLine]:
    out = []
    for d in entry.diagnostics:
        if d.code in _NAME_CODES and not d.is_error:
            out.append(
                WhyLine(
                    "invalid_name",
                    f"{entry.address}: {d.message} (accepted in lenient mode)",
                    entry.source,
                    entry.path,
                    entry.status,
                    d.hint,
                )
            )
    return out


def _link_lines(name: str, diags: Sequence[Diagnostic]) -> list[WhyLine]:
    kinds = {
        C.LINK_ESCAPES: "escaped_symlink",
        C.LINK_DANGLING: "dangling_symlink",
        C.LINK_LOOP: "escaped_symlink",
        C.LINK_DUPLICATE: "duplicate",
        C.NOT_A_SKILL_FILE: "parse_error",
    }
    out = []
    for d in diags:
        if d.code == PLACEHOLDER and d.path is not None and f"'{name}'" in d.message:
            out.append(WhyLine("placeholder", d.message, None, Path(d.path), None, d.hint))
            continue
        kind = kinds.get(d.code)
        if kind is None or d.path is None:
            continue
        p = Path(d.path)
        if name in (p.name, p.parent.name):
            out.append(WhyLine(kind, d.message, None, p, None, d.hint))
    return out


def _depth_probe(catalog: Catalog, name: str) -> list[WhyLine]:
    """Folders named ``name`` holding SKILL.md below the depth an immediate root scans
    (found by the one discovery, searching a few levels down)."""
    out = []
    for src, root, store in catalog._stores:
        if root is None or root.recursive or store.folder_root() is None:
            continue
        base = str(root.path)
        if not os.path.isdir(base):
            continue
        finder = SkillFinder(
            base,
            recursive=True,
            max_depth=_PROBE_DEPTH,
            max_dirs=_PROBE_DIRS,
            repository=root.repository,
        )
        try:
            found = finder.find()  # the first _PROBE_DIRS folders of a large root
        except OSError:
            continue
        listed = {m.folder for m in store.discover().skills}
        how = (
            f"searched as a repository ({REPOSITORY_DEPTH} levels, not inside skills)"
            if root.repository
            else "scanned immediate (one level)"
        )
        for folder, *_rest in found:
            depth = os.path.relpath(folder, base).count(os.sep) + 1
            if depth < 2 or os.path.basename(folder) != name or folder in listed:
                continue
            out.append(
                WhyLine(
                    "wrong_depth",
                    f"{folder} holds a SKILL.md {depth} levels below root {base} "
                    f"(source {src.name}), which is {how}",
                    src.name,
                    Path(folder),
                    None,
                    "move the folder up to the root, or add its parent as a root "
                    "(or make the root recursive: [catalog] recursive)",
                )
            )
    return out


def explain(
    catalog: Catalog,
    name: str,
    candidates: Sequence[CatalogEntry],
    entries: Sequence[CatalogEntry],
    diagnostics: Sequence[Diagnostic],
) -> list[WhyLine]:
    lines: list[WhyLine] = []
    for entry in candidates:
        lines.append(_status_line(entry))
        lines.extend(_warnings(entry))
        for dup in entry.duplicates:
            lines.append(
                WhyLine(
                    "duplicate",
                    f"{dup} is byte-identical to {entry.address}; the copies count as one",
                    None,
                    dup,
                    None,
                )
            )
    # folders named NAME whose SKILL.md declares another name (or is invalid)
    for entry in entries:
        if entry.path is not None and entry.path.name == name and entry.name != name:
            declared = entry.metadata.name
            lines.append(
                WhyLine(
                    "invalid_name",
                    f"folder {entry.path} declares the name {declared!r}, not {name!r}",
                    entry.source,
                    entry.path,
                    entry.status,
                    f"set 'name: {name}' in its SKILL.md (the name must equal the folder name)",
                )
            )
    lines.extend(_link_lines(name, diagnostics))
    if not any(line.kind == "visible" for line in lines):
        lines.extend(_depth_probe(catalog, name))
    if not lines:
        known = sorted({e.name for e in entries})
        close = difflib.get_close_matches(name, known, n=3)
        looked = ", ".join(str(r.path) for r in catalog.roots) or "no roots"
        lines.append(
            WhyLine(
                "not_found",
                f"no skill named {name!r} in any source (searched: {looked})",
                hint=f"did you mean {', '.join(close)}?" if close else "check the name",
            )
        )
    return lines
