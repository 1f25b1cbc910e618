"""One decoded file: lines, Markdown regions (frontmatter, fences), quoting context."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from skilldeck.security._engine import KEYWORDS, Budget, Hit, Pattern

__all__ = ["Rule", "Text"]

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
#: Words near a finding in documentation that say it is discussed, not asked for.
_TEACHING = Pattern(
    r"\b(?:attack(?:er|ers|s)?|malicious|malware|exploit|phishing|threat|vulnerab\w*"
    r"|red[\s-]?flags?|indicators?|detect\w*|suspicious|dangerous|never\s+run|do\s+not\s+run"
    r"|don'?t\s+run|avoid|anti-?patterns?|bad\s+example|example\s+of|payloads?|iocs?"
    r"|signatures?|rules?|patterns?|scanner|injection|audit\w*|pentest\w*|ctf|blocklist"
    r"|deny\s*list|mitigat\w*|defen[cs]\w*|warning|unsafe|insecure|risk\w*)\b"
)


class Rule:
    """A pattern, the lower-case words one of which a line must hold for it to be
    tried there (a cheap prefilter: most files hold none), a code and a message."""

    __slots__ = ("code", "keywords", "message", "pattern")

    def __init__(
        self,
        code: str,
        pattern: str,
        keywords: tuple[str, ...],
        message: str,
        *,
        case: bool = False,
    ) -> None:
        self.code = code
        self.pattern = Pattern(pattern, case=case)
        self.keywords = keywords
        KEYWORDS.add(keywords)
        self.message = message


def _line_starts(text: str | bytes) -> list[int]:
    newline = "\n" if isinstance(text, str) else b"\n"
    starts = [0]
    at = text.find(newline)  # type: ignore[arg-type]
    while at != -1:
        starts.append(at + 1)
        at = text.find(newline, at + 1)  # type: ignore[arg-type]
    return starts


class Text:
    """Line/column lookup and code/quote context for one decoded file."""

    def __init__(self, text: str, *, markdown: bool, budget: Budget) -> None:
        self.text = text
        self.budget = budget
        self.ascii = text.isascii()
        # same length as text (str.lower() may change it outside ASCII)
        lower = text.lower()
        self.lower = lower if len(lower) == len(text) else text.translate(_ASCII_LOWER)
        # UTF-8 bytes for RE2 (encoded once)
        self.data = text.encode("utf-8", "surrogatepass")
        self.lower_data = (
            self.data.lower() if self.ascii else self.lower.encode("utf-8", "surrogatepass")
        )
        self._present: frozenset[str] | None = None
        self.markdown = markdown
        # computed on first use: most files have no finding and never need them
        self._starts: list[int] | None = None
        self._bstarts: list[int] | None = None
        self._regions: tuple[int, list[int], list[int]] | None = None

    @property
    def starts(self) -> list[int]:
        """Offsets where lines start."""
        if self._starts is None:
            self._starts = _line_starts(self.text)
        return self._starts

    @property
    def bstarts(self) -> list[int]:
        """Byte offsets (in ``data``) where lines start."""
        if self._bstarts is None:
            self._bstarts = self.starts if self.ascii else _line_starts(self.data)
        return self._bstarts

    @property
    def front_end(self) -> int:
        return self._find_regions()[0]

    @property
    def fence_starts(self) -> list[int]:
        return self._find_regions()[1]

    @property
    def fence_ends(self) -> list[int]:
        return self._find_regions()[2]

    # -- lines --------------------------------------------------------------

    @property
    def line_count(self) -> int:
        return len(self.starts)

    def line_span(self, line: int) -> tuple[int, int]:
        """Start and end (without the newline) of 0-based ``line``."""
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.starts[line], end

    def line_at(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def line(self, line: int) -> str:
        start, end = self.line_span(line)
        return self.text[start:end]

    def position(self, offset: int) -> tuple[int, int]:
        line = self.line_at(offset)
        return line + 1, offset - self.starts[line] + 1

    def _find_regions(self) -> tuple[int, list[int], list[int]]:
        """Where the frontmatter ends, and where code fences start and end."""
        if self._regions is not None:
            return self._regions
        front_end = 0
        fence_starts: list[int] = []
        fence_ends: list[int] = []
        self._regions = (front_end, fence_starts, fence_ends)
        if not self.markdown:
            return self._regions
        lines = self.text.split("\n")
        if lines and lines[0].strip() == "---":
            for i in range(1, len(lines)):
                if lines[i].strip() in ("---", "..."):
                    front_end = self.starts[i]
                    break
        opened: tuple[int, str] | None = None
        for i, line in enumerate(lines):
            m = _FENCE.match(line)
            if m is None:
                continue
            mark = m.group(1)
            if opened is None:
                opened = (self.starts[i], mark)
            elif mark[0] == opened[1][0] and len(mark) >= len(opened[1]):
                fence_starts.append(opened[0])
                fence_ends.append(self.starts[i] + len(line))
                opened = None
        if opened is not None:
            fence_starts.append(opened[0])
            fence_ends.append(len(self.text))
        self._regions = (front_end, fence_starts, fence_ends)
        return self._regions

    # -- matching -----------------------------------------------------------

    def has_any(self, words: tuple[str, ...]) -> bool:
        """Does the file hold one of ``words`` (lower case)?"""
        if self._present is None:
            self._present = KEYWORDS.present(self.lower_data)
        return not self._present.isdisjoint(words)

    def to_char(self, boff: int) -> int:
        """The character offset of byte offset ``boff``."""
        if self.ascii:
            return boff
        line = bisect.bisect_right(self.bstarts, boff) - 1
        part = self.data[self.bstarts[line] : boff].decode("utf-8", "replace")
        return self.starts[line] + len(part)

    def matches(self, rule: Rule) -> Iterator[tuple[int, Hit]]:
        """``(offset, hit)`` of the first match of ``rule`` on each line, in a file that
        holds one of its keywords; hit offsets are within the line. One RE2 pass."""
        if not self.has_any(rule.keywords):
            return
        self.budget.check()
        last_line = -1
        for n, (bstart, bend) in enumerate(rule.pattern.spans(self.data)):
            if n % 64 == 63:
                self.budget.check()
            start = self.to_char(bstart)
            line = self.line_at(start)
            if line == last_line:
                continue
            last_line = line
            end = self.to_char(bend)
            base = self.starts[line]
            yield start, Hit(start - base, end - base, self.text[start:end])

    # -- context ------------------------------------------------------------

    def in_frontmatter(self, offset: int) -> bool:
        return offset < self.front_end

    def in_fence(self, offset: int) -> bool:
        i = bisect.bisect_right(self.fence_starts, offset) - 1
        return i >= 0 and offset < self.fence_ends[i]

    def quoted(self, offset: int) -> bool:
        """Inside a code fence, inline code or double quotes on its line?"""
        if self.in_fence(offset):
            return True
        before = self.text[self.starts[self.line_at(offset)] : offset]
        if before.count("`") % 2 == 1:
            return True
        if before.count('"') % 2 == 1:
            return True
        return before.count("\u201c") > before.count("\u201d")

    def in_table(self, offset: int) -> bool:
        return self.line(self.line_at(offset)).lstrip().startswith("|")

    def teaching(self, offset: int, end: int | None = None) -> bool:
        """Does the text around ``offset`` discuss attacks rather than ask for one?

        True in a Markdown table row, or when the line, the two before it or the
        nearest heading above speak of attacks, detection, examples or risks.
        """
        if not self.markdown:
            return False
        line = self.line_at(offset)
        if self.in_table(offset):
            return True
        start = self.starts[max(0, line - 2)]
        stop = self.line_span(line)[1]
        around = self.text[start:offset][-2000:] + " " + self.text[end or offset : stop][:500]
        # words in host names and paths ("attacker.invalid") do not make a passage a lesson
        around = " ".join(
            w for w in around.split() if "." not in w.strip(".,;:!?") and "/" not in w
        )
        if _TEACHING.search(around) is not None:
            return True
        heading = self._heading_above(line)
        return heading is not None and _TEACHING.search(heading) is not None

    def _heading_above(self, line: int) -> str | None:
        for n in range(line - 1, max(-1, line - 200), -1):
            text = self.line(n)
            if text.startswith("#") and not self.in_fence(self.starts[n]):
                return text[:300]
        return None
