"""``SkillServer``: an ``MCPServer`` serving one skilldeck catalog.

Assembly only: the skills extension (``_extension``), ``skill://`` resources
(``_resources``), the tool fallback (``_fallback``), the skill-list prompt
(``_prompt``) and change notifications (``_notify``) each live in their own
module. The server keeps one piece of state, the current ``SkillIndex``, and
replaces it whole on ``refresh()``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.caching import CacheHint
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CallToolRequestParams,
    DiscoverResult,
    GetPromptResult,
    InputRequiredResult,
    PaginatedRequestParams,
    Prompt,
    RequestParams,
    SetLevelRequestParams,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError
from pydantic.networks import AnyUrl

from skilldeck import Catalog, __version__
from skilldeck._gc import froze_since_start, paused as collector_paused
from skilldeck.mcp import _complete, _logs, _prompt, _resources, _skill_prompts, _uris
from skilldeck.mcp._extension import CachePolicy, SkillsExtension
from skilldeck.mcp._fallback import ToolFallback
from skilldeck.mcp._index import IndexBuilder, SkillIndex
from skilldeck.mcp._logs import ClientLogs
from skilldeck.mcp._notify import ChangeNotifier
from skilldeck.mcp._sessions import (
    HANDLE_META_KEY,
    connection_key,
    connection_of,
    current_client,
)
from skilldeck.mcp._store import SnapshotStore
from skilldeck.mcp._wire import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    invalid_params,
    protocol_error,
    shown,
)

__all__ = ["SkillServer"]

logger = logging.getLogger("skilldeck.mcp")

# answered before the first snapshot is made (it is made in the background meanwhile)
_NEEDS_NO_SNAPSHOT = frozenset(
    {"initialize", "server/discover", "ping", "tools/list", "logging/setLevel"}
)

INSTRUCTIONS = (
    "This server publishes Agent Skills. Clients with the MCP Skills extension use "
    "skills/list, skills/get and skill:// resources; other clients use the skills_* tools "
    "(skills_list, then skills_load NAME, then skills_read_file) or the skills_catalog prompt."
)


class SkillServer(MCPServer[Any]):
    """An MCP server for a skilldeck catalog (see ``skilldeck.mcp.create_server``)."""

    def __init__(
        self,
        catalog: Catalog,
        *,
        tools: ToolFallback | None = None,
        name: str = "skilldeck",
        page_size: int = 100,
        resource_page_size: int = 500,
        cache_ttl_ms: int = 0,
        poll_interval: float | None = None,
        watch: bool = False,
        snapshot_cache: bool | str | os.PathLike[str] = True,
    ) -> None:
        self.catalog = catalog
        self.notifier = ChangeNotifier(tools=tools is not None)
        if tools is not None:
            tools.bus = self.notifier.bus
        self._builder = IndexBuilder(catalog, store=_store_for(catalog, snapshot_cache))
        # the snapshot is made on first need (or in the background once serving):
        # initialize and tools/list need none, and a host's first turn waits for those
        # two; the skill prompts are made when a client first asks for prompts
        self._index: SkillIndex | None = None
        self._prepare_lock = threading.Lock()
        self._skill_prompts: dict[str, tuple[Any, ...]] | None = None
        self._tools = tools
        self._poll_interval = poll_interval
        self._watch = watch
        self._refresh_lock = anyio.Lock()
        self._resource_page_size = resource_page_size
        cache = CachePolicy(ttl_ms=cache_ttl_ms, scope="public")
        hint = CacheHint(ttl_ms=cache_ttl_ms, scope="public")
        extensions: list[Extension] = [
            SkillsExtension(lambda: self.index, cache=cache, page_size=page_size)
        ]
        if tools is not None:
            extensions.append(_SessionTools(self, tools))
        super().__init__(
            name,
            version=__version__,
            instructions=INSTRUCTIONS,
            extensions=extensions,
            subscriptions=self.notifier.bus,
            cache_hints={
                "resources/list": hint,
                "resources/read": hint,
                "resources/templates/list": hint,
                "prompts/list": hint,
                "tools/list": CacheHint(ttl_ms=0, scope="private"),
            },
            middleware=[self.notifier.middleware, self._client_middleware],
            lifespan=_lifespan,
            log_level="WARNING",
        )
        self.notifier.extensions = {e.identifier: e.settings() for e in extensions}
        # resources/list is paginated here (MCPServer's own handler is not).
        self._lowlevel_server.add_request_handler(
            "resources/list", PaginatedRequestParams, self._list_resources_page
        )
        _prompt.register(self)
        _complete.register(self, lambda: self.index)
        # logging/setLevel left the 2026-07-28 revision; the SDK's lowlevel handler API
        # is its documented way to serve it to handshake-era clients.
        self.logs = ClientLogs()
        self._lowlevel_server.add_request_handler(
            "logging/setLevel", SetLevelRequestParams, self.logs.set_level
        )
        if tools is not None:
            self._lowlevel_server.add_request_handler(
                "server/discover", RequestParams, self._discover
            )

    # -- state -----------------------------------------------------------------

    @property
    def index(self) -> SkillIndex:
        """The snapshot requests are answered from (made on first use)."""
        index = self._index
        return index if index is not None else self.prepare()

    def prepare(self) -> SkillIndex:
        """Make the first snapshot, once (thread-safe).

        When the process froze what its start-up made (``skilldeck serve`` does:
        see ``skilldeck._gc``), the first index joins it: it lives as long as the
        server, and left to the collector, every object of it (about 100,000 for
        2,000 skills) would be traversed again by the next collections and at exit.
        """
        with _own_logs(self), self._prepare_lock:
            if self._index is None:
                with collector_paused(freeze=froze_since_start()):
                    index = self._builder.build()
                for address, reason in index.skipped:
                    logger.warning("not published: %s (%s)", address, reason)
                self._index = index
            return self._index

    def _prompts_made(self) -> None:
        """Register a prompt per user-invocable skill, once (later refreshes keep them
        in step): made when first asked for, a listing of thousands of skills need not
        wait for them."""
        if self._skill_prompts is None:
            self.prepare()
            with self._prepare_lock:
                if self._skill_prompts is None:
                    self._skill_prompts = _skill_prompts.sync(self, {})

    async def list_prompts(self) -> list[Prompt]:
        await anyio.to_thread.run_sync(self._prompts_made)  # off the event loop
        return await super().list_prompts()

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[Any, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        await anyio.to_thread.run_sync(self._prompts_made)
        return await super().get_prompt(name, arguments, context)

    async def refresh(self) -> set[str]:
        """Rescan the catalog; notify clients and return the URIs that changed (if any)."""
        await anyio.to_thread.run_sync(self.prepare)
        with _own_logs(self):
            return await self._refresh()

    async def _refresh(self) -> set[str]:
        async with self._refresh_lock:
            await anyio.to_thread.run_sync(self.catalog.refresh)
            new = await anyio.to_thread.run_sync(self._builder.build)
            changed = set(self._builder.changed)
            self._index = new
            if changed and self._skill_prompts is not None:
                with self._prepare_lock:
                    self._skill_prompts = _skill_prompts.sync(
                        self, self._skill_prompts, self._builder.names
                    )
        if changed:
            logger.info("catalog changed: %d file(s)", len(changed))
            await self.notifier.publish(changed)
        return changed

    async def _safe_refresh(self) -> None:
        try:
            await self.refresh()
        except Exception:  # keep serving the last good snapshot
            logger.exception("catalog refresh failed")

    async def _poll(self, interval: float) -> None:
        while True:
            await anyio.sleep(interval)
            await self._safe_refresh()

    async def _watch_roots(self, fallback: float | None) -> None:
        """Refresh whenever a file under a root changes (``watchfiles``); else poll.

        Roots a watcher must not follow (``Catalog.watch_targets``: a link out of
        them, or too many folders) are polled beside it.
        """
        interval = fallback or 2.0
        try:
            from watchfiles import awatch
        except ImportError:  # skilldeck[watch] not installed
            if fallback:
                await self._poll(fallback)
            return
        watched, polled = self.catalog.watch_targets()
        if polled:
            shown = ", ".join(str(p) for p in polled)
            logger.info("polling %s: a link leads out of it, or it is too large to watch", shown)
        if not watched:
            if polled or fallback:
                await self._poll(interval)
            return
        async with anyio.create_task_group() as tasks:
            if polled:
                tasks.start_soon(self._poll, interval)
            from watchfiles import DefaultFilter

            default, ours = DefaultFilter(), self.catalog.watch_filter()
            watcher = awatch(
                *(str(p) for p in watched),
                watch_filter=lambda change, path: ours(change, path) and default(change, path),
                debounce=150,
                step=25,
                rust_timeout=400,
                ignore_permission_denied=True,
            )
            try:
                async for _changes in watcher:
                    await self._safe_refresh()
            except Exception as exc:  # a change to a name that is not UTF-8 ends the watch
                logger.warning("watching the skill roots stopped (%s); polling them", exc)
                await self._safe_refresh()
                if not polled:
                    tasks.start_soon(self._poll, interval)

    def _background(self) -> Callable[[], Coroutine[Any, Any, None]] | None:
        """The change-detection task to run while serving, if any."""
        if self._watch:
            return lambda: self._watch_roots(self._poll_interval or 2.0)
        if self._poll_interval:
            interval = self._poll_interval
            return lambda: self._poll(interval)
        return None

    async def _discover(
        self, ctx: ServerRequestContext[Any, Any], params: RequestParams | None
    ) -> DiscoverResult:
        """``server/discover``; over HTTP, with tools, an invitation to the handshake.

        Each client's tool list is state (the tools of the skills it loaded), and a
        2026-07-28 HTTP request has no session to keep it in. Advertising only the
        handshake-era versions there, as stateful servers of the other SDKs do, makes
        every ``auto`` client (the SDKs' default) hold an ``Mcp-Session-Id`` session,
        where ``notifications/tools/list_changed`` reaches it after a load. stdio
        (one pipe, one session) and in-process clients keep the 2026-07-28 envelope;
        a client pinned to 2026-07-28 over HTTP is still served, statelessly.
        """
        result = await self._lowlevel_server._handle_discover(ctx, params)
        if ctx.request is not None:  # an HTTP request: no session without the handshake
            result.supported_versions = list(HANDSHAKE_PROTOCOL_VERSIONS)
        return result

    # -- resources -------------------------------------------------------------

    async def _list_resources_page(
        self, ctx: Any, params: PaginatedRequestParams
    ) -> dict[str, Any]:
        page = _resources.list_page(self.index, params.cursor, self._resource_page_size)
        if params.cursor is None:
            page["resources"].extend(
                m.model_dump(by_alias=True, exclude_none=True)
                for m in await super().list_resources()
            )
        return page

    async def read_resource(
        self, uri: AnyUrl | str, context: Context[Any, Any] | None = None
    ) -> Iterable[ReadResourceContents] | InputRequiredResult:
        if str(uri).startswith(_uris.SCHEME):
            return [await _resources.read(self.index, self.catalog, str(uri))]
        try:
            return await super().read_resource(uri, context)
        except ResourceNotFoundError:  # another scheme: the envelope's code, as for skill://
            said = shown(str(uri))
            raise protocol_error(
                INVALID_PARAMS,
                f"No resource is served at {said}",
                envelope="FILE_NOT_FOUND",
                hint="this server serves skill:// URIs (resources/list lists them)",
                uri=said,
            ) from None

    # -- per-client tools ------------------------------------------------------

    @property
    def tools(self) -> ToolFallback | None:
        """The tool fallback (``None`` when the server offers no tools)."""
        return self._tools

    async def _client_middleware(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """Know which client asks; add that client's tools to ``tools/list``."""
        fallback = self._tools
        if self._index is None and ctx.method not in _NEEDS_NO_SNAPSHOT:
            await anyio.to_thread.run_sync(self.prepare)  # off the event loop
        if ctx.method == "prompts/get":
            await self._check_prompt(ctx)
        token = current_client.set(self._client_key(ctx))
        try:
            with _own_logs(self):
                result = await call_next(ctx)
        except ValidationError as exc:  # the request's params, checked by the SDK
            raise invalid_params(ctx.method, exc) from None
        except MCPError as exc:
            raise _explained(ctx, exc, self._lowlevel_server) from None
        finally:
            current_client.reset(token)
        if fallback is not None and ctx.method == "tools/list" and isinstance(result, dict):
            own = [
                t.model_dump(by_alias=True, mode="json", exclude_none=True)
                for t in fallback.list_tools(ctx)
            ]
            result["tools"] = own + list(result.get("tools") or [])
        return result

    def _client_key(self, ctx: ServerRequestContext[Any, Any]) -> str | None:
        if self._tools is not None:
            return self._tools.sessions.key_for(ctx)
        connection = connection_of(ctx)
        if connection is None or connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return None
        return connection_key(connection)

    async def _check_prompt(self, ctx: ServerRequestContext[Any, Any]) -> None:
        """An unknown prompt name or argument name is a bad argument (``-32602``), not
        an internal error (the SDK's rendering fails on an unexpected keyword)."""
        name = (ctx.params or {}).get("name")
        if not isinstance(name, str):
            return  # the SDK's params validation answers
        prompts = {p.name: p for p in await self.list_prompts()}
        known = sorted(prompts)
        if name in prompts:
            given = (ctx.params or {}).get("arguments")
            takes = sorted(a.name for a in prompts[name].arguments or ())
            extra = sorted(set(given) - set(takes)) if isinstance(given, dict) else []
            if extra:
                raise protocol_error(
                    INVALID_PARAMS,
                    f"prompt {name!r} has no argument {extra[0]!r}",
                    envelope="INVALID_ARGUMENTS",
                    hint=f"its arguments: {', '.join(takes)}" if takes else "it takes none",
                    field=extra[0],
                )
        if name not in known:
            # every user-invocable skill is a prompt: name a few, not thousands
            shown = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if known[20:] else "")
            raise protocol_error(
                INVALID_PARAMS,
                f"there is no prompt named {name!r}",
                envelope="INVALID_ARGUMENTS",
                hint=f"available prompts: {shown}",
                field="name",
            )


class _SessionTools(Extension):
    """Routes ``tools/call`` of the runtime's tools to the caller's session.

    Advertised as ``dev.skilldeck/sessions``: its setting names the ``_meta`` key
    of the session handle that session-less (2026-07-28 HTTP) clients may echo.
    """

    identifier = "dev.skilldeck/sessions"

    def __init__(self, server: SkillServer, tools: ToolFallback) -> None:
        self._server = server
        self._tools = tools

    def settings(self) -> dict[str, Any]:
        return {"handleMeta": HANDLE_META_KEY}

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        own = {t.name for t in await self._server.list_tools()}
        if params.name in own:  # a tool the host registered on the server itself
            return await call_next(ctx)
        context: Context[Any, Any] = Context(
            request_context=ctx,
            mcp_server=self._server,
            input_params=params,
            subscriptions=self._server.notifier.bus,
        )
        return await self._tools.call(ctx, params.name, params.arguments or {}, context)


def _store_for(catalog: Catalog, where: bool | str | os.PathLike[str]) -> SnapshotStore | None:
    """Where the snapshot of this catalog's roots is kept between runs (``False``: nowhere)."""
    if where is False:
        return None
    if where is True:
        from skilldeck.config import dirs  # the user cache folder, as the catalog's cache

        folder: Path = dirs().cache / "mcp"
    else:
        folder = Path(where)
    roots = "\n".join(f"{r.source}\t{r.path}\t{int(r.recursive)}" for r in catalog.roots)
    return SnapshotStore(folder, roots)


def _explained(ctx: ServerRequestContext[Any, Any], exc: MCPError, lowlevel: Any) -> MCPError:
    """The SDK's bare ``-32602`` for a request before ``initialize`` completed, and its
    ``-32601`` for a method nobody serves (``data`` was the method's name alone), with
    the envelope's code and what to do; any other error as it is."""
    error = exc.error
    if error.code == METHOD_NOT_FOUND and isinstance(error.data, str):
        import difflib

        served = sorted(getattr(lowlevel, "_request_handlers", None) or ())
        near = difflib.get_close_matches(ctx.method, served, n=1)
        listed = f"this server answers: {', '.join(served)}"
        return protocol_error(
            METHOD_NOT_FOUND,
            f"there is no method {shown(ctx.method)!r}",
            envelope="INVALID_ARGUMENTS",
            hint=f"did you mean {near[0]}? {listed}" if near else listed,
            field="method",
        )
    connection = connection_of(ctx)
    if error.code != INVALID_PARAMS or error.data != "" or connection is None:
        return exc
    if getattr(connection, "initialize_accepted", True):
        return exc
    return protocol_error(
        INVALID_PARAMS,
        f"{ctx.method} before initialize",
        envelope="INVALID_ARGUMENTS",
        hint="send initialize, then notifications/initialized, before other requests",
    )


@contextmanager
def _own_logs(server: SkillServer) -> Iterator[None]:
    """Records made meanwhile are this server's (its clients may hear them)."""
    token = _logs.origin.set(server.logs)
    try:
        yield
    finally:
        _logs.origin.reset(token)


async def _prepare_soon(server: SkillServer) -> None:
    """Make the first snapshot in a worker thread while the first requests are answered."""
    try:
        await anyio.to_thread.run_sync(server.prepare)
    except Exception:  # the request that needs it makes it again and reports why
        logger.exception("could not read the catalog")
    tools = server._tools
    if tools is not None and tools.options.embedder is not None:
        # a new catalog's skills are embedded in a thread; searches answer lexically
        # until the vectors are ready (saved vectors load at once)
        try:
            await anyio.to_thread.run_sync(lambda: tools.runtime.prepare_search(background=True))
        except Exception:  # the first search builds it again and reports why
            logger.exception("could not prepare the search index")


@asynccontextmanager
async def _lifespan(server: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
    """Watch or poll the catalog while a transport serves.

    Each lifespan (one per transport; one per in-process client) runs its own
    watcher; concurrent refreshes are serialised and a second one finds nothing
    new, so clients are notified once per change.
    """
    assert isinstance(server, SkillServer)
    async with anyio.create_task_group() as tg:
        tg.start_soon(_prepare_soon, server)
        task = server._background()
        if task is not None:
            tg.start_soon(task)
        try:
            yield {}
        finally:
            tg.cancel_scope.cancel()
