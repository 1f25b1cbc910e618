"""What the frontmatter YAML loader returns, and how a plain scalar resolves.

Both loaders (the line scanner of ``_yamlfast`` and libyaml in ``_yaml``) build
a :class:`YamlResult` and resolve plain scalars by :func:`resolve_plain`: only
``true``/``false`` are booleans, decimal integers (up to 100 digits) become ``int``, the null
spellings ``None``; everything else stays text.
"""

from __future__ import annotations

import re
from typing import Any

from skilldeck._diagnostics import Diagnostic

__all__ = ["DECIMAL", "FALSE", "TRUE", "YamlResult", "resolve_plain"]

DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]{0,99})")
"""A decimal integer of at most 100 digits; a longer one stays text (``int()`` refuses
more than 4,300 digits with a ValueError, and no field wants such a number)."""
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
TRUE = frozenset({"true", "True", "TRUE"})
FALSE = frozenset({"false", "False", "FALSE"})


class YamlResult:
    """What the loader produced. ``positions`` maps dotted key paths to (line, column).

    A plain slotted class, not a dataclass: nothing compares or copies it, and making
    a dataclass costs start-up about 3 M instructions (``skilldeck show`` parses one)."""

    __slots__ = ("data", "diagnostics", "ok", "positions")

    def __init__(
        self,
        data: Any = None,
        positions: dict[str, tuple[int, int]] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        ok: bool = True,
    ) -> None:
        self.data = data
        self.positions = {} if positions is None else positions
        self.diagnostics = [] if diagnostics is None else diagnostics
        self.ok = ok

    def __repr__(self) -> str:
        return (
            f"YamlResult(data={self.data!r}, positions={self.positions!r}, "
            f"diagnostics={self.diagnostics!r}, ok={self.ok!r})"
        )


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
