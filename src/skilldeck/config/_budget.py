"""The skill-list size budget of a config file's ``[catalog] budget`` (and of ``--budget``).

Apart from the schema: a listing reads the config but needs a ``Budget`` only when
one is set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["Budget"]

_MOST = 10**18
"""The largest budget kept as given; any larger one is taken as this (no listing is near)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """A skill-list size budget: ``limit`` characters, or approximate tokens (4 chars each)."""

    limit: int
    unit: Literal["chars", "tokens"] = "chars"

    @property
    def chars(self) -> int:
        return self.limit * 4 if self.unit == "tokens" else self.limit

    @classmethod
    def parse(cls, value: object) -> Budget:
        """``8000`` (characters), ``"8000"``, ``"8000 chars"`` or ``"2000 tokens"``."""
        if isinstance(value, Budget):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return cls(value)
        if isinstance(value, str):
            m = re.fullmatch(r"\s*(\d+)\s*(chars?|characters?|tokens?|t|c)?\s*", value)
            # past 18 digits every budget is as good as unlimited: taken as _MOST, so
            # int() never meets its digit limit (a 5,000-digit budget raised there)
            digits = m.group(1).lstrip("0") if m else ""
            if m and digits:
                unit = (m.group(2) or "c")[0]
                limit = int(digits) if len(digits) <= 18 else _MOST
                return cls(limit, "tokens" if unit == "t" else "chars")
        from skilldeck._paths import shown_excerpt

        raise ValueError(
            f"invalid budget {shown_excerpt(repr(value))}: use a positive number of characters "
            "or a string like '2000 tokens'"
        )
