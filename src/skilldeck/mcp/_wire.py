"""Wire shapes of the MCP Skills extension (SEP-2640, ``io.modelcontextprotocol/skills``).

The params models validate what the server receives; the request and result
models let a client (the SDK's ``ClientSession.send_request``) speak the
extension's three methods::

    result = await client.session.send_request(ListSkillsRequest(), ListSkillsResult)

Limits and codes are the specification's: 512 files and 16 MiB per skill,
``-32602`` for an unknown skill, directory or file, ``-32603`` for internal errors.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from mcp.shared.exceptions import MCPError
from mcp_types import (
    CacheableResult,
    PaginatedRequestParams,
    PaginatedResult,
    Request,
    RequestParams,
    Resource,
)
from pydantic import BaseModel, ConfigDict, StrictStr, ValidationError

from skilldeck import shown_excerpt as shown

__all__ = [
    "DIRECTORY_MIME",
    "EXTENSION_ID",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "MAX_FILES",
    "MAX_TOTAL_BYTES",
    "METHOD_NOT_FOUND",
    "DirectoryReadParams",
    "DirectoryReadRequest",
    "DirectoryReadResult",
    "GetSkillParams",
    "GetSkillRequest",
    "GetSkillResult",
    "ListSkillsRequest",
    "ListSkillsResult",
    "SkillEntry",
    "SkillResource",
    "invalid_params",
    "protocol_error",
    "shown",
]

EXTENSION_ID: Final = "io.modelcontextprotocol/skills"
DIRECTORY_MIME: Final = "inode/directory"
MAX_FILES: Final = 512
MAX_TOTAL_BYTES: Final = 16 * 1024 * 1024
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603


def protocol_error(
    code: int, message: str, *, envelope: str, hint: str | None = None, **data: Any
) -> MCPError:
    """A JSON-RPC error whose ``data`` carries the Python envelope's error ``code``.

    ``data`` is ``{"code": ENVELOPE_CODE, "hint"?: ..., **context}`` (e.g. ``uri``,
    ``field``), so a client sees the same code over MCP as through the tools.
    """
    payload: dict[str, Any] = {"code": envelope}
    if hint:
        payload["hint"] = hint
    payload.update(data)
    return MCPError(code, message, payload)


def invalid_params(method: str, exc: ValidationError) -> MCPError:
    """``-32602`` for params that fail the method's schema, naming the field and why
    (the SDK answers ``"Invalid request parameters"`` with empty ``data``)."""
    errors = exc.errors()
    locs = [tuple(e["loc"]) for e in errors] or [()]
    common: list[Any] = []  # the path every error shares (a union's branches add their tag)
    for parts in zip(*locs, strict=False):
        if any(p != parts[0] for p in parts):
            break
        common.append(parts[0])
    if common[:1] == ["params"]:
        common = common[1:]
    field = ".".join(str(p) for p in common)
    why = str(errors[0]["msg"]) if errors else "invalid"
    return protocol_error(
        INVALID_PARAMS,
        f"invalid params of {method}: {field + ': ' if field else ''}{why}"[:512],
        envelope="INVALID_ARGUMENTS",
        hint=f"check the params against the MCP schema of {method}"[:256],
        field=field[:256],
    )


class GetSkillParams(RequestParams):
    """``skills/get`` params: the URI of a skill's ``SKILL.md``."""

    uri: StrictStr


class DirectoryReadParams(PaginatedRequestParams):
    """``resources/directory/read`` params: a directory URI and an optional cursor."""

    uri: StrictStr


class ListSkillsRequest(Request[PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: PaginatedRequestParams | None = None


class GetSkillRequest(Request[GetSkillParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetSkillParams


class DirectoryReadRequest(Request[DirectoryReadParams, Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"
    params: DirectoryReadParams


class SkillResource(BaseModel):
    """One file of a skill: its URI, ``sha256:`` digest and size in bytes."""

    model_config = ConfigDict(extra="allow")
    uri: str
    digest: str
    size: int


class SkillEntry(BaseModel):
    """A skill: its ``SKILL.md`` URI, verbatim frontmatter, complete file list or ``dynamic``."""

    model_config = ConfigDict(extra="allow")
    uri: str
    frontmatter: dict[str, Any]
    resources: list[SkillResource] | Literal["dynamic"]


class ListSkillsResult(PaginatedResult, CacheableResult):
    skills: list[SkillEntry]
    result_type: str = "complete"


class GetSkillResult(CacheableResult):
    skill: SkillEntry
    result_type: str = "complete"


class DirectoryReadResult(PaginatedResult):
    resources: list[Resource]
    result_type: str = "complete"
