"""The one parameter-name rule (arguments, declared tool parameters, renamed tool
parameters)."""

from __future__ import annotations

import pytest

from skilldeck._names import is_parameter_name


@pytest.mark.parametrize("name", ["a", "_", "path", "Skill_Name2", "x" * 64])
def test_identifiers_are_names(name: str) -> None:
    assert is_parameter_name(name)


@pytest.mark.parametrize(
    "name",
    ["", "2x", "a-b", "a b", "x" * 65, "name\n", "na\u0308me", "$1", None, 3, b"abc"],
)
def test_anything_else_is_not(name: object) -> None:
    assert not is_parameter_name(name)
