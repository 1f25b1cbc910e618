"""OpenAI (chat, responses) and Anthropic adapters against the published shapes."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from skilldeck import HostTool, SkillRuntime
from skilldeck.adapters import (
    AnthropicMessagesAdapter,
    OpenAIChatAdapter,
    OpenAIResponsesAdapter,
    provider_name,
    run_tool_loop,
)

from . import published_shapes as shapes
from .conftest import MakeSkill, runtime_for

DECLARED = (
    "# Gitty\n\n### git_log\n\nRecent commits.\n\n#### Parameters\n\n"
    "| Name | Type | Required | Description |\n|---|---|---|---|\n"
    "| count | integer | no | how many |\n\n#### Command\n\n```bash\ngit log -n {{count}}\n```\n"
)


@pytest.fixture
def rt(make_skill: MakeSkill, skills_root: Path) -> SkillRuntime:
    make_skill("gitty", body=DECLARED, files={"references/notes.md": "notes"})
    make_skill("narrow", allowed_tools="state.get")
    return runtime_for(
        skills_root,
        validate_tools=True,
        allowed_tools_enforcement="enforce",
        host_tools=[
            HostTool("state.get", "dotted host tool", lambda a: {"v": 1}),
            HostTool("x" * 80, "very long name", lambda a: {}),
        ],
    )


def all_specs(rt: SkillRuntime) -> list[Any]:
    s = rt.session()
    rt.call(s, "skills_load", {"name": "gitty"})
    return rt.tool_specs(s)


def test_openai_chat_tools_match_published_shape(rt: SkillRuntime) -> None:
    specs = all_specs(rt)
    for strict in (None, False):
        tools = OpenAIChatAdapter(strict=strict).tools(specs)
        assert len(tools) == len(specs)
        for tool in tools:
            jsonschema.validate(tool, shapes.OPENAI_CHAT_TOOL)
        names = [t["function"]["name"] for t in tools]
        assert "git_log" in names and "state_get" in names
        assert len(set(names)) == len(names)


def test_openai_responses_tools_match_published_shape(rt: SkillRuntime) -> None:
    tools = OpenAIResponsesAdapter().tools(all_specs(rt))
    for tool in tools:
        jsonschema.validate(tool, shapes.OPENAI_RESPONSES_TOOL)
        assert tool["strict"] is False


def test_anthropic_tools_match_published_shape(rt: SkillRuntime) -> None:
    tools = AnthropicMessagesAdapter().tools(all_specs(rt))
    for tool in tools:
        jsonschema.validate(tool, shapes.ANTHROPIC_TOOL)
    git_log = next(t for t in tools if t["name"] == "git_log")
    assert git_log["input_schema"]["properties"]["count"]["type"] == "integer"


def test_the_shapes_reject_what_they_should() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"type": "function", "function": {"name": "a.b"}}, shapes.OPENAI_CHAT_TOOL
        )
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"type": "function", "name": "x"}, shapes.OPENAI_RESPONSES_TOOL)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"name": "x", "input_schema": {}}, shapes.ANTHROPIC_TOOL)


def test_provider_names() -> None:
    assert provider_name("skills_load") == "skills_load"
    assert provider_name("state.get") == "state_get"
    long = provider_name("a" * 100)
    assert len(long) == 64 and long != provider_name("a" * 101)
    adapter = OpenAIChatAdapter()
    tools = adapter.tools([{"name": "a.b", "parameters": {}}, {"name": "a_b", "parameters": {}}])
    names = [t["function"]["name"] for t in tools]
    assert names[0] == "a_b" or names[1] == "a_b"
    assert len(set(names)) == 2
    reply = adapter.parse_response(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": n, "arguments": "{}"}}
                for n in names
            ],
        }
    )
    assert sorted(c.name for c in reply.tool_calls) == ["a.b", "a_b"]


# --- a whole loop through each adapter, against a scripted provider -----------------

Script = list[Callable[[Mapping[str, Any]], dict[str, Any]]]


def scripted_provider(
    steps: Script, schema: Mapping[str, Any]
) -> tuple[Callable[[dict[str, Any]], Mapping[str, Any]], list[dict[str, Any]]]:
    """A stand-in for the remote API: checks each request body, answers from a script."""
    seen: list[dict[str, Any]] = []

    def send(body: dict[str, Any]) -> Mapping[str, Any]:
        jsonschema.validate(body, schema)
        json.dumps(body)
        seen.append(body)
        return steps[len(seen) - 1](body)

    return send, seen


def test_loop_over_openai_chat(rt: SkillRuntime) -> None:
    adapter = OpenAIChatAdapter()

    def call(i: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": i,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }

    steps: Script = [
        lambda b: {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [call("c1", "skills_load", {"name": "narrow"})],
                    }
                }
            ]
        },
        lambda b: {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            call("c2", "state_get", {}),
                            call("c3", "skills_search", {"query": "x"}),
                        ],
                    }
                }
            ]
        },
        lambda b: {"choices": [{"message": {"role": "assistant", "content": "done"}}]},
    ]
    send, seen = scripted_provider(steps, shapes.OPENAI_CHAT_REQUEST)
    s = rt.session()
    result = run_tool_loop(
        rt,
        s,
        adapter.model(send),
        [{"role": "system", "content": "sys"}, {"role": "user", "content": "go"}],
    )
    assert result.final == "done" and result.stop_reason == "final"
    # after the load, the model is only offered the baseline plus state.get (as state_get)
    assert [t["function"]["name"] for t in seen[1]["tools"]] == [
        "skills_list",
        "skills_load",
        "skills_read_file",
        "state_get",
    ]
    tool_msgs = [m for m in seen[2]["messages"] if m["role"] == "tool"]
    envelopes = [json.loads(m["content"]) for m in tool_msgs]
    assert [e["ok"] for e in envelopes] == [True, True, False]
    assert envelopes[2]["error"]["code"] == "TOOL_NOT_ALLOWED"
    assert envelopes[1]["data"] == {"v": 1}  # "state_get" was mapped back to "state.get"


def test_loop_over_openai_responses(rt: SkillRuntime) -> None:
    adapter = OpenAIResponsesAdapter()
    steps: Script = [
        lambda b: {
            "output": [
                {
                    "type": "function_call",
                    "call_id": "c1",
                    "name": "skills_load",
                    "arguments": '{"name": "gitty"}',
                    "status": "completed",
                }
            ]
        },
        lambda b: {
            "output": [
                {
                    "type": "function_call",
                    "call_id": "c2",
                    "name": "skills_read_file",
                    "arguments": '{"name": "gitty", "path": "references/notes.md"}',
                }
            ]
        },
        lambda b: {
            "output": [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "read it"}],
                }
            ]
        },
    ]
    send, seen = scripted_provider(steps, shapes.OPENAI_RESPONSES_REQUEST)
    result = run_tool_loop(
        rt,
        rt.session(),
        adapter.model(send),
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "notes?"}],
    )
    assert result.final == "read it" and result.turns == 3
    assert seen[0]["instructions"] == "be brief"
    assert "git_log" in [t["name"] for t in seen[1]["tools"]]  # declared tool appeared
    outputs = [i for i in seen[2]["input"] if i.get("type") == "function_call_output"]
    assert json.loads(outputs[-1]["output"])["data"]["content"] == "notes"


def test_loop_over_anthropic_messages(rt: SkillRuntime) -> None:
    adapter = AnthropicMessagesAdapter()
    steps: Script = [
        lambda b: {
            "content": [
                {"type": "text", "text": "Loading."},
                {"type": "tool_use", "id": "t1", "name": "skills_load", "input": {"name": "gitty"}},
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "skills_load",
                    "input": {"name": "missing"},
                },
            ],
            "stop_reason": "tool_use",
        },
        lambda b: {"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn"},
    ]
    send, seen = scripted_provider(steps, shapes.ANTHROPIC_REQUEST)
    result = run_tool_loop(
        rt,
        rt.session(),
        adapter.model(send),
        [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"}],
    )
    assert result.final == "ok"
    assert seen[0]["system"] == "sys"
    msgs = seen[1]["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert [b["type"] for b in msgs[1]["content"]] == ["text", "tool_use", "tool_use"]
    results = msgs[2]["content"]  # both results in one user turn
    assert [b["tool_use_id"] for b in results] == ["t1", "t2"]
    assert "is_error" not in results[0] and results[1]["is_error"] is True
    assert json.loads(results[1]["content"])["error"]["code"] == "SKILL_NOT_FOUND"


def test_tool_result_helpers() -> None:
    env = {"ok": False, "error": {"code": "X", "message": "m"}}
    assert OpenAIChatAdapter().tool_result("c", env)["role"] == "tool"
    item = OpenAIResponsesAdapter().tool_result("c", env)
    jsonschema.validate(item, shapes._RESPONSES_INPUT_ITEM)
    msg = AnthropicMessagesAdapter().tool_result("c", env)
    jsonschema.validate({"messages": [msg]}, shapes.ANTHROPIC_REQUEST)
    assert msg["content"][0]["is_error"] is True


def test_a_model_call_whose_input_is_not_an_object_is_answered_not_raised(
    rt: SkillRuntime,
) -> None:
    adapter = AnthropicMessagesAdapter()
    steps: Script = [
        lambda b: {
            "content": [{"type": "tool_use", "id": "t1", "name": "skills_load", "input": "gitty"}],
            "stop_reason": "tool_use",
        },
        lambda b: {"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn"},
    ]
    send, seen = scripted_provider(steps, shapes.ANTHROPIC_REQUEST)
    # dict("gitty") raised ValueError out of the loop
    result = run_tool_loop(
        rt, rt.session(), adapter.model(send), [{"role": "user", "content": "x"}]
    )
    assert result.final == "ok"
    (block,) = seen[1]["messages"][2]["content"]
    assert json.loads(block["content"])["error"]["code"] == "INVALID_ARGUMENTS"
    assert seen[1]["messages"][1]["content"][0]["input"] == {}  # a valid request again
    # a history from another provider whose model wrote arguments that are not JSON
    history = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "name": "skills_load", "arguments": '{"name": '}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": false}'},
    ]
    body = adapter.request(history, [])  # json.loads raised JSONDecodeError
    assert body["messages"][1]["content"][0]["input"] == {}
