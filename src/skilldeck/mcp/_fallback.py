"""The tool fallback: the runtime's ``skills_*`` tools for clients without the extension.

Each client has its own runtime session (``_sessions``), so ``skills_load`` works
over MCP as in Python: the loaded skill's declared and Python tools join *that
client's* ``tools/list``, its ``allowed-tools`` narrows *that client's* list, the
host's governance hook sees that session, and the client is told with
``notifications/tools/list_changed``. Other clients are unaffected.

Each call goes to ``SkillRuntime.call`` (in a worker thread) and comes back as
the runtime's envelope, both as structured content and as its JSON text
(``isError`` when ``ok`` is false); a call the client cancels stops the script it
runs (``_cancel``). A tool that does not exist at all is a
protocol error (``-32602``, "no tool named …") whose ``data`` is the envelope's
error (``code`` ``TOOL_NOT_ALLOWED``, ``reason`` ``unknown_tool``). Arguments that
fail a tool's schema stay a tool result (``INVALID_ARGUMENTS`` naming the field),
as the MCP specification asks, so the model can correct itself.

Without execution enabled only the reading tools are offered (``skills_list``,
``skills_load``, ``skills_read_file``, ``skills_search``); ``skills_run_script``,
body-declared command tools and any other tool of the runtime are neither listed
nor callable.

Approvals: the executor's approver (``_elicit.approve``) asks the client's
user through MCP elicitation when the approval store does not cover a run.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ToolsListChanged
from mcp_types import (
    CallToolResult,
    InputRequiredResult,
    TextContent,
    Tool as MCPTool,
    ToolAnnotations,
    ToolListChangedNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from skilldeck.config import with_roots
from skilldeck.mcp import _elicit
from skilldeck.mcp._notify import ClientBus
from skilldeck.mcp._sessions import (
    DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_SESSIONS,
    HANDLE_META_KEY,
    ClientSession,
    ClientSessions,
)
from skilldeck.mcp._wire import INVALID_PARAMS

if TYPE_CHECKING:  # the runtime is made on first use: a listing of skills needs none
    from skilldeck import Catalog, RuntimeOptions, Session, SkillRuntime

__all__ = ["READ_TOOLS", "ToolFallback"]

logger = logging.getLogger("skilldeck.mcp")


READ_TOOLS = frozenset({"skills_list", "skills_load", "skills_read_file", "skills_search"})


class ToolFallback:
    """Lists the runtime's tools and calls them, one runtime session per client.

    Give the ``runtime``, or ``make_runtime`` (called on first use: a server that
    only lists skills never loads the tool machinery) with the ``options`` and
    ``catalog`` the runtime it makes will have.
    """

    def __init__(
        self,
        runtime: SkillRuntime | None = None,
        *,
        allow_exec: bool = False,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        make_runtime: Callable[[], SkillRuntime] | None = None,
        options: RuntimeOptions | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self._runtime = runtime
        self._make = make_runtime
        self._lock = threading.Lock()
        served: Any = catalog
        if runtime is not None:
            options, served = runtime.options, runtime.catalog
        elif make_runtime is None or options is None or catalog is None:
            raise TypeError("give a runtime, or make_runtime with its options and catalog")
        self.options = options
        self.allow_exec = allow_exec
        names, prefix = options.tool_names, options.tool_prefix
        #: the reading tools and the script tool under the names the runtime exposes
        self.read_tools = frozenset(names.get(k, prefix + k) for k in READ_TOOLS)
        self._run_script = names.get("skills_run_script", prefix + "skills_run_script")
        self.sessions = ClientSessions(
            lambda: self.runtime.session(), idle_timeout=idle_timeout, max_sessions=max_sessions
        )
        self.bus: ClientBus | None = None  # set by the server: where listen streams hear us
        self._roots, self._recursive = _served_roots(served)

    @property
    def runtime(self) -> SkillRuntime:
        """The runtime the tools run in (made on first use when given as a function)."""
        runtime = self._runtime
        if runtime is None:
            with self._lock:
                if self._runtime is None:
                    assert self._make is not None
                    self._runtime = self._make()
                runtime = self._runtime
        return runtime

    # -- the executor's approver (runs on the worker thread) ---------------------

    def approve(self, request: Any) -> bool | None:
        """``Executor`` approver: the client's user's answer (see ``_elicit``)."""
        return _elicit.approve(request)

    # -- listing ---------------------------------------------------------------

    def _offered(self, session: Session) -> list[MCPTool]:
        out: list[MCPTool] = []
        for spec in self.runtime.tool_specs(session):
            if not (self.allow_exec or spec.name in self.read_tools):
                continue
            out.append(
                MCPTool(
                    name=spec.name,
                    description=spec.description,
                    input_schema=dict(spec.parameters),
                    annotations=ToolAnnotations(
                        read_only_hint=spec.read_only, open_world_hint=False
                    ),
                )
            )
        return out

    def list_tools(self, ctx: ServerRequestContext[Any, Any] | None = None) -> list[MCPTool]:
        """The tools this client may use now (its loaded skills, its allowed-tools)."""
        client = self._client(ctx)
        if client is None:
            return self._offered(self.sessions.fresh())
        tools = self._offered(client.session)
        client.listed = tuple(t.name for t in tools)
        return tools

    def _client(self, ctx: ServerRequestContext[Any, Any] | None) -> ClientSession | None:
        key = self.sessions.key_for(ctx) if ctx is not None else None
        return self.sessions.get(key) if key is not None else None

    # -- calling ---------------------------------------------------------------

    async def call(
        self,
        ctx: ServerRequestContext[Any, Any],
        name: str,
        arguments: Mapping[str, Any],
        context: Context[Any, Any] | None = None,
    ) -> CallToolResult | InputRequiredResult:
        """Run one ``tools/call`` in this client's session."""
        client = self._client(ctx)
        session = client.session if client is not None else self.sessions.fresh()
        before = [t.name for t in self._offered(session)]
        if name not in before:
            refused = self._refusal(session, name)
            if refused is not None:
                return _result(refused)
        asker = _elicit.asker_for(context)
        from skilldeck.mcp._cancel import in_thread  # (calls a tool: the runtime is loaded)

        envelope = await in_thread(
            self._run, asker, session, name, dict(arguments), progress=_progress(context, name)
        )
        if not envelope.get("ok"):
            envelope = self._pasteable(envelope)
            error = envelope.get("error") or {}
            if error.get("reason") == "unknown_tool":
                raise MCPError(INVALID_PARAMS, str(error.get("message")), data=dict(error))
            if asker is not None:
                question = _elicit.input_required(asker, name)
                if question is not None:
                    return question
        meta: dict[str, Any] | None = None
        if client is None and session.loaded:  # session-less: keep the state under a handle
            client = self.sessions.adopt(session)
            meta = {HANDLE_META_KEY: client.key}
        if client is not None:
            after = tuple(t.name for t in self._offered(session))
            seen = client.listed if client.listed is not None else tuple(before)
            if after != seen:
                logger.info("tools of this session changed: %s", ", ".join(after))
                client.listed = None
                await self._tools_changed(ctx, client)
        return _result(envelope, meta)

    def _pasteable(self, envelope: Mapping[str, Any]) -> Mapping[str, Any]:
        """The error's hint with this server's ``--root`` folders, so that a command it
        names (``skilldeck approve NAME``) finds the same skill when pasted."""
        error = envelope.get("error")
        if not self._roots or not isinstance(error, Mapping) or not error.get("hint"):
            return envelope
        hint = with_roots(str(error["hint"]), self._roots, recursive=self._recursive)
        return {**envelope, "error": {**error, "hint": hint}}

    def _refusal(self, session: Session, name: str) -> dict[str, Any] | None:
        """The envelope for a tool this client is not offered (``None``: let the runtime say).

        Without execution nothing but the reading tools ever reaches the runtime,
        whatever a host's governance hook would allow at call time.
        """
        if self.allow_exec or name in self.read_tools:
            return None  # the runtime says why (allowed-tools, governance, unknown)
        specs = self.runtime.tool_specs(session)
        if name != self._run_script and not any(s.name == name for s in specs):
            offered = ", ".join(s.name for s in specs if s.name in self.read_tools)
            raise MCPError(
                INVALID_PARAMS,
                f"there is no tool named {name!r}",
                data={
                    "code": "TOOL_NOT_ALLOWED",
                    "message": f"there is no tool named {name!r}",
                    "hint": f"available tools: {offered}",
                    "reason": "unknown_tool",
                },
            )
        return {
            "ok": False,
            "error": {
                "code": "TOOL_NOT_ALLOWED",
                "message": f"tool {name!r} is not available: script execution is disabled",
                "hint": "start the server with --allow-exec to run scripts and skill tools",
                "reason": "exec_disabled",
            },
        }

    async def _tools_changed(
        self, ctx: ServerRequestContext[Any, Any], client: ClientSession
    ) -> None:
        """Tell this client (only) that its tool list changed."""
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            if self.bus is not None:
                await self.bus.publish_to(client.key, ToolsListChanged())
            return
        try:
            await ctx.session.send_notification(
                ToolListChangedNotification(), related_request_id=ctx.request_id
            )
        except Exception:  # advisory: a client that went away misses nothing it can use
            logger.debug("could not send tools/list_changed", exc_info=True)

    def _run(
        self, asker: _elicit.Asker | None, session: Session, name: str, arguments: dict[str, Any]
    ) -> Mapping[str, Any]:
        token = _elicit.current.set(asker)
        try:
            return self.runtime.call(session, name, arguments)
        finally:
            _elicit.current.reset(token)


def _served_roots(catalog: Any) -> tuple[list[Path], bool]:
    """The folders of a catalog made of ``--root`` folders only (else none) and whether
    they are searched at any depth: the options a pasted command needs to find its skills."""
    sources = getattr(catalog, "sources", ())
    if not sources or any(s.kind != "root" for s in sources):
        return [], False
    roots = [r for s in sources for r in s.roots]
    return [r.path for r in roots], any(r.recursive for r in roots)


def _progress(
    context: Context[Any, Any] | None, name: str
) -> Callable[[float], Awaitable[None]] | None:
    """What tells the client how long tool ``name`` has run (``None``: no context;
    without a progress token the SDK sends nothing)."""
    if context is None:
        return None
    report = context.report_progress

    async def seconds(elapsed: float) -> None:
        await report(elapsed, None, f"{name}: running for {elapsed:.0f} s")

    return seconds


def _result(envelope: Mapping[str, Any], meta: dict[str, Any] | None = None) -> CallToolResult:
    text = json.dumps(envelope, ensure_ascii=False, default=str)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=json.loads(text),
        is_error=not envelope.get("ok", False),
        _meta=meta,
    )
