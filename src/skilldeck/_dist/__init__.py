"""Distribution: install skills from git, folders and archives; pin, update, remove, export.

Public calls (re-exported from ``skilldeck``):

- ``install(source, *, ref, subpath, skills, all_skills, name, scope, force, ...)``
- ``update(names, *, all_skills, scope, dry_run, ...)``
- ``remove(name, *, scope)``, ``verify(names, *, scope)``, ``list_installed(*, scope)``
- ``set_skill_enabled(name, enabled, *, scope)``
- ``export_skills(skills, to, *, home, scope, force)`` and ``export_target(...)``

Every change to a scope is staged on the same filesystem, checked, swapped in
with one rename per skill and recorded (lockfile + config) under the scope
lock; see ``_state`` for the protocol that makes an interrupted operation
leave the old state, and ``_fsops``/``_archive``/``_git`` for what hostile
input is refused.
"""

from skilldeck._dist._agents import AGENTS, ALIASES, detected_agents
from skilldeck._dist._agentsmd import sync_agents_md
from skilldeck._dist._fsops import copy_skill_tree, exchange, remove_tree, swap_at

from ._export import AGENT_HOMES, export_skills, export_target
from ._install import InstallPlan, PlannedSkill, install
from ._manage import InstalledInfo, list_installed, remove, set_skill_enabled, update, verify
from ._model import (
    ExportedSkill,
    ExportResult,
    FileChanges,
    InstalledSkill,
    InstallLimits,
    InstallProgress,
    InstallResult,
    LockEntry,
    RemoveResult,
    SkillUpdate,
    SkillVerification,
    SourceSpec,
    UpdateResult,
    VerifyReport,
)
from ._source import parse_source

__all__ = [
    "AGENTS",
    "AGENT_HOMES",
    "ALIASES",
    "ExportResult",
    "ExportedSkill",
    "FileChanges",
    "InstallLimits",
    "InstallPlan",
    "InstallProgress",
    "InstallResult",
    "InstalledInfo",
    "InstalledSkill",
    "LockEntry",
    "PlannedSkill",
    "RemoveResult",
    "SkillUpdate",
    "SkillVerification",
    "SourceSpec",
    "UpdateResult",
    "VerifyReport",
    "copy_skill_tree",
    "detected_agents",
    "exchange",
    "export_skills",
    "export_target",
    "install",
    "list_installed",
    "parse_source",
    "remove",
    "remove_tree",
    "set_skill_enabled",
    "swap_at",
    "sync_agents_md",
    "update",
    "verify",
]
