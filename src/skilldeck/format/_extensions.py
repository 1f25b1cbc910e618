"""The extension fields DESIGN.md recognises, at the top level or under ``metadata``.

``version``, ``author``, ``tags``, ``requires``, ``modes``, ``read_only``,
``always_ask``, ``timeout``, ``network`` and ``triggers``:
one resolved value each, the top level winning; an unusable value is an SK217
warning and is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from skilldeck._frozen import field, value
from skilldeck.format import _codes as C
from skilldeck.format._checks import Ctx, scalar_text
from skilldeck.format._linear import pattern_problem

__all__ = ["Extensions", "Requirements", "Triggers"]


@value
class Requirements:
    """What a skill needs from the machine (``requires``)."""

    commands: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    other: Mapping[str, Any] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.commands or self.env or self.other)


@value
class Triggers:
    """The ``triggers`` extension: words and patterns that suggest the skill."""

    keywords: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    """The plain-list form (``triggers: [ISO 27001 audit]``): example requests."""


_WORDS = re.compile(r"[\s,]+")
_STR = frozenset({str})
_SCALARS = (str, int, float)

MAX_TIMEOUT = 300
"""The longest ``timeout`` a skill may declare, in seconds."""


class Extensions:
    """Resolve extension fields from the top level, else from ``metadata``."""

    def __init__(self, data: Mapping[str, Any], metadata: Mapping[str, Any], ctx: Ctx) -> None:
        self.data = data
        self.metadata = metadata
        self.ctx = ctx

    def _get(self, key: str) -> tuple[Any, str | None]:
        if key in self.data and self.data[key] is not None:
            return self.data[key], key
        if key in self.metadata and self.metadata[key] is not None:
            return self.metadata[key], f"metadata.{key}"
        return None, None

    def _bad(self, where: str, message: str, hint: str) -> None:
        self.ctx.add(C.EXTENSION_INVALID, message, where, hint=hint)

    def text(self, key: str) -> str | None:
        value, _ = self._get(key)
        if value is None or isinstance(value, dict | list):
            return None
        return scalar_text(value)

    def words(self, key: str) -> tuple[str, ...]:
        value, where = self._get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            return tuple(w for w in _WORDS.split(value) if w)
        if isinstance(value, list):
            if set(map(type, value)) <= _STR:  # the usual list of words: kept as they are
                return tuple(value)
            if all(isinstance(v, _SCALARS) for v in value):
                return tuple(scalar_text(v) for v in value)
        self._bad(
            where or key,
            f"'{key}' must be a list or a space-separated string",
            f"{key}: [one, two]",
        )
        return ()

    def flag(self, key: str) -> bool:
        value, where = self._get(key)
        if value is None:
            return False
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in {"true", "false", "yes", "no"}:
            return value.lower() in {"true", "yes"}
        self._bad(where or key, f"'{key}' must be true or false", f"{key}: true")
        return False

    def timeout(self) -> int | None:
        value, where = self._get("timeout")
        if value is None:
            return None
        try:
            seconds = int(str(value).strip().removesuffix("s"))
        except ValueError:
            seconds = -1
        if seconds > MAX_TIMEOUT:
            # Out of range upwards is still a clear wish for a long run: the longest
            # allowed applies, and the diagnostic says so (never silently the default).
            self._bad(
                where or "timeout",
                f"timeout must be 1-{MAX_TIMEOUT} seconds, not {value!r}; {MAX_TIMEOUT} applies",
                f"timeout: {MAX_TIMEOUT}",
            )
            return MAX_TIMEOUT
        if seconds < 1:
            self._bad(
                where or "timeout",
                f"timeout must be 1-{MAX_TIMEOUT} seconds, not {value!r}; "
                "the run's default timeout applies",
                "timeout: 30",
            )
            return None
        return seconds

    def modes(self) -> tuple[str, ...] | None:
        value, where = self._get("modes")
        if value is None:
            return None
        if isinstance(value, str):
            return tuple(w for w in _WORDS.split(value) if w)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        self._bad(where or "modes", "'modes' must be a list of mode names", "modes: [Dev, Global]")
        return None

    def requires(self) -> Requirements:
        value, where = self._get("requires")
        if value is None:
            return Requirements()
        if isinstance(value, str):
            return Requirements(commands=tuple(value.split()))
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return Requirements(commands=tuple(value))
        if isinstance(value, dict):
            commands: list[str] = []
            env: list[str] = []
            other: dict[str, Any] = {}
            for key, item in value.items():
                items = item.split() if isinstance(item, str) else item
                if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                    other[key] = item
                elif key in {"commands", "bins", "binaries", "cli", "command"}:
                    commands.extend(items)
                elif key in {"env", "environment", "env_vars"}:
                    env.extend(items)
                else:
                    other[key] = items
            return Requirements(tuple(commands), tuple(env), other)
        self._bad(
            where or "requires",
            "'requires' must list commands (space-separated or a "
            "list) or be a mapping with 'commands' and 'env'",
            "requires: git gh",
        )
        return Requirements()

    def triggers(self) -> Triggers | None:
        value, where = self._get("triggers")
        if value is None:
            return None
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list) and value and all(isinstance(i, str) for i in value):
            # the plain list many published skills write: example requests, as loose
            # as the quoted ones of a description ("SQL" there means a sales lead)
            return Triggers(phrases=tuple(i for i in value if i.strip()))
        if not isinstance(value, dict):
            self._bad(
                where or "triggers",
                "'triggers' must be a list of phrases or a mapping with keywords, verbs "
                "and patterns",
                "triggers: [extract pdf tables]  or  triggers: {keywords: [pdf], verbs: [extract]}",
            )
            return None
        parts: dict[str, tuple[str, ...]] = {}
        for key in ("keywords", "verbs", "patterns"):
            item = value.get(key) or []
            if isinstance(item, str):
                item = [item]
            if not isinstance(item, list) or not all(isinstance(i, str) for i in item):
                self._bad(
                    where or "triggers",
                    f"'triggers.{key}' must be a list of strings",
                    f"{key}: [one, two]",
                )
                item = []
            parts[key] = tuple(item)
        good_patterns = []
        for pattern in parts["patterns"]:
            problem = pattern_problem(pattern)
            if problem is not None:
                self._bad(
                    where or "triggers",
                    f"trigger pattern {pattern!r} cannot be used: {problem}",
                    "trigger patterns use RE2 syntax, which runs in linear time: no "
                    "backreferences or look-around; escape backslashes in YAML strings",
                )
                continue
            good_patterns.append(pattern)
        unknown = set(value) - {"keywords", "verbs", "patterns"}
        if unknown:
            self._bad(
                where or "triggers",
                "unknown trigger kind(s): " + ", ".join(sorted(unknown)),
                "use keywords, verbs and patterns",
            )
        return Triggers(parts["keywords"], parts["verbs"], tuple(good_patterns))
