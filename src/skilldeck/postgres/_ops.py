"""The operator's side of a replica: Prometheus metrics and JSON logs.

``ReplicaMetrics`` keeps one private registry per router (so two routers in one
process never share counters): requests by status, their latencies, and, read at
scrape time, each served tenant's refresh lag, the connection pool's state, the
listener's state and the audit failures. ``/metrics`` serves it in Prometheus'
text format; ``/healthz`` and ``/readyz`` are answered by the router.

``JsonFormatter`` writes one JSON object per log record, one line each, with the
exception as a single ``error`` field (its traceback, as one string, only for
errors that are not a client going away: a disconnect is an ordinary event, logged
as one short line).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = [
    "JsonFormatter",
    "ReplicaMetrics",
    "json_log_config",
    "json_logging",
    "limit_allocator",
    "trim_allocator",
]

_DISCONNECTS = frozenset(
    {
        "ClosedResourceError",
        "BrokenResourceError",
        "EndOfStream",
        "ClientDisconnect",
        "ConnectionResetError",
        "BrokenPipeError",
        "CancelledError",
    }
)


def _is_disconnect(exc: BaseException | None) -> bool:
    seen = 0
    while exc is not None and seen < 10:
        if type(exc).__name__ in _DISCONNECTS:
            return True
        group = getattr(exc, "exceptions", None)
        if group and all(_is_disconnect(e) for e in group):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


class JsonFormatter(logging.Formatter):
    """One JSON object per record: ``ts``, ``level``, ``logger``, ``msg`` and, for an
    exception, ``error`` (``Type: message``) and ``traceback`` (one string) unless the
    exception is a client disconnecting."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            out["error"] = f"{type(exc).__name__}: {exc}"[:2000]
            if _is_disconnect(exc):
                out["disconnect"] = True
            else:
                out["traceback"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def json_log_config(level: str = "warning") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` mapping for uvicorn and skilldeck: JSON lines on
    stderr."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    lvl = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "handlers": {"default": handler},
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": lvl, "propagate": False},
            "uvicorn.error": {"handlers": ["default"], "level": lvl, "propagate": False},
            "uvicorn.access": {"handlers": ["default"], "level": "WARNING", "propagate": False},
        },
        "root": {"handlers": ["default"], "level": lvl},
    }


def json_logging(level: str = "warning") -> None:
    """Send every log record of this process to stderr as JSON lines."""
    import logging.config

    logging.config.dictConfig(json_log_config(level))


class ReplicaMetrics:
    """The replica's Prometheus registry. ``observe`` counts a finished request;
    ``gauges`` is called at scrape time and yields ``(name, help, labels, value)``."""

    def __init__(self, gauges: Callable[[], Iterator[tuple[str, str, dict[str, str], float]]]):
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "skilldeck_http_requests",
            "HTTP requests answered, by status code",
            ["status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "skilldeck_http_request_seconds",
            "Time from a request's arrival to its response's start",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
            registry=self.registry,
        )
        self.registry.register(_Gauges(gauges))

    def observe(self, status: int, seconds: float) -> None:
        self.requests.labels(str(status)).inc()
        self.latency.observe(seconds)

    def render(self) -> tuple[bytes, str]:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class _Gauges:
    def __init__(
        self, read: Callable[[], Iterator[tuple[str, str, dict[str, str], float]]]
    ) -> None:
        self.read = read

    def describe(self) -> list[Any]:
        return []  # values are read at scrape time; nothing to check at registration

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        families: dict[str, Any] = {}
        for name, text, labels, value in self.read():
            family = families.get(name)
            if family is None:
                family = families[name] = GaugeMetricFamily(name, text, labels=sorted(labels))
            family.add_metric([labels[k] for k in sorted(labels)], value)
        yield from families.values()


# glibc's mallopt parameters
_M_TRIM_THRESHOLD = -1
_M_ARENA_MAX = -8


def _libc() -> Any:
    """The C library's ``mallopt`` and ``malloc_trim`` (glibc on Linux), else ``None``."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the process's own symbols: the C library it runs on
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    return libc


def limit_allocator(arenas: int = 2, trim_threshold: int = 128 * 1024) -> bool:
    """Keep a long-running replica's C heap close to what it uses: at most ``arenas``
    malloc arenas (glibc gives each thread that allocates one of its own, up to eight per
    core, and a search index rebuilt in a thread of its own after each publish left its
    peak behind in another one each time), and free memory above ``trim_threshold`` at
    the heap's top returned at once. Call before threads start; ``False`` where the C
    library is not glibc (nothing changes)."""
    libc = _libc()
    if libc is None:
        return False
    libc.mallopt(_M_ARENA_MAX, arenas)
    libc.mallopt(_M_TRIM_THRESHOLD, trim_threshold)
    return True


def trim_allocator() -> bool:
    """Return the C heap's free pages to the system (``malloc_trim``: freed memory in
    the middle of an arena too, which the threshold does not reach)."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
