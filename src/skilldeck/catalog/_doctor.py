"""``doctor``: one report on a catalog's health (roots, skills, shadowing, budget)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilldeck._diagnostics import Diagnostic
from skilldeck.catalog import _codes as C
from skilldeck.catalog._budget import plan_skill_list
from skilldeck.catalog._catalog import RootInfo
from skilldeck.catalog._model import CatalogEntry, SkillStatus
from skilldeck.config import Budget

if TYPE_CHECKING:
    from skilldeck.catalog._catalog import Catalog

__all__ = ["DoctorReport", "diagnose"]


@dataclass(frozen=True, slots=True)
class DoctorReport:
    """What ``skilldeck doctor`` shows; ``errors`` counts blocking problems."""

    config_files: tuple[Path, ...]
    roots: tuple[RootInfo, ...]
    diagnostics: tuple[Diagnostic, ...]
    entries: tuple[CatalogEntry, ...]
    budget: int | None
    listed: int
    omitted: tuple[str, ...]

    def _with(self, status: SkillStatus) -> list[CatalogEntry]:
        return [e for e in self.entries if e.status is status]

    @property
    def errors(self) -> int:
        return len(self._with(SkillStatus.INVALID)) + sum(1 for d in self.diagnostics if d.is_error)

    def to_dict(self) -> dict[str, Any]:
        return {
            "config_files": [str(p) for p in self.config_files],
            "roots": [
                {
                    "source": r.source,
                    "path": str(r.path),
                    "mode": r.mode,
                    "exists": r.exists,
                    "skills": r.skills,
                }
                for r in self.roots
            ],
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "counts": {s.value: len(self._with(s)) for s in SkillStatus},
            "invalid": [e.to_dict() for e in self._with(SkillStatus.INVALID)],
            "unavailable": [e.to_dict() for e in self._with(SkillStatus.UNAVAILABLE)],
            "disabled": [e.to_dict() for e in self._with(SkillStatus.DISABLED)],
            "shadowed": [e.to_dict() for e in self._with(SkillStatus.SHADOWED)],
            "budget": {"limit": self.budget, "listed": self.listed, "omitted": list(self.omitted)},
            "errors": self.errors,
        }

    def lines(self) -> list[str]:
        out = ["config files: " + (", ".join(map(str, self.config_files)) or "none")]
        out.append("roots:")
        for r in self.roots:
            mode = r.mode
            state = f"{r.skills} skill(s)" if r.exists else "missing"
            out.append(f"  {r.source:<10} {r.path} ({mode}): {state}")
        counts = ", ".join(f"{len(self._with(s))} {s.value}" for s in SkillStatus)
        out.append(f"skills: {counts}")
        for status in (SkillStatus.INVALID, SkillStatus.UNAVAILABLE, SkillStatus.DISABLED):
            for e in self._with(status):
                out.append(f"  ✗ {e.address} ({status.value}): {e.reason}")
        for e in self._with(SkillStatus.SHADOWED):
            if e.shadowed_by == e.address:  # a same-name copy in the same source
                out.append(f"  · {e.address} at {e.path}: {e.reason} (SK509)")
            else:
                out.append(f"  · {e.address} at {e.path}: shadowed by {e.shadowed_by}")
        for d in self.diagnostics:
            out.append(d.format())
        if self.budget is not None:
            line = f"budget: {self.budget} characters, {self.listed} skill(s) listed"
            if self.omitted:
                line += f", {len(self.omitted)} left out: {', '.join(self.omitted[:10])}"
                line += " …" if len(self.omitted) > 10 else ""
            out.append(line)
        out.append("no problems found" if not self.errors else f"{self.errors} problem(s)")
        return out


def diagnose(catalog: Catalog, *, budget: int | Budget | None = None) -> DoctorReport:
    """Check a catalog: roots found and missing, invalid and unavailable skills,
    shadowing, config names that match no skill, and skill-list budget overflow."""
    entries = tuple(catalog.entries())
    diags = list(catalog.diagnostics)
    known = {e.name for e in entries} | {e.address for e in entries}
    cfg = catalog.config
    own_disabled = [n for n in cfg.disabled if not cfg.imported or n not in cfg.imported.disabled]
    for key, names in (("disabled", own_disabled), ("pinned", cfg.pinned)):
        for name in names:
            if name not in known:
                diags.append(
                    Diagnostic.make(
                        C.UNKNOWN_CONFIG_NAME,
                        f"[catalog] {key} names {name!r}, which matches no skill",
                        path=str(cfg.project_file or cfg.user_file or "") or None,
                        hint="check the spelling, or remove the name",
                    )
                )
    diags.extend(cfg.notices)
    if cfg.imported is not None:
        diags.append(cfg.imported.diagnostic)
    chosen = budget if budget is not None else cfg.budget
    limit = Budget.parse(chosen).chars if chosen is not None else None
    visible = catalog.list()
    listed, omitted = len(visible), tuple[str, ...]()
    if limit is not None:
        plan = plan_skill_list(visible, budget=limit, pinned=cfg.pinned)
        listed, omitted = len(plan.items), plan.omitted_names
    return DoctorReport(cfg.files, catalog.roots, tuple(diags), entries, limit, listed, omitted)
