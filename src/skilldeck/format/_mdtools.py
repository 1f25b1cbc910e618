"""Command tools declared in a SKILL.md body.

A tool is an ``###`` section whose name follows ``[a-z0-9_]{1,32}`` and that holds a
``#### Command`` subsection with one fenced code block; an optional
``#### Parameters`` table (``Name | Type | Required | Description``, plus an optional
``Default`` column) declares its arguments::

    ### git_log

    Show recent commit history.

    #### Parameters

    | Name  | Type    | Required | Description       |
    |-------|---------|----------|-------------------|
    | count | integer | no       | Number of commits |

    #### Command

    ```bash
    git log --oneline -n {{count}}
    ```

An ``###`` section without a ``#### Command`` subsection is ordinary prose (most
Agent Skills bodies use ``###`` headings freely), so a body without tools is fine.
The command is split into program + argv once (``_mdcommand``), with POSIX quoting
rules; the placeholders ``{{name}}`` and ``{{flag:--text}}`` are kept as fragments of
the argv entries and filled by :mod:`skilldeck.execution._interp`. No shell ever sees
the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from skilldeck._diagnostics import Diagnostic
from skilldeck._names import is_parameter_name, is_tool_name
from skilldeck._paths import script_relpath
from skilldeck.format._mdcommand import (
    ShellOperatorError,
    parse_command_template,
)
from skilldeck.format._mdmodel import (
    ArgTemplate,
    CommandTemplate,
    DeclaredTool,
    Literal,
    ParamType,
    Placeholder,
    ToolParameter,
)

__all__ = [
    "ArgTemplate",
    "CommandTemplate",
    "DeclaredTool",
    "Literal",
    "ParamType",
    "Placeholder",
    "ToolParameter",
    "check_programs",
    "parse_command_template",
    "parse_declared_tools",
]


TOOL_NAME_INVALID = "SK401"
TOOL_DUPLICATE = "SK402"
COMMAND_MISSING = "SK403"
COMMAND_INVALID = "SK404"
SHELL_OPERATOR = "SK405"
PARAM_TYPE_UNKNOWN = "SK406"
PARAM_ROW_INVALID = "SK407"
PARAM_DUPLICATE = "SK408"
PLACEHOLDER_UNDECLARED = "SK409"
MODIFIER_NOT_BOOLEAN = "SK410"
PARAMS_MISSING = "SK411"
PARAM_UNUSED = "SK412"
TOOL_NO_DESCRIPTION = "SK413"
TOOL_DESCRIPTION_LONG = "SK414"
SHELL_LITERAL = "SK415"
COMMAND_NOT_FOUND_SECTION = "SK416"
PARAM_NAME_INVALID = "SK417"
PARAM_DEFAULT_INVALID = "SK418"
DANGLING_OPTION = "SK419"
PROGRAM_NOT_RUNNABLE = "SK420"

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_MAX_DESCRIPTION_HINT = 256
_DESC_DEFAULT = re.compile(r"\(\s*default\s*[:=]\s*([^()]*?)\s*\)", re.IGNORECASE)


_TYPE_ALIASES = {
    "str": ParamType.STRING,
    "text": ParamType.STRING,
    "int": ParamType.INTEGER,
    "float": ParamType.NUMBER,
    "bool": ParamType.BOOLEAN,
    "list": ParamType.ARRAY,
    "string[]": ParamType.ARRAY,
    "array<string>": ParamType.ARRAY,
}
_YES = frozenset({"yes", "y", "true", "required", "x", "✓"})
_NO = frozenset({"no", "n", "false", "optional", "", "-"})


# --------------------------------------------------------------------- splitting


class _Section:
    """A heading and the lines up to the next one of its level or above."""

    __slots__ = ("end", "level", "line", "title")

    def __init__(self, level: int, title: str, line: int) -> None:
        self.level = level
        self.title = title
        self.line = line  # 0-based index into the body lines
        self.end = 0  # exclusive


def _scan(lines: list[str]) -> tuple[list[_Section], set[int]]:
    """ATX headings outside fenced code, and the line indexes inside fences."""
    headings: list[_Section] = []
    fenced: set[int] = set()
    fence: tuple[str, int] | None = None
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if fence is not None:
            fenced.add(i)
            if (
                m
                and m.group(2)[0] == fence[0]
                and len(m.group(2)) >= fence[1]
                and not m.group(3).strip()
            ):
                fence = None
            continue
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            fence = (m.group(2)[0], len(m.group(2)))
            fenced.add(i)
            continue
        h = _HEADING.match(line)
        if h:
            headings.append(_Section(len(h.group(1)), (h.group(2) or "").strip(), i))
    for idx, sec in enumerate(headings):
        sec.end = len(lines)
        for later in headings[idx + 1 :]:
            if later.level <= sec.level:
                sec.end = later.line
                break
    return headings, fenced


def _code_blocks(lines: list[str], start: int, end: int) -> list[tuple[int, str]]:
    """Fenced code blocks between two line indexes: (line index of the fence, content)."""
    out: list[tuple[int, str]] = []
    i = start
    while i < end:
        m = _FENCE.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        char, size, indent = m.group(2)[0], len(m.group(2)), len(m.group(1))
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            close = _FENCE.match(lines[j])
            if (
                close
                and close.group(2)[0] == char
                and len(close.group(2)) >= size
                and not close.group(3).strip()
            ):
                break
            text = lines[j]
            body.append(text[min(indent, len(text) - len(text.lstrip(" "))) :])
            j += 1
        out.append((i, "\n".join(body)))
        i = j + 1
    return out


def _strip_code(title: str) -> str:
    if len(title) >= 2 and title[0] == title[-1] == "`":
        return title[1:-1].strip()
    return title


# -------------------------------------------------------------------- parameters


def _split_row(line: str) -> list[str]:
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    cells = re.split(r"(?<!\\)\|", text)
    return [c.strip().replace("\\|", "|").strip("`").strip() for c in cells]


def _coerce_default(raw: str, ptype: ParamType) -> Any:
    text = raw.strip().strip("`").strip()
    if ptype is ParamType.STRING:
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            return text[1:-1]
        return text
    if ptype is ParamType.INTEGER:
        return int(text)
    if ptype is ParamType.NUMBER:
        return float(text)
    if ptype is ParamType.BOOLEAN:
        low = text.lower()
        if low in {"true", "yes"}:
            return True
        if low in {"false", "no"}:
            return False
        raise ValueError(text)
    return tuple(x.strip() for x in text.strip("[]").split(",") if x.strip())


class _Parser:
    def __init__(self, body: str, path: str | None, body_line: int) -> None:
        self.lines = body.splitlines()
        self.path = path
        self.base = body_line
        self.diags: list[Diagnostic] = []

    def diag(self, code: str, message: str, index: int, hint: str | None = None) -> None:
        self.diags.append(
            Diagnostic.make(code, message, path=self.path, line=self.base + index, hint=hint)
        )

    def parameters(self, sec: _Section, tool: str) -> tuple[ToolParameter, ...] | None:
        rows = [
            (i, self.lines[i])
            for i in range(sec.line + 1, sec.end)
            if self.lines[i].strip().startswith("|") or self.lines[i].count("|") >= 2
        ]
        if not rows:
            return ()  # "None." or prose: no parameters
        header = [c.lower() for c in _split_row(rows[0][1])]
        col = {name: header.index(name) for name in header if name}
        if "name" not in col or "type" not in col:
            self.diag(
                PARAM_ROW_INVALID,
                f"tool '{tool}': the parameters table needs 'Name' and 'Type' columns",
                rows[0][0],
                "header: | Name | Type | Required | Description |",
            )
            return None
        params: list[ToolParameter] = []
        ok = True
        for index, line in rows[1:]:
            cells = _split_row(line)
            if all(re.fullmatch(r":?-{1,}:?", c) for c in cells if c):
                continue
            cell = {key: (cells[i] if i < len(cells) else "") for key, i in col.items()}
            name = cell["name"]
            if not is_parameter_name(name):
                self.diag(
                    PARAM_NAME_INVALID,
                    f"tool '{tool}': parameter name {name!r} is not an identifier",
                    index,
                    "use letters, digits and underscores, starting with a letter",
                )
                ok = False
                continue
            raw_type = cell["type"].lower()
            ptype = _TYPE_ALIASES.get(raw_type)
            if ptype is None:
                try:
                    ptype = ParamType(raw_type)
                except ValueError:
                    self.diag(
                        PARAM_TYPE_UNKNOWN,
                        f"tool '{tool}': parameter '{name}' has unknown type {cell['type']!r}",
                        index,
                        "use string, integer, number, boolean or array",
                    )
                    ok = False
                    continue
            req_text = cell.get("required", "no").lower().strip("*_ ")
            if req_text in _YES:
                required = True
            elif req_text in _NO:
                required = False
            else:
                self.diag(
                    PARAM_ROW_INVALID,
                    f"tool '{tool}': parameter '{name}' has Required {cell['required']!r}",
                    index,
                    "write yes or no",
                )
                ok = False
                continue
            default: Any = None
            raw_default = cell.get("default", "").strip()
            from_desc = _DESC_DEFAULT.search(cell.get("description", ""))
            if raw_default in ("", "-") and from_desc:
                raw_default = from_desc.group(1)
            if raw_default not in ("", "-"):
                try:
                    default = _coerce_default(raw_default, ptype)
                except ValueError:
                    self.diag(
                        PARAM_DEFAULT_INVALID,
                        f"tool '{tool}': default {raw_default!r} of '{name}' is not "
                        f"a {ptype.value}",
                        index,
                    )
                    ok = False
                    continue
            if any(p.name == name for p in params):
                self.diag(
                    PARAM_DUPLICATE, f"tool '{tool}': parameter '{name}' is declared twice", index
                )
                ok = False
                continue
            params.append(
                ToolParameter(name, ptype, required, cell.get("description", ""), default)
            )
        return tuple(params) if ok else None

    def description(self, sec: _Section, first_sub: int) -> str:
        paras: list[str] = []
        current: list[str] = []
        for i in range(sec.line + 1, first_sub):
            text = self.lines[i].strip()
            if text:
                current.append(text)
            elif current:
                paras.append(" ".join(current))
                current = []
        if current:
            paras.append(" ".join(current))
        return "\n\n".join(paras)

    def tool(self, sec: _Section, subs: list[_Section], fenced: set[int]) -> DeclaredTool | None:
        by_title: dict[str, _Section] = {}
        for sub in subs:
            by_title.setdefault(sub.title.strip().rstrip(":").lower(), sub)
        cmd_sec = by_title.get("command")
        name = _strip_code(sec.title)
        if cmd_sec is None:
            if "parameters" in by_title and is_tool_name(name, "declared"):
                self.diag(
                    COMMAND_NOT_FOUND_SECTION,
                    f"section '{name}' has '#### Parameters' but no '#### Command': not a tool",
                    sec.line,
                    "add a '#### Command' section with one fenced code block",
                )
            return None
        if not is_tool_name(name, "declared"):
            self.diag(
                TOOL_NAME_INVALID,
                f"tool name {name!r} breaks the rule [a-z0-9_]{{1,32}}",
                sec.line,
                "use lowercase letters, digits and underscores, e.g. "
                + repr(re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")[:32] or "my_tool"),
            )
            return None
        ok = True
        blocks = _code_blocks(self.lines, cmd_sec.line + 1, cmd_sec.end)
        command: CommandTemplate | None = None
        if not blocks:
            self.diag(
                COMMAND_MISSING,
                f"tool '{name}': '#### Command' has no fenced code block",
                cmd_sec.line,
                "put the command in a ```bash block",
            )
            ok = False
        else:
            index, text = blocks[0]
            try:
                command = parse_command_template(text)
            except ShellOperatorError as exc:
                self.diag(
                    SHELL_OPERATOR,
                    f"tool '{name}': {exc}",
                    index + 1,
                    "wrap the pipeline in scripts/<name>.sh and call that",
                )
                ok = False
            except ValueError as exc:
                self.diag(COMMAND_INVALID, f"tool '{name}': {exc}", index + 1)
                ok = False
        params_sec = by_title.get("parameters")
        params: tuple[ToolParameter, ...] | None = ()
        if params_sec is None:
            self.diag(
                PARAMS_MISSING,
                f"tool '{name}' has no '#### Parameters' section",
                sec.line,
                "add '#### Parameters' with a table, or 'None.'",
            )
        else:
            params = self.parameters(params_sec, name)
            if params is None:
                ok = False
        first_sub = min((s.line for s in subs), default=sec.end)
        desc = self.description(sec, first_sub)
        if not desc:
            self.diag(
                TOOL_NO_DESCRIPTION,
                f"tool '{name}' has no description",
                sec.line,
                "add a sentence under the heading saying what the tool does",
            )
        elif len(desc) > _MAX_DESCRIPTION_HINT:
            self.diag(
                TOOL_DESCRIPTION_LONG,
                f"tool '{name}': description is {len(desc)} characters",
                sec.line,
                "keep it under 256 characters; details belong in the body",
            )
        if command is not None and params is not None:
            ok = self.check_placeholders(name, command, params, blocks[0][0] + 1) and ok
        if not ok or command is None or params is None:
            return None
        return DeclaredTool(name, desc, params, command, self.base + sec.line, self.path)

    def check_placeholders(
        self, name: str, command: CommandTemplate, params: tuple[ToolParameter, ...], index: int
    ) -> bool:
        ok = True
        declared = {p.name: p for p in params}
        for arg in command.args:
            for ph in arg.placeholders():
                param = declared.get(ph.name)
                if param is None:
                    self.diag(
                        PLACEHOLDER_UNDECLARED,
                        f"tool '{name}': {{{{{ph.name}}}}} is not a declared parameter",
                        index,
                        f"add a row for '{ph.name}' to the parameters table",
                    )
                    ok = False
                elif ph.modifier is not None and param.type is not ParamType.BOOLEAN:
                    self.diag(
                        MODIFIER_NOT_BOOLEAN,
                        f"tool '{name}': {{{{{ph.name}:{ph.modifier}}}}} needs a boolean "
                        f"parameter, '{ph.name}' is {param.type.value}",
                        index,
                    )
                    ok = False
            for frag in arg.fragments:
                if isinstance(frag, Literal) and (
                    "$" in frag.text
                    or "`" in frag.text
                    or frag.text.startswith("~")
                    or (any(ch in frag.text for ch in "*?") and not arg.is_url)
                ):
                    self.diag(
                        SHELL_LITERAL,
                        f"tool '{name}': {arg.text()!r} reaches the program literally "
                        "(no shell expands variables, globs or ~)",
                        index,
                        "use a script under scripts/ when shell expansion is needed",
                    )
                    break
        previous: ArgTemplate | None = None
        for arg in command.args:
            sole = arg.sole_placeholder
            param = declared.get(sole.name) if sole is not None else None
            if (
                sole is not None
                and sole.modifier is None
                and param is not None
                and not param.required
                and param.default is None
                and previous is not None
                and previous.is_literal
                and previous.text().startswith("-")
                and "=" not in previous.text()
            ):
                self.diag(
                    DANGLING_OPTION,
                    f"tool '{name}': when '{sole.name}' is absent, {previous.text()!r} is "
                    "passed without its value",
                    index,
                    f"give '{sole.name}' a default (Default column or '(default: ...)' in "
                    f"its description), make it required, or write {previous.text()}="
                    f"{{{{{sole.name}}}}}",
                )
            previous = arg
        used = command.placeholder_names()
        for p in params:
            if p.name not in used:
                self.diag(
                    PARAM_UNUSED,
                    f"tool '{name}': parameter '{p.name}' is not used",
                    index,
                    f"reference it as {{{{{p.name}}}}} or remove the row",
                )
        return ok

    def run(self) -> tuple[tuple[DeclaredTool, ...], tuple[Diagnostic, ...]]:
        sections, fenced = _scan(self.lines)
        tools: list[DeclaredTool] = []
        seen: dict[str, int] = {}
        for idx, sec in enumerate(sections):
            if sec.level != 3:
                continue
            subs = [s for s in sections[idx + 1 :] if s.line < sec.end and s.level == 4]
            tool = self.tool(sec, subs, fenced)
            if tool is None:
                continue
            if tool.name in seen:
                self.diag(
                    TOOL_DUPLICATE,
                    f"tool '{tool.name}' is declared twice (first at line {seen[tool.name]})",
                    sec.line,
                    "rename one of them",
                )
                continue
            seen[tool.name] = self.base + sec.line
            tools.append(tool)
        return tuple(tools), tuple(self.diags)


def parse_declared_tools(
    body: str, *, path: str | None = None, body_line: int = 1
) -> tuple[tuple[DeclaredTool, ...], tuple[Diagnostic, ...]]:
    """The command tools declared in a SKILL.md body, and diagnostics about them.

    ``body_line`` is the 1-based line of the file where ``body`` starts, so
    diagnostics point into the file. Tools with an error are left out (their
    diagnostics say why); a body without tools gives ``((), ())``.
    """
    return _Parser(body, path, body_line).run()


def check_programs(
    tools: Sequence[DeclaredTool], *, exists: Callable[[str], bool], path: str | None = None
) -> Iterator[Diagnostic]:
    """``SK420`` for each tool whose relative program could not run from this skill.

    A program with a ``/`` that is not absolute names a file of the skill; the rule
    of what runs is :func:`skilldeck._paths.script_relpath` (the one the executor
    applies), and ``exists(relpath)`` says whether the skill has that file.
    """
    for tool in tools:
        program = tool.command.program
        if "/" not in program or program.startswith("/"):
            continue
        rel, problem = script_relpath(program, exists=exists)
        if rel is None:
            why = f"{program} leaves the skill folder"
        elif problem:
            why = f"{program} is outside scripts/, and only files under scripts/ run"
        elif not exists(rel):
            why = f"the skill has no {rel}"
        else:
            continue
        yield Diagnostic.make(
            PROGRAM_NOT_RUNNABLE,
            f"tool '{tool.name}': {why}",
            path=path,
            line=tool.line,
            hint="put the program under scripts/ and name it as scripts/NAME (or ./NAME)",
        )
