"""The MCP Skills extension (SEP-2640) on the SDK's ``Extension`` API.

Three methods, all answered from the current ``SkillIndex`` snapshot:

- ``skills/list`` — complete entries, ordered by URI, paginated with opaque
  cursors (an entry is never split); ``ttlMs`` and ``cacheScope`` set. A
  ``disable-model-invocation`` skill is not listed: hosts build the model's
  catalog from this list, and the model must never see such a skill.
- ``skills/get`` — one entry by its ``SKILL.md`` URI, listed or not (a host that
  knows the URI, e.g. for a user's slash command, still gets it); ``-32602``
  for anything the server does not serve.
- ``resources/directory/read`` — the direct children of a folder (prefix, skill
  root or sub-folder); ``-32602`` for a file or an unknown URI.

Cursors name the last URI of the previous page, so a page boundary survives a
catalog refresh between two calls (nothing is repeated or skipped that stayed).
"""

from __future__ import annotations

import base64
import binascii
import json
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams

from skilldeck._json import loads
from skilldeck.format import model_invocable_frontmatter
from skilldeck.mcp import _uris
from skilldeck.mcp._index import SkillIndex, SkillRecord
from skilldeck.mcp._wire import (
    EXTENSION_ID,
    INVALID_PARAMS,
    DirectoryReadParams,
    GetSkillParams,
    protocol_error,
    shown,
)

__all__ = ["CachePolicy", "SkillsExtension", "decode_cursor", "encode_cursor"]


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """The ``ttlMs`` / ``cacheScope`` freshness hints put on cacheable results."""

    ttl_ms: int = 0
    scope: str = "public"

    def stamp(self, result: dict[str, Any]) -> dict[str, Any]:
        result["ttlMs"] = self.ttl_ms
        result["cacheScope"] = self.scope
        return result


def encode_cursor(kind: str, last: str) -> str:
    """An opaque cursor: the kind of listing and the last key already returned."""
    raw = json.dumps([kind, last], ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(kind: str, cursor: str | None) -> str | None:
    """The last key named by ``cursor``; ``-32602`` when it is not one of ours."""
    if cursor is None:
        return None
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        value = loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError):
        value = None
    if not (isinstance(value, list) and len(value) == 2 and value[0] == kind):
        raise _bad_cursor(kind, cursor)
    last = value[1]
    if not isinstance(last, str):
        raise _bad_cursor(kind, cursor)
    return last


def _bad_cursor(kind: str, cursor: str) -> MCPError:
    return protocol_error(
        INVALID_PARAMS,
        f"invalid cursor for {kind}: {shown(repr(cursor))}",
        envelope="INVALID_ARGUMENTS",
        hint="pass back a nextCursor exactly as received, or none for the first page",
        field="cursor",
    )


def _listed_after(index: SkillIndex, last: str | None, limit: int) -> list[SkillRecord]:
    """Up to ``limit`` listable skills after ``last``: ``disable-model-invocation`` ones skipped."""
    found: list[SkillRecord] = []
    while len(found) < limit:
        chunk = index.skills_after(last, limit)
        if not chunk:
            break
        found.extend(r for r in chunk if model_invocable_frontmatter(r.entry["frontmatter"]))
        last = chunk[-1].uri
    return found[:limit]


class SkillsExtension(Extension):
    """``io.modelcontextprotocol/skills`` with ``directoryRead: true``."""

    identifier = EXTENSION_ID

    def __init__(
        self,
        index: Callable[[], SkillIndex],
        *,
        cache: CachePolicy,
        page_size: int = 100,
        directory_page_size: int = 500,
    ) -> None:
        if page_size < 1 or directory_page_size < 1:
            raise ValueError("page sizes must be positive")
        self._index = index
        self._cache = cache
        self._page_size = page_size
        self._dir_page_size = directory_page_size

    def settings(self) -> dict[str, Any]:
        return {"directoryRead": True}

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("skills/list", PaginatedRequestParams, self._list),
            MethodBinding("skills/get", GetSkillParams, self._get),
            MethodBinding("resources/directory/read", DirectoryReadParams, self._read_dir),
        )

    async def _list(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams
    ) -> dict[str, Any]:
        last = decode_cursor("skills", params.cursor)
        page = _listed_after(self._index(), last, self._page_size + 1)
        more = len(page) > self._page_size
        page = page[: self._page_size]
        result: dict[str, Any] = {"resultType": "complete", "skills": [s.entry for s in page]}
        if more:
            result["nextCursor"] = encode_cursor("skills", page[-1].uri)
        return self._cache.stamp(result)

    async def _get(
        self, ctx: ServerRequestContext[Any, Any], params: GetSkillParams
    ) -> dict[str, Any]:
        uri = _uris.normalise(params.uri) or params.uri
        record = self._index().by_uri.get(uri)
        if record is None:
            raise protocol_error(
                INVALID_PARAMS,
                f"No skill is served at {shown(params.uri)}",
                envelope="SKILL_NOT_FOUND",
                hint="use the uri of a SKILL.md listed by skills/list",
                uri=shown(params.uri),
            )
        return self._cache.stamp({"resultType": "complete", "skill": record.entry})

    async def _read_dir(
        self, ctx: ServerRequestContext[Any, Any], params: DirectoryReadParams
    ) -> dict[str, Any]:
        index = self._index()
        uri = _uris.normalise(params.uri)
        children = index.dirs.get(uri) if uri is not None else None
        if children is None:
            if uri is not None and uri in index.files:
                raise protocol_error(
                    INVALID_PARAMS,
                    f"{shown(params.uri)} is not a directory resource",
                    envelope="FILE_NOT_FOUND",
                    hint="read a file with resources/read",
                    uri=shown(params.uri),
                )
            raise protocol_error(
                INVALID_PARAMS,
                f"No directory is served at {shown(params.uri)}",
                envelope="FILE_NOT_FOUND",
                uri=shown(params.uri),
            )
        last = decode_cursor("dir", params.cursor)
        start = 0 if last is None else bisect_right([c["uri"] for c in children], last)
        page = children[start : start + self._dir_page_size]
        result: dict[str, Any] = {"resultType": "complete", "resources": list(page)}
        if start + self._dir_page_size < len(children):
            result["nextCursor"] = encode_cursor("dir", page[-1]["uri"])
        return result
