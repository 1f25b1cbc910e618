"""Interpolation (seed 003 section 3.4): values fill argv entries; no shell, ever."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import skilldeck
from skilldeck.execution import coerce_cli_arguments, render_command
from skilldeck.format import parse_declared_tools

SEED = Path(__file__).parent / "fixtures" / "seed003"
TABLE = "| Name | Type | Required | Description |\n|---|---|---|---|\n"


def tool(command: str, *rows: str) -> skilldeck.format.DeclaredTool:
    params = TABLE + "\n".join(rows) if rows else "None."
    body = f"### t\n\nx\n\n#### Parameters\n\n{params}\n\n#### Command\n\n```bash\n{command}\n```\n"
    tools, diags = parse_declared_tools(body)
    assert len(tools) == 1, [d.format() for d in diags]
    return tools[0]


def seed_tool(skill: str, name: str) -> skilldeck.format.DeclaredTool:
    parsed = skilldeck.read_skill_md(SEED / skill / "SKILL.md")
    tools, _ = parse_declared_tools(parsed.body)
    return next(t for t in tools if t.name == name)


def test_seed_git_log_and_default() -> None:
    log = seed_tool("git", "git_log")
    assert render_command(log, {"count": 5}) == ["git", "log", "--oneline", "-n", "5"]
    assert render_command(log, {}) == ["git", "log", "--oneline", "-n", "10"]


def test_seed_boolean_modifier() -> None:
    diff = seed_tool("git", "git_diff")
    assert render_command(diff, {"staged": True}) == ["git", "diff", "--staged"]
    assert render_command(diff, {"staged": False}) == ["git", "diff"]
    assert render_command(diff, {}) == ["git", "diff"]


def test_seed_url_example_is_percent_encoded() -> None:
    t = tool(
        'curl "https://api.com/search?q={{query}}&n={{limit}}"',
        "| query | string | yes | q |",
        "| limit | integer | no | n |",
    )
    assert render_command(t, {"query": "rust lang", "limit": 5}) == [
        "curl",
        "https://api.com/search?q=rust%20lang&n=5",
    ]
    # an absent optional inside a URL becomes empty; reserved characters are encoded
    assert render_command(t, {"query": "a&b=c/d?"}) == [
        "curl",
        "https://api.com/search?q=a%26b%3Dc%2Fd%3F&n=",
    ]


def test_placeholder_inside_a_plain_argument_is_verbatim_and_one_argument() -> None:
    t = tool(
        "prog --name={{name}} --opt={{opt}}",
        "| name | string | yes | x |",
        "| opt | string | no | x |",
    )
    assert render_command(t, {"name": "a b; c"}) == ["prog", "--name=a b; c"]


def test_arrays_are_separate_arguments_alone_and_joined_inside() -> None:
    t = tool("prog {{files}} --tags={{files}}", "| files | array | no | x |")
    assert render_command(t, {"files": ["a b", "-c", "d"]}) == [
        "prog",
        "a b",
        "-c",
        "d",
        "--tags=a b -c d",
    ]
    assert render_command(t, {}) == ["prog"]
    assert render_command(t, {"files": []}) == ["prog", "--tags="]


def test_optional_absent_is_omitted() -> None:
    t = tool("prog {{a}} x", "| a | string | no | x |")
    assert render_command(t, {}) == ["prog", "x"]
    assert render_command(t, {"a": None}) == ["prog", "x"]
    assert render_command(t, {"a": ""}) == ["prog", "", "x"]


HOSTILE = ["; rm -rf /", "a | b", "$(id)", "`id`", "'\"", "line1\nline2", "--force", "-rf", "*"]


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_values_stay_one_literal_argument(value: str) -> None:
    t = tool("printf '%s\\n' {{v}}", "| v | string | yes | x |")
    assert render_command(t, {"v": value}) == ["printf", "%s\\n", value]


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "q"),
        ({"q": 1}, "q"),
        ({"q": "x", "n": "5"}, "n"),
        ({"q": "x", "n": True}, "n"),
        ({"q": "x", "f": 2.5}, "f"),
        ({"q": "x", "b": "yes"}, "b"),
        ({"q": "x", "a": "one"}, "a"),
        ({"q": "x", "a": [True]}, "a"),
        ({"q": "x", "zz": 1}, "zz"),
        ({"q": "nul\x00byte"}, "q"),
        ({"q": "x", "f": float("nan")}, "f"),
    ],
)
def test_invalid_arguments(args: dict[str, Any], field: str) -> None:
    t = tool(
        "prog {{q}} {{n}} {{f}} {{b:--b}} {{a}}",
        "| q | string | yes | x |",
        "| n | integer | no | x |",
        "| f | integer | no | x |",
        "| b | boolean | no | x |",
        "| a | array | no | x |",
    )
    with pytest.raises(skilldeck.InvalidArgumentsError) as info:
        render_command(t, args)
    assert info.value.field == field
    assert info.value.code == "INVALID_ARGUMENTS"


def test_numbers_render_plainly() -> None:
    t = tool("prog {{n}} {{f}}", "| n | integer | no | x |", "| f | number | no | x |")
    assert render_command(t, {"n": 3.0, "f": 2.5}) == ["prog", "3", "2.5"]


def test_cli_coercion() -> None:
    t = tool(
        "prog {{s}} {{n}} {{f}} {{b:--b}} {{a}}",
        "| s | string | no | x |",
        "| n | integer | no | x |",
        "| f | number | no | x |",
        "| b | boolean | no | x |",
        "| a | array | no | x |",
    )
    got = coerce_cli_arguments(t, ["s=a=b", "n=4", "f=1.5", "b", "a=x", "a=y"])
    assert got == {"s": "a=b", "n": 4, "f": 1.5, "b": True, "a": ["x", "y"]}
    assert coerce_cli_arguments(t, ["b=no"]) == {"b": False}
    for bad in (["n=four"], ["zz=1"], ["s"], ["b=maybe"]):
        with pytest.raises(skilldeck.InvalidArgumentsError):
            coerce_cli_arguments(t, bad)
