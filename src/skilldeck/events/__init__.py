"""Events, the bus that delivers them, sinks, and redaction of secrets.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.events._events import (
        REDACTED as REDACTED,
        Event as Event,
        EventBus as EventBus,
        EventSink as EventSink,
        JsonlAuditSink as JsonlAuditSink,
        ListSink as ListSink,
        SearchPerformed as SearchPerformed,
        SinkLike as SinkLike,
        ToolCalled as ToolCalled,
        deliver as deliver,
        event_types as event_types,
        redact as redact,
        redact_event as redact_event,
        redact_text as redact_text,
    )
    from skilldeck.events._kinds import (
        AllowedToolsPolicyChanged as AllowedToolsPolicyChanged,
        ApprovalAsked as ApprovalAsked,
        ApprovalDenied as ApprovalDenied,
        ApprovalGranted as ApprovalGranted,
        FileRead as FileRead,
        ScriptRun as ScriptRun,
        SkillLoaded as SkillLoaded,
        SkillsInstalled as SkillsInstalled,
        SkillsRemoved as SkillsRemoved,
        SkillsUpdated as SkillsUpdated,
        ToolCallBlocked as ToolCallBlocked,
    )
    from skilldeck.inline import InlineSkillsInstalled as InlineSkillsInstalled
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "AllowedToolsPolicyChanged": "._kinds",
        "ApprovalAsked": "._kinds",
        "ApprovalDenied": "._kinds",
        "ApprovalGranted": "._kinds",
        "Event": "._events",
        "EventBus": "._events",
        "EventSink": "._events",
        "FileRead": "._kinds",
        "JsonlAuditSink": "._events",
        "ListSink": "._events",
        "REDACTED": "._events",
        "ScriptRun": "._kinds",
        "SearchPerformed": "._events",
        "SkillLoaded": "._kinds",
        "SkillsInstalled": "._kinds",
        "SkillsRemoved": "._kinds",
        "SkillsUpdated": "._kinds",
        "ToolCallBlocked": "._kinds",
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
