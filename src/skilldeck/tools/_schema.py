"""Argument validation against a tool's JSON Schema, naming the field at fault.

A small validator for the part of JSON Schema tool parameters use: ``type``
(one or a list), ``properties``, ``required``, ``additionalProperties``,
``items``, ``enum``, ``const``, ``minimum``/``maximum``,
``minLength``/``maxLength``, ``minItems``/``maxItems`` and ``pattern``. Other
keywords are ignored (never rejected), so a host tool's richer schema still
validates what it can. It needs no dependency and reports the first problem as
``INVALID_ARGUMENTS`` with ``field`` set to a path such as ``args[2]`` or
``options.depth``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from skilldeck._errors import InvalidArgumentsError

__all__ = ["validate_arguments"]

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict, Mapping),
    "null": (type(None),),
}


def _typename(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _is_type(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    if name == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _TYPES.get(name, (object,)))


def _fail(field: str, message: str, tool: str | None) -> InvalidArgumentsError:
    where = f"`{field}`" if field else "the arguments"
    return InvalidArgumentsError(
        f"{where} {message}",
        field=field or None,
        hint=f"check the parameters of {tool!r} in its tool definition"
        if tool
        else "check the tool's parameter schema",
    )


def validate_arguments(
    schema: Mapping[str, Any], arguments: Any, *, tool: str | None = None
) -> None:
    """Raise ``InvalidArgumentsError`` (``field`` = the culprit) unless ``arguments`` fit."""
    _check(schema, arguments, "", tool)


def _check(schema: Mapping[str, Any], value: Any, path: str, tool: str | None) -> None:
    if not isinstance(schema, Mapping):
        return
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is_type(value, t) for t in names):
            raise _fail(path, f"must be {' or '.join(names)} (got {_typename(value)})", tool)
    if "const" in schema and value != schema["const"]:
        raise _fail(path, f"must be {schema['const']!r}", tool)
    enum = schema.get("enum")
    if enum is not None and value not in enum:
        shown = ", ".join(repr(v) for v in list(enum)[:10])
        raise _fail(path, f"must be one of {shown} (got {value!r})", tool)
    if isinstance(value, str):
        _check_string(schema, value, path, tool)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _check_number(schema, value, path, tool)
    elif isinstance(value, list | tuple):
        _check_array(schema, value, path, tool)
    elif isinstance(value, Mapping):
        _check_object(schema, value, path, tool)


def _check_size(
    schema: Mapping[str, Any],
    keys: tuple[str, str],
    size: int,
    unit: str,
    path: str,
    tool: str | None,
) -> None:
    """The ``minLength``/``maxLength`` (or ``minItems``/``maxItems``) bounds."""
    lo, hi = schema.get(keys[0]), schema.get(keys[1])
    if isinstance(lo, int) and size < lo:
        raise _fail(path, f"must have at least {lo} {unit}(s)", tool)
    if isinstance(hi, int) and size > hi:
        raise _fail(path, f"must have at most {hi} {unit}s (got {size})", tool)


def _check_string(schema: Mapping[str, Any], value: str, path: str, tool: str | None) -> None:
    _check_size(schema, ("minLength", "maxLength"), len(value), "character", path, tool)
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            found = re.search(pattern, value) is not None
        except re.error:
            found = True  # a broken pattern in a host schema is not the caller's fault
        if not found:
            raise _fail(path, f"must match the pattern {pattern!r}", tool)


def _check_number(schema: Mapping[str, Any], value: float, path: str, tool: str | None) -> None:
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if isinstance(lo, int | float) and value < lo:
        raise _fail(path, f"must be at least {lo} (got {value})", tool)
    if isinstance(hi, int | float) and value > hi:
        raise _fail(path, f"must be at most {hi} (got {value})", tool)


def _check_array(
    schema: Mapping[str, Any], value: list[Any] | tuple[Any, ...], path: str, tool: str | None
) -> None:
    _check_size(schema, ("minItems", "maxItems"), len(value), "item", path, tool)
    prefix = schema.get("prefixItems")
    prefix = prefix if isinstance(prefix, list | tuple) else ()
    for i, (sub, item) in enumerate(zip(prefix, value, strict=False)):
        if isinstance(sub, Mapping):
            _check(sub, item, f"{path}[{i}]", tool)
    items = schema.get("items")
    if isinstance(items, Mapping):
        for i, item in enumerate(value[len(prefix) :], start=len(prefix)):
            _check(items, item, f"{path}[{i}]", tool)


def _check_object(
    schema: Mapping[str, Any], value: Mapping[str, Any], path: str, tool: str | None
) -> None:
    props = schema.get("properties")
    props = props if isinstance(props, Mapping) else {}
    for name in schema.get("required", ()) or ():
        if name not in value:
            raise _fail(_join(path, name), "is required", tool)
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        sub = _join(path, str(key))
        if key in props:
            _check(props[key], item, sub, tool)
        elif extra is False:
            known = ", ".join(sorted(props)) or "none"
            raise _fail(sub, f"is not a known parameter (known: {known})", tool)
        elif isinstance(extra, Mapping):
            _check(extra, item, sub, tool)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
