"""PydanticAI: real ``Agent`` runs driven by PydanticAI's own test models."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from skilldeck import ToolNotAllowedError
from skilldeck.integrations.pydantic_ai import SkillsToolset

from .conftest import write_skill

Step = list[ToolCallPart] | str


@dataclass
class Script:
    """A scripted model: one step per model request; records what it was offered."""

    steps: list[Step]
    offered: list[list[str]] = field(default_factory=list)
    schemas: list[dict[str, Any]] = field(default_factory=list)
    instructions: list[str | None] = field(default_factory=list)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offered.append([t.name for t in info.function_tools])
        self.schemas.append({t.name: t.parameters_json_schema for t in info.function_tools})
        self.instructions.append(info.instructions)
        step = self.steps[len(self.offered) - 1]
        if isinstance(step, str):
            return ModelResponse(parts=[TextPart(step)])
        return ModelResponse(parts=list(step))


def run_agent(agent: Agent[Any, Any], prompt: str | None = None, **kwargs: Any) -> Any:
    """``agent.run`` in a fresh event loop that is closed afterwards (``run_sync``
    leaves its loop open, which ``filterwarnings = error`` turns into a failure)."""
    return asyncio.run(agent.run(prompt, **kwargs))


def call(name: str, args: dict[str, Any], call_id: str) -> ToolCallPart:
    return ToolCallPart(tool_name=name, args=args, tool_call_id=call_id)


def tool_returns(messages: list[ModelMessage]) -> dict[str, Any]:
    """tool_call_id -> the envelope the model received (skilldeck's tool results only)."""
    out: dict[str, Any] = {}
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and part.outcome != "retried":
                    content = part.content
                    out[part.tool_call_id] = (
                        json.loads(content) if isinstance(content, str) else content
                    )
    return out


def kinds(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_list_load_read_through_a_real_agent(make_runtime: Callable[..., Any]) -> None:
    runtime, events = make_runtime()
    script = Script(
        [
            [call("skills_list", {}, "c1")],
            [call("skills_load", {"name": "notes"}, "c2")],
            [call("skills_read_file", {"name": "notes", "path": "references/style.md"}, "c3")],
            "done",
        ]
    )
    toolset = SkillsToolset(runtime)
    agent = Agent(FunctionModel(script), toolsets=[toolset])
    result = run_agent(agent, "take a note")
    assert result.output == "done"

    returns = tool_returns(result.all_messages())
    listed = {s["name"] for s in returns["c1"]["data"]["skills"]}
    assert listed == {"notes", "echoer", "plain"}
    assert returns["c2"]["ok"] is True
    assert "Write notes as short bullets" in returns["c2"]["data"]["body"]
    assert returns["c2"]["warnings"][0]["code"] == "ALLOWED_TOOLS_ENFORCED"
    assert returns["c3"]["data"]["content"] == "Use short bullets.\n"

    # before the load every tool is offered; after it allowed-tools contracts the list
    assert {"skills_list", "skills_load", "save_note", "delete_all"} <= set(script.offered[0])
    assert "delete_all" not in script.offered[2]
    assert "save_note" in script.offered[2]
    # the session the toolset keeps saw it all, and the runtime emitted its events
    assert [s.name for s in toolset.session.loaded] == ["notes"]
    assert [t["tool"] for t in toolset.session.trace()] == [
        "skills_list",
        "skills_load",
        "skills_read_file",
    ]
    assert "SkillLoaded" in kinds(events) and "FileRead" in kinds(events)


def test_skill_list_is_the_toolsets_instructions(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    script = Script(["hello"])
    agent = Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)])
    run_agent(agent, "hi")
    text = script.instructions[0] or ""
    assert "<available_skills>" in text
    for name in ("notes", "echoer", "plain"):
        assert f"<name>{name}</name>" in text

    script2 = Script(["hello"])
    quiet = Agent(FunctionModel(script2), toolsets=[SkillsToolset(runtime, instructions=False)])
    run_agent(quiet, "hi")
    assert not script2.instructions[0]


def test_preflight_names_the_fitting_skill_per_prompt(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    toolset = SkillsToolset(runtime, preflight=True)
    # a tool step: the hint stays for every request of the run
    script = Script([[call("skills_list", {}, "c1")], "done"])
    agent = Agent(FunctionModel(script), toolsets=[toolset])
    first = run_agent(agent, "Please write these meeting notes down in Markdown")
    for text in script.instructions:
        assert text is not None and "<available_skills>" in text
        assert "<skill_hint>" in text and "- notes: Take notes in Markdown." in text
        assert text.index("<available_skills>") < text.index("<skill_hint>")
        assert "- echoer" not in text
    # the next turn of the conversation: the hint follows the new prompt
    script2 = Script(["ok"])
    agent2 = Agent(FunctionModel(script2), toolsets=[toolset])
    run_agent(agent2, "repeat this text back to me", message_history=first.all_messages())
    assert "- echoer: Echo text back." in (script2.instructions[0] or "")
    assert "- notes:" not in (script2.instructions[0] or "")
    # nothing fits: no hint; preflight without the skill list is the hint alone
    script3 = Script(["sunny"])
    run_agent(Agent(FunctionModel(script3), toolsets=[toolset]), "What's the weather in Paris?")
    assert "<skill_hint>" not in (script3.instructions[0] or "")
    alone = SkillsToolset(runtime, preflight=True, instructions=False)
    script4 = Script(["ok"])
    run_agent(Agent(FunctionModel(script4), toolsets=[alone]), "repeat this text back to me")
    assert (script4.instructions[0] or "").startswith("<skill_hint>")
    script5 = Script(["sunny"])
    run_agent(Agent(FunctionModel(script5), toolsets=[alone]), "What's the weather in Paris?")
    assert not script5.instructions[0]
    # off by default
    script6 = Script(["ok"])
    run_agent(Agent(FunctionModel(script6), toolsets=[SkillsToolset(runtime)]), "repeat this text")
    assert "<skill_hint>" not in (script6.instructions[0] or "")


def test_blocked_call_in_the_same_response_gets_the_runtimes_envelope(
    make_runtime: Callable[..., Any], host: Any
) -> None:
    runtime, events = make_runtime()
    # the model loads `notes` and, in the same response, calls a tool it forbids
    script = Script(
        [
            [
                call("skills_load", {"name": "notes"}, "load"),
                call("delete_all", {"text": "x"}, "bad"),
                call("save_note", {"text": "milk"}, "good"),
            ],
            "ok",
        ]
    )
    agent = Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)])
    result = run_agent(agent, "go")
    returns = tool_returns(result.all_messages())
    assert returns["bad"]["ok"] is False
    assert returns["bad"]["error"]["code"] == "TOOL_NOT_ALLOWED"
    assert returns["good"]["ok"] is True
    assert host.ran == [("save_note", {"text": "milk"})]  # delete_all never ran
    blocked = [e for e in events if type(e).__name__ == "ToolCallBlocked"]
    assert [e.tool for e in blocked] == ["delete_all"]


def test_declared_tools_appear_after_load(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    # a tool unlocked by skills_load exists from the next model request on: in the
    # same response PydanticAI itself answers "unknown tool" and lets the model retry
    script = Script(
        [
            [call("skills_load", {"name": "echoer"}, "l"), call("shout", {"text": "a"}, "early")],
            "fine",
        ]
    )
    agent = Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)])
    result = run_agent(agent, "repeat")
    assert "shout" not in script.offered[0]
    assert "shout" in script.offered[1]
    early = [
        p
        for m in result.all_messages()
        if isinstance(m, ModelRequest)
        for p in m.parts
        if getattr(p, "tool_call_id", None) == "early"
    ]
    assert early and "Unknown tool name" in str(early[0].content)
    schema = script.schemas[1]["shout"]
    assert schema["required"] == ["text"]
    assert schema["properties"]["text"]["type"] == "string"


def test_invalid_arguments_come_back_as_the_envelope(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    script = Script([[call("skills_read_file", {"name": "notes"}, "r")], "ok"])
    agent = Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)])
    result = run_agent(agent, "read")
    envelope = tool_returns(result.all_messages())["r"]
    assert envelope["error"]["code"] == "INVALID_ARGUMENTS"
    assert envelope["error"].get("field") == "path"


def test_test_model_calls_every_offered_tool(make_runtime: Callable[..., Any]) -> None:
    runtime, events = make_runtime(scripts=False, search=False)
    toolset = SkillsToolset(runtime)
    agent = Agent(TestModel(call_tools=["skills_list"]), toolsets=[toolset])
    result = run_agent(agent, "what skills are there?")
    payload = json.loads(result.output)
    envelope = payload["skills_list"]
    assert envelope["ok"] is True
    assert envelope["data"]["total"] == 3
    assert [t["tool"] for t in toolset.session.trace()] == ["skills_list"]
    assert "ToolCalled" in kinds(events)


def test_session_from_deps_keeps_conversations_apart(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    first, second = runtime.session(), runtime.session()
    toolset = SkillsToolset(runtime, session=lambda ctx: ctx.deps)
    script = Script([[call("skills_load", {"name": "plain"}, "l")], "ok"])
    agent = Agent(FunctionModel(script), toolsets=[toolset], deps_type=object)
    run_agent(agent, "go", deps=first)
    assert [s.name for s in first.loaded] == ["plain"]
    assert second.loaded == ()
    assert toolset.session is None


def test_confirmation_becomes_pydantic_ai_approval(
    make_runtime: Callable[..., Any], host: Any
) -> None:
    def governance(request: Any) -> str:
        return "confirm" if request.tool == "save_note" else "allow"

    runtime, events = make_runtime(governance=governance)
    toolset = SkillsToolset(runtime, deferred_approvals=True)
    script = Script([[call("save_note", {"text": "milk"}, "s")], "saved"])
    agent = Agent(
        FunctionModel(script), toolsets=[toolset], output_type=[str, DeferredToolRequests]
    )
    first = run_agent(agent, "save milk")
    assert isinstance(first.output, DeferredToolRequests)
    (approval,) = first.output.approvals
    assert approval.tool_name == "save_note"
    assert first.output.metadata["s"]["confirmation_id"].startswith("confirm-")
    assert host.ran == []

    second = run_agent(
        agent,
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"s": True}),
    )
    assert second.output == "saved"
    assert host.ran == [("save_note", {"text": "milk"})]
    envelope = tool_returns(second.all_messages())["s"]
    assert envelope["ok"] is True
    assert "ApprovalAsked" in kinds(events)


def test_declined_approval_does_not_run(make_runtime: Callable[..., Any], host: Any) -> None:
    runtime, _ = make_runtime(governance=lambda r: "confirm" if r.tool == "save_note" else None)
    toolset = SkillsToolset(runtime, deferred_approvals=True)
    script = Script([[call("save_note", {"text": "milk"}, "s")], "not saved"])
    agent = Agent(
        FunctionModel(script), toolsets=[toolset], output_type=[str, DeferredToolRequests]
    )
    first = run_agent(agent, "save milk")
    second = run_agent(
        agent,
        message_history=first.all_messages(),
        deferred_tool_results=DeferredToolResults(approvals={"s": False}),
    )
    assert second.output == "not saved"
    assert host.ran == []


def test_without_deferred_approvals_the_model_sees_the_envelope(
    make_runtime: Callable[..., Any], host: Any
) -> None:
    runtime, _ = make_runtime(governance=lambda r: "confirm" if r.tool == "save_note" else None)
    script = Script([[call("save_note", {"text": "milk"}, "s")], "asked"])
    agent = Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)])
    result = run_agent(agent, "save milk")
    envelope = tool_returns(result.all_messages())["s"]
    assert envelope["error"]["code"] == "TOOL_CONFIRMATION_REQUIRED"
    assert host.ran == []


def test_a_declared_tool_runs_with_the_hosts_approval(make_runtime: Callable[..., Any]) -> None:
    from skilldeck import Executor
    from skilldeck.execution import MemoryApprovalStore

    asked: list[Any] = []

    def approver(request: Any) -> bool:
        asked.append(request)
        return True

    executor = Executor(approvals=MemoryApprovalStore(), approver=approver)
    runtime, events = make_runtime(executor=executor)
    script = Script(
        [
            [call("skills_load", {"name": "echoer"}, "l")],
            [call("shout", {"text": "hello; rm -rf /"}, "s")],
            "echoed",
        ]
    )
    agent = Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)])
    result = run_agent(agent, "say it")
    envelope = tool_returns(result.all_messages())["s"]
    assert envelope["ok"] is True, envelope
    # one argv entry, no shell: the text comes back verbatim
    assert envelope["data"]["output"].strip() == "hello; rm -rf /"
    assert [r.skill for r in asked] == ["echoer"]
    assert "ScriptRun" in kinds(events)


def test_without_an_approver_the_model_sees_approval_required(
    make_runtime: Callable[..., Any],
) -> None:
    from skilldeck import Executor
    from skilldeck.execution import MemoryApprovalStore

    runtime, _ = make_runtime(executor=Executor(approvals=MemoryApprovalStore()))
    script = Script(
        [[call("skills_load", {"name": "echoer"}, "l")], [call("shout", {"text": "x"}, "s")], "ok"]
    )
    agent = Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)])
    result = run_agent(agent, "say it")
    assert tool_returns(result.all_messages())["s"]["error"]["code"] == "APPROVAL_REQUIRED"


def test_test_model_calling_every_tool_gets_envelopes(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    toolset = SkillsToolset(runtime)
    result = run_agent(Agent(TestModel(), toolsets=[toolset]), "use everything")
    payload = json.loads(result.output)
    offered = {s.name for s in runtime.tool_specs(runtime.session())}
    assert set(payload) == offered
    for name, envelope in payload.items():
        assert isinstance(envelope, dict) and "ok" in envelope, name
        if not envelope["ok"]:
            assert envelope["error"]["code"] != "INTERNAL", (name, envelope)
    assert len(toolset.session.trace()) == len(offered)


def test_the_error_allowlist_policy_fails_the_run(
    make_runtime: Callable[..., Any], skills_root: Path
) -> None:
    write_skill(
        skills_root, "bogus", "description: Broken.\nallowed-tools: no_such_tool", "# Bogus\n"
    )
    runtime, _ = make_runtime(allowed_tools_invalid_allowlist="error")
    script = Script([[call("skills_load", {"name": "bogus"}, "l")], "never"])
    agent = Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)])
    with pytest.raises(ToolNotAllowedError) as caught:
        run_agent(agent, "go")
    assert caught.value.context["reason"] == "invalid_allowlist"
    assert len(script.offered) == 1  # the model was not asked again


def test_the_libraries_own_tool_and_parameter_names(make_runtime: Callable[..., Any]) -> None:
    # a user of the PydanticAI skills module keeps load_skill(skill_name) and
    # read_skill_resource(skill_name, resource_name): the rename map renames both
    from skilldeck.tools import VERB_FIRST_PARAMETER_NAMES, VERB_FIRST_TOOL_NAMES

    runtime, _events = make_runtime(
        tool_names=VERB_FIRST_TOOL_NAMES, parameter_names=VERB_FIRST_PARAMETER_NAMES
    )
    script = Script(
        [
            [call("load_skill", {"skill_name": "notes"}, "c1")],
            [
                call(
                    "read_skill_resource",
                    {"skill_name": "notes", "resource_name": "references/style.md"},
                    "c2",
                )
            ],
            [call("load_skill", {"name": "notes"}, "c3")],
            "done",
        ]
    )
    result = run_agent(Agent(FunctionModel(script), toolsets=[SkillsToolset(runtime)]), "notes")
    returns = tool_returns(result.all_messages())
    assert returns["c1"]["ok"] is True, returns["c1"]
    assert "Write notes as short bullets" in returns["c1"]["data"]["body"]
    assert returns["c2"]["data"]["content"] == "Use short bullets.\n"
    # the old name is not a parameter of the renamed tool
    assert returns["c3"]["error"]["code"] == "INVALID_ARGUMENTS"
    schema = script.schemas[0]
    assert schema["load_skill"]["required"] == ["skill_name"]
    assert set(schema["read_skill_resource"]["properties"]) >= {"skill_name", "resource_name"}
    assert "name" not in schema["load_skill"]["properties"]
