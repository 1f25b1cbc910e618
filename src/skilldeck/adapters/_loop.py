"""A small, framework-free tool loop over a ``SkillRuntime``.

The model is any callable ``model(messages, tools) -> ModelReply``: it gets the
conversation as neutral messages and this turn's tool specs (as plain dicts),
and answers with text and/or tool calls. Wrap a real client with an adapter
from :mod:`skilldeck.adapters._providers`; tests and examples pass a scripted
function.

Neutral messages::

    {"role": "system" | "user", "content": "..."}
    {"role": "assistant", "content": "..." | None, "tool_calls": [{"id", "name", "arguments"}]}
    {"role": "tool", "tool_call_id": "...", "name": "...", "content": "<envelope JSON>"}

Each turn the loop recomputes the exposed tools (allowed-tools and governance
apply to exposure), runs every tool call through ``runtime.call`` (and so through
enforcement, events and the trace), appends the envelopes, and stops on a
reply without tool calls (``stop_reason="final"``) or after ``max_turns``
(``"max_turns"``). The invalid-allowlist ``error`` policy ends the run by
raising ``ToolNotAllowedError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from skilldeck.tools import Session

__all__ = ["LoopResult", "LoopRuntime", "ModelReply", "ToolCallRequest", "run_tool_loop"]


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """One tool call the model asked for; ``arguments`` may still be a JSON string."""

    id: str
    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True, slots=True)
class ModelReply:
    content: str | None = None
    tool_calls: tuple[ToolCallRequest, ...] = ()


Model = Callable[[list[dict[str, Any]], list[dict[str, Any]]], ModelReply]


@dataclass(frozen=True, slots=True)
class LoopResult:
    final: str | None
    stop_reason: str  # "final" or "max_turns"
    turns: int
    messages: tuple[dict[str, Any], ...]
    trace: tuple[dict[str, Any], ...]


class LoopRuntime(Protocol):
    """The two calls the loop needs (a ``SkillRuntime``, or anything alike)."""

    def tool_specs(self, session: Session) -> Sequence[Any]: ...

    def call(
        self, session: Session, name: str, arguments: Mapping[str, Any] | str | None = None
    ) -> dict[str, Any]: ...


def run_tool_loop(
    runtime: LoopRuntime,
    session: Session,
    model: Model,
    messages: Sequence[Mapping[str, Any]],
    *,
    max_turns: int = 8,
    preflight: bool = False,
) -> LoopResult:
    """Run model turns and tool calls until a final answer or ``max_turns``.

    ``preflight=True`` adds ``runtime.preflight(last user message)`` as a system
    message before that message when a skill confidently fits it (nothing otherwise).
    """
    history: list[dict[str, Any]] = [dict(m) for m in messages]
    if preflight:
        _add_preflight(runtime, session, history)
    turn_trace: list[dict[str, Any]] = []
    for turn in range(1, max_turns + 1):
        specs = [s.to_dict() for s in runtime.tool_specs(session)]
        reply = model([dict(m) for m in history], specs)
        history.append(
            {
                "role": "assistant",
                "content": reply.content,
                "tool_calls": [c.to_dict() for c in reply.tool_calls],
            }
        )
        calls: list[dict[str, Any]] = []
        for req in reply.tool_calls:
            envelope = runtime.call(session, req.name, req.arguments)
            history.append(
                {
                    "role": "tool",
                    "tool_call_id": req.id,
                    "name": req.name,
                    "content": json.dumps(envelope, ensure_ascii=False),
                }
            )
            calls.append(
                {
                    "tool": req.name,
                    "ok": envelope["ok"],
                    "code": None if envelope["ok"] else envelope["error"]["code"],
                }
            )
        turn_trace.append(
            {
                "turn": turn,
                "tools_offered": [s["name"] for s in specs],
                "calls": calls,
                "skills_allowed_tools": session.policy.trace(),
            }
        )
        if not reply.tool_calls:
            return LoopResult(reply.content, "final", turn, tuple(history), tuple(turn_trace))
    return LoopResult(None, "max_turns", max_turns, tuple(history), tuple(turn_trace))


def _add_preflight(runtime: Any, session: Session, history: list[dict[str, Any]]) -> None:
    hint_of = getattr(runtime, "preflight", None)
    for i in range(len(history) - 1, -1, -1):
        message = history[i]
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            hint = hint_of(message["content"], session=session) if callable(hint_of) else ""
            if hint:
                history.insert(i, {"role": "system", "content": hint})
            return
