"""skilldeck: run Agent Skills for LLM agents.

The top level holds the core: the catalog, the runtime and its session, the
format functions, inline skills, the executor and the error tree. The rest
lives in public packages, each package's ``__init__`` its facade:
``skilldeck.events``,
``skilldeck.adapters``,
``skilldeck.dist``,
``skilldeck.execution``,
``skilldeck.format``,
``skilldeck.inline``,
``skilldeck.tools``,
``skilldeck.catalog``,
``skilldeck.config``,
``skilldeck.disclosure``,
``skilldeck.search``,
``skilldeck.security``.
Front ends (``skilldeck.cli``, ``skilldeck.mcp``, ``skilldeck.integrations``)
are imported explicitly.

Names are imported on first use (PEP 562), so ``import skilldeck`` and the
command line start quickly; type checkers see every import below.
"""

from __future__ import annotations

import importlib

from skilldeck._version import __version__ as __version__

TYPE_CHECKING = False  # typing itself costs start-up time; type checkers see True

if TYPE_CHECKING:
    from typing import Any

    from skilldeck._diagnostics import (
        CODES as CODES,
        Diagnostic as Diagnostic,
        Severity as Severity,
    )
    from skilldeck._digest import (
        skill_digest as skill_digest,
    )
    from skilldeck._errors import (
        ApprovalRequiredError as ApprovalRequiredError,
        Cancelled as Cancelled,
        ConfigError as ConfigError,
        EmbedderUnavailableError as EmbedderUnavailableError,
        ExecutionError as ExecutionError,
        FileAccessError as FileAccessError,
        FileNotFoundInSkillError as FileNotFoundInSkillError,
        FileTooLargeError as FileTooLargeError,
        FindingsError as FindingsError,
        InstallError as InstallError,
        InternalError as InternalError,
        InvalidArgumentsError as InvalidArgumentsError,
        ManifestError as ManifestError,
        PathNotAllowedError as PathNotAllowedError,
        SandboxUnavailableError as SandboxUnavailableError,
        ScriptFailedError as ScriptFailedError,
        ScriptTimeoutError as ScriptTimeoutError,
        SkillError as SkillError,
        SkillNotFoundError as SkillNotFoundError,
        SkillRefError as SkillRefError,
        SkillUnavailableError as SkillUnavailableError,
        ToolConfirmationRequiredError as ToolConfirmationRequiredError,
        ToolError as ToolError,
        ToolNotAllowedError as ToolNotAllowedError,
        ToolPolicyDeniedError as ToolPolicyDeniedError,
        UnsafeStateError as UnsafeStateError,
    )
    from skilldeck._json import (
        json_safe as json_safe,
    )
    from skilldeck._paths import (
        shown_excerpt as shown_excerpt,
        shown_text as shown_text,
    )
    from skilldeck._tree import (
        walk_skill as walk_skill,
    )
    from skilldeck.catalog import (
        Catalog as Catalog,
        CatalogEntry as CatalogEntry,
        FileSystemStore as FileSystemStore,
        MemoryStore as MemoryStore,
        Skill as Skill,
        SkillMetadata as SkillMetadata,
        SkillStatus as SkillStatus,
        Source as Source,
        Store as Store,
        Trust as Trust,
    )
    from skilldeck.config import (
        Budget as Budget,
        Config as Config,
        load_config as load_config,
    )
    from skilldeck.disclosure import (
        plan_skills as plan_skills,
        read_skill_file as read_skill_file,
        render_skills as render_skills,
    )
    from skilldeck.execution import (
        ExecConfig as ExecConfig,
        Executor as Executor,
        RunResult as RunResult,
        probe_sandbox as probe_sandbox,
    )
    from skilldeck.format import (
        Manifest as Manifest,
        ValidationReport as ValidationReport,
        find_skill_dirs as find_skill_dirs,
        lint_skill as lint_skill,
        parse_skill_md as parse_skill_md,
        read_skill_md as read_skill_md,
        scaffold_skill as scaffold_skill,
        validate_skill as validate_skill,
    )
    from skilldeck.inline import (
        InlineSkill as InlineSkill,
        SkillInstallationError as SkillInstallationError,
        SkillRef as SkillRef,
        SkillsSection as SkillsSection,
        SkillTool as SkillTool,
        SkillValidationError as SkillValidationError,
        ToolContext as ToolContext,
    )
    from skilldeck.search import (
        suggest as suggest,
    )
    from skilldeck.security import (
        ScanOptions as ScanOptions,
        scan_skill as scan_skill,
    )
    from skilldeck.tools import (
        Decision as Decision,
        GovernanceRequest as GovernanceRequest,
        HostTool as HostTool,
        RuntimeOptions as RuntimeOptions,
        Session as Session,
        SkillRuntime as SkillRuntime,
        ToolResult as ToolResult,
        ToolSpec as ToolSpec,
        Verdict as Verdict,
    )


# The one table of the top level: public name -> the private module defining it.
_EXPORTS: dict[str, str] = {
    "Catalog": "skilldeck.catalog",
    "CatalogEntry": "skilldeck.catalog",
    "Source": "skilldeck.catalog",
    "Store": "skilldeck.catalog",
    "FileSystemStore": "skilldeck.catalog",
    "MemoryStore": "skilldeck.catalog",
    "Skill": "skilldeck.catalog",
    "SkillMetadata": "skilldeck.catalog",
    "SkillStatus": "skilldeck.catalog",
    "Trust": "skilldeck.catalog",
    "Config": "skilldeck.config",
    "load_config": "skilldeck.config",
    "Budget": "skilldeck.config",
    "CODES": "skilldeck._diagnostics",
    "Diagnostic": "skilldeck._diagnostics",
    "Severity": "skilldeck._diagnostics",
    "skill_digest": "skilldeck._digest",
    "json_safe": "skilldeck._json",
    "shown_excerpt": "skilldeck._paths",
    "shown_text": "skilldeck._paths",
    "walk_skill": "skilldeck._tree",
    "render_skills": "skilldeck.disclosure",
    "read_skill_file": "skilldeck.disclosure",
    "plan_skills": "skilldeck.disclosure",
    "validate_skill": "skilldeck.format",
    "lint_skill": "skilldeck.format",
    "read_skill_md": "skilldeck.format",
    "parse_skill_md": "skilldeck.format",
    "find_skill_dirs": "skilldeck.format",
    "scaffold_skill": "skilldeck.format",
    "Manifest": "skilldeck.format",
    "ValidationReport": "skilldeck.format",
    "InlineSkill": "skilldeck.inline",
    "SkillRef": "skilldeck.inline",
    "SkillsSection": "skilldeck.inline",
    "SkillTool": "skilldeck.inline",
    "ToolContext": "skilldeck.inline",
    "SkillValidationError": "skilldeck.inline",
    "SkillInstallationError": "skilldeck.inline",
    "SkillRuntime": "skilldeck.tools",
    "Session": "skilldeck.tools",
    "RuntimeOptions": "skilldeck.tools",
    "ToolResult": "skilldeck.tools",
    "ToolSpec": "skilldeck.tools",
    "HostTool": "skilldeck.tools",
    "GovernanceRequest": "skilldeck.tools",
    "Decision": "skilldeck.tools",
    "Verdict": "skilldeck.tools",
    "Executor": "skilldeck.execution",
    "ExecConfig": "skilldeck.execution",
    "RunResult": "skilldeck.execution",
    "probe_sandbox": "skilldeck.execution",
    "scan_skill": "skilldeck.security",
    "ScanOptions": "skilldeck.security",
    "suggest": "skilldeck.search",
    "ApprovalRequiredError": "skilldeck._errors",
    "ConfigError": "skilldeck._errors",
    "EmbedderUnavailableError": "skilldeck._errors",
    "ExecutionError": "skilldeck._errors",
    "FileAccessError": "skilldeck._errors",
    "FileNotFoundInSkillError": "skilldeck._errors",
    "FileTooLargeError": "skilldeck._errors",
    "InstallError": "skilldeck._errors",
    "Cancelled": "skilldeck._errors",
    "FindingsError": "skilldeck._errors",
    "InternalError": "skilldeck._errors",
    "InvalidArgumentsError": "skilldeck._errors",
    "ManifestError": "skilldeck._errors",
    "PathNotAllowedError": "skilldeck._errors",
    "SandboxUnavailableError": "skilldeck._errors",
    "ScriptFailedError": "skilldeck._errors",
    "ScriptTimeoutError": "skilldeck._errors",
    "SkillError": "skilldeck._errors",
    "SkillNotFoundError": "skilldeck._errors",
    "SkillRefError": "skilldeck._errors",
    "SkillUnavailableError": "skilldeck._errors",
    "ToolConfirmationRequiredError": "skilldeck._errors",
    "ToolError": "skilldeck._errors",
    "ToolNotAllowedError": "skilldeck._errors",
    "ToolPolicyDeniedError": "skilldeck._errors",
    "UnsafeStateError": "skilldeck._errors",
}

__all__ = ["__version__", *_EXPORTS]


# the public sub-modules, reachable as attributes after a bare ``import skilldeck``
_FACADES = frozenset(
    {
        "events", "adapters", "dist", "execution", "format", "tools", "inline",
        "catalog", "config", "disclosure", "search", "security",
    }
)  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _FACADES:
        return importlib.import_module(f"skilldeck.{name}")  # the import binds it here too
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skilldeck' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
