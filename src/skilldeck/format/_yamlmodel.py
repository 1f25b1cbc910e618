"""What the frontmatter YAML loader returns, and how a plain scalar resolves.

Both loaders (the line scanner of ``_yamlfast`` and libyaml in ``_yaml``) build
a :class:`YamlResult` and resolve plain scalars by :func:`resolve_plain`: only
``true``/``false`` are booleans, decimal integers (up to 100 digits) become ``int``, the null
spellings ``None``; everything else stays text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from skilldeck._diagnostics import Diagnostic

__all__ = ["DECIMAL", "FALSE", "TRUE", "YamlResult", "resolve_plain"]

DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,99})")
"""A decimal integer of at most 100 digits; a longer one stays text (``int()`` refuses
more than 4,300 digits with a ValueError, and no field wants such a number)."""
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
TRUE = frozenset({"true", "True", "TRUE"})
FALSE = frozenset({"false", "False", "FALSE"})


@dataclass(slots=True)
class YamlResult:
    """What the loader produced. ``positions`` maps dotted key paths to (line, column)."""

    data: Any = None
    positions: dict[str, tuple[int, int]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    ok: bool = True


def resolve_plain(value: str) -> Any:
    """Resolve a plain scalar by our rules."""
    if value in _NULLS:
        return None
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    if DECIMAL.fullmatch(value):
        return int(value)
    return value
