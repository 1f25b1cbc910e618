"""The scan's pattern engine: RE2, so every built-in rule runs in linear time.

Python's ``re`` backtracks: a lazy gap such as ``curl[^\\n]*?\\|`` tried from each
of 200,000 ``curl`` words on one line is quadratic. RE2 compiles to an automaton
and never backtracks, whatever the text. Two habits keep the whole scan linear:

- a pattern is searched on one line at a time (a slice), never on the whole file
  with ``pos``/``endpos`` (the binding encodes the whole string on every call);
- a rule reports at most one match per line.

RE2 has no look-around: a rule that needs "not preceded by a word character"
consumes that character and names the interesting part ``(?P<at>...)``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import re2  # google-re2

__all__ = ["KEYWORDS", "Budget", "BudgetExceeded", "Hit", "Keywords", "Pattern"]


@dataclass(frozen=True, slots=True)
class Hit:
    """One match within a line: character offsets into that line and the text."""

    start: int
    end: int
    text: str


class Pattern:
    """A compiled RE2 pattern, case-insensitive unless ``case=True``."""

    __slots__ = ("_at", "_re", "source")

    def __init__(self, source: str, *, case: bool = False) -> None:
        self.source = source
        options = re2.Options()
        options.case_sensitive = case
        options.max_mem = 16 << 20
        # (?m): ^ and $ match at line ends, as rules are written per line
        self._re: Any = re2.compile("(?m)" + source, options)
        self._at = [i for name, i in self._re.groupindex.items() if name.startswith("at")]

    def search(self, line: str) -> Hit | None:
        """The first match in ``line``, or ``None``."""
        m = self._re.search(line)
        if m is None:
            return None
        for group in self._at:
            if m.group(group) is not None:
                return Hit(m.start(group), m.end(group), m.group(group))
        return Hit(m.start(), m.end(), m.group())

    def spans(self, data: bytes) -> Iterator[tuple[int, int]]:
        """Byte spans of the matches in UTF-8 ``data`` (the ``at`` group when it took part)."""
        for m in self._re.finditer(data):
            for group in self._at:
                if m.start(group) >= 0:
                    yield m.start(group), m.end(group)
                    break
            else:
                yield m.start(), m.end()

    def finditer(self, line: str, limit: int = 64) -> list[Hit]:
        """Up to ``limit`` non-overlapping matches in ``line``."""
        out: list[Hit] = []
        for m in self._re.finditer(line):
            out.append(Hit(m.start(), m.end(), m.group()))
            if len(out) >= limit:
                break
        return out


class BudgetExceeded(Exception):
    """The time given to one file ran out."""


class Budget:
    """A deadline for one file; ``check()`` raises ``BudgetExceeded`` past it."""

    __slots__ = ("deadline", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise BudgetExceeded(self.seconds)


class Keywords:
    """Every rule's prefilter words in one RE2 set: one pass over a file tells which
    words it holds (a rule is tried only on files holding one of its words)."""

    def __init__(self) -> None:
        self._words: list[str] = []
        self._index: dict[str, int] = {}
        self._set: Any = None

    def add(self, words: tuple[str, ...]) -> None:
        for word in words:
            if word not in self._index:
                self._index[word] = len(self._words)
                self._words.append(word)
                self._set = None

    def present(self, lower: bytes) -> frozenset[str]:
        """The registered words that occur in ``lower`` (lower-case UTF-8)."""
        if self._set is None:
            options = re2.Options()
            options.max_mem = 32 << 20
            made = re2.Set.SearchSet(options)
            for word in self._words:
                made.Add(re2.escape(word))
            made.Compile()
            self._set = made
        return frozenset(self._words[i] for i in self._set.Match(lower) or ())


KEYWORDS = Keywords()
