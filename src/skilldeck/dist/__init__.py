"""Installing skills: from git, folders and archives, with a lockfile, updates, removal, export.

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

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.dist._agents import (
        AGENTS as AGENTS,
        ALIASES as ALIASES,
        detected_agents as detected_agents,
    )
    from skilldeck.dist._agentsmd import sync_agents_md as sync_agents_md
    from skilldeck.dist._export import (
        AGENT_HOMES as AGENT_HOMES,
        export_skills as export_skills,
        export_target as export_target,
    )
    from skilldeck.dist._fsops import (
        copy_skill_tree as copy_skill_tree,
        exchange as exchange,
        remove_tree as remove_tree,
        swap_at as swap_at,
    )
    from skilldeck.dist._install import (
        InstallPlan as InstallPlan,
        PlannedSkill as PlannedSkill,
        install as install,
    )
    from skilldeck.dist._installed import (
        InstalledInfo as InstalledInfo,
        list_installed as list_installed,
    )
    from skilldeck.dist._manage import (
        remove as remove,
        set_skill_enabled as set_skill_enabled,
        update as update,
        verify as verify,
    )
    from skilldeck.dist._model import (
        ExportedSkill as ExportedSkill,
        ExportResult as ExportResult,
        FileChanges as FileChanges,
        InstalledSkill as InstalledSkill,
        InstallLimits as InstallLimits,
        InstallProgress as InstallProgress,
        InstallResult as InstallResult,
        LockEntry as LockEntry,
        RemoveResult as RemoveResult,
        SkillUpdate as SkillUpdate,
        SkillVerification as SkillVerification,
        SourceSpec as SourceSpec,
        UpdateResult as UpdateResult,
        VerifyReport as VerifyReport,
    )
    from skilldeck.dist._source import parse_source as parse_source
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "AGENTS": "._agents",
        "ALIASES": "._agents",
        "detected_agents": "._agents",
        "sync_agents_md": "._agentsmd",
        "AGENT_HOMES": "._export",
        "export_skills": "._export",
        "export_target": "._export",
        "InstallPlan": "._install",
        "PlannedSkill": "._install",
        "install": "._install",
        "InstalledInfo": "._installed",
        "list_installed": "._installed",
        "remove": "._manage",
        "set_skill_enabled": "._manage",
        "update": "._manage",
        "verify": "._manage",
        "ExportResult": "._model",
        "ExportedSkill": "._model",
        "FileChanges": "._model",
        "InstallLimits": "._model",
        "InstallProgress": "._model",
        "InstallResult": "._model",
        "InstalledSkill": "._model",
        "LockEntry": "._model",
        "RemoveResult": "._model",
        "SkillUpdate": "._model",
        "SkillVerification": "._model",
        "SourceSpec": "._model",
        "UpdateResult": "._model",
        "VerifyReport": "._model",
        "parse_source": "._source",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "copy_skill_tree": "._fsops",
        "exchange": "._fsops",
        "remove_tree": "._fsops",
        "swap_at": "._fsops",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
