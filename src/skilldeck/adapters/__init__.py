"""Provider adapters (OpenAI, Anthropic), the tool loop, and the compact catalog format.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.adapters._compact import (
        COMPACT_HEADER as COMPACT_HEADER,
        render_compact_catalog as render_compact_catalog,
        render_compact_manifest as render_compact_manifest,
    )
    from skilldeck.adapters._loop import (
        LoopResult as LoopResult,
        ModelReply as ModelReply,
        ToolCallRequest as ToolCallRequest,
        run_tool_loop as run_tool_loop,
    )
    from skilldeck.adapters._providers import (
        AnthropicMessagesAdapter as AnthropicMessagesAdapter,
        OpenAIChatAdapter as OpenAIChatAdapter,
        OpenAIResponsesAdapter as OpenAIResponsesAdapter,
        provider_name as provider_name,
    )
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "COMPACT_HEADER": "._compact",
        "render_compact_catalog": "._compact",
        "render_compact_manifest": "._compact",
        "LoopResult": "._loop",
        "ModelReply": "._loop",
        "ToolCallRequest": "._loop",
        "run_tool_loop": "._loop",
        "AnthropicMessagesAdapter": "._providers",
        "OpenAIChatAdapter": "._providers",
        "OpenAIResponsesAdapter": "._providers",
        "provider_name": "._providers",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL: dict[str, str] = {}
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
