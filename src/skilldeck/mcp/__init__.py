"""skilldeck's MCP server (extra: ``skilldeck[mcp]``).

Any MCP client gets the catalog: clients that implement the MCP Skills extension
(SEP-2640, ``io.modelcontextprotocol/skills``) through ``skills/list``,
``skills/get``, ``resources/directory/read`` and ``skill://`` resources; every
other client through the runtime's ``skills_*`` tools and the ``skills_catalog``
prompt. Catalog changes on disk reach clients as list-changed notifications.

::

    from skilldeck.mcp import create_server, run_stdio

    server = create_server(roots=["./skills"])
    run_stdio(server)

``skilldeck serve`` is the command-line front end (``--transport stdio|http``).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from skilldeck.mcp._elicit import approve as elicit_approval
from skilldeck.mcp._extension import CachePolicy, SkillsExtension
from skilldeck.mcp._fallback import READ_TOOLS, ToolFallback
from skilldeck.mcp._http import (
    TOKEN_ENV,
    check_bind,
    http_app,
    is_loopback,
    rebinding_settings,
    run_http,
)
from skilldeck.mcp._index import SkillIndex
from skilldeck.mcp._prompt import PROMPT_NAME
from skilldeck.mcp._server import SkillServer
from skilldeck.mcp._sessions import DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_SESSIONS, HANDLE_META_KEY
from skilldeck.mcp._stdio import run_stdio
from skilldeck.mcp._wire import (
    DIRECTORY_MIME,
    EXTENSION_ID,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    DirectoryReadParams,
    DirectoryReadRequest,
    DirectoryReadResult,
    GetSkillParams,
    GetSkillRequest,
    GetSkillResult,
    ListSkillsRequest,
    ListSkillsResult,
    SkillEntry,
    SkillResource,
)

if TYPE_CHECKING:
    from skilldeck import Catalog, Executor, RuntimeOptions, SkillRuntime
    from skilldeck.search import Embedder

__all__ = [
    "DIRECTORY_MIME",
    "EXTENSION_ID",
    "HANDLE_META_KEY",
    "MAX_FILES",
    "MAX_TOTAL_BYTES",
    "PROMPT_NAME",
    "READ_TOOLS",
    "TOKEN_ENV",
    "CachePolicy",
    "DirectoryReadParams",
    "DirectoryReadRequest",
    "DirectoryReadResult",
    "GetSkillParams",
    "GetSkillRequest",
    "GetSkillResult",
    "ListSkillsRequest",
    "ListSkillsResult",
    "SkillEntry",
    "SkillIndex",
    "SkillResource",
    "SkillServer",
    "SkillsExtension",
    "ToolFallback",
    "check_bind",
    "create_server",
    "elicit_approval",
    "http_app",
    "is_loopback",
    "rebinding_settings",
    "run_http",
    "run_stdio",
]


def create_server(
    catalog: Catalog | None = None,
    *,
    roots: Sequence[str | os.PathLike[str]] = (),
    recursive: bool = False,
    runtime: SkillRuntime | None = None,
    runtime_options: RuntimeOptions | None = None,
    tools: bool = True,
    allow_exec: bool = False,
    allowed_tools: Literal["off", "enforce"] | None = None,
    executor: Executor | None = None,
    name: str = "skilldeck",
    page_size: int = 100,
    cache_ttl_ms: int = 0,
    poll_interval: float | None = None,
    watch: bool = False,
    session_timeout: float = DEFAULT_IDLE_TIMEOUT,
    max_sessions: int = DEFAULT_MAX_SESSIONS,
    snapshot_cache: bool | str | os.PathLike[str] = True,
    embedder: Embedder | None = None,
) -> SkillServer:
    """An MCP server for a catalog.

    ``catalog`` defaults to ``Catalog.from_roots(roots)`` when ``roots`` are
    given, else ``Catalog.default()`` (the same sources as ``skilldeck list``),
    each with ``keep_frontmatter=True`` (a catalog made without it has each
    SKILL.md read again for the frontmatter the server publishes).
    The tool fallback uses ``runtime`` (default: a ``SkillRuntime`` on the same
    catalog with ``runtime_options``, e.g. ``RuntimeOptions.from_config()`` as
    ``skilldeck serve`` passes; ``allowed_tools``, when given, is its
    ``allowed_tools_enforcement``), with one runtime session per client (``session_timeout`` seconds
    idle, at most ``max_sessions``); ``allow_exec`` offers ``skills_run_script``
    and command tools, run by ``executor`` (default: an ``Executor`` whose approver
    asks the MCP client's user when the approval store does not already cover the run;
    ``runtime_options`` may still turn ``scripts`` or ``declared_tools`` off).
    While serving, ``watch`` rescans the catalog whenever a file under a root
    changes (``skilldeck[watch]``; without it, polls every ``poll_interval`` or
    2 s) and ``poll_interval`` alone rescans on a timer; clients are notified of
    every change. ``SkillServer.refresh()`` does the same on demand.
    ``cache_ttl_ms`` is the ``ttlMs`` freshness hint of listings and reads (0: a live
    catalog; raise it for one that does not change). ``snapshot_cache`` keeps the
    published snapshot (frontmatter, file lists, digests) between runs in the user
    cache folder (or the folder given; ``False``: not at all), so a restart reads
    and hashes only what changed. ``embedder`` is the default runtime's (``skills_search``
    ranks with embeddings too; see ``skilldeck.search.static_embedder``).
    """
    import skilldeck

    if catalog is None:  # it keeps the frontmatter it parses: the index publishes it
        if roots:
            catalog = skilldeck.Catalog.from_roots(
                list(roots), recursive=recursive, keep_frontmatter=True
            )
        else:
            catalog = skilldeck.Catalog.default(keep_frontmatter=True)
    fallback: ToolFallback | None = None
    if tools:
        options: RuntimeOptions | None = None
        make: Callable[[], SkillRuntime] | None = None
        if runtime is None:
            base = runtime_options or skilldeck.RuntimeOptions()
            options = dataclasses.replace(
                base,
                scripts=allow_exec and base.scripts,
                declared_tools=allow_exec and base.declared_tools,
                allowed_tools_enforcement=allowed_tools or base.allowed_tools_enforcement,
                embedder=embedder if embedder is not None else base.embedder,
            )
            served, chosen_options = catalog, options

            def make_runtime() -> SkillRuntime:  # on first use: a listing needs no tools
                chosen = executor
                if allow_exec and chosen is None:
                    chosen = skilldeck.Executor(approver=elicit_approval)
                return skilldeck.SkillRuntime(served, options=chosen_options, executor=chosen)

            make = make_runtime

        fallback = ToolFallback(
            runtime,
            make_runtime=make,
            options=options,
            catalog=catalog,
            allow_exec=allow_exec,
            idle_timeout=session_timeout,
            max_sessions=max_sessions,
        )
    return SkillServer(
        catalog,
        tools=fallback,
        name=name,
        page_size=page_size,
        cache_ttl_ms=cache_ttl_ms,
        poll_interval=poll_interval,
        watch=watch,
        snapshot_cache=snapshot_cache,
    )
