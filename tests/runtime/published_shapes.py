"""JSON Schemas of the provider shapes the adapters produce, transcribed from the providers.

Sources (schema names as the providers publish them):

- OpenAI, ``openai/openai-openapi`` ``openapi.yaml``: ``ChatCompletionTool``,
  ``FunctionObject`` (name: "a-z, A-Z, 0-9, or contain underscores and dashes, with a
  maximum length of 64"), ``FunctionParameters``, ``ChatCompletionMessageToolCall``,
  ``ChatCompletionRequest{System,User,Assistant,Tool}Message``; Responses:
  ``FunctionTool`` (``type``, ``name``, ``strict``, ``parameters`` required),
  ``FunctionToolCall``, ``FunctionCallOutputItemParam``, ``EasyInputMessage``.
- Anthropic Messages API reference: ``Tool`` (``name`` ``^[a-zA-Z0-9_-]{1,64}$``,
  ``input_schema`` with ``type: object``), ``ToolUseBlock``, ``ToolResultBlockParam``,
  ``MessageParam`` (roles ``user`` / ``assistant``), top-level ``system``.

OpenAPI 3.0 ``nullable`` is written as a type list here.
"""

from __future__ import annotations

from typing import Any

_NAME = {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"}
_OBJECT_SCHEMA = {"type": "object", "additionalProperties": True}

OPENAI_CHAT_TOOL: dict[str, Any] = {
    "type": "object",
    "required": ["type", "function"],
    "properties": {
        "type": {"enum": ["function"]},
        "function": {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": _NAME,
                "description": {"type": "string"},
                "parameters": _OBJECT_SCHEMA,
                "strict": {"type": ["boolean", "null"]},
            },
        },
    },
}

_TOOL_CALL = {
    "type": "object",
    "required": ["id", "type", "function"],
    "properties": {
        "id": {"type": "string"},
        "type": {"enum": ["function"]},
        "function": {
            "type": "object",
            "required": ["name", "arguments"],
            "properties": {"name": _NAME, "arguments": {"type": "string"}},
        },
    },
}

OPENAI_CHAT_MESSAGE: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "required": ["role", "content"],
            "properties": {
                "role": {"enum": ["system", "developer"]},
                "content": {"type": "string"},
            },
        },
        {
            "type": "object",
            "required": ["role", "content"],
            "properties": {"role": {"const": "user"}, "content": {"type": "string"}},
        },
        {
            "type": "object",
            "required": ["role"],
            "properties": {
                "role": {"const": "assistant"},
                "content": {"type": ["string", "null"]},
                "tool_calls": {"type": "array", "items": _TOOL_CALL},
            },
        },
        {
            "type": "object",
            "required": ["role", "content", "tool_call_id"],
            "properties": {
                "role": {"const": "tool"},
                "content": {"type": "string"},
                "tool_call_id": {"type": "string"},
            },
        },
    ]
}

OPENAI_CHAT_REQUEST: dict[str, Any] = {
    "type": "object",
    "required": ["messages"],
    "properties": {
        "messages": {"type": "array", "minItems": 1, "items": OPENAI_CHAT_MESSAGE},
        "tools": {"type": "array", "items": OPENAI_CHAT_TOOL},
    },
}

OPENAI_RESPONSES_TOOL: dict[str, Any] = {
    "type": "object",
    "required": ["type", "name", "strict", "parameters"],
    "properties": {
        "type": {"enum": ["function"]},
        "name": _NAME,
        "description": {"type": ["string", "null"]},
        "parameters": {"anyOf": [_OBJECT_SCHEMA, {"type": "null"}]},
        "strict": {"type": ["boolean", "null"]},
    },
}

_RESPONSES_INPUT_ITEM: dict[str, Any] = {
    "oneOf": [
        {  # EasyInputMessage
            "type": "object",
            "required": ["role", "content"],
            "properties": {
                "role": {"enum": ["user", "assistant", "system", "developer"]},
                "content": {"type": "string"},
                "type": {"const": "message"},
            },
            "not": {"required": ["call_id"]},
        },
        {  # FunctionToolCall
            "type": "object",
            "required": ["type", "call_id", "name", "arguments"],
            "properties": {
                "type": {"const": "function_call"},
                "call_id": {"type": "string"},
                "name": _NAME,
                "arguments": {"type": "string"},
            },
        },
        {  # FunctionCallOutputItemParam
            "type": "object",
            "required": ["call_id", "type", "output"],
            "properties": {
                "type": {"const": "function_call_output"},
                "call_id": {"type": "string", "minLength": 1, "maxLength": 64},
                "output": {"type": "string", "maxLength": 10485760},
            },
        },
    ]
}

OPENAI_RESPONSES_REQUEST: dict[str, Any] = {
    "type": "object",
    "required": ["input"],
    "properties": {
        "input": {"type": "array", "items": _RESPONSES_INPUT_ITEM},
        "instructions": {"type": ["string", "null"]},
        "tools": {"type": "array", "items": OPENAI_RESPONSES_TOOL},
    },
}

ANTHROPIC_TOOL: dict[str, Any] = {
    "type": "object",
    "required": ["name", "input_schema"],
    "properties": {
        "name": _NAME,
        "description": {"type": "string"},
        "input_schema": {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {"const": "object"},
                "properties": {"type": ["object", "null"]},
                "required": {"type": ["array", "null"], "items": {"type": "string"}},
            },
        },
    },
}

_ANTHROPIC_BLOCK: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "required": ["type", "text"],
            "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
        },
        {
            "type": "object",
            "required": ["type", "id", "name", "input"],
            "properties": {
                "type": {"const": "tool_use"},
                "id": {"type": "string"},
                "name": _NAME,
                "input": {"type": "object"},
            },
        },
        {
            "type": "object",
            "required": ["type", "tool_use_id"],
            "properties": {
                "type": {"const": "tool_result"},
                "tool_use_id": {"type": "string"},
                "content": {"type": "string"},
                "is_error": {"type": "boolean"},
            },
        },
    ]
}

ANTHROPIC_REQUEST: dict[str, Any] = {
    "type": "object",
    "required": ["messages"],
    "properties": {
        "system": {"type": "string"},
        "messages": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["role", "content"],
                "properties": {
                    "role": {"enum": ["user", "assistant"]},
                    "content": {
                        "anyOf": [
                            {"type": "string"},
                            {"type": "array", "items": _ANTHROPIC_BLOCK},
                        ]
                    },
                },
            },
        },
        "tools": {"type": "array", "items": ANTHROPIC_TOOL},
    },
}
