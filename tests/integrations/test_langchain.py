"""LangChain: fake chat models emit tool calls; the toolkit runs them for real."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from skilldeck import ToolNotAllowedError
from skilldeck.integrations.langchain import SkillsToolkit, SkillTool

from .conftest import write_skill


class ScriptedChatModel(GenericFakeChatModel):
    """A fake chat model that, like real ones, converts bound tools to the OpenAI
    shape, and records the tools and messages of every call."""

    seen_tools: list[list[str]] = Field(default_factory=list)
    seen_messages: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
    ) -> Runnable[Any, AIMessage]:
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.seen_tools.append([t["function"]["name"] for t in kwargs.get("tools", [])])
        self.seen_messages.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def scripted(*replies: AIMessage | str) -> ScriptedChatModel:
    return ScriptedChatModel(messages=iter(replies))


def ai_call(*calls: tuple[str, dict[str, Any], str]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in calls],
    )


def run_agent(
    toolkit: SkillsToolkit, model: ScriptedChatModel, prompt: str, max_turns: int = 6
) -> list[BaseMessage]:
    """The usual LangChain tool loop, with the toolkit's model wrapper."""
    agent_model = toolkit.wrap_model(model)
    messages: list[BaseMessage] = [SystemMessage("You are helpful."), HumanMessage(prompt)]
    for _ in range(max_turns):
        reply = agent_model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages.extend(toolkit.run_tool_calls(reply))
    return messages


def envelopes(messages: list[BaseMessage]) -> dict[str, dict[str, Any]]:
    return {
        m.tool_call_id: json.loads(str(m.content)) for m in messages if isinstance(m, ToolMessage)
    }


def test_tools_are_langchain_tools_with_json_schema(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    toolkit = SkillsToolkit.for_runtime(runtime)
    tools = toolkit.get_tools()
    assert all(isinstance(t, BaseTool) for t in tools)
    by_name = {t.name: t for t in tools}
    read = convert_to_openai_tool(by_name["skills_read_file"])
    params = read["function"]["parameters"]
    assert params["required"] == ["name", "path"]
    assert set(params["properties"]) == {"name", "path"}
    # the spec and the LangChain tool agree
    spec = {s.name: s for s in runtime.tool_specs(toolkit.session)}["skills_read_file"]
    assert read["function"]["description"] == spec.description


def test_an_agent_loop_lists_loads_reads_and_is_contracted(
    make_runtime: Callable[..., Any], host: Any
) -> None:
    runtime, events = make_runtime()
    toolkit = SkillsToolkit.for_runtime(runtime)
    model = scripted(
        ai_call(("skills_list", {}, "c1")),
        ai_call(("skills_load", {"name": "notes"}, "c2")),
        ai_call(
            ("skills_read_file", {"name": "notes", "path": "references/style.md"}, "c3"),
            ("save_note", {"text": "milk"}, "c4"),
            ("delete_all", {"text": "all"}, "c5"),
        ),
        "Saved.",
    )
    messages = run_agent(toolkit, model, "note: milk")
    assert isinstance(messages[-1], AIMessage) and messages[-1].content == "Saved."

    got = envelopes(messages)
    assert {s["name"] for s in got["c1"]["data"]["skills"]} == {"notes", "echoer", "plain"}
    assert got["c2"]["warnings"][0]["code"] == "ALLOWED_TOOLS_ENFORCED"
    assert got["c3"]["data"]["content"] == "Use short bullets.\n"
    assert got["c4"]["ok"] is True
    assert got["c5"]["error"]["code"] == "TOOL_NOT_ALLOWED"
    assert host.ran == [("save_note", {"text": "milk"})]

    statuses = {m.tool_call_id: m.status for m in messages if isinstance(m, ToolMessage)}
    assert statuses["c4"] == "success" and statuses["c5"] == "error"
    artifacts = {m.tool_call_id: m.artifact for m in messages if isinstance(m, ToolMessage)}
    assert artifacts["c4"] == got["c4"]

    # exposure follows the session: delete_all is offered before the load, not after
    assert "delete_all" in model.seen_tools[0]
    assert "delete_all" not in model.seen_tools[2]
    assert "save_note" in model.seen_tools[2]
    kinds = [type(e).__name__ for e in events]
    assert "SkillLoaded" in kinds and "ToolCallBlocked" in kinds
    assert [t["tool"] for t in toolkit.session.trace()] == [
        "skills_list",
        "skills_load",
        "skills_read_file",
        "save_note",
        "delete_all",
    ]


def test_skill_list_is_injected_into_the_system_message(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    toolkit = SkillsToolkit.for_runtime(runtime)
    model = scripted("hi")
    run_agent(toolkit, model, "hello")
    (sent,) = model.seen_messages
    assert isinstance(sent[0], SystemMessage)
    text = str(sent[0].content)
    assert text.startswith("You are helpful.")
    assert "<available_skills>" in text and "<name>notes</name>" in text
    assert len(sent) == 2  # merged, not an extra system message

    plain = toolkit.inject([HumanMessage("x")])
    assert isinstance(plain[0], SystemMessage) and "<available_skills>" in str(plain[0].content)
    quiet = SkillsToolkit.for_runtime(runtime, instructions=False)
    assert quiet.inject([HumanMessage("x")]) == [HumanMessage("x")]
    markdown = SkillsToolkit.for_runtime(runtime, list_format="markdown").skill_list()
    assert "<available_skills>" not in markdown and "**notes**" in markdown


def test_preflight_hint_follows_the_latest_user_message(
    make_runtime: Callable[..., Any],
) -> None:
    runtime, _ = make_runtime()
    toolkit = SkillsToolkit.for_runtime(runtime, preflight=True)
    model = scripted(ai_call(("skills_list", {}, "c1")), "done")
    messages = run_agent(toolkit, model, "Please write these meeting notes down in Markdown")
    assert len(model.seen_messages) == 2
    for sent in model.seen_messages:
        assert isinstance(sent[0], SystemMessage)
        assert sum(isinstance(m, SystemMessage) for m in sent) == 1
        text = str(sent[0].content)
        assert text.startswith("You are helpful.")
        assert text.index("<available_skills>") < text.index("<skill_hint>")
        assert "- notes: Take notes in Markdown." in text and "- echoer" not in text
    # the next user message decides the hint; a list of content parts is read for its text
    later = [*messages, HumanMessage([{"type": "text", "text": "repeat this text back to me"}])]
    text = str(toolkit.inject(later)[0].content)
    assert "- echoer: Echo text back." in text and "- notes:" not in text
    # nothing fits, no user message, or the option off: no hint
    assert toolkit.preflight_hint([HumanMessage("What's the weather in Paris?")]) == ""
    assert toolkit.preflight_hint([SystemMessage("x")]) == ""
    assert "<skill_hint>" not in str(SkillsToolkit.for_runtime(runtime).inject(later)[0].content)
    alone = SkillsToolkit.for_runtime(runtime, preflight=True, instructions=False)
    assert str(alone.inject(later)[0].content).startswith("You are helpful.\n\n<skill_hint>")
    assert str(alone.inject(later[1:])[0].content).startswith("<skill_hint>")
    assert alone.inject([HumanMessage("What's the weather?")]) == [
        HumanMessage("What's the weather?")
    ]


def test_declared_tools_are_offered_after_load(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    toolkit = SkillsToolkit.for_runtime(runtime)
    model = scripted(ai_call(("skills_load", {"name": "echoer"}, "l")), "ok")
    run_agent(toolkit, model, "echo")
    assert "shout" not in model.seen_tools[0]
    assert "shout" in model.seen_tools[1]
    shout = toolkit.tool("shout")
    assert isinstance(shout, SkillTool)
    assert convert_to_openai_tool(shout)["function"]["parameters"]["required"] == ["text"]


def test_unknown_tool_and_bad_arguments_are_envelopes(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    toolkit = SkillsToolkit.for_runtime(runtime)
    reply = ai_call(("no_such_tool", {}, "u"), ("skills_load", {"name": 7}, "b"))
    out = toolkit.run_tool_calls(reply)
    got = {m.tool_call_id: json.loads(str(m.content)) for m in out}
    assert got["u"]["error"]["code"] == "TOOL_NOT_ALLOWED"
    assert got["b"]["error"]["code"] == "INVALID_ARGUMENTS"
    assert all(m.status == "error" for m in out)


def test_async_tool_calls(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    toolkit = SkillsToolkit.for_runtime(runtime)
    reply = ai_call(("skills_load", {"name": "plain"}, "a"))
    (message,) = asyncio.run(toolkit.arun_tool_calls(reply))
    assert json.loads(str(message.content))["data"]["name"] == "plain"
    assert [s.name for s in toolkit.session.loaded] == ["plain"]


def test_confirmation_and_session_approval(make_runtime: Callable[..., Any], host: Any) -> None:
    runtime, events = make_runtime(
        governance=lambda r: "confirm" if r.tool == "save_note" else "allow"
    )
    toolkit = SkillsToolkit.for_runtime(runtime)
    reply = ai_call(("save_note", {"text": "milk"}, "s"))
    (first,) = toolkit.run_tool_calls(reply)
    error = json.loads(str(first.content))["error"]
    assert error["code"] == "TOOL_CONFIRMATION_REQUIRED"
    assert host.ran == []
    # the host asks its user, then approves in the session and retries
    toolkit.session.approve(error["confirmation_id"])
    (second,) = toolkit.run_tool_calls(reply)
    assert second.status == "success"
    assert host.ran == [("save_note", {"text": "milk"})]
    assert "ApprovalAsked" in [type(e).__name__ for e in events]


def test_a_declared_tool_runs_for_real(make_runtime: Callable[..., Any]) -> None:
    from skilldeck import Executor
    from skilldeck.execution import MemoryApprovalStore

    executor = Executor(approvals=MemoryApprovalStore(), approver=lambda request: True)
    runtime, _ = make_runtime(executor=executor)
    toolkit = SkillsToolkit.for_runtime(runtime)
    model = scripted(
        ai_call(("skills_load", {"name": "echoer"}, "l")),
        ai_call(("shout", {"text": "$HOME `id`"}, "s")),
        "done",
    )
    messages = run_agent(toolkit, model, "echo")
    envelope = envelopes(messages)["s"]
    assert envelope["ok"] is True, envelope
    assert envelope["data"]["output"].strip() == "$HOME `id`"


def test_skill_list_follows_the_runtime(
    make_runtime: Callable[..., Any], skills_root: Path
) -> None:
    write_skill(
        skills_root,
        "standup",
        "description: Run a standup meeting. Use in meetings.\nmodes: [Meeting]",
        "# Standup\n",
    )
    runtime, _ = make_runtime(tool_prefix="sd_", mode="Dev")
    toolkit = SkillsToolkit.for_runtime(runtime, list_budget=120)
    text = toolkit.skill_list()
    # the budget leaves skills out, and the last line names the tool as exposed
    assert "Call the sd_skills_search tool" in text
    everything = SkillsToolkit.for_runtime(runtime).skill_list()
    assert "<name>notes</name>" in everything
    # a skill outside the runtime's mode is neither listed nor in the skill list
    assert "standup" not in everything
    listed = json.loads(
        str(
            toolkit.tool("sd_skills_list")
            .invoke({"name": "sd_skills_list", "args": {}, "id": "x", "type": "tool_call"})
            .content
        )
    )
    assert "standup" not in [s["name"] for s in listed["data"]["skills"]]


def test_the_error_allowlist_policy_fails_the_run(
    make_runtime: Callable[..., Any], skills_root: Path
) -> None:
    write_skill(
        skills_root, "bogus", "description: Broken.\nallowed-tools: no_such_tool", "# Bogus\n"
    )
    runtime, _ = make_runtime(allowed_tools_invalid_allowlist="error")
    toolkit = SkillsToolkit.for_runtime(runtime)
    with pytest.raises(ToolNotAllowedError):
        toolkit.run_tool_calls(ai_call(("skills_load", {"name": "bogus"}, "l")))
