"""The host governance hook: allow / deny / confirm, approvals, and its order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skilldeck import Decision, GovernanceRequest, SkillRuntime, Verdict
from skilldeck.events import (
    ApprovalAsked,
    ApprovalDenied,
    ApprovalGranted,
    ListSink,
    ToolCallBlocked,
)

from .conftest import MakeSkill, check, error_code, host_tools, runtime_for


def governed(root: Path, hook: Any, sink: ListSink | None = None, **kw: Any) -> SkillRuntime:
    calls = kw.pop("calls", None)
    return runtime_for(
        root,
        sink=sink,
        governance=hook,
        host_tools=host_tools("deploy", "state_get", "web_fetch", calls=calls),
        **kw,
    )


def test_allow_runs_the_tool(skills_root: Path) -> None:
    seen: list[GovernanceRequest] = []

    def hook(req: GovernanceRequest) -> Decision:
        seen.append(req)
        return Decision.ALLOW

    rt = governed(skills_root, hook)
    s = rt.session()
    assert check(rt.call(s, "deploy", {"command": "prod"}))["ok"]
    call = [r for r in seen if r.phase == "call"]
    assert len(call) == 1
    req = call[0]
    assert (req.tool, req.key, req.origin, req.arguments, req.session_id) == (
        "deploy",
        "deploy",
        "host",
        {"command": "prod"},
        s.id,
    )


def test_deny_hides_at_exposure_and_refuses_at_call(skills_root: Path, events: ListSink) -> None:
    calls: list[Any] = []

    def hook(req: GovernanceRequest) -> Verdict | str:
        if req.tool == "deploy":
            return Verdict(Decision.DENY, "deploys are frozen")
        return "allow"

    rt = governed(skills_root, hook, events, calls=calls)
    s = rt.session()
    assert "deploy" not in [t.name for t in rt.tool_specs(s)]
    env = rt.call(s, "deploy", {})
    assert error_code(env) == "TOOL_POLICY_DENIED"
    assert "deploys are frozen" in env["error"]["message"]
    assert env["error"]["reason"] == "deploys are frozen"
    assert calls == []
    blocked = events.of(ToolCallBlocked)[0]
    assert (blocked.tool, blocked.code, blocked.reason) == (
        "deploy",
        "TOOL_POLICY_DENIED",
        "deploys are frozen",
    )


def test_deny_only_at_call_time_keeps_the_tool_visible(skills_root: Path) -> None:
    def hook(req: GovernanceRequest) -> str:
        if req.phase == "call" and (req.arguments or {}).get("command") == "prod":
            return "deny"
        return "allow"

    rt = governed(skills_root, hook)
    s = rt.session()
    assert "deploy" in [t.name for t in rt.tool_specs(s)]
    assert check(rt.call(s, "deploy", {"command": "staging"}))["ok"]
    assert error_code(rt.call(s, "deploy", {"command": "prod"})) == "TOOL_POLICY_DENIED"


def test_confirm_without_callback_needs_an_approval(skills_root: Path, events: ListSink) -> None:
    calls: list[Any] = []

    def hook(req: GovernanceRequest) -> str:
        return "confirm" if req.tool == "deploy" else "allow"

    rt = governed(skills_root, hook, events, calls=calls)
    s = rt.session()
    assert "deploy" in [t.name for t in rt.tool_specs(s)]  # confirm keeps it visible
    env = rt.call(s, "deploy", {"command": "prod"})
    assert error_code(env) == "TOOL_CONFIRMATION_REQUIRED"
    cid = env["error"]["confirmation_id"]
    assert cid.startswith("confirm-") and calls == []
    assert events.of(ApprovalAsked)[0].target == "deploy"
    # the same call again, approved by the host out of band
    s.approve(cid)
    assert check(rt.call(s, "deploy", {"command": "prod"}))["ok"]
    # approval is bound to the arguments
    assert error_code(rt.call(s, "deploy", {"command": "other"})) == "TOOL_CONFIRMATION_REQUIRED"
    s.approve_tool("deploy")
    assert check(rt.call(s, "deploy", {"command": "other"}))["ok"]
    # and to the session
    assert error_code(rt.call(rt.session(), "deploy", {"command": "prod"})) == (
        "TOOL_CONFIRMATION_REQUIRED"
    )


@pytest.mark.parametrize("answer", [True, False])
def test_confirm_callback(skills_root: Path, events: ListSink, answer: bool) -> None:
    asked: list[GovernanceRequest] = []

    def confirm(req: GovernanceRequest) -> bool:
        asked.append(req)
        return answer

    rt = governed(
        skills_root,
        lambda r: "confirm" if r.tool == "deploy" else None,
        events,
        confirm=confirm,
    )
    s = rt.session()
    env = rt.call(s, "deploy", {"command": "prod"})
    assert asked[0].arguments == {"command": "prod"}
    if answer:
        assert check(env)["ok"]
        assert events.kinds().count("approval_granted") == 1
        assert events.of(ApprovalGranted)[0].target == "deploy"
    else:
        assert error_code(env) == "TOOL_POLICY_DENIED"
        assert env["error"]["reason"] == "declined"
        assert events.of(ApprovalDenied)[0].reason == "declined"
    assert events.kinds().index("approval_asked") < events.kinds().index("tool_called")


def test_a_broken_or_odd_hook_fails_closed(skills_root: Path) -> None:
    def broken(req: GovernanceRequest) -> str:
        raise KeyError("bug")

    rt = governed(skills_root, broken)
    s = rt.session()
    assert rt.tool_specs(s) == []
    env = rt.call(s, "state_get", {})
    assert error_code(env) == "TOOL_POLICY_DENIED"
    assert "governance hook failed" in env["error"]["message"]

    odd = governed(skills_root, lambda r: "maybe")
    assert error_code(odd.call(odd.session(), "state_get", {})) == "TOOL_POLICY_DENIED"
    truthy = governed(skills_root, lambda r: True)
    assert check(truthy.call(truthy.session(), "state_get", {}))["ok"]


def test_order_allowed_tools_first_then_validation_then_hook(
    make_skill: MakeSkill, skills_root: Path, events: ListSink
) -> None:
    make_skill("narrow", allowed_tools="state_get")
    seen: list[tuple[str, str]] = []

    def hook(req: GovernanceRequest) -> str:
        seen.append((req.phase, req.tool))
        return "deny" if req.tool in ("web_fetch", "state_get") and req.phase == "call" else "allow"

    rt = governed(skills_root, hook, events, allowed_tools_enforcement="enforce")
    s = rt.session()
    check(rt.call(s, "skills_load", {"name": "narrow"}))
    seen.clear()
    exposed = [t.name for t in rt.tool_specs(s)]
    assert exposed == ["skills_list", "skills_load", "skills_read_file", "state_get"]
    # exposure: the hook is only asked about what allowed-tools left
    assert sorted(t for _, t in seen) == sorted(exposed)
    seen.clear()
    # a tool outside allowed-tools: TOOL_NOT_ALLOWED, the hook is not consulted
    assert error_code(rt.call(s, "web_fetch", {})) == "TOOL_NOT_ALLOWED"
    assert seen == []
    # bad arguments: INVALID_ARGUMENTS before the hook sees them
    assert error_code(rt.call(s, "state_get", {"command": 5})) == "INVALID_ARGUMENTS"
    assert seen == []
    # allowed by allowed-tools, denied by the host
    assert error_code(rt.call(s, "state_get", {})) == "TOOL_POLICY_DENIED"
    assert seen == [("call", "state_get")]
    assert [b.code for b in events.of(ToolCallBlocked)] == [
        "TOOL_NOT_ALLOWED",
        "TOOL_POLICY_DENIED",
    ]


def test_hook_sees_the_last_loaded_skill_and_read_only_flag(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    make_skill("a")
    seen: list[GovernanceRequest] = []
    rt = governed(skills_root, lambda r: seen.append(r))
    s = rt.session()
    check(rt.call(s, "skills_load", {"name": "a"}))
    check(rt.call(s, "skills_list", {}))
    last = seen[-1]
    assert (last.tool, last.skill, last.read_only, last.phase) == ("skills_list", "a", True, "call")
