"""Asking the MCP client's user to approve a script run (the executor's approver).

Script runs are approved by the executor's approval store (granted beforehand
with ``skilldeck approve NAME``, bound to the skill's digest). When the store
does not cover a run, the executor calls its approver — ``approve`` here — on the
worker thread that runs the tool call. It asks the user through MCP elicitation
when the client declared it:

- handshake-era connection: an ``elicitation/create`` request, awaited on the
  event loop from the worker thread;
- 2026-07-28: no server-to-client requests exist, so the question is recorded and
  the call answers ``input_required``; the client retries with the user's answer.
  The question's (skill, digest) travels in ``requestState``, which the SDK seals,
  so a yes only covers the content it was asked about.

A client that cannot elicit (Claude Code headless, most SDK clients) has nobody to
ask: ``approve`` answers ``None`` and the executor decides as ``skilldeck run`` does
without a terminal, so an approval stored with ``skilldeck approve NAME`` lets the
run start and anything else is refused (``APPROVAL_REQUIRED``, with that command as
the hint).
"""

from __future__ import annotations

import contextvars
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp_types import (
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from skilldeck._json import loads

__all__ = ["Asker", "approve", "asker_for", "current", "input_required"]

logger = logging.getLogger("skilldeck.mcp")

_KEY = "skilldeck_approval"
_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve", "description": "Allow this run"}
    },
    "required": ["approve"],
}


@dataclass(slots=True)
class Asker:
    """How the approver, on the worker thread, may reach the user for one tool call."""

    elicit: Callable[[str], bool] | None = None  # handshake era: a blocking question
    granted: tuple[str, str] | None = None  # 2026-07-28 retry: (skill, digest) approved
    answered: bool = False  # 2026-07-28 retry: the user already answered
    pending: tuple[str, str, str] | None = None  # 2026-07-28: (skill, digest, question)


current: contextvars.ContextVar[Asker | None] = contextvars.ContextVar(
    "skilldeck_mcp_asker", default=None
)


def approve(request: Any) -> bool | None:
    """``Executor`` approver: the user's answer through the MCP client.

    ``None`` when the client cannot ask its user: the executor then decides as
    without an approver, so what ``skilldeck approve NAME`` granted applies, as on
    the command line.
    """
    asker = current.get()
    if asker is None:
        return None
    key = (str(request.skill), str(request.digest))
    if asker.granted == key:
        return True
    question = _question(request)
    if asker.elicit is not None:
        return asker.elicit(question)
    if asker.pending is None and not asker.answered:
        asker.pending = (*key, question)
    return False


def asker_for(context: Context[Any, Any] | None) -> Asker | None:
    """The asker for this request, or ``None`` when the client cannot elicit."""
    if context is None or not _can_elicit(context):
        return None
    ctx = context.request_context
    if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:

        async def ask(question: str) -> bool:
            try:
                answer = await ctx.session.elicit_form(
                    question, _SCHEMA, related_request_id=ctx.request_id
                )
            except Exception:  # the client could not answer: keep the refusal
                logger.debug("elicitation failed", exc_info=True)
                return False
            return _accepted(answer)

        return Asker(elicit=lambda q: anyio.from_thread.run(ask, q))
    asker = Asker()
    answer = (context.input_responses or {}).get(_KEY)
    if answer is not None:
        asker.answered = True
        state = _state(context.request_state)
        if isinstance(answer, ElicitResult) and _accepted(answer) and state is not None:
            asker.granted = state
    return asker


def input_required(asker: Asker, tool: str) -> InputRequiredResult | None:
    """The 2026-07-28 question round for a run the approver could not decide."""
    if asker.pending is None:
        return None
    skill, digest, question = asker.pending
    request = ElicitRequest(
        params=ElicitRequestFormParams(message=question, requested_schema=_SCHEMA)
    )
    state = json.dumps({"skill": skill, "digest": digest, "tool": tool})
    return InputRequiredResult(input_requests={_KEY: request}, request_state=state)


def _state(raw: str | None) -> tuple[str, str] | None:
    """(skill, digest) from our own sealed request state, if that is what it holds."""
    try:
        value = loads(raw) if raw else None
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    skill, digest = value.get("skill"), value.get("digest")
    if isinstance(skill, str) and isinstance(digest, str):
        return (skill, digest)
    return None


def _accepted(result: ElicitResult) -> bool:
    return result.action == "accept" and (result.content or {}).get("approve") is True


def _can_elicit(context: Context[Any, Any]) -> bool:
    session = context.request_context.session
    return session.check_client_capability(ClientCapabilities(elicitation=ElicitationCapability()))


def _question(request: Any) -> str:
    lines = [f"skilldeck: allow skill '{request.skill}' to run {request.kind} {request.target}?"]
    preview = getattr(request, "preview", None)
    if preview:
        lines.append(f"command: {preview}")
    trust = getattr(request.trust, "value", request.trust)
    lines.append(f"trust: {trust}; reason: {request.reason}")
    lines.append(f"content digest: {request.digest}")
    warning = getattr(request, "warning", None)
    if warning:
        lines.append(str(warning))
    return "\n".join(lines)
