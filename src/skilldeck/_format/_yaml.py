"""Load frontmatter YAML safely and faithfully.

- Safety: only plain data is built (no tags are constructed), nesting depth and
  the number of nodes produced (alias expansion included) are bounded, and
  deeply nested flow collections are refused before libyaml sees them.
- Fidelity: floats and timestamps keep their source text (``version: 1.0`` is
  ``"1.0"``), only ``true``/``false`` are booleans (``yes``/``on`` stay text),
  decimal integers become ``int``. Duplicate keys and keys differing only by
  case are reported; every key's line and column are known.
- Speed: the common shape of a frontmatter (``key: scalar`` lines, one nested
  mapping or list level, simple flow lists) is read by a line scanner; anything
  else goes to libyaml. Both paths produce the same values (tested).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skilldeck._diagnostics import Diagnostic
from skilldeck._format import _codes as C

if TYPE_CHECKING:
    import yaml

__all__ = ["YamlResult", "load_yaml"]


def _loader() -> type[Any]:
    """libyaml's loader; PyYAML is imported only when the fast path first declines
    (a listing from the cache, or of common frontmatters, never needs it)."""
    import yaml

    loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return loader


MAX_DEPTH = 32
MAX_NODES = 20_000

_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"

_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})


@dataclass(slots=True)
class YamlResult:
    """What the loader produced. ``positions`` maps dotted key paths to (line, column)."""

    data: Any = None
    positions: dict[str, tuple[int, int]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    ok: bool = True


class _TooComplex(Exception):
    pass


def _plain(value: str) -> Any:
    """Resolve a plain scalar by our rules."""
    if value in _NULLS:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _DECIMAL.fullmatch(value):
        return int(value)
    return value


# ---------------------------------------------------------------- fast path

_KEY_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*):(?:[ ]+(.*?))?[ ]*$")
_ITEM_LINE = re.compile(r"-[ ]+(\S.*?)[ ]*$")  # an empty item ("- ") takes the full path
# Plain scalars we can take as-is: no indicator first, no ': ' and no ' #' inside.
# Plain scalars starting otherwise are text whatever follows (see _plain).
_RESOLVABLE = frozenset("0123456789+-~nNtTfF")
_PLAIN_FIRST_BAD = frozenset(" \t-?:,[]{}#&*!|>'\"%@`")


def _block_plain(raw: str) -> bool:
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
            items.append(_plain(item))
        return True, items
    if _block_plain(raw):
        return True, _plain(raw)
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


def _fold_plain(first: str, more: list[str]) -> str | None:
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
    if not _block_plain(raw):
        return False, None, nxt
    folded = _fold_plain(raw, more)
    if folded is None:
        return False, None, nxt
    return True, _plain(folded), nxt


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
        return _plain(raw) if len(raw) < 6 or raw[0] in _RESOLVABLE else raw
    return _MISS


def _fast_load(text: str, line0: int) -> YamlResult | None:
    """Scan the common frontmatter shape; ``None`` means "use libyaml"."""
    if "\t" in text or not text.endswith("\n"):
        return None  # block scalars' final line break depends on the text's end
    res = YamlResult(data={})
    top: dict[str, Any] = res.data
    seen: set[str] = set()
    parent: str | None = None  # key whose nested block we are in
    child: Any = None
    indent = 0
    lines = text.split("\n")
    n = len(lines)
    positions = res.positions
    i = 0
    while i < n:
        line = lines[i]
        stripped = line.lstrip(" ")
        if not stripped or stripped[0] == "#":
            i += 1
            continue
        if not line.isprintable():
            return None
        lineno = line0 + i
        ind = len(line) - len(stripped)
        if ind == 0 and parent is not None and indent <= 0 and stripped[:2] in ("- ", "-"):
            if child is not None and not isinstance(child, list):
                return None
            indent = -1  # a list at the key's own indentation: no deeper block may follow
            m = _ITEM_LINE.fullmatch(stripped)
            if m is None:
                return None
            value = _quick(m.group(1), lines, i + 1, 0)
            if value is not _MISS:
                i += 1
            else:
                ok, value, i = _fast_value(m.group(1), lines, i, 0)
                if not ok or isinstance(value, list):
                    return None
            if child is None:
                child = top[parent] = []
            child.append(value)
            continue
        if ind == 0:
            m = _KEY_LINE.fullmatch(line)
            if m is None:
                return None
            key, raw = m.groups()
            lowered = key.lower()
            if key in top or lowered in seen:
                return None  # duplicates: let the full path report them
            seen.add(lowered)
            positions[key] = (lineno, 1)
            if not raw:
                top[key] = None
                parent, child, indent = key, None, 0
                i += 1
                continue
            value = _quick(raw, lines, i + 1, 0)
            if value is not _MISS:
                top[key] = value
                parent = None
                i += 1
                continue
            ok, value, i = _fast_value(raw, lines, i, 0)
            if not ok:
                return None
            top[key] = value
            parent = None
            continue
        if parent is None or indent < 0:
            return None
        if indent == 0:
            indent = ind
        elif ind != indent:
            return None
        if stripped.startswith("-"):
            m = _ITEM_LINE.fullmatch(stripped)
            if m is None or (child is not None and not isinstance(child, list)):
                return None
            value = _quick(m.group(1), lines, i + 1, ind + 1)
            if value is not _MISS:
                i += 1
                if child is None:
                    child = top[parent] = []
                child.append(value)
                continue
            ok, value, i = _fast_value(m.group(1), lines, i, ind + 1)
            if not ok or isinstance(value, list):
                return None
            if child is None:
                child = top[parent] = []
            child.append(value)
            continue
        m = _KEY_LINE.fullmatch(stripped)
        if m is None or (child is not None and not isinstance(child, dict)):
            return None
        key, raw = m.group(1), m.group(2)
        if not raw:
            return None  # deeper nesting
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
        res.positions[f"{parent}.{key}"] = (lineno, ind + 1)
    return res if top else None


# ---------------------------------------------------------------- full path


def _flow_depth_ok(text: str) -> bool:
    """Refuse flow nesting deeper than MAX_DEPTH before libyaml recurses into it."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return True
    depth = 0
    quote = ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == "\n":
            quote = ""
    return True


class _Builder:
    def __init__(self, res: YamlResult, line0: int, path: str | None) -> None:
        self.res = res
        self.line0 = line0
        self.path = path
        self.count = 0

    def build(self, node: yaml.Node, key_path: str, depth: int) -> Any:
        import yaml

        self.count += 1
        if self.count > MAX_NODES or depth > MAX_DEPTH:
            raise _TooComplex
        if isinstance(node, yaml.ScalarNode):
            value = str(node.value)
            if node.style or node.tag == _STR:  # libyaml reports plain style as ''
                return value
            if node.tag == _NULL:
                return None
            if node.tag == _BOOL:
                return True if value in _TRUE else False if value in _FALSE else value
            if node.tag == _INT and _DECIMAL.fullmatch(value):
                return int(value)
            return value  # floats, timestamps, anything tagged: keep the text
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, key_path, depth + 1) for item in node.value]
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node, key_path, depth)
        return None  # pragma: no cover

    def report(self, code: str, message: str, line: int, col: int, hint: str) -> None:
        self.res.diagnostics.append(
            Diagnostic.make(code, message, path=self.path, line=line, column=col, hint=hint)
        )

    def mapping(self, node: yaml.MappingNode, key_path: str, depth: int) -> dict[str, Any]:
        import yaml

        out: dict[str, Any] = {}
        lowered: dict[str, str] = {}
        for knode, vnode in node.value:
            line = self.line0 + knode.start_mark.line
            col = knode.start_mark.column + 1
            if isinstance(knode, yaml.ScalarNode):
                key = str(knode.value)
            else:
                key = str(self.build(knode, key_path, depth + 1))
                self.report(
                    C.NON_STRING_KEY,
                    f"key {key!r} is not a plain string; it is read as text",
                    line,
                    col,
                    "use plain text keys",
                )
            dotted = f"{key_path}.{key}" if key_path else key
            if key in out:
                self.report(
                    C.DUPLICATE_KEY,
                    f"key '{dotted}' appears more than once; the last value is used",
                    line,
                    col,
                    f"remove one of the '{key}:' lines",
                )
            elif depth < 2 and key.lower() in lowered and lowered[key.lower()] != key:
                self.report(
                    C.CASE_DUPLICATE_KEY,
                    f"keys '{lowered[key.lower()]}' and '{key}' differ only by case; "
                    "keys are case-sensitive",
                    line,
                    col,
                    f"keep one spelling (the specification uses '{key.lower()}')",
                )
            lowered.setdefault(key.lower(), key)
            out[key] = self.build(vnode, dotted, depth + 1)
            if depth < 2:
                self.res.positions.setdefault(dotted, (line, col))
        return out


def _full_load(text: str, line0: int, path: str | None) -> YamlResult:
    import yaml

    res = YamlResult()
    if not _flow_depth_ok(text):
        res.ok = False
        res.diagnostics.append(_too_complex(path, line0))
        return res
    try:
        node = yaml.compose(text, Loader=_loader())
    except yaml.MarkedYAMLError as exc:
        res.ok = False
        mark = exc.problem_mark or exc.context_mark
        line = line0 + mark.line if mark is not None else line0
        col = mark.column + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        res.diagnostics.append(
            Diagnostic.make(
                C.INVALID_YAML,
                f"invalid YAML: {problem}",
                path=path,
                line=line,
                column=col,
                hint="check quoting and indentation; values containing ': ' or starting "
                "with a special character must be quoted",
            )
        )
        return res
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        res.ok = False
        res.diagnostics.append(
            Diagnostic.make(C.INVALID_YAML, f"invalid YAML: {exc}", path=path, line=line0)
        )
        return res
    if node is None:
        res.data = None
        return res
    builder = _Builder(res, line0, path)
    try:
        res.data = builder.build(node, "", 0)
    except (_TooComplex, RecursionError):
        res.ok = False
        res.data = None
        res.diagnostics = [d for d in res.diagnostics if d.code != C.DUPLICATE_KEY]
        res.diagnostics.append(_too_complex(path, line0))
    return res


def _too_complex(path: str | None, line: int) -> Diagnostic:
    return Diagnostic.make(
        C.YAML_TOO_COMPLEX,
        f"frontmatter nests deeper than {MAX_DEPTH} levels or expands to more than "
        f"{MAX_NODES} values (aliases included)",
        path=path,
        line=line,
        hint="flatten the frontmatter; avoid YAML anchors and aliases",
    )


# ---------------------------------------------------------------- recovery

_RECOVERABLE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+(.*:[ ].*?)[ ]*$")


def _recover_colons(text: str) -> tuple[str, list[tuple[int, str, str]]]:
    """Quote top-level ``key: value`` lines whose unquoted value contains ': '."""
    lines = text.split("\n")
    fixed: list[tuple[int, str, str]] = []
    for i, line in enumerate(lines):
        m = _RECOVERABLE.fullmatch(line)
        if m is None:
            continue
        key, value = m.group(1), m.group(2)
        if value[0] in "'\"[{|>&*!%@`#":
            continue
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        lines[i] = f'{key}: "{escaped}"'
        fixed.append((i, key, lines[i]))
    return "\n".join(lines), fixed


def load_yaml(
    text: str, *, line0: int = 1, path: str | None = None, strict: bool = False
) -> YamlResult:
    """Load frontmatter ``text`` whose first line is line ``line0`` of the file."""
    if not text.endswith("\n"):
        text += "\n"
    fast = _fast_load(text, line0)
    if fast is not None:
        return fast
    res = _full_load(text, line0, path)
    if res.ok or strict or not any(d.code == C.INVALID_YAML for d in res.diagnostics):
        return res
    repaired, fixed = _recover_colons(text)
    if not fixed:
        return res
    retry = _full_load(repaired, line0, path)
    if not retry.ok:
        return res
    for i, key, new_line in fixed:
        retry.diagnostics.append(
            Diagnostic.make(
                C.RECOVERED_COLON,
                f"the value of '{key}' contains ': ' and is not quoted, which is invalid "
                "YAML; it was read as one string",
                path=path,
                line=line0 + i,
                column=len(key) + 3,
                hint=f"quote the value: {new_line}",
            )
        )
    return retry
