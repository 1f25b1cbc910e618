"""Body-declared command tools (seed 003 section 3): parsing and diagnostics."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import skilldeck
from skilldeck.format import ParamType, parse_declared_tools

SEED = Path(__file__).parent / "fixtures" / "seed003"


def tools_of(
    body: str, **kw: object
) -> tuple[tuple[skilldeck.format.DeclaredTool, ...], list[str]]:
    tools, diags = parse_declared_tools(textwrap.dedent(body), **kw)  # type: ignore[arg-type]
    return tools, [d.code for d in diags]


def tool_block(name: str, params: str, command: str, description: str = "Does a thing.") -> str:
    return (
        f"### {name}\n\n{description}\n\n#### Parameters\n\n{params}\n\n"
        f"#### Command\n\n```bash\n{command}\n```\n"
    )


TABLE = "| Name | Type | Required | Description |\n|---|---|---|---|\n"


@pytest.mark.parametrize("name", ["git", "summarize", "deploy"])
def test_seed_examples_parse_validate_and_have_no_findings(name: str) -> None:
    folder = SEED / name
    report = skilldeck.validate_skill(folder)
    assert report.valid, [d.format() for d in report.diagnostics]
    parsed = skilldeck.read_skill_md(folder / "SKILL.md")
    tools, diags = parse_declared_tools(
        parsed.body, path=str(folder / "SKILL.md"), body_line=parsed.body_line
    )
    assert tools
    assert not [d for d in diags if d.is_error], [d.format() for d in diags]


def test_seed_git_tools_in_detail() -> None:
    parsed = skilldeck.read_skill_md(SEED / "git" / "SKILL.md")
    tools, diags = parse_declared_tools(parsed.body, body_line=parsed.body_line)
    assert [t.name for t in tools] == ["git_status", "git_log", "git_diff"]
    status, log, diff = tools
    assert status.parameters == ()
    assert status.command.program == "git"
    assert [a.text() for a in status.command.args] == ["status", "--short", "--branch"]
    assert status.description == "Show the current git status with short format."
    (count,) = log.parameters
    assert (count.name, count.type, count.required, count.default) == (
        "count",
        ParamType.INTEGER,
        False,
        10,
    )
    (staged,) = diff.parameters
    assert staged.type is ParamType.BOOLEAN
    ph = diff.command.args[1].sole_placeholder
    assert ph is not None and (ph.name, ph.modifier) == ("staged", "--staged")
    assert diags == ()
    # lines point into the file: the git_status heading
    text = (SEED / "git" / "SKILL.md").read_text().splitlines()
    assert text[status.line - 1] == "### git_status"  # type: ignore[operator]


def test_input_schema() -> None:
    parsed = skilldeck.read_skill_md(SEED / "summarize" / "SKILL.md")
    (tool,), _ = parse_declared_tools(parsed.body)
    assert tool.input_schema() == {
        "type": "object",
        "properties": {"url": {"type": "string", "description": "The URL to summarize"}},
        "required": ["url"],
        "additionalProperties": False,
    }


def test_prose_headings_are_not_tools_and_a_plain_body_is_fine() -> None:
    body = """
    # Guide

    ### Step 1

    Do this.

    ### Step 2

    ```bash
    echo not a tool
    ```
    """
    assert tools_of(body) == ((), [])


def test_headings_inside_fences_are_ignored() -> None:
    body = "````markdown\n" + tool_block("inner", "None.", "echo hi") + "````\n"
    assert tools_of(body) == ((), [])


def test_all_parameter_types_and_aliases() -> None:
    rows = TABLE + "\n".join(
        [
            "| s | string | yes | text |",
            "| i | int | no | whole |",
            "| n | number | no | decimal |",
            "| b | boolean | no | flag |",
            "| a | array | no | list |",
        ]
    )
    body = tool_block("t", rows, "prog {{s}} {{i}} {{n}} {{b:--b}} {{a}}")
    (tool,), codes = tools_of(body)
    assert [p.type for p in tool.parameters] == list(ParamType)
    assert [p.required for p in tool.parameters] == [True, False, False, False, False]
    assert codes == []


def test_default_column_wins() -> None:
    rows = "| Name | Type | Required | Default | Description |\n|-|-|-|-|-|\n"
    rows += "| n | integer | no | 3 | count (default: 10) |"
    (tool,), _ = tools_of(tool_block("t", rows, "prog -n {{n}}"))
    assert tool.parameters[0].default == 3


def test_quoted_or_escaped_operators_are_plain_text() -> None:
    for command in ('grep "a|b" f.txt', "echo 'x;y'", "echo a\\;b", "jq '.a | .b' f.json"):
        tools, codes = tools_of(tool_block("t", "None.", command))
        assert len(tools) == 1, command
        assert "SK405" not in codes, command


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (tool_block("git-status", "None.", "git status"), "SK401"),
        (tool_block("t", "None.", "a") + tool_block("t", "None.", "b"), "SK402"),
        ("### t\n\nx\n\n#### Parameters\n\nNone.\n\n#### Command\n\nno block\n", "SK403"),
        (tool_block("t", "None.", "echo a\necho b"), "SK404"),
        (tool_block("t", "None.", "echo 'unbalanced"), "SK404"),
        (tool_block("t", "None.", "{{prog}} x"), "SK404"),
        (tool_block("t", "None.", "cat x | grep y"), "SK405"),
        (tool_block("t", "None.", "make && make install"), "SK405"),
        (tool_block("t", "None.", "echo hi; rm x"), "SK405"),
        (tool_block("t", "None.", "jq .a|.b data.json"), "SK405"),
        (tool_block("t", "None.", "make 2>&1"), "SK405"),
        (tool_block("t", "None.", "echo a>out.txt"), "SK405"),
        (tool_block("t", "None.", "curl http://x.invalid/?a=1&b=2"), "SK405"),
        (tool_block("t", TABLE + "| q | text2 | yes | x |", "echo {{q}}"), "SK406"),
        (tool_block("t", TABLE + "| q | string | maybe | x |", "echo {{q}}"), "SK407"),
        (
            tool_block("t", TABLE + "| q | string | yes | x |\n| q | string | no | y |", "e {{q}}"),
            "SK408",
        ),
        (tool_block("t", "None.", "echo {{missing}}"), "SK409"),
        (tool_block("t", TABLE + "| q | string | no | x |", "echo {{q:--q}}"), "SK410"),
        (tool_block("t", TABLE + "| 9q | string | no | x |", "echo {{9q}}"), "SK417"),
        (tool_block("t", TABLE + "| q | integer | no | x (default: ten) |", "echo {{q}}"), "SK418"),
    ],
)
def test_errors_drop_the_tool(body: str, code: str) -> None:
    tools, codes = tools_of(body)
    assert code in codes
    assert code != "SK402" or len(tools) == 1
    if code != "SK402":
        assert tools == ()
    assert skilldeck.CODES[code].severity is skilldeck.Severity.ERROR


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("### t\n\nx\n\n#### Command\n\n```bash\necho hi\n```\n", "SK411"),
        (tool_block("t", TABLE + "| q | string | no | x |", "echo hi"), "SK412"),
        ("### t\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```\necho hi\n```\n", "SK413"),
        (tool_block("t", "None.", "echo hi", description="x" * 300), "SK414"),
        (tool_block("t", "None.", "echo $HOME"), "SK415"),
        (tool_block("t", TABLE + "| n | integer | no | x |", "git log -n {{n}}"), "SK419"),
    ],
)
def test_warnings_keep_the_tool(body: str, code: str) -> None:
    tools, codes = tools_of(body)
    assert code in codes
    assert len(tools) == 1
    assert skilldeck.CODES[code].severity is not skilldeck.Severity.ERROR


def test_parameters_without_command_is_a_warning_not_a_tool() -> None:
    body = "### t\n\nx\n\n#### Parameters\n\n" + TABLE + "| q | string | no | x |\n"
    assert tools_of(body) == ((), ["SK416"])


def test_diagnostic_lines_are_file_lines() -> None:
    body = tool_block("Bad-Name", "None.", "echo")
    _, diags = parse_declared_tools(body, path="x/SKILL.md", body_line=10)
    (diag,) = diags
    assert (diag.code, diag.line, diag.path) == ("SK401", 10, "x/SKILL.md")
    assert diag.hint and "bad_name" in diag.hint


def test_quoting_keeps_words_together() -> None:
    (tool,), _ = tools_of(
        tool_block("t", TABLE + "| q | string | yes | x |", """grep -e 'a b' "{{q}}" x\\ y""")
    )
    assert [a.text() for a in tool.command.args] == ["-e", "a b", "{{q}}", "x y"]


def test_real_world_bodies_never_crash_and_declare_no_accidental_tools(corpus: Path) -> None:
    count = 0
    for skill_md in sorted(corpus.rglob("SKILL.md")):
        parsed = skilldeck.read_skill_md(skill_md)
        tools, diags = parse_declared_tools(
            parsed.body, path=str(skill_md), body_line=parsed.body_line
        )
        # Agent Skills bodies use ### headings freely; none of them is a seed-003 tool
        assert tools == (), skill_md
        assert not [d for d in diags if d.is_error], skill_md
        count += 1
    assert count > 100
