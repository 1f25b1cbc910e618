"""The tool result envelope of DESIGN.md, its codes and its JSON Schema.

::

    {"ok": true,  "data": {...}, "warnings": [{"code": "CONTENT_TRUNCATED", "message": "..."}]}
    {"ok": false, "error": {"code": "SKILL_NOT_FOUND", "message": "...", "hint": "..."}}

``warnings`` is always present on success (possibly empty) and absent on
failure. ``error`` carries ``code`` and ``message`` and, when known, ``hint``,
``skill`` and scalar context such as ``field`` (``INVALID_ARGUMENTS``) or
``reason`` (``TOOL_NOT_ALLOWED``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skilldeck._errors import InternalError, SkillError

__all__ = [
    "ENVELOPE_SCHEMA",
    "ERROR_CODES",
    "WARNING_CODES",
    "ToolResult",
    "ToolWarning",
    "error_envelope",
    "ok_envelope",
]

ERROR_CODES: tuple[str, ...] = (
    "SKILL_NOT_FOUND",
    "SKILL_UNAVAILABLE",
    "INVALID_SKILL",
    "FILE_NOT_FOUND",
    "PATH_NOT_ALLOWED",
    "FILE_TOO_LARGE",
    "INVALID_ARGUMENTS",
    "TOOL_NOT_ALLOWED",
    "TOOL_POLICY_DENIED",
    "TOOL_CONFIRMATION_REQUIRED",
    "APPROVAL_REQUIRED",
    "SCRIPT_FAILED",
    "SCRIPT_TIMEOUT",
    "SANDBOX_UNAVAILABLE",
    "INTERNAL",
)

WARNING_CODES: tuple[str, ...] = (
    "CONTENT_TRUNCATED",
    "ALLOWED_TOOLS_ENFORCED",
    "ALLOWED_TOOLS_IGNORED",
)


@dataclass(frozen=True, slots=True)
class ToolWarning:
    """One entry of the envelope's ``warnings``."""

    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool handler returns: the ``data`` object and any warnings."""

    data: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[ToolWarning, ...] = ()

    def with_warnings(self, *more: ToolWarning) -> ToolResult:
        return ToolResult(self.data, self.warnings + tuple(more))

    def envelope(self) -> dict[str, Any]:
        return ok_envelope(self.data, self.warnings)


def ok_envelope(data: Mapping[str, Any], warnings: Sequence[ToolWarning] = ()) -> dict[str, Any]:
    return {"ok": True, "data": dict(data), "warnings": [w.to_dict() for w in warnings]}


def error_envelope(error: BaseException) -> dict[str, Any]:
    """The failure envelope; anything that is not a ``SkillError`` becomes ``INTERNAL``
    without leaking its traceback or message."""
    if not isinstance(error, SkillError):
        error = InternalError(
            f"the tool failed unexpectedly ({type(error).__name__})",
            hint="this is a bug in the tool or the host; the host's log has the details",
        )
    return {"ok": False, "error": error.to_dict()}


_WARNING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
}

ENVELOPE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "skilldeck tool result envelope",
    "oneOf": [
        {
            "type": "object",
            "required": ["ok", "data", "warnings"],
            "additionalProperties": False,
            "properties": {
                "ok": {"const": True},
                "data": {"type": "object"},
                "warnings": {"type": "array", "items": _WARNING_SCHEMA},
            },
        },
        {
            "type": "object",
            "required": ["ok", "error"],
            "additionalProperties": False,
            "properties": {
                "ok": {"const": False},
                "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {
                        "code": {"type": "string"},
                        "message": {"type": "string"},
                        "hint": {"type": "string"},
                        "skill": {"type": "string"},
                    },
                },
            },
        },
    ],
}
