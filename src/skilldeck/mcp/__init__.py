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
from skilldeck.mcp._tools import READ_TOOLS, Approver, ToolFallback
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
    "Approver",
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
    approver: Approver | None = None,
    name: str = "skilldeck",
    page_size: int = 100,
    cache_ttl_ms: int = 10_000,
    poll_interval: float | None = None,
) -> SkillServer:
    """An MCP server for a catalog.

    ``catalog`` defaults to ``Catalog.from_roots(roots)`` when ``roots`` are
    given, else ``Catalog.default()`` (the same sources as ``skilldeck list``).
    The tool fallback uses ``runtime`` (default: a ``SkillRuntime`` on the same
    catalog); ``allow_exec`` offers ``skills_run_script`` and command tools.
    ``poll_interval`` (seconds) rescans the catalog while serving and notifies
    clients of changes; ``SkillServer.refresh()`` does the same on demand.
    """
    import skilldeck

    if catalog is None:
        if roots:
            catalog = skilldeck.Catalog.from_roots(list(roots), recursive=recursive)
        else:
            catalog = skilldeck.Catalog.default()
    fallback: ToolFallback | None = None
    if tools:
        if runtime is None:
            runtime = skilldeck.SkillRuntime(catalog, allow_exec=allow_exec)
        fallback = ToolFallback(runtime, allow_exec=allow_exec, approver=approver)
    return SkillServer(
        catalog,
        tools=fallback,
        name=name,
        page_size=page_size,
        cache_ttl_ms=cache_ttl_ms,
        poll_interval=poll_interval,
    )
