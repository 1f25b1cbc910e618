"""skilldeck: run Agent Skills for LLM agents.

The top level holds the core: the catalog, the runtime and its session, the
format functions, inline skills, the executor and the error tree. The rest
lives in public sub-modules, each a facade over private implementation:
``skilldeck.events``,
``skilldeck.adapters``,
``skilldeck.dist``,
``skilldeck.execution``,
``skilldeck.format``,
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

    from skilldeck._catalog import (
        Catalog as Catalog,
    )
    from skilldeck._catalog import (
        CatalogEntry as CatalogEntry,
    )
    from skilldeck._catalog import (
        FileSystemStore as FileSystemStore,
    )
    from skilldeck._catalog import (
        MemoryStore as MemoryStore,
    )
    from skilldeck._catalog import (
        Skill as Skill,
    )
    from skilldeck._catalog import (
        SkillMetadata as SkillMetadata,
    )
    from skilldeck._catalog import (
        SkillStatus as SkillStatus,
    )
    from skilldeck._catalog import (
        Source as Source,
    )
    from skilldeck._catalog import (
        Store as Store,
    )
    from skilldeck._catalog import (
        Trust as Trust,
    )
    from skilldeck._config import (
        Budget as Budget,
    )
    from skilldeck._config import (
        Config as Config,
    )
    from skilldeck._config import (
        load_config as load_config,
    )
    from skilldeck._diagnostics import (
        CODES as CODES,
    )
    from skilldeck._diagnostics import (
        Diagnostic as Diagnostic,
    )
    from skilldeck._diagnostics import (
        Severity as Severity,
    )
    from skilldeck._digest import (
        skill_digest as skill_digest,
    )
    from skilldeck._disclosure import (
        plan_skills as plan_skills,
    )
    from skilldeck._disclosure import (
        read_skill_file as read_skill_file,
    )
    from skilldeck._disclosure import (
        render_skills as render_skills,
    )
    from skilldeck._errors import (
        ApprovalRequiredError as ApprovalRequiredError,
    )
    from skilldeck._errors import (
        Cancelled as Cancelled,
    )
    from skilldeck._errors import (
        ConfigError as ConfigError,
    )
    from skilldeck._errors import (
        EmbedderUnavailableError as EmbedderUnavailableError,
    )
    from skilldeck._errors import (
        ExecutionError as ExecutionError,
    )
    from skilldeck._errors import (
        FileAccessError as FileAccessError,
    )
    from skilldeck._errors import (
        FileNotFoundInSkillError as FileNotFoundInSkillError,
    )
    from skilldeck._errors import (
        FileTooLargeError as FileTooLargeError,
    )
    from skilldeck._errors import (
        FindingsError as FindingsError,
    )
    from skilldeck._errors import (
        InstallError as InstallError,
    )
    from skilldeck._errors import (
        InternalError as InternalError,
    )
    from skilldeck._errors import (
        InvalidArgumentsError as InvalidArgumentsError,
    )
    from skilldeck._errors import (
        ManifestError as ManifestError,
    )
    from skilldeck._errors import (
        PathNotAllowedError as PathNotAllowedError,
    )
    from skilldeck._errors import (
        SandboxUnavailableError as SandboxUnavailableError,
    )
    from skilldeck._errors import (
        ScriptFailedError as ScriptFailedError,
    )
    from skilldeck._errors import (
        ScriptTimeoutError as ScriptTimeoutError,
    )
    from skilldeck._errors import (
        SkillError as SkillError,
    )
    from skilldeck._errors import (
        SkillNotFoundError as SkillNotFoundError,
    )
    from skilldeck._errors import (
        SkillRefError as SkillRefError,
    )
    from skilldeck._errors import (
        SkillUnavailableError as SkillUnavailableError,
    )
    from skilldeck._errors import (
        ToolConfirmationRequiredError as ToolConfirmationRequiredError,
    )
    from skilldeck._errors import (
        ToolError as ToolError,
    )
    from skilldeck._errors import (
        ToolNotAllowedError as ToolNotAllowedError,
    )
    from skilldeck._errors import (
        ToolPolicyDeniedError as ToolPolicyDeniedError,
    )
    from skilldeck._errors import (
        UnsafeStateError as UnsafeStateError,
    )
    from skilldeck._exec import (
        ExecConfig as ExecConfig,
    )
    from skilldeck._exec import (
        Executor as Executor,
    )
    from skilldeck._exec import (
        RunResult as RunResult,
    )
    from skilldeck._exec import (
        probe_sandbox as probe_sandbox,
    )
    from skilldeck._format import (
        Manifest as Manifest,
    )
    from skilldeck._format import (
        ValidationReport as ValidationReport,
    )
    from skilldeck._format import (
        find_skill_dirs as find_skill_dirs,
    )
    from skilldeck._format import (
        lint_skill as lint_skill,
    )
    from skilldeck._format import (
        parse_skill_md as parse_skill_md,
    )
    from skilldeck._format import (
        read_skill_md as read_skill_md,
    )
    from skilldeck._format import (
        scaffold_skill as scaffold_skill,
    )
    from skilldeck._format import (
        validate_skill as validate_skill,
    )
    from skilldeck._inline import (
        InlineSkill as InlineSkill,
    )
    from skilldeck._inline import (
        SkillInstallationError as SkillInstallationError,
    )
    from skilldeck._inline import (
        SkillRef as SkillRef,
    )
    from skilldeck._inline import (
        SkillsSection as SkillsSection,
    )
    from skilldeck._inline import (
        SkillTool as SkillTool,
    )
    from skilldeck._inline import (
        SkillValidationError as SkillValidationError,
    )
    from skilldeck._inline import (
        ToolContext as ToolContext,
    )
    from skilldeck._json import (
        json_safe as json_safe,
    )
    from skilldeck._runtime import (
        Decision as Decision,
    )
    from skilldeck._runtime import (
        GovernanceRequest as GovernanceRequest,
    )
    from skilldeck._runtime import (
        HostTool as HostTool,
    )
    from skilldeck._runtime import (
        RuntimeOptions as RuntimeOptions,
    )
    from skilldeck._runtime import (
        Session as Session,
    )
    from skilldeck._runtime import (
        SkillRuntime as SkillRuntime,
    )
    from skilldeck._runtime import (
        ToolResult as ToolResult,
    )
    from skilldeck._runtime import (
        ToolSpec as ToolSpec,
    )
    from skilldeck._runtime import (
        Verdict as Verdict,
    )
    from skilldeck._scan import (
        ScanOptions as ScanOptions,
    )
    from skilldeck._scan import (
        scan_skill as scan_skill,
    )
    from skilldeck._suggest import (
        suggest as suggest,
    )
    from skilldeck._tree import (
        walk_skill as walk_skill,
    )


# The one table of the top level: public name -> the private module defining it.
_EXPORTS: dict[str, str] = {
    "Catalog": "skilldeck._catalog",
    "CatalogEntry": "skilldeck._catalog",
    "Source": "skilldeck._catalog",
    "Store": "skilldeck._catalog",
    "FileSystemStore": "skilldeck._catalog",
    "MemoryStore": "skilldeck._catalog",
    "Skill": "skilldeck._catalog",
    "SkillMetadata": "skilldeck._catalog",
    "SkillStatus": "skilldeck._catalog",
    "Trust": "skilldeck._catalog",
    "Config": "skilldeck._config",
    "load_config": "skilldeck._config",
    "Budget": "skilldeck._config",
    "CODES": "skilldeck._diagnostics",
    "Diagnostic": "skilldeck._diagnostics",
    "Severity": "skilldeck._diagnostics",
    "skill_digest": "skilldeck._digest",
    "json_safe": "skilldeck._json",
    "walk_skill": "skilldeck._tree",
    "render_skills": "skilldeck._disclosure",
    "read_skill_file": "skilldeck._disclosure",
    "plan_skills": "skilldeck._disclosure",
    "validate_skill": "skilldeck._format",
    "lint_skill": "skilldeck._format",
    "read_skill_md": "skilldeck._format",
    "parse_skill_md": "skilldeck._format",
    "find_skill_dirs": "skilldeck._format",
    "scaffold_skill": "skilldeck._format",
    "Manifest": "skilldeck._format",
    "ValidationReport": "skilldeck._format",
    "InlineSkill": "skilldeck._inline",
    "SkillRef": "skilldeck._inline",
    "SkillsSection": "skilldeck._inline",
    "SkillTool": "skilldeck._inline",
    "ToolContext": "skilldeck._inline",
    "SkillValidationError": "skilldeck._inline",
    "SkillInstallationError": "skilldeck._inline",
    "SkillRuntime": "skilldeck._runtime",
    "Session": "skilldeck._runtime",
    "RuntimeOptions": "skilldeck._runtime",
    "ToolResult": "skilldeck._runtime",
    "ToolSpec": "skilldeck._runtime",
    "HostTool": "skilldeck._runtime",
    "GovernanceRequest": "skilldeck._runtime",
    "Decision": "skilldeck._runtime",
    "Verdict": "skilldeck._runtime",
    "Executor": "skilldeck._exec",
    "ExecConfig": "skilldeck._exec",
    "RunResult": "skilldeck._exec",
    "probe_sandbox": "skilldeck._exec",
    "scan_skill": "skilldeck._scan",
    "ScanOptions": "skilldeck._scan",
    "suggest": "skilldeck._suggest",
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
        "events", "adapters", "dist", "execution", "format", "tools",
        "catalog", "config", "disclosure", "search", "security",
    }
)  # fmt: skip


# the modules that register diagnostic codes: ``CODES`` imports them all first, so it
# lists every code in a fresh process (a test checks this list against the sources)
_CODE_MODULES = (
    "skilldeck._catalog._codes",
    "skilldeck._configimport",
    "skilldeck._configtrust",
    "skilldeck._format._codes",
    "skilldeck._format._lint",
    "skilldeck._format._mdtools",
    "skilldeck._scan._judge",
    "skilldeck._scan._rules",
    "skilldeck._tree._discover",
    "skilldeck._tree._walk",
)


def __getattr__(name: str) -> Any:
    if name == "CODES":
        for registering in _CODE_MODULES:
            importlib.import_module(registering)
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
