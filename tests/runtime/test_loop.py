"""The framework-free tool loop, and the examples/ agent loop run for real."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from skilldeck import SkillRuntime
from skilldeck.adapters import ModelReply, ToolCallRequest, run_tool_loop
from skilldeck.events import JsonlAuditSink

from .conftest import MakeSkill, runtime_for

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "agent_loop.py"


def test_loop_stops_on_final_answer(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("alpha")
    rt = runtime_for(skills_root)
    s = rt.session()
    seen: list[list[dict[str, Any]]] = []

    def model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        seen.append(messages)
        if len(seen) == 1:
            return ModelReply(None, (ToolCallRequest("1", "skills_load", '{"name": "alpha"}'),))
        return ModelReply("all done")

    result = run_tool_loop(rt, s, model, [{"role": "user", "content": "hi"}])
    assert (result.final, result.stop_reason, result.turns) == ("all done", "final", 2)
    roles = [m["role"] for m in result.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]
    tool_msg = result.messages[2]
    assert tool_msg["tool_call_id"] == "1" and json.loads(tool_msg["content"])["ok"] is True
    assert len(seen[1]) == 3  # the model saw the tool result on its second turn
    assert [x.name for x in s.loaded] == ["alpha"]


def test_loop_turn_limit(skills_root: Path) -> None:
    rt = runtime_for(skills_root)

    def chatty(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> ModelReply:
        return ModelReply(None, (ToolCallRequest(str(len(messages)), "skills_list"),))

    result = run_tool_loop(
        rt, rt.session(), chatty, [{"role": "user", "content": "x"}], max_turns=3
    )
    assert (result.final, result.stop_reason, result.turns) == (None, "max_turns", 3)
    assert len(result.trace) == 3


def test_example_runs_as_a_script() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("turn 1: offered 7 tools; skills_list -> ok")
    assert "Bash -> ok, web_fetch -> TOOL_NOT_ALLOWED" in lines[3]
    assert lines[-1] == "final: feat(cli): add --json output (web_fetch: TOOL_NOT_ALLOWED)"


def test_example_in_process_with_audit(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("agent_loop_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)

    log = tmp_path / "audit.jsonl"
    result = example.run([example.BUNDLED], audit_log=log)
    assert result.stop_reason == "final"
    offered = [t["tools_offered"] for t in result.trace]
    assert "web_fetch" in offered[1] and "web_fetch" not in offered[2]  # exposure contracted
    turn4 = result.trace[3]
    assert [(c["tool"], c["code"]) for c in turn4["calls"]] == [
        ("Bash", None),
        ("web_fetch", "TOOL_NOT_ALLOWED"),
    ]
    assert turn4["skills_allowed_tools"] == {
        "mode": "enforce",
        "enforced": True,
        "skill_name": "conventional-commits",
        "allow_set_count": 1,
        "ignored_reason": None,
    }
    kinds = [r["event"] for r in JsonlAuditSink(log).read()]
    for kind in (
        "skill_loaded",
        "skills_allowed_tools_policy_changed",
        "file_read",
        "tool_call_blocked",
        "tool_called",
    ):
        assert kind in kinds
    # the system prompt carried the skill list from the disclosure renderer
    assert "<available_skills>" in result.messages[0]["content"]


def test_governance_in_example_blocks_non_git_bash() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("agent_loop_example2", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    rt: SkillRuntime = example.build_runtime([example.BUNDLED])
    s = rt.session()
    assert rt.call(s, "skills_load", {"name": "conventional-commits"})["ok"]
    assert rt.call(s, "Bash", {"command": "git log"})["ok"]
    denied = rt.call(s, "Bash", {"command": "curl evil.example"})
    assert denied["error"]["code"] == "TOOL_POLICY_DENIED"
