"""Events, the bus that delivers them, sinks, and redaction of secrets.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._events import (
    REDACTED as REDACTED,
)
from skilldeck._events import (
    AllowedToolsPolicyChanged as AllowedToolsPolicyChanged,
)
from skilldeck._events import (
    ApprovalAsked as ApprovalAsked,
)
from skilldeck._events import (
    ApprovalDenied as ApprovalDenied,
)
from skilldeck._events import (
    ApprovalGranted as ApprovalGranted,
)
from skilldeck._events import (
    Event as Event,
)
from skilldeck._events import (
    EventBus as EventBus,
)
from skilldeck._events import (
    EventSink as EventSink,
)
from skilldeck._events import (
    FileRead as FileRead,
)
from skilldeck._events import (
    JsonlAuditSink as JsonlAuditSink,
)
from skilldeck._events import (
    ListSink as ListSink,
)
from skilldeck._events import (
    ScriptRun as ScriptRun,
)
from skilldeck._events import (
    SearchPerformed as SearchPerformed,
)
from skilldeck._events import (
    SkillLoaded as SkillLoaded,
)
from skilldeck._events import (
    SkillsInstalled as SkillsInstalled,
)
from skilldeck._events import (
    SkillsRemoved as SkillsRemoved,
)
from skilldeck._events import (
    SkillsUpdated as SkillsUpdated,
)
from skilldeck._events import (
    ToolCallBlocked as ToolCallBlocked,
)
from skilldeck._events import (
    ToolCalled as ToolCalled,
)
from skilldeck._events import (
    event_types as event_types,
)
from skilldeck._events import (
    redact as redact,
)
from skilldeck._events import (
    redact_event as redact_event,
)
from skilldeck._events import (
    redact_text as redact_text,
)
from skilldeck._inline import (
    InlineSkillsInstalled as InlineSkillsInstalled,
)

__all__ = [
    "REDACTED",
    "AllowedToolsPolicyChanged",
    "ApprovalAsked",
    "ApprovalDenied",
    "ApprovalGranted",
    "Event",
    "EventBus",
    "EventSink",
    "FileRead",
    "InlineSkillsInstalled",
    "JsonlAuditSink",
    "ListSink",
    "ScriptRun",
    "SearchPerformed",
    "SkillLoaded",
    "SkillsInstalled",
    "SkillsRemoved",
    "SkillsUpdated",
    "ToolCallBlocked",
    "ToolCalled",
    "event_types",
    "redact",
    "redact_event",
    "redact_text",
]
