"""What arguments may add to a skill's text is capped: a body that repeats them cannot
turn one argument into a prompt of hundreds of MiB."""

from __future__ import annotations

import pytest

from skilldeck import InvalidArgumentsError
from skilldeck.tools import substitute_arguments


def test_a_body_repeating_an_argument_cannot_inflate_the_prompt() -> None:
    body = "$0 " * 1500
    with pytest.raises(InvalidArgumentsError) as err:
        substitute_arguments(body, "x" * 64 * 1024)
    assert err.value.code == "INVALID_ARGUMENTS" and err.value.hint == "pass shorter arguments"
    with pytest.raises(InvalidArgumentsError):  # split arguments are held to the same cap
        substitute_arguments(body, ["y" * 64 * 1024])


def test_ordinary_arguments_are_substituted() -> None:
    assert substitute_arguments("deploy $0 to $1", "app prod") == "deploy app to prod"
    assert len(substitute_arguments("$0 " * 1500, "x" * 600)) == 1500 * 601
