"""Every front end that names a tool asks the one naming rule, and each answers
in step with it: a SKILL.md's declared tools, an inline skill's Python tools, the
runtime config's renames and prefix, and the names the provider adapters send."""

from __future__ import annotations

import pytest

import skilldeck
from skilldeck import ConfigError, RuntimeOptions
from skilldeck._names import is_tool_name
from skilldeck.adapters import provider_name
from skilldeck.format import parse_declared_tools
from skilldeck.inline import SkillTool, SkillValidationError

NAMES = [
    "git_status",
    "search",
    "Git",
    "git-status",
    "9lives",
    "-flag",
    "_private",
    "a" * 32,
    "a" * 33,
    "a" * 64,
    "a" * 65,
    "tool\n",  # a line break after a name: '$' alone would let it through
    "tool\r",
    "with space",
    "state.get",
    "caf\u00e9",
    "\uff41",  # a full-width letter: a letter to Unicode, not to the rule
    "",
]


def _declared(name: str) -> bool:
    body = (
        f"### {name}\n\nDoes a thing.\n\n#### Parameters\n\nNone.\n\n"
        "#### Command\n\n```bash\ngit status\n```\n"
    )
    tools, diags = parse_declared_tools(body)
    return bool(tools) and not diags


def _python(name: str) -> bool:
    try:
        SkillTool(name=name, description="Does a thing.", handler=lambda: None)
    except SkillValidationError:
        return False
    return True


def _config(text: str) -> bool:
    path = skilldeck.config.config_path("user")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    try:
        RuntimeOptions.from_config()
    except ConfigError:
        return False
    return True


def _toml(value: str) -> str:
    return (
        '"'
        + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
        + '"'
    )


@pytest.mark.parametrize("name", NAMES)
def test_each_front_end_names_tools_by_the_one_rule(name: str) -> None:
    # a heading cannot hold a line break, and a Markdown title is stripped: the
    # declared form is asked with what a heading can say
    if name.strip() == name and name:
        assert _declared(name) == is_tool_name(name, "declared"), name
    assert _python(name) == is_tool_name(name, "python"), name
    renamed = _config(f"[runtime.tool_names]\nskills_load = {_toml(name)}\n")
    assert renamed == is_tool_name(name, "model"), name
    assert (provider_name(name) == name) == is_tool_name(name, "model"), name
    assert is_tool_name(provider_name(name), "model"), name


def test_the_forms_nest_as_the_rule_says() -> None:
    for name in NAMES:
        if is_tool_name(name, "declared") or is_tool_name(name, "python"):
            assert is_tool_name(name, "model"), name
    assert not is_tool_name(None) and not is_tool_name(7, "python")
    assert is_tool_name("git_status", "declared") and not is_tool_name("git-status", "declared")
    assert is_tool_name("-flag") and not is_tool_name("-flag", "python")
