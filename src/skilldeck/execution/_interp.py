"""Fill a declared tool's command template with arguments.

The template was split into program + argv entries once, when the SKILL.md was
parsed; here each entry is filled and becomes zero, one or several argv strings.
No shell is involved at any point, so a value is always data, never syntax.

Rules for an entry that is exactly one placeholder:

- ``{{name}}`` with a value: one argument (``str(value)``; booleans ``true``/``false``);
  an **array** becomes one argument per element;
- ``{{name}}`` absent and optional (no default): the entry is omitted;
- ``{{flag:--text}}`` (boolean only): ``--text`` when true, omitted when false or absent.

Rules for a placeholder inside a larger entry (``--limit={{limit}}``,
``https://api.example/search?q={{query}}``):

- the entry stays **one** argument; the value's text is inserted verbatim, arrays
  joined with single spaces;
- when the entry starts with ``scheme://`` (a URL), inserted values are
  percent-encoded (RFC 3986 unreserved characters kept), so
  ``https://api.com/search?q={{query}}`` with ``rust lang`` gives
  ``https://api.com/search?q=rust%20lang``;
- an absent optional value omits the whole entry, except in a URL, where it
  becomes the empty string.

Arguments are type-checked against the declared parameters first; unknown names,
missing required values, wrong types and NUL bytes raise ``InvalidArgumentsError``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from skilldeck._errors import InvalidArgumentsError
from skilldeck.format import (
    ArgTemplate,
    DeclaredTool,
    Literal,
    ParamType,
    Placeholder,
    ToolParameter,
)

__all__ = ["check_arguments", "coerce_cli_arguments", "render_command"]

_MAX_VALUE_CHARS = 128 * 1024


def _type_error(tool: str, param: ToolParameter, value: Any) -> InvalidArgumentsError:
    return InvalidArgumentsError(
        f"tool '{tool}': '{param.name}' must be {param.type.value}, not {type(value).__name__}",
        field=param.name,
        hint=f"pass {param.name} as a JSON {param.type.value}",
    )


def _check_text(tool: str, name: str, text: str) -> str:
    if "\x00" in text:
        raise InvalidArgumentsError(
            f"tool '{tool}': '{name}' contains a NUL byte, which no argument can hold",
            field=name,
        )
    if len(text) > _MAX_VALUE_CHARS:
        raise InvalidArgumentsError(
            f"tool '{tool}': '{name}' is longer than {_MAX_VALUE_CHARS} characters", field=name
        )
    return text


def _check_value(tool: str, param: ToolParameter, value: Any) -> Any:
    t = param.type
    if t is ParamType.STRING:
        if not isinstance(value, str):
            raise _type_error(tool, param, value)
        return _check_text(tool, param.name, value)
    if t is ParamType.INTEGER:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise _type_error(tool, param, value)
        return value
    if t is ParamType.NUMBER:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _type_error(tool, param, value)
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidArgumentsError(
                f"tool '{tool}': '{param.name}' must be a finite number", field=param.name
            )
        return value
    if t is ParamType.BOOLEAN:
        if not isinstance(value, bool):
            raise _type_error(tool, param, value)
        return value
    if not isinstance(value, list | tuple):
        raise _type_error(tool, param, value)
    items: list[str] = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise InvalidArgumentsError(
                f"tool '{tool}': '{param.name}' must be an array of strings",
                field=param.name,
            )
        items.append(_check_text(tool, param.name, _text(item)))
    return tuple(items)


def check_arguments(tool: DeclaredTool, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Validated arguments with defaults applied (absent optionals are left out)."""
    if not isinstance(arguments, Mapping):
        raise InvalidArgumentsError(f"tool '{tool.name}': arguments must be an object")
    known = {p.name: p for p in tool.parameters}
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        raise InvalidArgumentsError(
            f"tool '{tool.name}' has no parameter {unknown[0]!r}",
            field=unknown[0],
            hint="parameters: " + (", ".join(known) or "none"),
        )
    out: dict[str, Any] = {}
    for name, param in known.items():
        value = arguments.get(name)
        if value is None:
            if param.default is not None:
                out[name] = _check_value(tool.name, param, param.default)
            elif param.required:
                raise InvalidArgumentsError(
                    f"tool '{tool.name}' needs the parameter '{name}'",
                    field=name,
                    hint=f"pass {name} ({param.type.value})",
                )
            continue
        out[name] = _check_value(tool.name, param, value)
    return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, tuple | list):
        return " ".join(_text(v) for v in value)
    return str(value)


def _render_entry(arg: ArgTemplate, values: Mapping[str, Any]) -> list[str]:
    sole = arg.sole_placeholder
    if sole is not None:
        value = values.get(sole.name)
        if sole.modifier is not None:
            return [sole.modifier] if value is True else []
        if value is None:
            return []
        if isinstance(value, tuple):
            return list(value)
        return [_text(value)]
    url = arg.is_url
    parts: list[str] = []
    for frag in arg.fragments:
        if isinstance(frag, Literal):
            parts.append(frag.text)
            continue
        assert isinstance(frag, Placeholder)
        value = values.get(frag.name)
        if frag.modifier is not None:
            if value is not True:
                if url:
                    continue
                return []
            text = frag.modifier
        elif value is None:
            if url:
                continue
            return []
        else:
            text = _text(value)
        parts.append(quote(text, safe="") if url else text)
    return ["".join(parts)]


def render_command(tool: DeclaredTool, arguments: Mapping[str, Any]) -> list[str]:
    """``[program, *argv]`` for ``tool`` called with ``arguments`` (validated first)."""
    values = check_arguments(tool, arguments)
    argv = [tool.command.program]
    for arg in tool.command.args:
        argv.extend(_render_entry(arg, values))
    return argv


def coerce_cli_arguments(tool: DeclaredTool, pairs: Iterable[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings from a command line -> typed arguments for ``tool``.

    Integers, numbers and booleans (``true/false/yes/no/1/0``) are converted by the
    declared type; an array parameter collects every ``KEY=VALUE`` given for it;
    a boolean given as bare ``KEY`` means true.
    """
    known = {p.name: p for p in tool.parameters}
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        param = known.get(key)
        if param is None:
            raise InvalidArgumentsError(
                f"tool '{tool.name}' has no parameter {key!r}",
                field=key,
                hint="parameters: " + (", ".join(known) or "none"),
            )
        if not sep:
            if param.type is not ParamType.BOOLEAN:
                raise InvalidArgumentsError(
                    f"--arg {key} needs a value: --arg {key}=VALUE", field=key
                )
            raw = "true"
        try:
            if param.type is ParamType.ARRAY:
                out.setdefault(key, []).append(raw)
            elif param.type is ParamType.INTEGER:
                out[key] = int(raw)
            elif param.type is ParamType.NUMBER:
                out[key] = float(raw)
            elif param.type is ParamType.BOOLEAN:
                low = raw.strip().lower()
                if low not in {"true", "false", "yes", "no", "1", "0"}:
                    raise ValueError(raw)
                out[key] = low in {"true", "yes", "1"}
            else:
                out[key] = raw
        except ValueError:
            raise InvalidArgumentsError(
                f"--arg {key}={raw!r} is not a valid {param.type.value}", field=key
            ) from None
    return out
