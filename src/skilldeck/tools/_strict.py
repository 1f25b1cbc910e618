"""Tool schemas in the form OpenAI's strict function calling accepts, and the
matching reading of the arguments a model sends back.

OpenAI's strict mode (``"strict": true``) requires every object to list all of its
properties in ``required`` and to set ``additionalProperties: false``; an optional
property is written as required but nullable, and the model sends ``null`` when
it has nothing to say. ``default`` is not accepted there. A schema that cannot be
written this way (a free-form object, such as a script's named arguments) is
reported as such, and the adapter leaves ``strict`` off for that one tool.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

__all__ = ["drop_null_optionals", "strict_schema"]

# keywords OpenAI's strict mode rejects; kept as prose in the description
_UNSUPPORTED = ("default",)


class _NotStrict(Exception):
    """The schema has a part strict mode cannot express."""


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The strict form of an object schema, or ``None`` when there is none."""
    try:
        return _object(copy.deepcopy(dict(schema)))
    except _NotStrict:
        return None


def _object(schema: dict[str, Any]) -> dict[str, Any]:
    properties = schema.get("properties")
    extra = schema.get("additionalProperties")
    if not isinstance(properties, Mapping) or (extra not in (None, False)):
        raise _NotStrict
    required = set(schema.get("required") or ())
    out_props: dict[str, Any] = {}
    for name, prop in properties.items():
        if not isinstance(prop, Mapping):
            raise _NotStrict
        value = _value(dict(prop))
        out_props[name] = value if name in required else _nullable(value)
    schema["properties"] = out_props
    schema["required"] = list(out_props)
    schema["additionalProperties"] = False
    schema.setdefault("type", "object")
    return schema


def _value(schema: dict[str, Any]) -> dict[str, Any]:
    for key in _UNSUPPORTED:
        if key in schema:
            value = schema.pop(key)
            note = f"(default: {value!r})"
            schema["description"] = f"{schema.get('description', '')} {note}".strip()
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "object" in kinds:
        return _object(schema)
    if "array" in kinds:
        items = schema.get("items")
        if items is None:
            raise _NotStrict
        if isinstance(items, Mapping):
            schema["items"] = _value(dict(items))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            schema["anyOf"] = [_value(dict(s)) for s in schema.pop(key)]
    if kind is None and "anyOf" not in schema and "enum" not in schema and "const" not in schema:
        raise _NotStrict  # an untyped value: anything goes, which strict mode cannot say
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        if kind != "null":
            schema["type"] = [kind, "null"]
        if "enum" in schema and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if isinstance(kind, list):
        if "null" not in kind:
            schema["type"] = [*kind, "null"]
        return schema
    return {"anyOf": [schema, {"type": "null"}]}


def _allows_null(schema: Any) -> bool:
    if not isinstance(schema, Mapping):
        return True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if kind is None and not any(k in schema for k in ("anyOf", "oneOf", "enum", "const")):
        return True  # untyped
    return any(_allows_null(s) for s in (*schema.get("anyOf", ()), *schema.get("oneOf", ())))


def drop_null_optionals(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` without the ``null`` values of optional properties whose own
    schema has no null: how a strict-mode model (or a client) says "not given"."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return dict(arguments)
    required = set(schema.get("required") or ())
    return {
        key: value
        for key, value in arguments.items()
        if not (
            value is None
            and key not in required
            and key in properties
            and not _allows_null(properties[key])
        )
    }
