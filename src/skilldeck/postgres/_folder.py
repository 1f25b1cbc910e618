"""Reading a skill folder to publish: every file once, validated on a private copy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skilldeck import Diagnostic, InstallError

__all__ = ["PublishLimits", "read_folder", "validate_copy"]


@dataclass(frozen=True, slots=True)
class PublishLimits:
    """Caps of one published skill (files, total bytes, one file's bytes)."""

    max_files: int = 2_000
    max_total_bytes: int = 64 * 1024 * 1024
    max_file_bytes: int = 16 * 1024 * 1024


def read_folder(folder: Path, lim: PublishLimits) -> dict[str, tuple[bytes, bool]]:
    """Every file of a skill folder (the one walker's file set), read once."""
    from skilldeck import SkillError
    from skilldeck.catalog import SkillTree, WalkLimits

    if not folder.is_dir():
        raise InstallError(
            f"{folder} is not a skill folder",
            path=str(folder),
            hint="give the folder that holds SKILL.md",
        )
    out: dict[str, tuple[bytes, bool]] = {}
    total = 0
    try:
        with SkillTree(folder) as tree:
            walk = tree.walk(limits=WalkLimits(max_files=lim.max_files))
            for entry in walk.files:
                fd = tree.open(entry.path)
                with open(fd, "rb", closefd=True) as fh:
                    data = fh.read(lim.max_file_bytes + 1)
                if len(data) > lim.max_file_bytes:
                    raise InstallError(
                        f"{entry.path} is over the {lim.max_file_bytes}-byte limit of a file",
                        path=str(folder / entry.path),
                        hint="publish skills without large binaries",
                    )
                total += len(data)
                if total > lim.max_total_bytes:
                    raise InstallError(
                        f"{folder.name} is over the {lim.max_total_bytes}-byte limit of a skill",
                        path=str(folder),
                        hint="publish skills without large binaries",
                    )
                out[entry.path] = (data, entry.executable)
    except InstallError:
        raise
    except SkillError as exc:
        raise InstallError(
            f"{folder.name}: {exc.message}", path=str(folder), hint=exc.hint
        ) from None
    return out


def validate_copy(copy: Path, folder: Path) -> tuple[str, tuple[Diagnostic, ...]]:
    from skilldeck import Severity, validate_skill
    from skilldeck.config import hint_command

    report = validate_skill(copy)
    if report.manifest is None or not report.valid or not report.name:
        errors = [d for d in report.diagnostics if d.is_error][:5]
        detail = "; ".join(f"{d.code} {d.message}" for d in errors)
        raise InstallError(
            f"{folder.name} is not a valid skill" + (f": {detail}" if detail else ""),
            path=str(folder),
            hint=f"run: {hint_command('validate', folder)}",
        )
    if "SKILL.md" not in {p.name for p in copy.iterdir()} or not (copy / "SKILL.md").is_file():
        raise InstallError(
            f"{folder.name} has no SKILL.md (exactly that name is published)",
            path=str(folder),
            hint="rename the skill's file to SKILL.md",
        )
    _servable_name(report.name, folder)
    placeholder = next((d for d in report.diagnostics if d.code == "SK219"), None)
    if placeholder is not None:  # the catalog never lists it, so a store never serves it
        raise InstallError(
            f"{folder.name}: {placeholder.message} (a store never serves a template placeholder)",
            path=str(folder / "SKILL.md"),
            hint=placeholder.hint,
        )
    warnings = tuple(d for d in report.diagnostics if d.severity is Severity.WARNING)
    return report.name, warnings


def _servable_name(name: str, folder: Path) -> None:
    """Refuse a name the MCP extension never serves: the specification's naming rule,
    strictly (a lenient validation only warns), and in ASCII as written."""
    from skilldeck.format import NAME_RE, check_name

    problems = check_name(name, strict=True, path="SKILL.md", pos=(None, None))
    if problems or not NAME_RE.fullmatch(name):
        first = problems[0] if problems else None
        raise InstallError(
            f"{folder.name}: "
            + (first.message if first else f"name '{name}' is not in the specification's form")
            + " (a store serves only names of the specification's form)",
            path=str(folder / "SKILL.md"),
            hint=(first.hint if first and first.hint else "use a-z, 0-9 and '-', e.g. pdf-tools"),
        )
