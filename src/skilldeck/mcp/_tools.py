"""The tool fallback: the runtime's ``skills_*`` tools for clients without the extension.

Each call goes to ``SkillRuntime.call`` and comes back as the runtime's envelope,
both as structured content and as its JSON text (``isError`` when ``ok`` is false).

Without execution enabled only the reading tools are offered (``skills_list``,
``skills_load``, ``skills_read_file``, ``skills_search``); ``skills_run_script``
and body-declared command tools are neither listed nor callable.

Approvals: when the runtime answers ``TOOL_CONFIRMATION_REQUIRED`` or
``APPROVAL_REQUIRED`` and the client can elicit, the user is asked (a
``elicitation/create`` request on a handshake-era connection; an
``input_required`` round on 2026-07-28). Yes approves that one call in the
session and retries it; anything else returns the original envelope.

Sessions: one runtime session per MCP connection where the transport names one
(stdio, in-process, stateful HTTP); a stateless HTTP request gets a fresh one.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp_types import (
    CallToolResult,
    ClientCapabilities,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    TextContent,
    ToolAnnotations,
)
from mcp_types import Tool as MCPTool
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = ["READ_TOOLS", "RuntimeView", "ToolFallback"]

logger = logging.getLogger("skilldeck.mcp")

READ_TOOLS = frozenset({"skills_list", "skills_load", "skills_read_file", "skills_search"})
_APPROVAL_CODES = frozenset({"TOOL_CONFIRMATION_REQUIRED", "APPROVAL_REQUIRED"})
_APPROVAL_KEY = "skilldeck_approval"
_MAX_SESSIONS = 256
_SCHEMA = {
    "type": "object",
    "properties": {
        "approve": {"type": "boolean", "title": "Approve", "description": "Allow this call once"}
    },
    "required": ["approve"],
}


class RuntimeView(Protocol):
    """The part of ``skilldeck.SkillRuntime`` the fallback uses."""

    def session(self) -> Any: ...
    def tool_specs(self, session: Any) -> list[Any]: ...
    def call(self, session: Any, name: str, arguments: Mapping[str, Any]) -> Mapping[str, Any]: ...


Approver = Callable[[Mapping[str, Any], Any], None]
"""Applies a user's yes to a session: ``(error object of the envelope, session)``."""


def _default_approver(error: Mapping[str, Any], session: Any) -> None:
    confirmation = error.get("confirmation_id")
    if isinstance(confirmation, str):
        session.approve(confirmation)
        return
    approve = getattr(session, "approve_tool", None)
    tool = error.get("tool")
    if callable(approve) and isinstance(tool, str):
        approve(tool)


class ToolFallback:
    """Lists the runtime's tools and calls them for MCP clients."""

    def __init__(
        self,
        runtime: RuntimeView,
        *,
        allow_exec: bool = False,
        approver: Approver | None = None,
    ) -> None:
        self.runtime = runtime
        self.allow_exec = allow_exec
        self._approver = approver or _default_approver
        self._sessions: OrderedDict[str, Any] = OrderedDict()

    # -- listing ---------------------------------------------------------------

    def _allowed(self, name: str) -> bool:
        return self.allow_exec or name in READ_TOOLS

    def list_tools(self) -> list[MCPTool]:
        session = self.runtime.session()
        out: list[MCPTool] = []
        for spec in self.runtime.tool_specs(session):
            if not self._allowed(spec.name):
                continue
            read_only = bool(getattr(spec, "read_only", spec.name in READ_TOOLS))
            out.append(
                MCPTool(
                    name=spec.name,
                    description=spec.description,
                    input_schema=dict(spec.parameters),
                    annotations=ToolAnnotations(read_only_hint=read_only, open_world_hint=False),
                )
            )
        return out

    def handles(self, name: str) -> bool:
        """Every tool name belongs to the runtime (the server registers none of its own)."""
        return True

    # -- calling ---------------------------------------------------------------

    def _session_for(self, context: Context[Any, Any] | None) -> Any:
        key = "default"
        if context is not None:
            request = context.request_context.request
            headers = getattr(request, "headers", None)
            if headers is not None:
                session_id = headers.get("mcp-session-id")
                if not session_id:
                    return self.runtime.session()  # stateless HTTP: nothing to keep
                key = f"http:{session_id}"
        session = self._sessions.get(key)
        if session is None:
            session = self.runtime.session()
            self._sessions[key] = session
            while len(self._sessions) > _MAX_SESSIONS:
                self._sessions.popitem(last=False)
        else:
            self._sessions.move_to_end(key)
        return session

    async def call(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> CallToolResult | InputRequiredResult:
        if not self._allowed(name):
            envelope: Mapping[str, Any] = {
                "ok": False,
                "error": {
                    "code": "TOOL_NOT_ALLOWED",
                    "message": f"tool {name!r} is not available: script execution is disabled",
                    "hint": "start the server with --allow-exec to enable skills_run_script",
                },
            }
            return _result(envelope)
        session = self._session_for(context)
        envelope = await self._run(session, name, arguments)
        error = envelope.get("error") if not envelope.get("ok") else None
        if not isinstance(error, Mapping) or error.get("code") not in _APPROVAL_CODES:
            return _result(envelope)
        if context is None or not _can_elicit(context):
            return _result(envelope)
        answer = await self._ask(context, name, error)
        if isinstance(answer, InputRequiredResult):
            return answer
        if answer:
            self._approver(error, session)
            envelope = await self._run(session, name, arguments)
        return _result(envelope)

    async def _run(self, session: Any, name: str, arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        return await anyio.to_thread.run_sync(self.runtime.call, session, name, dict(arguments))

    async def _ask(
        self, context: Context[Any, Any], name: str, error: Mapping[str, Any]
    ) -> bool | InputRequiredResult:
        message = _question(name, error)
        ctx = context.request_context
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            responses = context.input_responses or {}
            answer = responses.get(_APPROVAL_KEY)
            if answer is None:
                request = ElicitRequest(
                    params=ElicitRequestFormParams(message=message, requested_schema=_SCHEMA)
                )
                return InputRequiredResult(input_requests={_APPROVAL_KEY: request})
            return isinstance(answer, ElicitResult) and _accepted(answer)
        try:
            result = await ctx.session.elicit_form(message, _SCHEMA, related_request_id=ctx.request_id)
        except Exception:  # the client could not answer: keep the refusal
            logger.debug("elicitation failed", exc_info=True)
            return False
        return _accepted(result)


def _accepted(result: ElicitResult) -> bool:
    return result.action == "accept" and bool((result.content or {}).get("approve"))


def _can_elicit(context: Context[Any, Any]) -> bool:
    session = context.request_context.session
    return session.check_client_capability(ClientCapabilities(elicitation=ElicitationCapability()))


def _question(name: str, error: Mapping[str, Any]) -> str:
    what = error.get("message") or f"{name} needs your approval"
    skill = error.get("skill")
    lines = [f"skilldeck: {what}"]
    if skill:
        lines.append(f"skill: {skill}")
    lines.append("Approve this call once?")
    return "\n".join(lines)


def _result(envelope: Mapping[str, Any]) -> CallToolResult:
    text = json.dumps(envelope, ensure_ascii=False, default=str)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=json.loads(text),
        is_error=not envelope.get("ok", False),
    )
