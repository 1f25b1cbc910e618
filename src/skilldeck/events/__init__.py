"""Events, the bus that delivers them, sinks, and redaction of secrets.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.events._events import (
        REDACTED as REDACTED,
        AllowedToolsPolicyChanged as AllowedToolsPolicyChanged,
        ApprovalAsked as ApprovalAsked,
        ApprovalDenied as ApprovalDenied,
        ApprovalGranted as ApprovalGranted,
        Event as Event,
        EventBus as EventBus,
        EventSink as EventSink,
        FileRead as FileRead,
        JsonlAuditSink as JsonlAuditSink,
        ListSink as ListSink,
        ScriptRun as ScriptRun,
        SearchPerformed as SearchPerformed,
        SinkLike as SinkLike,
        SkillLoaded as SkillLoaded,
        SkillsInstalled as SkillsInstalled,
        SkillsRemoved as SkillsRemoved,
        SkillsUpdated as SkillsUpdated,
        ToolCallBlocked as ToolCallBlocked,
        ToolCalled as ToolCalled,
        deliver as deliver,
        event_types as event_types,
        redact as redact,
        redact_event as redact_event,
        redact_text as redact_text,
    )
    from skilldeck.inline import InlineSkillsInstalled as InlineSkillsInstalled
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "AllowedToolsPolicyChanged": "._events",
        "ApprovalAsked": "._events",
        "ApprovalDenied": "._events",
        "ApprovalGranted": "._events",
        "Event": "._events",
        "EventBus": "._events",
        "EventSink": "._events",
        "FileRead": "._events",
        "JsonlAuditSink": "._events",
        "ListSink": "._events",
        "REDACTED": "._events",
        "ScriptRun": "._events",
        "SearchPerformed": "._events",
        "SkillLoaded": "._events",
        "SkillsInstalled": "._events",
        "SkillsRemoved": "._events",
        "SkillsUpdated": "._events",
        "ToolCallBlocked": "._events",
        "ToolCalled": "._events",
        "event_types": "._events",
        "redact": "._events",
        "redact_event": "._events",
        "redact_text": "._events",
        "InlineSkillsInstalled": "skilldeck.inline",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "SinkLike": "._events",
        "deliver": "._events",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
