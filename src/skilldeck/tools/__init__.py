"""The model-facing tool surface: specs, results, the envelope, policies and governance.

``SkillRuntime`` (``_runtime.py``, options in ``_options.py``) over a catalog;
``Session`` (``_session.py``) per agent run; scripts and body-declared tools
through the executor (``_scripts.py``); the tool surface built by composition
(``_tools.py``, the policy wrappers in ``_gates.py``); the allowed-tools policy
(``_policy.py``) and the host's governance hook (``_governance.py``); the
envelope (``_envelope.py``), argument validation (``_schema.py``). The tool
loop and the OpenAI / Anthropic adapters are ``skilldeck.adapters``. See
``docs/runtime.md``.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.adapters import (
        AnthropicMessagesAdapter as AnthropicMessagesAdapter,
        LoopResult as LoopResult,
        ModelReply as ModelReply,
        OpenAIChatAdapter as OpenAIChatAdapter,
        OpenAIResponsesAdapter as OpenAIResponsesAdapter,
        ToolCallRequest as ToolCallRequest,
        provider_name as provider_name,
        run_tool_loop as run_tool_loop,
    )
    from skilldeck.tools._envelope import (
        ENVELOPE_SCHEMA as ENVELOPE_SCHEMA,
        ERROR_CODES as ERROR_CODES,
        WARNING_CODES as WARNING_CODES,
        ToolResult as ToolResult,
        ToolWarning as ToolWarning,
        error_envelope as error_envelope,
        ok_envelope as ok_envelope,
        value_data as value_data,
    )
    from skilldeck.tools._governance import (
        Decision as Decision,
        GovernanceRequest as GovernanceRequest,
        Verdict as Verdict,
    )
    from skilldeck.tools._invoke import (
        Invoked as Invoked,
        substitute_arguments as substitute_arguments,
    )
    from skilldeck.tools._options import RuntimeOptions as RuntimeOptions
    from skilldeck.tools._policy import (
        BASELINE_TOOLS as BASELINE_TOOLS,
        AllowedToolsPolicy as AllowedToolsPolicy,
    )
    from skilldeck.tools._runtime import (
        VERB_FIRST_PARAMETER_NAMES as VERB_FIRST_PARAMETER_NAMES,
        VERB_FIRST_TOOL_NAMES as VERB_FIRST_TOOL_NAMES,
        SkillRuntime as SkillRuntime,
    )
    from skilldeck.tools._schema import validate_arguments as validate_arguments
    from skilldeck.tools._session import (
        LoadedSkill as LoadedSkill,
        Session as Session,
        TraceEntry as TraceEntry,
    )
    from skilldeck.tools._strict import strict_schema as strict_schema
    from skilldeck.tools._tools import (
        HostTool as HostTool,
        Tool as Tool,
        ToolCall as ToolCall,
        ToolSpec as ToolSpec,
    )
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "ENVELOPE_SCHEMA": "._envelope",
        "ERROR_CODES": "._envelope",
        "ToolResult": "._envelope",
        "ToolWarning": "._envelope",
        "WARNING_CODES": "._envelope",
        "Decision": "._governance",
        "GovernanceRequest": "._governance",
        "Verdict": "._governance",
        "Invoked": "._invoke",
        "substitute_arguments": "._invoke",
        "AllowedToolsPolicy": "._policy",
        "BASELINE_TOOLS": "._policy",
        "VERB_FIRST_PARAMETER_NAMES": "._runtime",
        "VERB_FIRST_TOOL_NAMES": "._runtime",
        "validate_arguments": "._schema",
        "LoadedSkill": "._session",
        "TraceEntry": "._session",
        "HostTool": "._tools",
        "Tool": "._tools",
        "ToolCall": "._tools",
        "ToolSpec": "._tools",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "error_envelope": "._envelope",
        "ok_envelope": "._envelope",
        "value_data": "._envelope",
        "RuntimeOptions": "._options",
        "SkillRuntime": "._runtime",
        "Session": "._session",
        "strict_schema": "._strict",
        "AnthropicMessagesAdapter": "skilldeck.adapters",
        "LoopResult": "skilldeck.adapters",
        "ModelReply": "skilldeck.adapters",
        "OpenAIChatAdapter": "skilldeck.adapters",
        "OpenAIResponsesAdapter": "skilldeck.adapters",
        "ToolCallRequest": "skilldeck.adapters",
        "provider_name": "skilldeck.adapters",
        "run_tool_loop": "skilldeck.adapters",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
