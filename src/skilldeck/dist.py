"""Installing skills: from git, folders and archives, with a lockfile, updates, removal, export.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._dist import (
    AGENT_HOMES as AGENT_HOMES,
)
from skilldeck._dist import (
    AGENTS as AGENTS,
)
from skilldeck._dist import (
    ALIASES as ALIASES,
)
from skilldeck._dist import (
    ExportedSkill as ExportedSkill,
)
from skilldeck._dist import (
    ExportResult as ExportResult,
)
from skilldeck._dist import (
    FileChanges as FileChanges,
)
from skilldeck._dist import (
    InstalledInfo as InstalledInfo,
)
from skilldeck._dist import (
    InstalledSkill as InstalledSkill,
)
from skilldeck._dist import (
    InstallLimits as InstallLimits,
)
from skilldeck._dist import (
    InstallPlan as InstallPlan,
)
from skilldeck._dist import (
    InstallProgress as InstallProgress,
)
from skilldeck._dist import (
    InstallResult as InstallResult,
)
from skilldeck._dist import (
    LockEntry as LockEntry,
)
from skilldeck._dist import (
    PlannedSkill as PlannedSkill,
)
from skilldeck._dist import (
    RemoveResult as RemoveResult,
)
from skilldeck._dist import (
    SkillUpdate as SkillUpdate,
)
from skilldeck._dist import (
    SkillVerification as SkillVerification,
)
from skilldeck._dist import (
    SourceSpec as SourceSpec,
)
from skilldeck._dist import (
    UpdateResult as UpdateResult,
)
from skilldeck._dist import (
    VerifyReport as VerifyReport,
)
from skilldeck._dist import (
    detected_agents as detected_agents,
)
from skilldeck._dist import (
    export_skills as export_skills,
)
from skilldeck._dist import (
    export_target as export_target,
)
from skilldeck._dist import (
    install as install,
)
from skilldeck._dist import (
    list_installed as list_installed,
)
from skilldeck._dist import (
    parse_source as parse_source,
)
from skilldeck._dist import (
    remove as remove,
)
from skilldeck._dist import (
    set_skill_enabled as set_skill_enabled,
)
from skilldeck._dist import (
    sync_agents_md as sync_agents_md,
)
from skilldeck._dist import (
    update as update,
)
from skilldeck._dist import (
    verify as verify,
)

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
    "detected_agents",
    "export_skills",
    "export_target",
    "install",
    "list_installed",
    "parse_source",
    "remove",
    "set_skill_enabled",
    "sync_agents_md",
    "update",
    "verify",
]
