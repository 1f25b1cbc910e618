"""Provider adapters (OpenAI, Anthropic), the tool loop, and the compact catalog format.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._compact import (
    COMPACT_HEADER as COMPACT_HEADER,
)
from skilldeck._compact import (
    render_compact_catalog as render_compact_catalog,
)
from skilldeck._compact import (
    render_compact_manifest as render_compact_manifest,
)
from skilldeck._runtime import (
    AnthropicMessagesAdapter as AnthropicMessagesAdapter,
)
from skilldeck._runtime import (
    LoopResult as LoopResult,
)
from skilldeck._runtime import (
    ModelReply as ModelReply,
)
from skilldeck._runtime import (
    OpenAIChatAdapter as OpenAIChatAdapter,
)
from skilldeck._runtime import (
    OpenAIResponsesAdapter as OpenAIResponsesAdapter,
)
from skilldeck._runtime import (
    ToolCallRequest as ToolCallRequest,
)
from skilldeck._runtime import (
    provider_name as provider_name,
)
from skilldeck._runtime import (
    run_tool_loop as run_tool_loop,
)

__all__ = [
    "COMPACT_HEADER",
    "AnthropicMessagesAdapter",
    "LoopResult",
    "ModelReply",
    "OpenAIChatAdapter",
    "OpenAIResponsesAdapter",
    "ToolCallRequest",
    "provider_name",
    "render_compact_catalog",
    "render_compact_manifest",
    "run_tool_loop",
]
