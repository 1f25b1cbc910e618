"""Validate skill folders: find them, read SKILL.md, apply the specification's rules."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._tree import find_skill_folders, linked_skill_md, skill_md_escapes
from skilldeck.format import _codes as C
from skilldeck.format._manifest import Manifest
from skilldeck.format._skillmd import DEFAULT_MAX_BYTES, Mode, read_skill_md

__all__ = ["ValidationReport", "find_skill_dirs", "locate_skill_md", "validate_skill"]


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The result of checking one skill folder."""

    path: Path
    skill_md: Path | None
    manifest: Manifest | None
    diagnostics: tuple[Diagnostic, ...]
    body: str = ""
    body_line: int = 1
    body_truncated: bool = False
    extra: dict[str, object] = field(default_factory=dict, compare=False)
    raw_name: str | None = None

    @property
    def name(self) -> str | None:
        """The manifest's name; for an invalid skill, the name as written (if any)."""
        return self.manifest.name if self.manifest else self.raw_name

    @property
    def valid(self) -> bool:
        return self.manifest is not None and not any(d.is_error for d in self.diagnostics)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)

    def to_dict(self) -> dict[str, object]:
        """The per-skill object of the CLI's JSON output (a public contract)."""
        return {
            "path": str(self.path),
            "name": self.name,
            "valid": self.valid,
            "diagnostics": [
                {
                    "code": d.code,
                    "severity": d.severity.value,
                    "message": d.message,
                    "line": d.line,
                    "column": d.column,
                    "hint": d.hint,
                }
                for d in self.diagnostics
            ],
        }


def locate_skill_md(folder: Path, *, strict: bool = False) -> tuple[Path | None, list[Diagnostic]]:
    """Find the SKILL.md of ``folder``: exact name, else a lowercase ``skill.md`` (SK215)."""
    diags: list[Diagnostic] = []
    exact = folder / "SKILL.md"
    if os.path.lexists(exact):
        return exact, diags
    lower = folder / "skill.md"
    if os.path.lexists(lower) and _exact_name_in(folder, "skill.md"):
        diags.append(
            Diagnostic.make(
                C.LOWERCASE_SKILL_MD,
                "the skill file is named 'skill.md'; the specification requires 'SKILL.md'",
                path=str(lower),
                hint=f"rename it: mv {lower} {exact}",
                severity=Severity.ERROR if strict else Severity.WARNING,
            )
        )
        return lower, diags
    if not os.path.lexists(folder):
        message = f"{folder} does not exist"
        hint = "check the path (a skill folder or its SKILL.md)"
    elif not folder.is_dir():
        message = f"{folder} is not a folder or a SKILL.md"
        hint = "give the skill's folder, or the path of its SKILL.md"
    else:
        message = f"no SKILL.md in {folder}"
        hint = "create SKILL.md with a frontmatter (skilldeck new NAME scaffolds one)"
    diags.append(Diagnostic.make(C.NO_SKILL_MD, message, path=str(folder), hint=hint))
    return None, diags


def _exact_name_in(folder: Path, name: str) -> bool:
    try:
        return name in os.listdir(folder)
    except OSError:
        return False


def validate_skill(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ValidationReport:
    """Check one skill (its folder or its SKILL.md). Never raises for bad skills."""
    mode: Mode = "strict" if strict else "lenient"
    given = Path(path)
    folder = (
        given.parent if given.name in ("SKILL.md", "skill.md") and not given.is_dir() else given
    )
    skill_md, diags = locate_skill_md(folder, strict=strict)
    if skill_md is None:
        return ValidationReport(folder, None, None, tuple(diags))
    if skill_md.is_symlink() and linked_skill_md(os.fspath(folder), skill_md.name) is None:
        diags.append(skill_md_escapes(os.fspath(skill_md)))
        return ValidationReport(folder, skill_md, None, tuple(diags))
    parsed = read_skill_md(skill_md, max_bytes=max_bytes, mode=mode, folder_name=folder.name)
    diags.extend(parsed.diagnostics)
    return ValidationReport(
        folder,
        skill_md,
        parsed.manifest,
        tuple(diags),
        parsed.body,
        parsed.body_line,
        parsed.body_truncated,
        raw_name=parsed.raw_name,
    )


def find_skill_dirs(path: str | os.PathLike[str]) -> list[Path]:
    """The skill folders at or beneath ``path`` (a folder, or a SKILL.md file).

    The one discovery of ``skilldeck._tree`` (recursive): a folder that holds
    SKILL.md (or skill.md) is a skill, nested skills included; hidden folders,
    ``node_modules`` and the like are not searched, except a repository's
    skill folders (``.claude/skills``, ``.agents/skills``, ``skills/.curated``,
    ...); links are followed only inside ``path``.
    """
    root = Path(path)
    if root.name in ("SKILL.md", "skill.md") and not root.is_dir():
        return [root.parent]
    if not root.is_dir():
        return []
    return [Path(p) for p in find_skill_folders(root)]
