"""A normalised view of a script or document, so rules see what the text does rather
than how it is spelled.

The view has exactly the lines of the original (a finding in it keeps its line):

- a command continued over lines (``\\`` or a PowerShell backtick at the end, a line
  ending in ``|``, ``&&`` or ``||``) is joined onto its first line; the lines it
  took become empty;
- ``\\xNN``, ``\\uNNNN`` and ``\\u{N}`` escapes are decoded;
- adjacent string literals joined with ``+`` are folded (``'cu' + 'rl'`` is
  ``'curl'``), and so are lists of literals joined (``['a', 'b'].join(' ')``,
  ``''.join(['a', 'b'])``);
- a variable set on one line is replaced by its value where it is used later
  (``u=…``/``$u``, ``$u = …``/``$u``, ``u = …``/``u``, ``const u = …``/``u``; ``for x in
  …`` and ``with … as x`` bind too), so an assignment and its use read as one step;
- base64 and hex literals that decode to text are decoded, and the text is added
  to the end of their line.

Everything is a single left-to-right pass per line with patterns that cannot
backtrack (each repeated part stops at a fixed character), lines longer than
4,000 characters are left alone, and the view is capped, so it stays linear.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

import re2  # google-re2

__all__ = ["normalise"]


_LINE_LIMIT = 4000
_VALUE_LIMIT = 400
_MAX_DECODED = 50
_SUBSTITUTED = 200_000  # characters a file's substitutions may add to its view


def _re2(source: str) -> Any:
    options = re2.Options()
    options.max_mem = 8 << 20
    return re2.compile(source, options)


_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\u\{([0-9a-fA-F]{1,6})\}")
_CONCAT = re.compile(
    r"'([^'\n\\]*)'\s*\+\s*'([^'\n\\]*)'|\"([^\"\n\\]*)\"\s*\+\s*\"([^\"\n\\]*)\""
    r"|'([^'\n\\]*)'\s*\+\s*\"([^\"\n\\]*)\"|\"([^\"\n\\]*)\"\s*\+\s*'([^'\n\\]*)'"
)
_LITERAL = r"(?:'[^'\n]*'|\"[^\"\n]*\")"
_LIST = rf"{_LITERAL}(?:\s*,\s*{_LITERAL})*"
_JOIN_JS = re.compile(rf"\[\s*({_LIST})\s*,?\s*\]\s*\.join\(\s*({_LITERAL})?\s*\)")
_JOIN_PY = re.compile(rf"({_LITERAL})\.join\(\s*[\[(]\s*({_LIST})\s*,?\s*[\])]\s*\)")
_ITEM = re.compile(_LITERAL)
_B64 = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){16,}\b")
#: runs that may be base64 or hex (kept when they hold a digit or "+": not a word or path)
_BLOB_RUN = _re2(r"[A-Za-z0-9+/]{24,}={0,2}")


def _blob_offsets(text: str) -> list[int]:
    out: list[int] = []
    for m in _BLOB_RUN.finditer(text):
        token = m.group()
        if any(c.isdigit() or c == "+" for c in token):
            out.append(m.start())
            if len(out) >= 200:
                break
    return out


# assignments: each pattern is a prefix with no open-ended gap before a fixed word, so
# Python's engine cannot backtrack on them; the value is the rest of the line
_SH_ASSIGN = re.compile(
    r"\s*(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)?)?([A-Za-z_]\w*)=(?=\S)"
)
_SH_FOR = re.compile(r"\s*for\s+([A-Za-z_]\w*)\s+in\s+(?=\S)")
_SH_USE = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")
_PS_ASSIGN = re.compile(r"\s*\$([A-Za-z_]\w*)\s*=(?!=)\s*(?=\S)")
_PS_FOREACH = re.compile(r"\bforeach\s*\(\s*\$([A-Za-z_]\w*)\s+in\s+([^)\n]+)\)", re.I)
_PS_USE = re.compile(r"\$([A-Za-z_]\w*)")
_PY_ASSIGN = re.compile(r"\s*([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)\s*(?=\S)")
_JS_ASSIGN = re.compile(r"\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=(?!=)\s*(?=\S)")
_JS_FOR = re.compile(r"\bfor\s*\(\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s+of\s+([^)\n]+)\)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_WORD = re.compile(r"(?<![\w.$'\"])([A-Za-z_$][\w$]*)\b(?!\s*=(?!=))")


def _unescape(m: re.Match[str]) -> str:
    code = int(m.group(1) or m.group(2) or m.group(3), 16)
    return chr(code) if 0x20 <= code < 0x7F else m.group()


_QUOTED_VAR = re.compile(r"\"(\$\{?\w+\}?)\"(?=/)")
_INWORD_QUOTES = re.compile(r"(?<=[\w./~-])([\"'])([\w./-]*)\1")
_HOME_EXPR = (
    r"(?:os\.homedir\(\s*\)|(?:pathlib\.)?Path\.home\(\s*\)|os\.path\.expanduser\(\s*['\"]~['\"]\s*\)"
    r"|process\.env\.HOME|os\.environ\[\s*['\"]HOME['\"]\s*\]|\$env:USERPROFILE|\$HOME)"
)
_PART = rf"(?:{_LITERAL}|{_HOME_EXPR})"
_PATH_JOIN = re.compile(
    rf"\b(?:os\.path\.join|path\.join|path\.resolve|Join-Path)\s*\(\s*({_PART}(?:\s*,\s*{_PART})+)\s*\)"
)
_PATH_DIV = re.compile(rf"({_PART})\s*/\s*({_LITERAL})")
_HOME_RE = re.compile(_HOME_EXPR)
_ARGV = re.compile(
    r"\b((?:run|call|Popen|check_call|check_output|spawn|spawnSync|execFile|execFileSync"
    r"|Start-Process)\s*\(\s*)\[([^\[\]\n]{1,400})\]"
)


_ITEM_OR_HOME = re.compile(_PART)


def _path_text(part: str) -> str:
    part = part.strip()
    return "~" if _HOME_RE.fullmatch(part) else part[1:-1]


def _join_path(m: re.Match[str]) -> str:
    parts = _ITEM_OR_HOME.findall(m.group(1))
    return (
        "'"
        + "/".join(_path_text(p).strip("/") if i else _path_text(p) for i, p in enumerate(parts))
        + "'"
    )


def _div_path(m: re.Match[str]) -> str:
    return "'" + _path_text(m.group(1)).rstrip("/") + "/" + _path_text(m.group(2)) + "'"


def _argv(m: re.Match[str]) -> str:
    """``run(['rm', '-rf', x])`` read as the command line ``run('rm -rf x')``."""
    words = [w.strip() for w in m.group(2).split(",")]
    text = " ".join(_path_text(w) if _ITEM_OR_HOME.fullmatch(w) else w for w in words if w)
    return m.group(1) + "'" + text.replace("'", "") + "'"


def _fold_paths(line: str) -> str:
    if "join" in line or "resolve(" in line or "Join-Path" in line:
        line = _PATH_JOIN.sub(_join_path, line)
    if "/ " in line or "/'" in line or '/"' in line:
        for _ in range(6):
            folded = _PATH_DIV.sub(_div_path, line)
            if folded == line:
                break
            line = folded
    if "([" in line or "( [" in line:
        line = _ARGV.sub(_argv, line)
    return line


def _fold(line: str) -> str:
    for _ in range(12):
        folded = _CONCAT.sub(_join_pair, line)
        if folded == line:
            break
        line = folded
    if ".join(" in line:
        line = _JOIN_JS.sub(_join_js, line)
        line = _JOIN_PY.sub(_join_py, line)
    return line


def _join_pair(m: re.Match[str]) -> str:
    parts = [g for g in m.groups() if g is not None]
    quote = '"' if m.group(3) is not None else "'"
    return quote + "".join(parts) + quote


def _items(text: str) -> list[str]:
    return [t[1:-1] for t in _ITEM.findall(text)]


def _join_js(m: re.Match[str]) -> str:
    sep = m.group(2)[1:-1] if m.group(2) else ","
    return "'" + sep.join(_items(m.group(1))) + "'"


def _join_py(m: re.Match[str]) -> str:
    return "'" + m.group(1)[1:-1].join(_items(m.group(2))) + "'"


def _printable(data: bytes) -> str | None:
    if len(data) < 12:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    good = sum(1 for c in text if c.isprintable() or c in "\n\t\r")
    if good < len(text) * 0.9 or not any(c in text for c in " /.(;|"):
        return None
    return " ; ".join(text.split("\n"))[:2000]


def _decoded(line: str) -> list[str]:
    out: list[str] = []
    if len(line) >= 24:
        for m in _B64.finditer(line):
            token = m.group()
            try:
                data = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
            except (binascii.Error, ValueError):
                continue
            text = _printable(data)
            if text:
                out.append(text)
        for m in _HEX.finditer(line):
            text = _printable(bytes.fromhex(m.group()))
            if text:
                out.append(text)
    return out


def _logical(text: str, lines: list[str], language: str, markdown: bool) -> list[str]:
    """Continued commands joined onto their first line; the lines they took emptied.
    Only the lines that end in a continuation are visited (found in one pass)."""
    ends: list[int] = []
    at = 0
    line_no = 0
    for m in (_CONTINUED_MD if markdown else _CONTINUED).finditer(text):
        line_no += text.count("\n", at, m.start())
        at = m.start()
        ends.append(line_no)
    if not ends:
        return lines
    out = list(lines)
    skip_to = -1
    for start in ends:
        if start <= skip_to or start >= len(lines) - 1:
            continue
        if markdown and out[start].lstrip().startswith("|"):
            continue  # a table row
        joined = out[start]
        i = start
        while i + 1 < len(lines) and len(joined) < _LINE_LIMIT and i - start < 40:
            tail = joined.rstrip()
            if (tail.endswith("\\") and not tail.endswith("\\\\")) or (
                language in ("powershell", "other") and tail.endswith("`")
            ):
                joined = tail[:-1] + " " + lines[i + 1].strip()
            elif tail.endswith(("|", "&&", "||")):
                joined = tail + " " + lines[i + 1].strip()
            else:
                break
            i += 1
            out[i] = ""
        out[start] = joined
        skip_to = i
    return out


def _strip_quotes(value: str) -> str:
    value = value.strip().rstrip(";").strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


_MODULE = ("require(", "__import__(", "import(", "await import(")


class _Vars:
    """Values of variables assigned so far, and their substitution into later lines."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.values: dict[str, str] = {}
        self.budget = _SUBSTITUTED

    def bind(self, name: str, value: str) -> None:
        value = value.strip()
        if not value or len(value) > _VALUE_LIMIT or value.startswith(_MODULE):
            return  # a module alias reads better as its name
        key = name.lower() if self.language == "powershell" else name
        self.values.pop(key, None)
        self.values[key] = value
        if len(self.values) > _MAX_VARIABLES:
            del self.values[next(iter(self.values))]  # the oldest

    def substitute(self, text: str) -> str:
        if not self.values or len(text) > _LINE_LIMIT or self.budget <= 0:
            return text
        out = self._substitute(text)
        self.budget -= max(0, len(out) - len(text))  # hostile chains stop growing the view
        return out

    def _substitute(self, text: str) -> str:
        lang = self.language
        if lang in ("shell", "doc"):
            return _SH_USE.sub(self._shell, text) if "$" in text else text
        if lang == "powershell":
            return _PS_USE.sub(self._ps, text) if "$" in text else text
        if not any(name in text for name in self.values):
            return text
        return _WORD.sub(self._word, text)

    def _shell(self, m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        value = self.values.get(name)
        return _strip_quotes(value) if value is not None else m.group()

    def _ps(self, m: re.Match[str]) -> str:
        value = self.values.get(m.group(1).lower())
        return f"({value})" if value is not None else m.group()

    def _word(self, m: re.Match[str]) -> str:
        value = self.values.get(m.group(1))
        return f"({value})" if value is not None else m.group()


def _assignment(line: str, language: str) -> tuple[str, int, int] | None:
    """``(name, start, end)`` of the value when ``line`` binds a variable."""
    end = len(line.rstrip())
    if language in ("shell", "doc"):
        m = _SH_ASSIGN.match(line)
        if m:
            return m.group(1), m.end(), end
        m = _SH_FOR.match(line)
        if m:
            stop = line.find(";", m.end())
            value_end = stop if stop != -1 else end
            if stop == -1 and line[:end].endswith(" do"):
                value_end = end - 3
            return m.group(1), m.end(), value_end
    elif language == "powershell":
        m = _PS_ASSIGN.match(line)
        if m:
            return m.group(1), m.end(), end
        m = _PS_FOREACH.search(line)
        if m:
            return m.group(1), m.start(2), m.end(2)
    elif language == "python":
        return _python_binding(line, end)
    elif language == "js":
        m = _JS_ASSIGN.match(line)
        if m:
            return m.group(1), m.end(), end - 1 if line[:end].endswith(";") else end
        m = _JS_FOR.search(line)
        if m:
            return m.group(1), m.start(2), m.end(2)
    return None


def _python_binding(line: str, end: int) -> tuple[str, int, int] | None:
    """``x = …``, ``with … as x:`` and ``for x in …:`` (found with ``str`` methods)."""
    stripped = line.lstrip()
    indent = len(line) - len(stripped)
    if stripped.startswith(("with ", "async with ")) and line[:end].endswith(":"):
        cut = line.rfind(" as ", 0, end)
        name = line[cut + 4 : end - 1].strip() if cut != -1 else ""
        if _IDENT.fullmatch(name):
            return name, indent + stripped.find("with ") + 5, cut
        return None
    if stripped.startswith("for ") and line[:end].endswith(":"):
        cut = line.find(" in ", indent)
        name = line[indent + 4 : cut].strip() if cut != -1 else ""
        if _IDENT.fullmatch(name):
            return name, cut + 4, end - 1
        return None
    m = _PY_ASSIGN.match(line)
    if m:
        return m.group(1), m.end(), end
    return None


_CONTINUED = re.compile(r"(?:\\|`|\||&&)[ \t]*\r?\n")
_CONTINUED_MD = re.compile(r"(?:\\|&&|\|\|)[ \t]*\r?\n")  # a table row ends in "|"
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)
_ESCAPED = re.compile(r"\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F{]")
_MAX_VARIABLES = 300


def _line_numbers(text: str, offsets: list[int]) -> list[int]:
    """0-based line numbers of increasing ``offsets`` (one pass over the text)."""
    out: list[int] = []
    at = line = 0
    for offset in offsets:
        line += text.count("\n", at, offset)
        at = offset
        out.append(line)
    return out


def _code_lines(text: str, count: int) -> list[int]:
    """Lines inside Markdown code fences (prose needs no variables or joins)."""
    marks = _line_numbers(text, [m.start() for m in _FENCE_LINE.finditer(text)])
    out: list[int] = []
    for start, end in zip(marks[::2], [*marks[1::2], count], strict=False):
        out.extend(range(start, min(end + 1, count)))
    return out


def normalise(
    text: str,
    language: str,
    *,
    markdown: bool = False,
    check: Callable[[], None] | None = None,
) -> str | None:
    """The normalised view of ``text`` (same number of lines), or ``None`` when it
    would read the same. ``language`` is ``shell``, ``powershell``, ``python``,
    ``js``, ``doc`` (Markdown: shell-style variables) or ``other``.

    In Markdown only code blocks are followed (variables, joins, continued lines);
    escapes and encoded blobs are decoded wherever they are."""
    lines = text.split("\n")
    logical = _logical(text, lines, language, markdown)
    code = set(_code_lines(text, len(lines))) if markdown else None
    escaped = _line_numbers(text, [m.start() for m in _ESCAPED.finditer(text)])
    blobs = _line_numbers(text, _blob_offsets(text))
    visit = sorted({*(code if code is not None else range(len(lines))), *escaped, *blobs})
    escaped_set, blob_set = set(escaped), set(blobs)
    quotes = language in ("shell", "doc") and ('"' in text or "'" in text)
    variables = _Vars(language)
    decoded_left = _MAX_DECODED
    out = logical if logical is not lines else list(lines)
    for count, n in enumerate(visit):
        if check is not None and count % 256 == 255:
            check()  # the scan's time budget for the file
        line = out[n]
        if not line or len(line) > _LINE_LIMIT:
            continue
        if n in escaped_set:
            line = _ESCAPE.sub(_unescape, line)
        if code is None or n in code:
            # variables, joins and paths are followed in scripts and code blocks only
            if "+" in line or ".join(" in line:
                line = _fold(line)
            line = _fold_paths(line)
            if quotes and ('"' in line or "'" in line):
                line = _INWORD_QUOTES.sub(r"\2", _QUOTED_VAR.sub(r"\1", line))
            bound = _assignment(line, language) if _may_bind(line) else None
            if bound is not None:
                name, start, end = bound
                value = variables.substitute(line[start:end])
                line = line[:start] + value + line[end:]
                variables.bind(name, value)
            else:
                line = variables.substitute(line)[: _LINE_LIMIT * 2]
        if n in blob_set and decoded_left > 0:
            for extra in _decoded(line)[:decoded_left]:
                decoded_left -= 1
                line += " ;; decoded: " + extra
        out[n] = line[: _LINE_LIMIT * 2]
    view = "\n".join(out)
    return None if view == text else view


def _may_bind(line: str) -> bool:
    return "=" in line or " in " in line or " as " in line
