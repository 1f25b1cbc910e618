"""Split SKILL.md into frontmatter text and body.

The frontmatter opens with a line that is exactly ``---`` and closes with a line
that is exactly ``---`` or ``...`` (trailing whitespace allowed). A ``---``
inside a line never counts. A UTF-8 BOM, CRLF and mixed line endings are
accepted; the returned texts use ``\\n``.
"""

from __future__ import annotations

import re

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck.format import _codes as C

__all__ = ["Split", "decode", "split_frontmatter"]

_NEWLINES = re.compile(r"\r\n|\r")
_OPEN = re.compile(r"---[ \t]*\n")
# a closing line, found from the line break before it (a literal first: a quick search)
_CLOSE = re.compile(r"\n(?:---|\.\.\.)[ \t]*(?=\n|\Z)")

BOM = "\ufeff"
_LINK_TEXT = re.compile(r"[^\s]*/[^\s]*\.md")


class Split:
    """The parts of a SKILL.md. Lines are 1-based and count from the file's start.

    A plain class, not a dataclass: nothing compares or prints one, and making a
    dataclass costs ``skilldeck show`` about 4 M instructions at start-up."""

    __slots__ = ("body", "body_line", "diagnostics", "frontmatter", "frontmatter_line")

    def __init__(
        self,
        frontmatter: str | None,
        frontmatter_line: int,  # line of the first frontmatter key
        body: str,
        body_line: int,
        diagnostics: tuple[Diagnostic, ...],
    ) -> None:
        self.frontmatter = frontmatter
        self.frontmatter_line = frontmatter_line
        self.body = body
        self.body_line = body_line
        self.diagnostics = diagnostics


def decode(
    data: bytes, *, path: str | None = None, strict: bool = False
) -> tuple[str, list[Diagnostic]]:
    """Decode UTF-8 (BOM dropped); invalid bytes become U+FFFD with a diagnostic."""
    diags: list[Diagnostic] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        line = data[: exc.start].count(b"\n") + 1
        diags.append(
            Diagnostic.make(
                C.NOT_UTF8,
                f"invalid UTF-8 byte at offset {exc.start}; it reads as U+FFFD",
                path=path,
                line=line,
                hint="save the file as UTF-8",
                severity=Severity.ERROR if strict else None,
            )
        )
    if text.startswith(BOM):
        text = text[1:]
    return text, diags


def split_frontmatter(
    text: str,
    *,
    path: str | None = None,
    strict: bool = False,
    complete: bool = True,
    limit: int | None = None,
    body: bool = True,
    has_cr: bool = True,
) -> Split:
    """Find the frontmatter block.

    ``complete=False`` says ``text`` is only a prefix of the file: a missing
    closing delimiter is then reported as a frontmatter too large for the bound
    (``limit`` bytes) rather than as an unclosed block. ``body=False``: the
    body is not wanted (a metadata read) and is returned empty. ``has_cr=False``:
    the caller knows the text holds no carriage return (a search of the bytes it
    was decoded from is several times faster than one of the text).
    """
    if text.startswith(BOM):
        text = text[1:]
    if has_cr and "\r" in text:
        text = _NEWLINES.sub("\n", text)
    diags: list[Diagnostic] = []
    start = 0
    skipped = 0
    if not text.startswith("---"):
        from skilldeck._tree import frontmatter_start  # a rare file: discovery's rule

        at = frontmatter_start(text)
        if at is not None and not strict:
            skipped = text[:at].count("\n")
            start = at
            diags.append(
                Diagnostic.make(
                    C.LEADING_BLANK_LINES,
                    f"{skipped} blank line(s) before the opening '---'",
                    path=path,
                    line=1,
                    column=1,
                    hint="start the file with the '---' line",
                )
            )
    opener = _OPEN.match(text, start)
    if opener is None:
        end = text.find("\n", start)
        if text[start : end if end >= 0 else len(text)].rstrip(" \t") == "---":
            diags.append(_unclosed(path, skipped + 1, complete, limit))
            return Split(None, skipped + 2, "", skipped + 2, tuple(diags))
        hint = (
            "add a frontmatter block:\n---\nname: my-skill\n"
            "description: What it does and when to use it.\n---"
        )
        if _LINK_TEXT.fullmatch(text.strip()):
            hint = (
                f"the file only holds the path '{text.strip()}': it looks like a symbolic link "
                "checked out as a text file (git core.symlinks=false); recreate the link or "
                "copy the target file here"
            )
        diags.append(
            Diagnostic.make(
                C.MISSING_FRONTMATTER,
                "SKILL.md must start with a '---' line opening the YAML frontmatter",
                path=path,
                line=1,
                column=1,
                hint=hint,
            )
        )
        return Split(None, 1, text if body else "", 1, tuple(diags))
    fm_start = opener.end()
    close = _CLOSE.search(text, fm_start - 1)  # the opener ends with its line break
    open_line = skipped + 1
    if close is None:
        diags.append(_unclosed(path, open_line, complete, limit))
        return Split(None, open_line + 1, "", open_line + 1, tuple(diags))
    fm = text[fm_start : close.start() + 1]
    fm_lines = fm.count("\n")
    body_start = close.end()
    if body_start < len(text) and text[body_start] == "\n":
        body_start += 1
    body_line = open_line + 1 + fm_lines + 1
    rest = text[body_start:] if body else ""
    if not fm or fm.isspace():
        diags.append(
            Diagnostic.make(
                C.EMPTY_FRONTMATTER,
                "the frontmatter block is empty",
                path=path,
                line=open_line,
                column=1,
                hint="add at least 'name:' and 'description:' between the '---' lines",
            )
        )
        return Split(None, open_line + 1, rest, body_line, tuple(diags))
    return Split(fm, open_line + 1, rest, body_line, tuple(diags))


def _unclosed(path: str | None, line: int, complete: bool, limit: int | None) -> Diagnostic:
    if not complete:
        return Diagnostic.make(
            C.FRONTMATTER_TOO_LARGE,
            f"no closing '---' within the first {limit} bytes",
            path=path,
            line=line,
            column=1,
            hint="keep the frontmatter short (name, description, a few fields); "
            "move long text into the body",
        )
    return Diagnostic.make(
        C.UNCLOSED_FRONTMATTER,
        "the frontmatter opened here is never closed with a '---' line",
        path=path,
        line=line,
        column=1,
        hint="add a line containing only '---' after the last frontmatter key",
    )
