"""The in-house argument validator agrees with jsonschema on the tools' schemas."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from skilldeck import Catalog, InvalidArgumentsError, SkillRuntime
from skilldeck.tools import validate_arguments

DECLARED = {
    "type": "object",
    "properties": {
        "count": {"type": "integer"},
        "ratio": {"type": "number", "minimum": 0, "maximum": 1},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "opts": {
            "type": "object",
            "properties": {"depth": {"type": "integer", "minimum": 1}},
            "additionalProperties": False,
        },
    },
    "required": ["count"],
    "additionalProperties": False,
}

# every built-in tool's schema, as a host sees them (validate_tools adds the last two)
_RUNTIME = SkillRuntime(Catalog([]), validate_tools=True)
BUILTIN = _RUNTIME.tool_specs(_RUNTIME.session())
assert len(BUILTIN) == 7, [spec.name for spec in BUILTIN]
SCHEMAS = [spec.parameters for spec in BUILTIN] + [DECLARED]
KEYS = sorted({k for s in SCHEMAS for k in s.get("properties", {})} | {"extra"})

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 300)
    | st.floats(-2, 2, allow_nan=False)
    | st.sampled_from(["", "a", "b", "x" * 5, "scripts/run.py"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["depth", "k"]), inner, max_size=2)
    ),
    max_leaves=6,
)
arguments = st.dictionaries(st.sampled_from(KEYS), json_values, max_size=4)


def ours(schema: dict[str, Any], args: dict[str, Any]) -> bool:
    try:
        validate_arguments(schema, args)
    except InvalidArgumentsError:
        return False
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=st.sampled_from(SCHEMAS), args=arguments)
def test_agrees_with_jsonschema(schema: dict[str, Any], args: dict[str, Any]) -> None:
    expected = jsonschema.Draft202012Validator(schema).is_valid(args)
    assert ours(schema, args) == expected


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "count"),
        ({"count": 1.5}, "count"),
        ({"count": 1, "ratio": 2}, "ratio"),
        ({"count": 1, "mode": "c"}, "mode"),
        ({"count": 1, "tags": ["a", 1]}, "tags[1]"),
        ({"count": 1, "tags": ["a"] * 4}, "tags"),
        ({"count": 1, "opts": {"depth": 0}}, "opts.depth"),
        ({"count": 1, "opts": {"x": 1}}, "opts.x"),
        ({"count": True}, "count"),
    ],
)
def test_field_at_fault(args: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgumentsError) as info:
        validate_arguments(DECLARED, args, tool="t")
    assert info.value.field == field
    assert "'t'" in (info.value.hint or "")
