"""Tool lists accepted by the official OpenAI and Anthropic SDK types, and valid
under OpenAI's strict-mode rules when ``strict=True``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from skilldeck import HostTool, SkillRuntime
from skilldeck.adapters import AnthropicMessagesAdapter, OpenAIChatAdapter, OpenAIResponsesAdapter

from .conftest import MakeSkill, check, runtime_for

pydantic = pytest.importorskip("pydantic")
openai_chat = pytest.importorskip("openai.types.chat")
openai_responses = pytest.importorskip("openai.types.responses")
anthropic_types = pytest.importorskip("anthropic.types")

DECLARED = (
    "# Gitty\n\n### git_log\n\nRecent commits.\n\n#### Parameters\n\n"
    "| Name | Type | Required | Description |\n|---|---|---|---|\n"
    "| count | integer | no | how many |\n| path | string | yes | where |\n\n"
    "#### Command\n\n```bash\ngit log -n {{count}} -- {{path}}\n```\n"
)


@pytest.fixture
def rt(make_skill: MakeSkill, skills_root: Path) -> SkillRuntime:
    make_skill("gitty", body=DECLARED, files={"scripts/run.sh": "echo hi\n"})
    return runtime_for(
        skills_root,
        validate_tools=True,
        host_tools=[
            HostTool(
                "state.get",
                "a host tool with a nested object and a default",
                lambda a: {"v": a},
                parameters={
                    "type": "object",
                    "properties": {
                        "key": {"type": "string"},
                        "opts": {
                            "type": "object",
                            "properties": {"depth": {"type": "integer", "default": 1}},
                        },
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["key"],
                },
            )
        ],
    )


def specs(rt: SkillRuntime) -> list[Any]:
    s = rt.session()
    check(rt.call(s, "skills_load", {"name": "gitty"}))
    return rt.tool_specs(s)


def strict_violations(schema: Any, where: str = "$") -> list[str]:
    """OpenAI's strict-mode rules, as its documentation states them."""
    out: list[str] = []
    if not isinstance(schema, Mapping):
        return out
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "default" in schema:
        out.append(f"{where}: 'default' is not allowed")
    if "object" in kinds:
        props = schema.get("properties")
        if not isinstance(props, Mapping):
            out.append(f"{where}: an object needs properties")
            props = {}
        if schema.get("additionalProperties") is not False:
            out.append(f"{where}: additionalProperties must be false")
        if sorted(schema.get("required", [])) != sorted(props):
            out.append(f"{where}: every property must be required")
        for name, sub in props.items():
            out += strict_violations(sub, f"{where}.{name}")
    if "array" in kinds:
        out += strict_violations(schema.get("items"), f"{where}[]")
    for i, sub in enumerate(schema.get("anyOf", ())):
        out += strict_violations(sub, f"{where}|{i}")
    return out


def test_openai_chat_tools_pass_the_sdk_types_and_strict_rules(rt: SkillRuntime) -> None:
    adapter = pydantic.TypeAdapter(openai_chat.ChatCompletionToolParam)
    tools = OpenAIChatAdapter(strict=True).tools(specs(rt))
    strict_count = 0
    for tool in tools:
        adapter.validate_python(tool)
        function = tool["function"]
        if function["strict"]:
            strict_count += 1
            assert strict_violations(function["parameters"]) == [], function["name"]
    names = {t["function"]["name"]: t["function"]["strict"] for t in tools}
    # the built-in tools and the declared tool can all be strict
    for name in ("skills_list", "skills_load", "skills_read_file", "skills_search", "git_log"):
        assert names[name] is True, name
    assert names["state_get"] is True
    assert strict_count >= len(tools) - 1  # only free-form script arguments stay lax


def test_openai_responses_tools_pass_the_sdk_types(rt: SkillRuntime) -> None:
    adapter = pydantic.TypeAdapter(openai_responses.FunctionToolParam)
    for tool in OpenAIResponsesAdapter(strict=True).tools(specs(rt)):
        adapter.validate_python(tool)
        if tool["strict"]:
            assert strict_violations(tool["parameters"]) == [], tool["name"]


def test_anthropic_tools_pass_the_sdk_types(rt: SkillRuntime) -> None:
    adapter = pydantic.TypeAdapter(anthropic_types.ToolParam)
    tools = AnthropicMessagesAdapter().tools(specs(rt))
    assert len(tools) == len(specs(rt)) > 0  # not vacuously true
    for tool in tools:
        adapter.validate_python(tool)


def test_null_for_an_optional_argument_means_not_given(rt: SkillRuntime) -> None:
    """What a strict-mode model sends for the optional properties it leaves out."""
    s = rt.session()
    listed = check(rt.call(s, "skills_list", json.dumps({"limit": None, "offset": None})))
    assert listed["ok"] and listed["data"]["total"] >= 1
    found = rt.call(s, "skills_search", {"query": "git", "limit": None})
    assert found["ok"], found
    got = check(rt.call(s, "state.get", {"key": "k", "opts": None, "tags": None}))
    assert got["data"] == {"v": {"key": "k"}}
    # a null for a required property is still an argument error
    bad = rt.call(s, "state.get", {"key": None})
    assert bad["ok"] is False and bad["error"]["code"] == "INVALID_ARGUMENTS"
