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

import os
from collections.abc import Sequence
from typing import Any

from skilldeck.mcp._extension import CachePolicy, SkillsExtension
from skilldeck.mcp._http import TOKEN_ENV, check_bind, http_app, is_loopback, run_http, run_stdio
from skilldeck.mcp._index import SkillIndex
from skilldeck.mcp._prompt import PROMPT_NAME
from skilldeck.mcp._server import SkillServer
from skilldeck.mcp._tools import READ_TOOLS, ToolFallback
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

__all__ = [
    "DIRECTORY_MIME",
    "EXTENSION_ID",
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
    "http_app",
    "is_loopback",
    "run_http",
    "run_stdio",
]


def create_server(
    catalog: Any = None,
    *,
    roots: Sequence[str | os.PathLike[str]] = (),
    recursive: bool = False,
    runtime: Any = None,
    tools: bool = True,
    allow_exec: bool = False,
    executor: Any = None,
    name: str = "skilldeck",
    page_size: int = 100,
    cache_ttl_ms: int = 0,
    poll_interval: float | None = None,
    watch: bool = False,
) -> SkillServer:
    """An MCP server for a catalog.

    ``catalog`` defaults to ``Catalog.from_roots(roots)`` when ``roots`` are
    given, else ``Catalog.default()`` (the same sources as ``skilldeck list``).
    The tool fallback uses ``runtime`` (default: a ``SkillRuntime`` on the same
    catalog); ``allow_exec`` offers ``skills_run_script`` and command tools, run
    by ``executor`` (default: an ``Executor`` whose approver asks the MCP client's
    user when the approval store does not already cover the run).
    While serving, ``watch`` rescans the catalog whenever a file under a root
    changes (``skilldeck[watch]``; without it, polls every ``poll_interval`` or
    2 s) and ``poll_interval`` alone rescans on a timer; clients are notified of
    every change. ``SkillServer.refresh()`` does the same on demand.
    ``cache_ttl_ms`` is the ``ttlMs`` freshness hint of listings and reads (0: a live
    catalog; raise it for one that does not change).
    """
    import skilldeck

    if catalog is None:
        if roots:
            catalog = skilldeck.Catalog.from_roots(list(roots), recursive=recursive)
        else:
            catalog = skilldeck.Catalog.default()
    fallback: ToolFallback | None = None
    if tools:
        fallback = ToolFallback(runtime, allow_exec=allow_exec)
        if runtime is None:
            if allow_exec and executor is None:
                executor = skilldeck.Executor(approver=fallback.approve)
            fallback.runtime = skilldeck.SkillRuntime(
                catalog, scripts=allow_exec, declared_tools=allow_exec, executor=executor
            )
    return SkillServer(
        catalog,
        tools=fallback,
        name=name,
        page_size=page_size,
        cache_ttl_ms=cache_ttl_ms,
        poll_interval=poll_interval,
        watch=watch,
    )
