"""Subagent scoping: ``session.fork(skills=..., tools=...)``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from skilldeck import SkillNotFoundError

from .conftest import write_skill


def names(envelope: dict[str, Any]) -> list[str]:
    return sorted(s["name"] for s in envelope["data"]["skills"])


def offered(runtime: Any, session: Any) -> set[str]:
    return {s.name for s in runtime.tool_specs(session)}


@pytest.fixture
def wiper(skills_root: Path) -> Path:
    """A skill whose allowed-tools would allow the dangerous host tool."""
    return write_skill(
        skills_root,
        "wiper",
        """
        description: Wipe every note. Use when the user wants a clean slate.
        allowed-tools: delete_all save_note
        """,
        "# Wiper\n\nCall delete_all.\n",
    )


def test_a_child_sees_only_its_skills(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    parent = runtime.session()
    child = parent.fork(skills=["notes", "plain"])
    assert child.parent_id == parent.id and child.scope == frozenset({"notes", "plain"})

    assert names(runtime.call(child, "skills_list", {})) == ["notes", "plain"]
    assert names(runtime.call(parent, "skills_list", {})) == ["echoer", "notes", "plain"]
    assert [m.name for m in runtime.visible_skills(child)] == ["notes", "plain"]

    for tool, args in [
        ("skills_load", {"name": "echoer"}),
        ("skills_read_file", {"name": "echoer", "path": "SKILL.md"}),
        ("skills_run_script", {"name": "echoer", "script": "scripts/x.py"}),
    ]:
        envelope = runtime.call(child, tool, args)
        assert envelope["error"]["code"] == "SKILL_NOT_FOUND", tool

    hits = runtime.call(child, "skills_search", {"query": "echo text repeated"})
    assert "echoer" not in [h["name"] for h in hits["data"]["results"]]
    unscoped = runtime.call(parent, "skills_search", {"query": "echo text repeated"})
    assert "echoer" in [h["name"] for h in unscoped["data"]["results"]]
    found = runtime.call(child, "skills_search", {"query": "notes markdown", "limit": 1})
    assert [h["name"] for h in found["data"]["results"]] == ["notes"]
    assert runtime.call(child, "skills_load", {"name": "notes"})["ok"] is True


def test_a_grandchild_cannot_widen_the_scope(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    child = runtime.session().fork(skills=["notes"])
    with pytest.raises(SkillNotFoundError, match="echoer"):
        child.fork(skills=["notes", "echoer"])
    grandchild = child.fork()
    assert grandchild.scope == frozenset({"notes"})
    assert names(runtime.call(grandchild, "skills_list", {})) == ["notes"]


def test_the_parents_allowed_tools_are_a_ceiling(
    make_runtime: Callable[..., Any], wiper: Path, host: Any
) -> None:
    runtime, events = make_runtime()
    parent = runtime.session()
    runtime.call(parent, "skills_load", {"name": "notes"})  # allowed-tools: save_note
    assert "delete_all" not in offered(runtime, parent)

    child = parent.fork()
    assert "delete_all" not in offered(runtime, child)
    # a skill without allowed-tools lifts the child's own policy, not the parent's
    runtime.call(child, "skills_load", {"name": "plain"})
    assert not child.policy.enforced
    assert "delete_all" not in offered(runtime, child)
    # nor does a skill that would allow it
    runtime.call(child, "skills_load", {"name": "wiper"})
    assert "delete_all" not in offered(runtime, child)
    envelope = runtime.call(child, "delete_all", {"text": "everything"})
    assert envelope["error"]["code"] == "TOOL_NOT_ALLOWED"
    assert "parent session" in envelope["error"]["message"]
    assert host.ran == []
    assert runtime.call(child, "save_note", {"text": "ok"})["ok"] is True
    blocked = [e for e in events if type(e).__name__ == "ToolCallBlocked"]
    assert [(e.session_id, e.tool) for e in blocked] == [(child.id, "delete_all")]
    assert runtime.allowed(child, "delete_all") is False

    # the same skill in an unforked session does allow it: the ceiling made the difference
    free = runtime.session()
    runtime.call(free, "skills_load", {"name": "wiper"})
    assert "delete_all" in offered(runtime, free)


def test_tools_limit_a_child_and_keep_the_baseline(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime(allowed_tools_enforcement="off")
    parent = runtime.session()
    reader = parent.fork(tools=[])
    assert offered(runtime, reader) == {"skills_list", "skills_load", "skills_read_file"}
    writer = parent.fork(tools=["save_*"])
    assert offered(runtime, writer) == {
        "skills_list",
        "skills_load",
        "skills_read_file",
        "save_note",
    }
    envelope = runtime.call(writer, "delete_all", {"text": "x"})
    assert envelope["error"]["code"] == "TOOL_NOT_ALLOWED"
    assert "sub-session" in envelope["error"]["message"]
    # allowed-tools off in the runtime: the parent keeps every tool
    assert "delete_all" in offered(runtime, parent)


def test_child_state_stays_in_the_child(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    parent = runtime.session()
    parent.approve_tool("save_note")
    child = parent.fork(skills=["plain", "notes"])
    runtime.call(child, "skills_load", {"name": "notes"})
    assert [s.name for s in child.loaded] == ["notes"]
    assert parent.loaded == ()
    assert parent.trace() == []
    assert not parent.policy.enforced and child.policy.enforced
    assert [t["tool"] for t in child.trace()] == ["skills_load"]


def test_a_subagent_toolset_gets_the_childs_skill_list(make_runtime: Callable[..., Any]) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from skilldeck.integrations.pydantic_ai import SkillsToolset

    runtime, _ = make_runtime()
    child = runtime.session().fork(skills=["notes"])
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions or "")
        return ModelResponse(parts=[TextPart("ok")])

    agent = Agent(FunctionModel(model), toolsets=[SkillsToolset(runtime, session=child)])
    asyncio.run(agent.run("hi"))
    assert "<name>notes</name>" in seen[0]
    assert "echoer" not in seen[0] and "plain" not in seen[0]


def test_declared_tools_fall_under_the_ceiling(make_runtime: Callable[..., Any]) -> None:
    runtime, _ = make_runtime()
    parent = runtime.session()
    runtime.call(parent, "skills_load", {"name": "echoer"})
    assert "shout" in offered(runtime, parent)

    reader = parent.fork(tools=[])
    runtime.call(reader, "skills_load", {"name": "echoer"})
    assert "shout" in reader.declared_tools  # loaded, so declared ...
    assert "shout" not in offered(runtime, reader)  # ... but never offered
    assert runtime.call(reader, "shout", {"text": "x"})["error"]["code"] == "TOOL_NOT_ALLOWED"
