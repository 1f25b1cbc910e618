"""skilldeck: run Agent Skills for LLM agents.

One flat public namespace; implementation lives in private modules.
"""

from skilldeck._diagnostics import CODES, Diagnostic, Severity
from skilldeck._digest import bytes_digest, file_digest, skill_digest
from skilldeck._errors import (
    ApprovalRequiredError,
    ConfigError,
    ExecutionError,
    FileAccessError,
    FileNotFoundInSkillError,
    FileTooLargeError,
    InstallError,
    InternalError,
    InvalidArgumentsError,
    ManifestError,
    PathNotAllowedError,
    SandboxUnavailableError,
    ScriptFailedError,
    ScriptTimeoutError,
    SkillError,
    SkillNotFoundError,
    SkillRefError,
    SkillUnavailableError,
    ToolConfirmationRequiredError,
    ToolError,
    ToolNotAllowedError,
    ToolPolicyDeniedError,
)

# --- format layer (issue 2) ---
from skilldeck._format._lint import estimate_tokens, lint_skill
from skilldeck._format._manifest import Manifest, Requirements, ToolPattern, Triggers
from skilldeck._format._scaffold import RESOURCE_FOLDERS, scaffold_skill
from skilldeck._format._skillmd import ParsedSkillMd, parse_skill_md, read_skill_md
from skilldeck._format._validate import ValidationReport, find_skill_dirs, validate_skill
from skilldeck._version import __version__

# --- catalog and disclosure (issue 3) ---
# --- runtime, events, search (issue 4) ---
# --- execution (issue 5) ---
# --- distribution (issue 6) ---
# --- inline skills and the rest (issue 8) ---

__all__ = [
    "CODES",
    "RESOURCE_FOLDERS",
    "ApprovalRequiredError",
    "ConfigError",
    "Diagnostic",
    "ExecutionError",
    "FileAccessError",
    "FileNotFoundInSkillError",
    "FileTooLargeError",
    "InstallError",
    "InternalError",
    "InvalidArgumentsError",
    "Manifest",
    "ManifestError",
    "ParsedSkillMd",
    "PathNotAllowedError",
    "Requirements",
    "SandboxUnavailableError",
    "ScriptFailedError",
    "ScriptTimeoutError",
    "Severity",
    "SkillError",
    "SkillNotFoundError",
    "SkillRefError",
    "SkillUnavailableError",
    "ToolConfirmationRequiredError",
    "ToolError",
    "ToolNotAllowedError",
    "ToolPattern",
    "ToolPolicyDeniedError",
    "Triggers",
    "ValidationReport",
    "__version__",
    "bytes_digest",
    "estimate_tokens",
    "file_digest",
    "find_skill_dirs",
    "lint_skill",
    "parse_skill_md",
    "read_skill_md",
    "scaffold_skill",
    "skill_digest",
    "validate_skill",
]
