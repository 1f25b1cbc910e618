"""Regular expressions that a skill supplies, run in linear time.

A skill's ``triggers.patterns`` are matched against the user's text. Python's
``re`` backtracks: ``^(a+)+$`` against forty ``a``s and a ``!`` never returns,
so one installed skill could freeze everything that ranks by relevance. These
patterns are compiled with RE2 (``google-re2``), whose matching time is linear
in the text whatever the pattern. RE2 has no backreferences and no
look-around; a pattern that uses them is refused with a diagnostic when the
skill is read (and never matches), instead of falling back to a backtracking
engine. Compilation is bounded too: patterns longer than ``MAX_PATTERN``
characters are refused and RE2's program memory is capped at ``MAX_MEMORY``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol

__all__ = ["MAX_MEMORY", "MAX_PATTERN", "LinearPattern", "compile_linear", "pattern_problem"]

MAX_PATTERN = 512
MAX_MEMORY = 1 << 20  # bytes of compiled program RE2 may use for one pattern


class LinearPattern(Protocol):
    """What a compiled pattern offers (an RE2 regexp)."""

    def search(self, text: str) -> Any: ...


def _options() -> Any:
    import re2

    opts = re2.Options()
    opts.case_sensitive = False
    opts.log_errors = False  # RE2 otherwise writes every refusal to stderr
    opts.max_mem = MAX_MEMORY
    return opts


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> tuple[LinearPattern | None, str | None]:
    if len(pattern) > MAX_PATTERN:
        return None, f"it has {len(pattern)} characters; the limit is {MAX_PATTERN}"
    import re2

    try:
        return re2.compile(pattern, _options()), None
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        return None, str(reason)
    except (TypeError, ValueError) as exc:  # e.g. lone surrogates the binding cannot encode
        return None, str(exc)


def compile_linear(pattern: str) -> LinearPattern | None:
    """The compiled pattern (case-insensitive), or ``None`` when RE2 refuses it."""
    return _compile(pattern)[0]


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used (RE2's reason), or ``None`` when it can."""
    return _compile(pattern)[1]
