"""Load frontmatter YAML safely and faithfully.

- Safety: only plain data is built (no tags are constructed), nesting depth and
  the number of nodes produced (alias expansion included) are bounded, and
  deeply nested flow collections are refused before libyaml sees them.
- Fidelity: floats and timestamps keep their source text (``version: 1.0`` is
  ``"1.0"``), only ``true``/``false`` are booleans (``yes``/``on`` stay text),
  decimal integers become ``int``. Duplicate keys and keys differing only by
  case are reported; every key's line and column are known.
- Speed: the common shape of a frontmatter (``key: scalar`` lines, one nested
  mapping or list level, simple flow lists) is read by a line scanner
  (``_yamlfast``); anything else goes to libyaml. Both paths produce the same
  values (tested); the result type and the scalar rules are in ``_yamlmodel``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from skilldeck._diagnostics import Diagnostic
from skilldeck.format import _codes as C
from skilldeck.format._yamlfast import fast_load
from skilldeck.format._yamlmodel import DECIMAL, FALSE, TRUE, YamlResult

if TYPE_CHECKING:
    import yaml

__all__ = ["YamlResult", "load_yaml", "prepare_yaml"]


def _loader() -> type[Any]:
    """libyaml's loader; PyYAML is imported only when the fast path first declines
    (a listing from the cache, or of common frontmatters, never needs it)."""
    import yaml

    loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return loader


def prepare_yaml() -> None:
    """Import libyaml's loader now: a caller about to fork parse workers does, so that
    they share it instead of each importing it (about 20 ms of CPU) at the first
    frontmatter the fast path declines (a few in a hundred corpus skills)."""
    _loader()


MAX_DEPTH = 32
MAX_NODES = 20_000

_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"


class _TooComplex(Exception):
    pass


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
                return True if value in TRUE else False if value in FALSE else value
            if node.tag == _INT and DECIMAL.fullmatch(value):
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
        hint = (
            "check quoting and indentation; values containing ': ' or starting "
            "with a special character must be quoted"
        )
        lines = text.splitlines()
        if mark is not None and mark.line < len(lines) and "\t" in lines[mark.line]:
            hint = "indent with spaces: YAML does not allow tabs (this line holds one)"
        res.diagnostics.append(
            Diagnostic.make(
                C.INVALID_YAML,
                f"invalid YAML: {problem}",
                path=path,
                line=line,
                column=col,
                hint=hint,
            )
        )
        return res
    except yaml.reader.ReaderError as exc:  # a character YAML forbids (NUL, ESC, ...)
        res.ok = False
        at = exc.position
        before = text[:at]
        res.diagnostics.append(
            Diagnostic.make(
                C.INVALID_YAML,
                f"invalid YAML: character {chr(exc.character)!r} is not allowed in YAML",
                path=path,
                line=line0 + before.count("\n"),
                column=at - (before.rfind("\n") + 1) + 1,
                hint="remove the control character (in a quoted value, write it as an escape)",
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
    fast = fast_load(text, line0)
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
