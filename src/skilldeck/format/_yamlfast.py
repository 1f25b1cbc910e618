"""The fast path of the frontmatter YAML loader: a line scanner for the common shape.

``key: scalar`` lines, one nested mapping or list level, simple flow lists,
folded and literal block scalars, single-quoted text. Anything else (anchors,
tags, deeper nesting, odd scalars) makes :func:`fast_load` decline with
``None`` and the caller uses libyaml; both paths produce the same values
(tested), so the scanner only ever saves time.
"""

from __future__ import annotations

import re
from typing import Any

from skilldeck.format._yamlmodel import YamlResult, resolve_plain

__all__ = ["fast_load"]


# Greedy to the line's end, trailing spaces stripped after: a lazy group before
# "[ ]*$" retries the rest of the line at every character (12 us for a long one).
_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*):(?:[ ]+(.*))?")
_ITEM_LINE = re.compile(r"-[ ]+(\S.*)")  # an empty item ("- ") takes the full path
# Plain scalars we can take as-is: no indicator first, no ': ' and no ' #' inside.
# Plain scalars starting otherwise are text whatever follows (see _plain).
_RESOLVABLE = frozenset("0123456789+-~nNtTfF")
_PLAIN_FIRST_BAD = frozenset(" \t-?:,[]{}#&*!|>'\"%@`")


def _blockresolve_plain(raw: str) -> bool:
    """A one-line plain scalar we can take as-is: no indicator first, no ': ' or ' #'."""
    return (
        raw != ""
        and raw[0] not in _PLAIN_FIRST_BAD
        and ": " not in raw
        and " #" not in raw
        and not raw.endswith(":")
    )


_FLOW_ITEM = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^,\[\]{}#:]*")
_FLOW_LIST = re.compile(r"\[([^\[\]{}'\"#]*)\]")


def _fast_scalar(raw: str) -> tuple[bool, Any]:
    if raw == "":
        return True, None
    if raw[0] == '"':
        if len(raw) >= 2 and raw[-1] == '"' and '"' not in raw[1:-1] and "\\" not in raw:
            return True, raw[1:-1]
        return False, None
    if raw[0] == "'":
        if len(raw) >= 2 and raw[-1] == "'" and "'" not in raw[1:-1]:
            return True, raw[1:-1]
        return False, None
    if raw[0] == "[":
        m = _FLOW_LIST.fullmatch(raw)
        if m is None:
            return False, None
        inner = m.group(1).strip()
        if not inner:
            return True, []
        items = []
        for part in inner.split(","):
            item = part.strip()
            if not _FLOW_ITEM.fullmatch(item):
                return False, None
            items.append(resolve_plain(item))
        return True, items
    if _blockresolve_plain(raw):
        return True, resolve_plain(raw)
    return False, None


_BLOCK_HEADER = re.compile(r"([|>])([-+]?)")
_CONT_BAD_START = frozenset("-[]{}&*!|>'\"%@`?:#,")


def _continuation(lines: list[str], i: int, min_indent: int) -> tuple[list[str], int]:
    """Lines after ``i`` indented more than ``min_indent`` (blank lines included)."""
    out: list[str] = []
    j = i + 1
    while j < len(lines):
        line = lines[j]
        if line.strip() and len(line) - len(line.lstrip(" ")) <= min_indent:
            break
        out.append(line)
        j += 1
    while out and not out[-1].strip():
        out.pop()
        j -= 1
    return out, j


def _join_folded(first: str, texts: list[str]) -> str:
    """YAML line folding: a line break is a space, each blank line a newline."""
    out = first
    blanks = 0
    for text in texts:
        if not text:
            blanks += 1
            continue
        out += "\n" * blanks if blanks else " "
        out += text
        blanks = 0
    return out


def _foldresolve_plain(first: str, more: list[str]) -> str | None:
    texts = []
    for line in more:
        text = line.strip()
        if text and (
            text[0] in _CONT_BAD_START or ": " in text or " #" in text or text.endswith(":")
        ):
            return None
        if not line.isprintable():
            return None
        texts.append(text)
    return _join_folded(first, texts)


def _block_scalar(style: str, chomp: str, more: list[str]) -> str | None:
    if chomp == "+" or not more or any(not ln.isprintable() for ln in more):
        return None
    content = [len(ln) - len(ln.lstrip(" ")) for ln in more if ln.strip()]
    indent = content[0]  # the first content line sets the block's indentation
    if min(content) < indent:
        return None  # a less indented line: an error libyaml reports
    if any(not ln.strip() and len(ln) > indent for ln in more):
        return None  # blank lines longer than the indentation: libyaml's rules apply
    body = [ln[indent:] if ln.strip() else "" for ln in more]
    if style == ">":
        if any(not b or b.startswith(" ") for b in body):
            return None  # blank or more-indented lines fold differently
        text = " ".join(body)
    else:
        text = "\n".join(body)
    return text if chomp == "-" else text + "\n"


def _single_quoted(raw: str, more: list[str]) -> str | None:
    texts = []
    for line in more:
        if not line.isprintable():
            return None
        texts.append(line.strip())
    joined = _join_folded(raw[1:].rstrip(" ") if more else raw[1:], texts)
    if not joined.endswith("'"):
        return None
    inner = joined[:-1]
    if "'" in inner.replace("''", ""):
        return None
    return inner.replace("''", "'")


def _fast_value(raw: str, lines: list[str], i: int, indent: int) -> tuple[bool, Any, int]:
    """Read a value that may continue on following lines: (ok, value, next line index)."""
    more, nxt = _continuation(lines, i, indent)
    header = _BLOCK_HEADER.fullmatch(raw)
    if header is not None:
        end = nxt
        while end < len(lines) and not lines[end].strip():
            end += 1
        if any(ln and not ln.strip() for ln in lines[i + 1 : end]):
            return False, None, nxt  # whitespace-only lines: libyaml keeps their spaces
        value = _block_scalar(header.group(1), header.group(2), more)
        return value is not None, value, nxt
    if not more:
        if raw.startswith("'") and len(raw) >= 2 and raw.endswith("'"):
            quoted = _single_quoted(raw, [])
            return quoted is not None, quoted, nxt
        ok, value = _fast_scalar(raw)
        return ok, value, nxt
    if raw.startswith("'"):
        if len(raw) > 1 and raw.endswith("'") and "'" not in raw[1:-1].replace("''", ""):
            return False, None, nxt  # closed on its first line, yet lines follow
        quoted = _single_quoted(raw, more)
        return quoted is not None, quoted, nxt
    if not _blockresolve_plain(raw):
        return False, None, nxt
    folded = _foldresolve_plain(raw, more)
    if folded is None:
        return False, None, nxt
    return True, resolve_plain(folded), nxt


_MISS = object()
_SPACES = [" " * k for k in range(64)]


def _continues(lines: list[str], nxt: int, indent: int) -> bool:
    """Is the next non-blank line indented deeper than ``indent`` (a continuation)?"""
    n = len(lines)
    while nxt < n:
        line = lines[nxt]
        if (line and not line[0].isspace()) or line.strip():  # the next non-blank line
            return line.startswith(_SPACES[indent + 1] if indent < 63 else " " * (indent + 1))
        nxt += 1
    return False


def _quick(raw: str, lines: list[str], nxt: int, indent: int) -> Any:
    """The common case, cheaply: a one-line plain scalar not continued on the next line."""
    if (
        raw
        and raw[0] not in _PLAIN_FIRST_BAD
        and ": " not in raw
        and " #" not in raw
        and raw[-1] != ":"
    ):
        if nxt < len(lines):
            after = lines[nxt]
            # a line starting with neither a space nor a blank is no continuation
            if (not after or after[0].isspace()) and _continues(lines, nxt, indent):
                return _MISS
        return resolve_plain(raw) if len(raw) < 6 or raw[0] in _RESOLVABLE else raw
    return _MISS


_KEY_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def fast_load(text: str, line0: int) -> YamlResult | None:
    """Scan the common frontmatter shape; ``None`` means "use libyaml".

    Lines are told apart by their first character: a top-level key (most lines), a
    top-level list item, an indented line (a nested key or item), a comment or a
    blank line; anything else declines. The two common kinds are read inline.
    """
    if "\t" in text or not text.endswith("\n"):
        return None  # block scalars' final line break depends on the text's end
    top: dict[str, Any] = {}
    positions: dict[str, tuple[int, int]] = {}
    seen: set[str] = set()
    parent: str | None = None  # key whose nested block we are in
    child: Any = None
    indent = 0
    lines = text.split("\n")  # the last is "" (the text ends with a line break)
    n = len(lines)
    # every line printable: no line needs the check (comment lines need none anyway)
    checked = "".join(lines).isprintable()
    key_line, item_line, bad_first = _KEY_LINE.fullmatch, _ITEM_LINE.fullmatch, _PLAIN_FIRST_BAD
    i = 0
    while i < n:
        line = lines[i]
        if not line:
            i += 1
            continue
        first = line[0]
        if first in _KEY_FIRST:  # a top-level key
            m = key_line(line)
            if m is None or (not checked and not line.isprintable()):
                return None
            key, raw = m.groups()
            if raw:
                raw = raw.rstrip(" ")
            lowered = key.lower()
            if lowered in seen:
                return None  # duplicates: let the full path report them
            seen.add(lowered)
            positions[key] = (line0 + i, 1)
            i += 1
            if not raw:
                top[key] = None
                parent, child, indent = key, None, 0
                continue
            parent = None
            if (  # _quick, inlined: a one-line plain scalar (the next line exists)
                raw[0] not in bad_first and ": " not in raw and " #" not in raw and raw[-1] != ":"
            ):
                after = lines[i]
                if (after and not after[0].isspace()) or not _continues(lines, i, 0):
                    top[key] = resolve_plain(raw) if len(raw) < 6 or raw[0] in _RESOLVABLE else raw
                    continue
            ok, value, i = _fast_value(raw, lines, i - 1, 0)
            if not ok:
                return None
            top[key] = value
            continue
        if first == "-":  # a list item at its key's own indentation
            if parent is None or indent > 0 or line[1:2] != " ":
                return None
            if not checked and not line.isprintable():
                return None
            if child is not None and child.__class__ is not list:
                return None
            indent = -1  # no deeper block may follow
            m = item_line(line)
            if m is None:
                return None
            raw = m.group(1).rstrip(" ")
            i += 1
            after = lines[i]
            if (  # _quick, inlined
                raw[0] not in bad_first
                and ": " not in raw
                and " #" not in raw
                and raw[-1] != ":"
                and ((after and not after[0].isspace()) or not _continues(lines, i, 0))
            ):
                value = resolve_plain(raw) if len(raw) < 6 or raw[0] in _RESOLVABLE else raw
            else:
                ok, value, i = _fast_value(raw, lines, i - 1, 0)
                if not ok or isinstance(value, list):
                    return None
            if child is None:
                child = top[parent] = []
            child.append(value)
            continue
        if first == "#":
            i += 1
            continue
        if first != " ":
            return None
        stripped = line.lstrip(" ")
        if not stripped or stripped[0] == "#":
            i += 1
            continue
        if not checked and not line.isprintable():
            return None
        lineno = line0 + i
        ind = len(line) - len(stripped)
        if parent is None or indent < 0:
            return None
        if indent == 0:
            indent = ind
        elif ind != indent:
            return None
        if stripped[0] == "-":
            m = item_line(stripped)
            if m is None or (child is not None and not isinstance(child, list)):
                return None
            raw = m.group(1).rstrip(" ")
            value = _quick(raw, lines, i + 1, ind + 1)
            if value is not _MISS:
                i += 1
                if child is None:
                    child = top[parent] = []
                child.append(value)
                continue
            ok, value, i = _fast_value(raw, lines, i, ind + 1)
            if not ok or isinstance(value, list):
                return None
            if child is None:
                child = top[parent] = []
            child.append(value)
            continue
        m = key_line(stripped)
        if m is None or (child is not None and not isinstance(child, dict)):
            return None
        key, raw = m.group(1), m.group(2)
        if not raw:
            return None  # deeper nesting
        raw = raw.rstrip(" ")
        if child is not None and any(k.lower() == key.lower() for k in child):
            return None
        value = _quick(raw, lines, i + 1, ind)
        if value is not _MISS:
            ok, i = True, i + 1
        else:
            ok, value, i = _fast_value(raw, lines, i, ind)
        if not ok:
            return None
        if child is None:
            child = top[parent] = {}
        child[key] = value
        positions[f"{parent}.{key}"] = (lineno, ind + 1)
    return YamlResult(top, positions) if top else None
