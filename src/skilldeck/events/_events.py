"""Typed events, the bus that delivers them, and the JSONL audit sink.

Every event is a frozen dataclass with a stable ``kind`` (its name in the audit
log) and common fields ``event_id``, ``created_at`` and ``session_id``.
``event.to_dict()`` is the JSON-able form; the audit sink writes one such
object per line.

Delivery: an :class:`EventBus` holds sinks. A sink is any callable taking an
event, or an object with an ``emit(event)`` method (``EventSink``). A failing
sink never breaks the tool call that produced the event: the exception is
logged (``logging``, logger ``skilldeck.events``) and kept in ``bus.errors``
(the last ``MAX_ERRORS``; ``bus.failures`` counts them all), unless the bus was
built with ``raise_errors=True`` (fail closed: the tool call fails with
``INTERNAL``).

The audit sink (:class:`JsonlAuditSink`) is append-only. Each event becomes
one line written with a single ``write`` on a descriptor opened with
``O_APPEND``, under an exclusive ``flock`` (plus a thread lock), then flushed
and ``fsync``'d, so lines from several threads or processes never interleave.
Values that look like secrets (by key name; by shape: API keys, bearer
tokens, private keys, JWTs, URL credentials; or as the value of a secret-named
assignment inside a string: ``OPENAI_API_KEY=…``, ``--password …``) are
replaced by ``[REDACTED]`` before anything reaches the disk or any sink.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import datetime as _dt
import functools
import json
import os
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from skilldeck._json import json_safe

try:  # POSIX advisory locks; elsewhere a sidecar lock file is used
    import fcntl as _fcntl
except ImportError:  # pragma: no cover - Windows
    _fcntl = None  # type: ignore[assignment]

__all__ = [
    "MAX_ERRORS",
    "REDACTED",
    "Event",
    "EventBus",
    "EventSink",
    "JsonlAuditSink",
    "ListSink",
    "SearchPerformed",
    "ToolCalled",
    "deliver",
    "event_types",
    "redact",
    "redact_event",
    "redact_text",
]


REDACTED = "[REDACTED]"
MAX_ERRORS = 100
"""How many sink failures an ``EventBus`` keeps (``bus.errors``)."""


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event. ``kind`` names the event in the audit log."""

    kind: ClassVar[str] = "event"

    session_id: str | None = None
    event_id: str = field(default_factory=_new_id)
    created_at: _dt.datetime = field(default_factory=_now)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict: ``{"event": kind, ...fields}``, timestamps in ISO 8601."""
        out: dict[str, Any] = {"event": self.kind}
        for f in dataclasses.fields(self):
            out[f.name] = json_safe(getattr(self, f.name))
        return out


_REGISTRY: dict[str, type[Event]] = {}


def _register(cls: type[Event]) -> type[Event]:
    _REGISTRY[cls.kind] = cls
    return cls


def event_types() -> Mapping[str, type[Event]]:
    """Every event class by ``kind`` (documentation and tests use it)."""
    from skilldeck.events import _kinds  # noqa: F401 - registers the other kinds

    return dict(_REGISTRY)


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class SearchPerformed(Event):
    """``skills_search`` ran; ``results`` are the names returned, best first."""

    kind: ClassVar[str] = "search"

    query: str
    limit: int
    results: tuple[str, ...] = ()


@_register
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCalled(Event):
    """Any tool call finished; ``code`` is the envelope's error code when it failed."""

    kind: ClassVar[str] = "tool_called"

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    ok: bool = True
    code: str | None = None
    duration_ms: float = 0.0


# ---------------------------------------------------------------------------
# delivery


@runtime_checkable
class EventSink(Protocol):
    """Anything with ``emit(event)``; a database or log pipeline plugs in here."""

    def emit(self, event: Event) -> None: ...


SinkLike = EventSink | Callable[[Event], None]


def deliver(sink: SinkLike | None, event: Event) -> None:
    """Deliver ``event`` to an optional sink (a callable, or anything with ``emit``)."""
    if sink is None:
        return
    if isinstance(sink, EventSink):
        sink.emit(event)
    else:
        sink(event)


class EventBus:
    """Delivers each event to every sink, in subscription order.

    Sinks receive events already redacted (:func:`redact_event`), so a secret in a
    tool argument or a command line never reaches a log, a trace or a host's
    sink; ``redact=False`` delivers them as they are.
    """

    def __init__(
        self, sinks: Sequence[SinkLike] = (), *, raise_errors: bool = False, redact: bool = True
    ) -> None:
        self._sinks: list[SinkLike] = list(sinks)
        self._lock = threading.Lock()
        self.raise_errors = raise_errors
        self.redact = redact
        self.errors: collections.deque[BaseException] = collections.deque(maxlen=MAX_ERRORS)
        """The last ``MAX_ERRORS`` sink failures (a long-running server keeps no more)."""
        self.failures = 0
        """Every sink failure counted, however many were let go of."""

    def subscribe(self, sink: SinkLike) -> Callable[[], None]:
        """Add a sink; returns a function that removes it again."""
        with self._lock:
            self._sinks.append(sink)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._sinks.remove(sink)

        return unsubscribe

    @property
    def sinks(self) -> tuple[SinkLike, ...]:
        return tuple(self._sinks)

    def emit(self, event: Event) -> None:
        sinks = self.sinks
        if sinks and self.redact:
            event = redact_event(event)
        for sink in sinks:
            try:
                if isinstance(sink, EventSink):
                    sink.emit(event)
                else:
                    sink(event)
            except Exception as exc:
                if self.raise_errors:
                    raise
                self.errors.append(exc)
                self.failures += 1
                import logging  # only a failing sink logs: not imported for every bus

                _log = logging.getLogger("skilldeck.events")
                _log.warning("event sink %r failed on %s: %s", sink, event.kind, exc)


class ListSink:
    """Keeps events in memory (tests, traces, short-lived hosts)."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._lock = threading.Lock()

    def emit(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def of(self, cls: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]


# ---------------------------------------------------------------------------
# redaction

# The patterns are compiled on the first redaction (``_patterns``): a process whose
# events reach no sink (a search, a listing) never compiles them.
_KEY_NAME = (
    r"(pass(word|wd|phrase)?|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|credential|authorization|(^|[_\-.])auth($|[_\-.])|cookie|session[_-]?key|signature)"
)
_KEY_SUFFIX = r"(^|[_\-.])(key|pat|pwd)$"

# Credentials recognised by their shape wherever they appear in a string.
_VALUE_SHAPES = (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|\Z)"
    r"|\b(sk|rk|pk)-(ant-|proj-|live-|test-|svcacct-)?[A-Za-z0-9_\-]{16,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"
    r"|\bgithub_pat_[A-Za-z0-9_]{20,}"
    r"|\bglpat-[A-Za-z0-9_\-]{20,}"
    r"|\bxox[abposre]-[A-Za-z0-9\-]{10,}"
    r"|\bhf_[A-Za-z0-9]{30,}"
    r"|\bnpm_[A-Za-z0-9]{36}\b"
    r"|\b(AKIA|ASIA)[0-9A-Z]{16}\b"
    r"|\bAIza[0-9A-Za-z_\-]{30,}"
    r"|\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
    r"|(?<=[Bb]earer )[A-Za-z0-9._~+/\-]{8,}=*"
    r"|(?<=[Bb]asic )(?=[A-Za-z0-9+/]{0,200}(?:[0-9+/=]|[a-z][A-Z]))[A-Za-z0-9+/]{12,}=*"
    r"|(?<=://)[^/\s:@]+:[^/\s@]+(?=@)"
)

# The last word of a name that holds a secret: ``OPENAI_API_KEY``, ``password``,
# ``aws_secret_access_key``, ``GITHUB_TOKEN``, ``client-secret``. ``max_tokens``
# or ``token_count`` do not end in one.
_CREDENTIAL_NAME_END = (
    r"(?:pass(?:word|wd|phrase)?|pwd|secret(?:[_\-]?(?:access[_\-]?)?key)?|token"
    r"|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|credentials?"
    r"|session[_\-]?key|signing[_\-]?key)"
)
# ``NAME=value`` / ``NAME = "value"`` (shell, env files, command lines, URLs' query),
# ``"name": "value"`` (JSON or YAML text inside a string) and ``--name value`` flags.
# A name starts at a boundary and is at most 64 characters long, so the work per
# character is bounded: linear on any input.
_ASSIGNMENT = (
    r"(?P<lead>(?<![A-Za-z0-9_.\-])[A-Za-z0-9_.\-]{0,64}?" + _CREDENTIAL_NAME_END + r"[\"']?"
    r"(?:\s*=\s*|\s*:\s*(?=[\"'])|(?<=[\"']):\s*)[\"']?)"
    r"(?P<value>[^\s\"'&;,()\[\]{}]{1,1024})"
    r"|(?P<flag>(?<![A-Za-z0-9_\-])--[A-Za-z0-9\-]{0,64}?"
    + _CREDENTIAL_NAME_END
    + r"(?:=|\s+)[\"']?)"
    r"(?P<flagvalue>[^\s\"'&;]{1,1024})"
)


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The secret key name, key suffix, secret value and secret assignment patterns."""
    return (
        re.compile(_KEY_NAME, re.IGNORECASE),
        re.compile(_KEY_SUFFIX, re.IGNORECASE),
        re.compile(_VALUE_SHAPES, re.DOTALL),
        re.compile(_ASSIGNMENT, re.IGNORECASE),
    )


def _redact_assignment(match: re.Match[str]) -> str:
    if match.group("lead") is not None:
        value = match.group("value")
        lead = match.group("lead")
    else:
        value = match.group("flagvalue")
        lead = match.group("flag")
    if value == REDACTED or value.startswith(("$", "[REDACTED")):
        return match.group(0)  # already redacted, or a reference such as $TOKEN
    following = match.string[match.end() : match.end() + 1]
    if following in ("(", "["):
        return match.group(0)  # code that fetches the secret: os.environ["X"], get_key()
    return lead + REDACTED


def redact_text(text: str) -> str:
    """``text`` with credentials replaced by ``[REDACTED]``: known token shapes,
    private keys, URL passwords, and the values of secret-named assignments
    (``OPENAI_API_KEY=…``, ``password=…``, ``--token …``, ``"api_key": "…"``)."""
    _, _, value, assignment = _patterns()
    return assignment.sub(_redact_assignment, value.sub(REDACTED, text))


_MAX_DEPTH = 20


def _is_secret_key(key: str) -> bool:
    name, suffix, _, _ = _patterns()
    return bool(name.search(key) or suffix.search(key))


def _is_number(value: Any) -> bool:
    # ``max_tokens: 100`` is a count, not a credential
    return isinstance(value, bool | int | float)


def redact(value: Any, *, _depth: int = 0) -> Any:
    """A copy of ``value`` with secret-looking entries replaced by ``[REDACTED]``.

    Mapping entries whose key names a secret (``password``, ``api_key``,
    ``*_TOKEN``, ``Authorization``, ...) are redacted whole; inside other
    strings, substrings shaped like credentials are replaced.
    """
    if _depth > _MAX_DEPTH:
        return REDACTED
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            key = str(k)
            if _is_secret_key(key) and v not in (None, "", [], {}) and not _is_number(v):
                out[key] = REDACTED
            else:
                out[key] = redact(v, _depth=_depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [redact(v, _depth=_depth + 1) for v in value]
    return value


def _redact_field(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, tuple):
        return tuple(redact(v) for v in value)
    if isinstance(value, Mapping | list):
        return redact(value)
    return value


def redact_event(event: Event) -> Event:
    """A copy of ``event`` whose fields are redacted like :func:`redact` (the same
    event when nothing in it looks like a secret)."""
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(event):
        value = getattr(event, f.name)
        if f.name in ("event_id", "created_at", "session_id"):
            continue
        new = _redact_field(value)
        if new != value:
            changes[f.name] = new
    return dataclasses.replace(event, **changes) if changes else event


# ---------------------------------------------------------------------------
# the audit sink


class JsonlAuditSink:
    """Append-only JSONL audit log; one redacted event per line, durable on return.

    Safe under concurrent writers: threads share a lock, processes an exclusive
    ``flock`` on the log itself; each line is one ``O_APPEND`` write followed by
    ``fsync`` (``fsync=False`` trades durability for speed). The file is created
    with mode 0600. Redaction can be widened with ``extra_redact`` (a callable
    applied to each event dict after the built-in rules).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        fsync: bool = True,
        extra_redact: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self._extra = extra_redact
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def emit(self, event: Event) -> None:
        record = redact(event.to_dict())
        if self._extra is not None:
            record = self._extra(record)
        line = json.dumps(record, ensure_ascii=False, sort_keys=False, separators=(",", ":"))
        self.write_line(line)

    def write_line(self, line: str) -> None:
        """Append one already-serialised line (newlines inside are escaped by JSON)."""
        data = (line.replace("\n", " ") + "\n").encode("utf-8")
        with self._lock, self._locked_fd() as fd:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if self.fsync:
                os.fsync(fd)

    @contextlib.contextmanager
    def _locked_fd(self) -> Iterator[int]:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.path, flags, 0o600)
        try:
            if _fcntl is not None:
                _fcntl.flock(fd, _fcntl.LOCK_EX)
                try:
                    yield fd
                finally:
                    _fcntl.flock(fd, _fcntl.LOCK_UN)
            else:  # pragma: no cover - Windows
                from filelock import FileLock

                with FileLock(str(self.path) + ".lock"):
                    yield fd
        finally:
            os.close(fd)

    def read(self) -> list[dict[str, Any]]:
        """Every record in the log (for tests and for tools that read audit logs)."""
        if not self.path.exists():
            return []
        with self.path.open(encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
