"""skilldeck: run Agent Skills for LLM agents.

One flat public namespace; implementation lives in private modules.
"""

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
from skilldeck._diagnostics import CODES, Diagnostic, Severity
from skilldeck._version import __version__

# --- format layer (issue 2) ---
# --- catalog and disclosure (issue 3) ---
# --- runtime, events, search (issue 4) ---
# --- execution (issue 5) ---
# --- distribution (issue 6) ---
# --- inline skills and the rest (issue 8) ---

__all__ = [
    "CODES",
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
    "ManifestError",
    "PathNotAllowedError",
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
    "ToolPolicyDeniedError",
    "__version__",
    "bytes_digest",
    "file_digest",
    "skill_digest",
]
