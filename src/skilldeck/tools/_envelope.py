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

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic

from typing_extensions import TypeVar

from skilldeck._errors import InternalError, SkillError, error_codes

__all__ = [
    "ENVELOPE_SCHEMA",
    "ERROR_CODES",
    "WARNING_CODES",
    "ToolResult",
    "ToolWarning",
    "error_envelope",
    "ok_envelope",
    "value_data",
]

# Every code of the exception tree, in the order its classes are defined: new
# error classes join the list by themselves.
ERROR_CODES: tuple[str, ...] = error_codes()

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


R = TypeVar("R", default=Any)


# not slots=True: a frozen slotted dataclass cannot take the attribute that
# ``ToolResult[X](...)`` sets on the instance
@dataclass(frozen=True)
class ToolResult(Generic[R]):
    """What a tool handler returns: the ``data`` object and any warnings.

    Python tools may also answer in the ``ToolResult(message=..., value=...)``
    shape of other Python skill frameworks: ``value`` becomes ``data`` the way a
    returned value does (:func:`value_data`), ``message`` is added as
    ``data["message"]``, and ``success=False`` fails the call (``SCRIPT_FAILED``
    with ``message``).
    """

    data: Mapping[str, Any] = field(default_factory=dict)
    warnings: tuple[ToolWarning, ...] = ()
    message: str | None = field(default=None, kw_only=True)
    value: R | None = field(default=None, kw_only=True)
    success: bool = field(default=True, kw_only=True)

    def resolved_data(self) -> dict[str, Any]:
        """``data``, with ``value`` and ``message`` folded in when they are set."""
        data = dict(self.data)
        if self.value is not None:
            data.update(value_data(self.value))
        if self.message is not None:
            data["message"] = self.message
        return data

    def envelope(self) -> dict[str, Any]:
        return ok_envelope(self.resolved_data(), self.warnings)


def value_data(value: Any) -> dict[str, Any]:
    """A tool's return value as the envelope's ``data``: a mapping as is, a dataclass
    as its fields (plus ``message`` when it has a ``render()`` method), anything
    else as ``{"result": value}``."""
    if isinstance(value, Mapping):
        return dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data: dict[str, Any] = dataclasses.asdict(value)
        render = getattr(value, "render", None)
        if callable(render):
            data["message"] = str(render())
        return data
    return {"result": value}


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
