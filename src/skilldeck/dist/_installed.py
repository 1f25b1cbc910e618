"""What is installed, read without the installer: ``list_installed`` and whether an
installed skill is enabled.

``skilldeck list`` shows each installed skill's scope and agent folders on every run;
this module imports the lockfile's layout and the placements' check, never the
installer, the security scan or tomlkit (``_manage`` does the changes).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from skilldeck.config import Config, load_config

from ._model import LockEntry, PlacementCheck, Scope
from ._placements import check, targets
from ._state import Layout, layout

__all__ = ["InstalledInfo", "is_enabled", "list_installed", "placement_checks"]


def is_enabled(config: Config, name: str) -> bool:
    """Whether the installed skill ``name`` is on: not in ``[catalog] disabled`` (as
    ``NAME`` or ``installed:NAME``) and not ``enabled = false`` in its ``[installed]``
    table."""
    disabled = set(config.disabled)
    if name in disabled or f"installed:{name}" in disabled:
        return False
    return config.installed.get(name, {}).get("enabled") is not False


def placement_checks(lay: Layout, entry: LockEntry, *, enabled: bool) -> tuple[PlacementCheck, ...]:
    """The agent folders that show ``entry``, each checked on disk."""
    if not entry.placements:
        return ()
    where = targets(lay.scope, lay.base, entry.name, entry.placements)
    return tuple(check(where, lay.skill_dir(entry.name), entry.digest, enabled=enabled))


@dataclass(frozen=True, slots=True)
class InstalledInfo:
    """One installed skill as ``manage list`` shows it."""

    name: str
    scope: Scope
    path: str
    source: str
    kind: str
    ref: str | None
    commit: str | None
    digest: str
    enabled: bool
    installed_at: str
    updated_at: str
    #: agent folders that show the skill, each checked on disk
    placements: tuple[PlacementCheck, ...] = ()

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(a for p in self.placements for a in p.agents)


def list_installed(
    *, scope: Scope | None = None, cwd: str | os.PathLike[str] | None = None
) -> tuple[InstalledInfo, ...]:
    """Installed skills of one scope, or of both (user first) when ``scope`` is None."""
    config = load_config(cwd=cwd)
    out: list[InstalledInfo] = []
    scopes: tuple[Scope, ...] = (scope,) if scope else ("user", "project")
    for sc in scopes:
        lay = layout(sc, cwd=cwd)
        for name, entry in sorted(lay.read_lock().items()):
            enabled = is_enabled(config, name)
            out.append(
                InstalledInfo(
                    name=name,
                    scope=sc,
                    path=str(lay.skill_dir(name)),
                    source=entry.source_display,
                    kind=entry.kind,
                    ref=entry.ref,
                    commit=entry.commit,
                    digest=entry.digest,
                    enabled=enabled,
                    installed_at=entry.installed_at,
                    updated_at=entry.updated_at,
                    placements=placement_checks(lay, entry, enabled=enabled),
                )
            )
    return tuple(out)
