"""The event kinds besides ``ToolCalled`` and ``SearchPerformed`` (``_events``).

In a module of their own so that a runtime that lists and searches never builds
their classes: each dataclass compiles its methods when its module is imported,
and a process that only searches emits only those two kinds. The tools that emit
these import them when they do; ``event_types()`` imports this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from skilldeck.events._events import Event, _register

__all__ = [
    "AllowedToolsPolicyChanged",
    "ApprovalAsked",
    "ApprovalDenied",
    "ApprovalGranted",
    "FileRead",
    "ScriptRun",
    "SkillLoaded",
    "SkillsInstalled",
    "SkillsRemoved",
    "SkillsUpdated",
    "ToolCallBlocked",
]


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class SkillLoaded(Event):
    """A skill's body was disclosed (loaded); other frameworks call it ``SkillExpanded``."""

    kind: ClassVar[str] = "skill_loaded"

    skill: str
    source: str | None = None
    digest: str | None = None
    body_bytes: int = 0
    body_truncated: bool = False


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class FileRead(Event):
    """A bundled file was read."""

    kind: ClassVar[str] = "file_read"

    skill: str
    path: str
    size: int = 0
    truncated: bool = False


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptRun(Event):
    """A bundled script or a body-declared tool ran (or was refused)."""

    kind: ClassVar[str] = "script_run"

    skill: str
    target: str
    success: bool
    exit_code: int | None = None
    duration_ms: int | None = None
    error: str | None = None


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallBlocked(Event):
    """A call was refused by allowed-tools or by the host's governance hook."""

    kind: ClassVar[str] = "tool_call_blocked"

    tool: str
    code: str
    reason: str
    skill: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class AllowedToolsPolicyChanged(Event):
    """The session's allowed-tools policy was activated, deactivated or ignored.

    ``action`` is ``activated``, ``deactivated`` or ``ignored``; ``reason`` says
    why it was ignored (``no_matches``, ``untrusted_source``).
    """

    kind: ClassVar[str] = "skills_allowed_tools_policy_changed"

    action: str
    skill: str | None = None
    mode: str = "off"
    allow_set_count: int = 0
    patterns: tuple[str, ...] = ()
    reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class _ApprovalEvent(Event):
    skill: str | None = None
    target: str = ""
    digest: str | None = None
    reason: str | None = None


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalAsked(_ApprovalEvent):
    """A human (callback) was asked to approve a tool call or a script run."""

    kind: ClassVar[str] = "approval_asked"


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalGranted(_ApprovalEvent):
    kind: ClassVar[str] = "approval_granted"


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalDenied(_ApprovalEvent):
    kind: ClassVar[str] = "approval_denied"


@dataclass(frozen=True, slots=True, kw_only=True)
class _InstallEvent(Event):
    skills: tuple[str, ...] = ()
    source: str | None = None
    location: str | None = None


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class SkillsInstalled(_InstallEvent):
    kind: ClassVar[str] = "skills_installed"


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class SkillsUpdated(_InstallEvent):
    kind: ClassVar[str] = "skills_updated"


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class SkillsRemoved(_InstallEvent):
    kind: ClassVar[str] = "skills_removed"
