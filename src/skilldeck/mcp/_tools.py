"""The tool fallback: the runtime's ``skills_*`` tools for clients without the extension.

Each call goes to ``SkillRuntime.call`` (in a worker thread) and comes back as
the runtime's envelope, both as structured content and as its JSON text
(``isError`` when ``ok`` is false).

Without execution enabled only the reading tools are offered (``skills_list``,
``skills_load``, ``skills_read_file``, ``skills_search``); ``skills_run_script``
and body-declared command tools are neither listed nor callable.

Approvals: ``ToolFallback.approve`` is the executor's approver; it asks the
client's user through MCP elicitation (``_approvals``) when the approval store
does not cover a run.

Sessions: one runtime session per HTTP session (``Mcp-Session-Id``; at most 256
kept), a fresh one for an HTTP request without one, and a single one for the
stdio and in-process transports.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Protocol

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool

from skilldeck.mcp import _approvals

__all__ = ["READ_TOOLS", "RuntimeView", "ToolFallback"]


READ_TOOLS = frozenset({"skills_list", "skills_load", "skills_read_file", "skills_search"})
_MAX_SESSIONS = 256


class RuntimeView(Protocol):
    """The part of ``skilldeck.SkillRuntime`` the fallback uses."""

    def session(self) -> Any: ...
    def tool_specs(self, session: Any) -> list[Any]: ...
    def call(self, session: Any, name: str, arguments: Mapping[str, Any]) -> Mapping[str, Any]: ...


class ToolFallback:
    """Lists the runtime's tools and calls them for MCP clients."""

    def __init__(self, runtime: RuntimeView | None = None, *, allow_exec: bool = False) -> None:
        self.runtime: Any = runtime
        self.allow_exec = allow_exec
        self._sessions: OrderedDict[str, Any] = OrderedDict()

    # -- the executor's approver (runs on the worker thread) ---------------------

    def approve(self, request: Any) -> bool:
        """``Executor`` approver: yes only when the client's user says so (see ``_approvals``)."""
        return _approvals.approve(request)

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

    # -- calling ---------------------------------------------------------------

    def _session_for(self, context: Context[Any, Any] | None) -> Any:
        key = "default"
        if context is not None:
            headers = getattr(context.request_context.request, "headers", None)
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
            return _result(
                {
                    "ok": False,
                    "error": {
                        "code": "TOOL_NOT_ALLOWED",
                        "message": f"tool {name!r} is not available: script execution is disabled",
                        "hint": "start the server with --allow-exec to enable skills_run_script",
                    },
                }
            )
        session = self._session_for(context)
        asker = _approvals.asker_for(context)
        envelope = await anyio.to_thread.run_sync(self._run, asker, session, name, dict(arguments))
        if asker is not None and not envelope.get("ok"):
            question = _approvals.input_required(asker, name)
            if question is not None:
                return question
        return _result(envelope)

    def _run(
        self, asker: _approvals.Asker | None, session: Any, name: str, arguments: dict[str, Any]
    ) -> Mapping[str, Any]:
        token = _approvals.current.set(asker)
        try:
            envelope: Mapping[str, Any] = self.runtime.call(session, name, arguments)
            return envelope
        finally:
            _approvals.current.reset(token)


def _result(envelope: Mapping[str, Any]) -> CallToolResult:
    text = json.dumps(envelope, ensure_ascii=False, default=str)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=json.loads(text),
        is_error=not envelope.get("ok", False),
    )
