"""The model-facing tool surface: specs, results, the envelope, policies and governance.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._runtime import (
    BASELINE_TOOLS as BASELINE_TOOLS,
)
from skilldeck._runtime import (
    ENVELOPE_SCHEMA as ENVELOPE_SCHEMA,
)
from skilldeck._runtime import (
    ERROR_CODES as ERROR_CODES,
)
from skilldeck._runtime import (
    VERB_FIRST_PARAMETER_NAMES as VERB_FIRST_PARAMETER_NAMES,
)
from skilldeck._runtime import (
    VERB_FIRST_TOOL_NAMES as VERB_FIRST_TOOL_NAMES,
)
from skilldeck._runtime import (
    WARNING_CODES as WARNING_CODES,
)
from skilldeck._runtime import (
    AllowedToolsPolicy as AllowedToolsPolicy,
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
    Invoked as Invoked,
)
from skilldeck._runtime import (
    LoadedSkill as LoadedSkill,
)
from skilldeck._runtime import (
    Tool as Tool,
)
from skilldeck._runtime import (
    ToolCall as ToolCall,
)
from skilldeck._runtime import (
    ToolResult as ToolResult,
)
from skilldeck._runtime import (
    ToolSpec as ToolSpec,
)
from skilldeck._runtime import (
    ToolWarning as ToolWarning,
)
from skilldeck._runtime import (
    TraceEntry as TraceEntry,
)
from skilldeck._runtime import (
    Verdict as Verdict,
)
from skilldeck._runtime import (
    substitute_arguments as substitute_arguments,
)
from skilldeck._runtime import (
    validate_arguments as validate_arguments,
)

__all__ = [
    "BASELINE_TOOLS",
    "ENVELOPE_SCHEMA",
    "ERROR_CODES",
    "VERB_FIRST_PARAMETER_NAMES",
    "VERB_FIRST_TOOL_NAMES",
    "WARNING_CODES",
    "AllowedToolsPolicy",
    "Decision",
    "GovernanceRequest",
    "HostTool",
    "Invoked",
    "LoadedSkill",
    "Tool",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "ToolWarning",
    "TraceEntry",
    "Verdict",
    "substitute_arguments",
    "validate_arguments",
]
