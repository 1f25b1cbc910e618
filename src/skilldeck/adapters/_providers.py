"""Translate tool specs, messages and replies to and from provider shapes, as plain JSON.

Three adapters, no SDK and no network:

- :class:`OpenAIChatAdapter` — Chat Completions: ``tools=[{"type": "function",
  "function": {name, description, parameters}}]``, assistant ``tool_calls`` with
  JSON-string ``arguments``, ``{"role": "tool", "tool_call_id", "content"}`` results;
- :class:`OpenAIResponsesAdapter` — Responses: ``tools=[{"type": "function", name,
  description, parameters, strict}]``, ``function_call`` output items,
  ``function_call_output`` input items;
- :class:`AnthropicMessagesAdapter` — Messages: ``tools=[{name, description,
  input_schema}]``, ``tool_use`` content blocks, ``tool_result`` blocks in a user turn
  (``is_error`` set when the envelope failed); the system prompt goes to ``system``.

Each adapter has ``tools(specs)``, ``request(messages, specs)`` (the body without
``model``), ``parse_response(raw) -> ModelReply`` and ``model(send)``, which turns a
function that posts a request body and returns the raw response into a model for
:func:`run_tool_loop`. Provider tool names must match ``^[a-zA-Z0-9_-]{1,64}$``;
other names (``state.get``) are rewritten and mapped back when replies are parsed.

``strict=True`` on the OpenAI adapters sends each schema in the form strict mode
accepts (every property required, optional ones nullable, no extra properties);
a tool whose schema cannot be strict (free-form script arguments) goes with
``strict: false``. The runtime reads a ``null`` optional argument as "not given".
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from skilldeck._json import loads
from skilldeck._names import is_tool_name, model_tool_name
from skilldeck.adapters._loop import Model, ModelReply, ToolCallRequest
from skilldeck.tools import ToolSpec, strict_schema

__all__ = [
    "AnthropicMessagesAdapter",
    "OpenAIChatAdapter",
    "OpenAIResponsesAdapter",
    "provider_name",
]

SpecLike = ToolSpec | Mapping[str, Any]


def provider_name(name: str) -> str:
    """``name`` made acceptable to OpenAI and Anthropic (``[a-zA-Z0-9_-]{1,64}``)."""
    if is_tool_name(name):
        return name
    clean = model_tool_name(name) or "tool"
    if len(clean) > 64:
        clean = f"{clean[:55]}_{_short_hash(name)}"
    return clean


def _short_hash(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:8]


def _spec_dict(spec: SpecLike) -> dict[str, Any]:
    return spec.to_dict() if isinstance(spec, ToolSpec) else dict(spec)


def _parameters(spec: Mapping[str, Any]) -> dict[str, Any]:
    params = dict(spec.get("parameters") or {})
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    return params


def _strict_parameters(
    spec: Mapping[str, Any], strict: bool | None
) -> tuple[dict[str, Any], bool | None]:
    """The parameters to send and the ``strict`` flag that is true of them: with
    ``strict`` on, the strict form of the schema, or ``strict`` off for a tool whose
    schema cannot be strict (free-form arguments)."""
    params = _parameters(spec)
    if not strict:
        return params, strict
    converted = strict_schema(params)
    return (params, False) if converted is None else (converted, True)


def _arguments_text(arguments: Mapping[str, Any] | str) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(dict(arguments))


def _arguments_object(arguments: Mapping[str, Any] | str) -> dict[str, Any]:
    """A call's arguments as the object a ``tool_use`` block's ``input`` must be. A model
    can write arguments that are not a JSON object (the runtime answered that call
    ``INVALID_ARGUMENTS``); in the history they are sent as ``{}``, so the request
    stays valid instead of failing on the model's mistake."""
    if not isinstance(arguments, str):
        return dict(arguments)
    try:
        parsed = loads(arguments)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


class _Base:
    def __init__(self) -> None:
        self._names: dict[str, str] = {}  # provider name -> neutral name

    def _name_out(self, name: str) -> str:
        out = provider_name(name)
        if self._names.get(out, name) != name:  # two names folded to one: keep them apart
            out = f"{out[:55]}_{_short_hash(name)}"
        self._names[out] = name
        return out

    def _name_in(self, name: str) -> str:
        return self._names.get(name, name)

    def request(
        self, messages: Sequence[Mapping[str, Any]], specs: Sequence[SpecLike]
    ) -> dict[str, Any]:
        raise NotImplementedError

    def parse_response(self, raw: Mapping[str, Any]) -> ModelReply:
        raise NotImplementedError

    def model(self, send: Callable[[dict[str, Any]], Mapping[str, Any]]) -> Model:
        """A loop model from ``send(request_body) -> raw_response`` (your HTTP or SDK call)."""

        def run(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
            return self.parse_response(send(self.request(messages, tools)))

        return run


class OpenAIChatAdapter(_Base):
    """OpenAI Chat Completions (``POST /v1/chat/completions``)."""

    def __init__(self, *, strict: bool | None = None) -> None:
        super().__init__()
        self.strict = strict

    def tools(self, specs: Sequence[SpecLike]) -> list[dict[str, Any]]:
        out = []
        for spec in map(_spec_dict, specs):
            parameters, strict = _strict_parameters(spec, self.strict)
            function: dict[str, Any] = {
                "name": self._name_out(spec["name"]),
                "description": spec.get("description", ""),
                "parameters": parameters,
            }
            if strict is not None:
                function["strict"] = strict
            out.append({"type": "function", "function": function})
        return out

    def messages(self, messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for m in messages:
            role = m["role"]
            if role == "tool":
                out.append(
                    {"role": "tool", "tool_call_id": m["tool_call_id"], "content": m["content"]}
                )
            elif role == "assistant":
                msg: dict[str, Any] = {"role": "assistant", "content": m.get("content")}
                calls = m.get("tool_calls") or []
                if calls:
                    msg["tool_calls"] = [
                        {
                            "id": c["id"],
                            "type": "function",
                            "function": {
                                "name": self._name_out(c["name"]),
                                "arguments": _arguments_text(c.get("arguments", {})),
                            },
                        }
                        for c in calls
                    ]
                out.append(msg)
            else:
                out.append({"role": role, "content": m.get("content") or ""})
        return out

    def request(
        self, messages: Sequence[Mapping[str, Any]], specs: Sequence[SpecLike]
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"messages": self.messages(messages)}
        if specs:
            body["tools"] = self.tools(specs)
        return body

    def parse_response(self, raw: Mapping[str, Any]) -> ModelReply:
        """Accepts a whole completion (``choices[0].message``) or just the message."""
        message = raw["choices"][0]["message"] if "choices" in raw else raw
        calls = tuple(
            ToolCallRequest(
                id=c["id"],
                name=self._name_in(c["function"]["name"]),
                arguments=c["function"].get("arguments") or "{}",
            )
            for c in message.get("tool_calls") or ()
            if c.get("type", "function") == "function"
        )
        return ModelReply(message.get("content"), calls)

    def tool_result(self, call_id: str, envelope: Mapping[str, Any]) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(envelope)}


class OpenAIResponsesAdapter(_Base):
    """OpenAI Responses (``POST /v1/responses``)."""

    def __init__(self, *, strict: bool = False) -> None:
        super().__init__()
        self.strict = strict

    def tools(self, specs: Sequence[SpecLike]) -> list[dict[str, Any]]:
        out = []
        for spec in map(_spec_dict, specs):
            parameters, strict = _strict_parameters(spec, self.strict)
            out.append(
                {
                    "type": "function",
                    "name": self._name_out(spec["name"]),
                    "description": spec.get("description", ""),
                    "parameters": parameters,
                    "strict": bool(strict),
                }
            )
        return out

    def request(
        self, messages: Sequence[Mapping[str, Any]], specs: Sequence[SpecLike]
    ) -> dict[str, Any]:
        items: list[dict[str, Any]] = []
        instructions: list[str] = []
        for m in messages:
            role = m["role"]
            if role == "system":
                instructions.append(str(m.get("content") or ""))
            elif role == "tool":
                items.append(
                    {
                        "type": "function_call_output",
                        "call_id": m["tool_call_id"],
                        "output": m["content"],
                    }
                )
            elif role == "assistant":
                if m.get("content"):
                    items.append({"role": "assistant", "content": m["content"]})
                for c in m.get("tool_calls") or ():
                    items.append(
                        {
                            "type": "function_call",
                            "call_id": c["id"],
                            "name": self._name_out(c["name"]),
                            "arguments": _arguments_text(c.get("arguments", {})),
                        }
                    )
            else:
                items.append({"role": role, "content": m.get("content") or ""})
        body: dict[str, Any] = {"input": items}
        if instructions:
            body["instructions"] = "\n\n".join(instructions)
        if specs:
            body["tools"] = self.tools(specs)
        return body

    def parse_response(self, raw: Mapping[str, Any]) -> ModelReply:
        texts: list[str] = []
        calls: list[ToolCallRequest] = []
        for item in raw.get("output") or ():
            kind = item.get("type")
            if kind == "function_call":
                calls.append(
                    ToolCallRequest(
                        id=item["call_id"],
                        name=self._name_in(item["name"]),
                        arguments=item.get("arguments") or "{}",
                    )
                )
            elif kind == "message":
                for part in item.get("content") or ():
                    if part.get("type") == "output_text":
                        texts.append(part.get("text", ""))
        return ModelReply("".join(texts) if texts else None, tuple(calls))

    def tool_result(self, call_id: str, envelope: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": "function_call_output", "call_id": call_id, "output": json.dumps(envelope)}


class AnthropicMessagesAdapter(_Base):
    """Anthropic Messages (``POST /v1/messages``)."""

    def tools(self, specs: Sequence[SpecLike]) -> list[dict[str, Any]]:
        return [
            {
                "name": self._name_out(spec["name"]),
                "description": spec.get("description", ""),
                "input_schema": _parameters(spec),
            }
            for spec in map(_spec_dict, specs)
        ]

    def request(
        self, messages: Sequence[Mapping[str, Any]], specs: Sequence[SpecLike]
    ) -> dict[str, Any]:
        system: list[str] = []
        out: list[dict[str, Any]] = []
        pending: list[dict[str, Any]] = []  # tool_result blocks waiting for their user turn

        def flush() -> None:
            if pending:
                out.append({"role": "user", "content": list(pending)})
                pending.clear()

        for m in messages:
            role = m["role"]
            if role == "system":
                system.append(str(m.get("content") or ""))
            elif role == "tool":
                pending.append(self.tool_result_block(m["tool_call_id"], m["content"]))
            elif role == "assistant":
                flush()
                blocks: list[dict[str, Any]] = []
                if m.get("content"):
                    blocks.append({"type": "text", "text": m["content"]})
                for c in m.get("tool_calls") or ():
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": c["id"],
                            "name": self._name_out(c["name"]),
                            "input": _arguments_object(c.get("arguments", {})),
                        }
                    )
                out.append({"role": "assistant", "content": blocks})
            else:
                flush()
                out.append({"role": "user", "content": str(m.get("content") or "")})
        flush()
        body: dict[str, Any] = {"messages": out}
        if system:
            body["system"] = "\n\n".join(system)
        if specs:
            body["tools"] = self.tools(specs)
        return body

    def parse_response(self, raw: Mapping[str, Any]) -> ModelReply:
        texts: list[str] = []
        calls: list[ToolCallRequest] = []
        for block in raw.get("content") or ():
            if block.get("type") == "text":
                texts.append(block.get("text", ""))
            elif block.get("type") == "tool_use":
                given = block.get("input") or {}
                calls.append(  # an input that is not an object: the runtime says so
                    ToolCallRequest(
                        id=block["id"],
                        name=self._name_in(block["name"]),
                        arguments=dict(given) if isinstance(given, Mapping) else json.dumps(given),
                    )
                )
        return ModelReply("".join(texts) if texts else None, tuple(calls))

    def tool_result_block(self, call_id: str, content: str | Mapping[str, Any]) -> dict[str, Any]:
        text = content if isinstance(content, str) else json.dumps(content)
        try:
            failed = not loads(text).get("ok", True)
        except (ValueError, AttributeError):
            failed = False
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": text}
        if failed:
            block["is_error"] = True
        return block

    def tool_result(self, call_id: str, envelope: Mapping[str, Any]) -> dict[str, Any]:
        return {"role": "user", "content": [self.tool_result_block(call_id, dict(envelope))]}
