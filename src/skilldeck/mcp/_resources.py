"""``skill://`` files as MCP resources: a paginated ``resources/list`` and ``resources/read``.

Every file of every published skill is a resource. ``SKILL.md`` carries the
skill's name and description (and its source and status under ``_meta``); other
files carry their base name, MIME type and size. A read serves text when the
bytes are UTF-8 (so the text re-encodes to exactly the digested bytes) and a
base64 blob otherwise. Unknown URIs are ``-32602``; an unreadable file the index
still lists (removed since the last refresh) is ``-32602`` too, anything else
``-32603``.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

import anyio.to_thread
from mcp.server.lowlevel.helper_types import ReadResourceContents

from skilldeck import Catalog, FileAccessError, FileTooLargeError, SkillError, SkillNotFoundError
from skilldeck.disclosure import is_text
from skilldeck.mcp import _uris
from skilldeck.mcp._extension import decode_cursor, encode_cursor
from skilldeck.mcp._index import FileRef, SkillIndex
from skilldeck.mcp._publish import read_all
from skilldeck.mcp._wire import INTERNAL_ERROR, INVALID_PARAMS, protocol_error, shown

__all__ = ["META_PREFIX", "list_page", "read"]

META_PREFIX = "dev.skilldeck/"
_THREAD_READ_BYTES = 256 * 1024


def _resource(index: SkillIndex, ref: FileRef) -> dict[str, Any]:
    item: dict[str, Any] = {
        "uri": ref.uri,
        "name": ref.relpath.rsplit("/", 1)[-1],
        "mimeType": ref.mime,
        "size": ref.size,
    }
    skill = index.by_uri.get(ref.uri)
    if skill is not None:
        item["name"] = skill.name
        item["description"] = skill.description
        item["_meta"] = {
            META_PREFIX + "source": skill.source,
            META_PREFIX + "status": skill.status,
        }
    return item


def list_page(index: SkillIndex, cursor: str | None, page_size: int) -> dict[str, Any]:
    """One ``resources/list`` page, files ordered by URI."""
    last = decode_cursor("resources", cursor)
    start = 0 if last is None else bisect_right(index.file_uris, last)
    uris = index.file_uris[start : start + page_size]
    result: dict[str, Any] = {
        "resultType": "complete",
        "resources": [_resource(index, index.files[u]) for u in uris],
    }
    if start + page_size < len(index.file_uris):
        result["nextCursor"] = encode_cursor("resources", uris[-1])
    return result


async def read(index: SkillIndex, catalog: Catalog, uri: str) -> ReadResourceContents:
    """The content of one ``skill://`` file, text or bytes, with its MIME type."""
    canonical = _uris.normalise(uri)
    ref = index.files.get(canonical) if canonical is not None else None
    if ref is None:
        said = shown(uri)
        if canonical is not None and canonical in index.dirs:
            raise protocol_error(
                INVALID_PARAMS,
                f"{said} is a directory; use resources/directory/read",
                envelope="FILE_NOT_FOUND",
                uri=said,
            )
        raise protocol_error(
            INVALID_PARAMS,
            f"No skill file is served at {said}",
            envelope="FILE_NOT_FOUND",
            uri=said,
        )
    try:
        if ref.size > _THREAD_READ_BYTES:
            data = await anyio.to_thread.run_sync(_read, catalog, ref)
        else:
            data = _read(catalog, ref)
    except FileTooLargeError as exc:  # grew past the limit since the scan: served, unreadable
        raise protocol_error(
            INTERNAL_ERROR, f"could not read {uri}: {exc}", envelope=exc.code, uri=uri
        ) from None
    except (FileAccessError, SkillNotFoundError, FileNotFoundError) as exc:
        envelope = exc.code if isinstance(exc, SkillError) else "FILE_NOT_FOUND"
        raise protocol_error(
            INVALID_PARAMS, f"{uri} is no longer served: {exc}", envelope=envelope, uri=uri
        ) from None
    except (SkillError, OSError) as exc:
        envelope = exc.code if isinstance(exc, SkillError) else "INTERNAL"
        raise protocol_error(
            INTERNAL_ERROR, f"could not read {uri}: {exc}", envelope=envelope, uri=uri
        ) from None
    if is_text(data):
        return ReadResourceContents(content=data.decode("utf-8"), mime_type=ref.mime)
    return ReadResourceContents(content=data, mime_type=ref.mime)


def _read(catalog: Catalog, ref: FileRef) -> bytes:
    return read_all(catalog, ref.ref, ref.relpath)
