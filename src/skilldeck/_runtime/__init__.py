"""The agent-facing runtime: tools, envelope, policies, events, loop and adapters.

``SkillRuntime`` (``_runtime.py``, options in ``_options.py``) over a catalog;
``Session`` (``_session.py``) per agent run; scripts and body-declared tools
through the executor (``_scripts.py``); the tool surface built by composition
(``_tools.py``, the policy wrappers in ``_gates.py``); the allowed-tools policy
(``_policy.py``) and the host's governance hook (``_governance.py``); the
envelope (``_envelope.py``), argument validation (``_schema.py``); a
framework-free tool loop (``_loop.py``) and OpenAI / Anthropic adapters
(``_adapters.py``). See ``docs/runtime.md``.
"""

from skilldeck._runtime._adapters import (
    AnthropicMessagesAdapter,
    OpenAIChatAdapter,
    OpenAIResponsesAdapter,
    provider_name,
)
from skilldeck._runtime._envelope import (
    ENVELOPE_SCHEMA,
    ERROR_CODES,
    WARNING_CODES,
    ToolResult,
    ToolWarning,
    error_envelope,
    ok_envelope,
    value_data,
)
from skilldeck._runtime._governance import Decision, GovernanceRequest, Verdict
from skilldeck._runtime._invoke import Invoked, substitute_arguments
from skilldeck._runtime._loop import LoopResult, ModelReply, ToolCallRequest, run_tool_loop
from skilldeck._runtime._policy import BASELINE_TOOLS, AllowedToolsPolicy
from skilldeck._runtime._runtime import (
    VERB_FIRST_PARAMETER_NAMES,
    VERB_FIRST_TOOL_NAMES,
    RuntimeOptions,
    SkillRuntime,
)
from skilldeck._runtime._schema import validate_arguments
from skilldeck._runtime._session import LoadedSkill, Session, TraceEntry
from skilldeck._runtime._tools import HostTool, Tool, ToolCall, ToolSpec

__all__ = [
    "BASELINE_TOOLS",
    "ENVELOPE_SCHEMA",
    "ERROR_CODES",
    "VERB_FIRST_PARAMETER_NAMES",
    "VERB_FIRST_TOOL_NAMES",
    "WARNING_CODES",
    "AllowedToolsPolicy",
    "AnthropicMessagesAdapter",
    "Decision",
    "GovernanceRequest",
    "HostTool",
    "Invoked",
    "LoadedSkill",
    "LoopResult",
    "ModelReply",
    "OpenAIChatAdapter",
    "OpenAIResponsesAdapter",
    "RuntimeOptions",
    "Session",
    "SkillRuntime",
    "Tool",
    "ToolCall",
    "ToolCallRequest",
    "ToolResult",
    "ToolSpec",
    "ToolWarning",
    "TraceEntry",
    "Verdict",
    "error_envelope",
    "ok_envelope",
    "provider_name",
    "run_tool_loop",
    "substitute_arguments",
    "validate_arguments",
    "value_data",
]
