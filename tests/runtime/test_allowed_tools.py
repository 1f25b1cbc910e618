"""allowed-tools enforcement, rule by rule (seed 000), with its events and trace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skilldeck import GovernanceRequest, HostTool, SkillRuntime, ToolNotAllowedError
from skilldeck.events import AllowedToolsPolicyChanged, ListSink, ToolCallBlocked
from skilldeck.tools import VERB_FIRST_TOOL_NAMES

from .conftest import MakeSkill, check, error_code, host_tools, runtime_for

HOST = ("state_get", "state_set", "mcp_srv__query", "mcp_other__x", "Bash", "Read", "web_fetch")


def exposed(rt: SkillRuntime, s: Any) -> list[str]:
    return [t.name for t in rt.tool_specs(s)]


def enforcing(root: Path, sink: ListSink | None = None, **kw: Any) -> SkillRuntime:
    return runtime_for(
        root,
        sink=sink,
        allowed_tools_enforcement="enforce",
        host_tools=kw.pop("tools", None) or host_tools(*HOST),
        **kw,
    )


def load(rt: SkillRuntime, s: Any, name: str) -> dict[str, Any]:
    return dict(check(rt.call(s, "skills_load", {"name": name})))


def codes(env: dict[str, Any]) -> list[str]:
    return [w["code"] for w in env.get("warnings", [])]


def test_off_by_default_changes_nothing(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("narrow", allowed_tools="state_get")
    rt = runtime_for(skills_root, host_tools=host_tools(*HOST))
    s = rt.session()
    before = exposed(rt, s)
    env = load(rt, s, "narrow")
    assert codes(env) == []
    assert exposed(rt, s) == before
    assert check(rt.call(s, "web_fetch", {}))["ok"]
    assert s.trace()[-1]["skills_allowed_tools"] == {
        "mode": "off",
        "enforced": False,
        "skill_name": None,
        "allow_set_count": 0,
        "ignored_reason": None,
    }


def test_activation_only_after_a_successful_load(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("narrow", allowed_tools="state_get")
    rt = enforcing(skills_root)
    s = rt.session()
    full = exposed(rt, s)
    assert error_code(rt.call(s, "skills_load", {"name": "narow"})) == "SKILL_NOT_FOUND"
    assert error_code(rt.call(s, "skills_load", {})) == "INVALID_ARGUMENTS"
    assert exposed(rt, s) == full and not s.policy.enforced
    env = load(rt, s, "narrow")
    assert codes(env) == ["ALLOWED_TOOLS_ENFORCED"]
    assert "state_get" in env["warnings"][0]["message"]
    assert exposed(rt, s) == ["skills_list", "skills_load", "skills_read_file", "state_get"]


def test_exposure_and_enforcement_agree(
    make_skill: MakeSkill, skills_root: Path, events: ListSink
) -> None:
    make_skill("narrow", allowed_tools="state_get")
    calls: list[tuple[str, dict[str, Any]]] = []
    rt = enforcing(skills_root, events, tools=host_tools(*HOST, calls=calls))
    s = rt.session()
    load(rt, s, "narrow")
    env = rt.call(s, "web_fetch", {"command": "https://x"})
    assert error_code(env) == "TOOL_NOT_ALLOWED"
    assert env["error"]["reason"] == "allowed_tools" and env["error"]["skill"] == "narrow"
    assert calls == []  # the host tool never ran
    blocked = events.of(ToolCallBlocked)
    assert [(b.tool, b.code, b.skill) for b in blocked] == [
        ("web_fetch", "TOOL_NOT_ALLOWED", "narrow")
    ]
    assert check(rt.call(s, "state_get", {}))["ok"]
    assert calls == [("state_get", {})]
    # skills_search and skills_run_script are not baseline: contracted away too
    assert error_code(rt.call(s, "skills_search", {"query": "x"})) == "TOOL_NOT_ALLOWED"
    assert rt.allowed(s, "state_get") and not rt.allowed(s, "web_fetch")
    assert not rt.allowed(s, "some_host_only_tool")


def test_baseline_always_allowed_even_renamed(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("narrow", allowed_tools="state_get")
    make_skill("other")
    rt = enforcing(skills_root, tool_names=VERB_FIRST_TOOL_NAMES)
    s = rt.session()
    check(rt.call(s, "load_skill", {"name": "narrow"}))
    assert exposed(rt, s) == ["list_skills", "load_skill", "read_skill_resource", "state_get"]
    assert check(rt.call(s, "list_skills"))["ok"]
    assert check(rt.call(s, "load_skill", {"name": "other"}))["ok"]


@pytest.mark.parametrize(
    ("patterns", "expected"),
    [
        ("state_get", ["state_get"]),
        ("state_*", ["state_get", "state_set"]),
        ("mcp_*", ["mcp_srv__query", "mcp_other__x"]),
        ("mcp_srv__*", ["mcp_srv__query"]),
        ("state_?et", ["state_get", "state_set"]),
        ("state_[g]et", ["state_get"]),
        ("Bash(git:*) Read", ["Bash", "Read"]),
        ("state.get", ["state_get"]),
        ("web_fetch, state_set", ["state_set", "web_fetch"]),
    ],
)
def test_matching_rules(
    make_skill: MakeSkill, skills_root: Path, patterns: str, expected: list[str]
) -> None:
    make_skill("s", allowed_tools=patterns)
    rt = enforcing(skills_root)
    s = rt.session()
    env = load(rt, s, "s")
    assert codes(env) == ["ALLOWED_TOOLS_ENFORCED"]
    allowed = [n for n in exposed(rt, s) if not n.startswith("skills_")]
    assert sorted(allowed) == sorted(expected)
    assert s.policy.allow_set_count == len(expected)


def test_dotted_host_tool_names_are_canonicalised(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("s", allowed_tools="mcp_srv_*")
    make_skill("t", allowed_tools="mcp.other.* files_read")
    tools = host_tools("mcp.srv.query", "mcp.other.x", "files.read")
    rt = enforcing(skills_root, tools=tools)
    s = rt.session()
    load(rt, s, "s")  # a pattern with "_" matches a dotted name
    assert [n for n in exposed(rt, s) if not n.startswith("skills_")] == ["mcp.srv.query"]
    assert check(rt.call(s, "mcp.srv.query", {}))["ok"]
    load(rt, s, "t")  # and a dotted pattern matches too
    assert [n for n in exposed(rt, s) if not n.startswith("skills_")] == [
        "mcp.other.x",
        "files.read",
    ]
    assert error_code(rt.call(s, "mcp.srv.query", {})) == "TOOL_NOT_ALLOWED"


def test_last_loaded_skill_wins(make_skill: MakeSkill, skills_root: Path, events: ListSink) -> None:
    make_skill("a", allowed_tools="state_*")
    make_skill("b", allowed_tools="web_fetch")
    make_skill("c")
    rt = enforcing(skills_root, events)
    s = rt.session()
    load(rt, s, "a")
    assert check(rt.call(s, "state_set", {}))["ok"]
    load(rt, s, "b")
    assert error_code(rt.call(s, "state_set", {})) == "TOOL_NOT_ALLOWED"
    assert check(rt.call(s, "web_fetch", {}))["ok"]
    assert s.policy.skill == "b"
    env = load(rt, s, "c")  # no allowed-tools: the contraction is lifted
    assert codes(env) == []
    assert check(rt.call(s, "state_set", {}))["ok"]
    assert "mcp_other__x" in exposed(rt, s)
    changes = [(e.action, e.skill, e.allow_set_count) for e in events.of(AllowedToolsPolicyChanged)]
    assert changes == [("activated", "a", 2), ("activated", "b", 1), ("deactivated", "c", 0)]
    # reloading a restores its policy
    load(rt, s, "a")
    assert s.policy.skill == "a" and check(rt.call(s, "state_set", {}))["ok"]


def test_scope_is_the_session(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("a", allowed_tools="state_get")
    rt = enforcing(skills_root)
    s1, s2 = rt.session(), rt.session()
    load(rt, s1, "a")
    assert error_code(rt.call(s1, "web_fetch", {})) == "TOOL_NOT_ALLOWED"
    assert check(rt.call(s2, "web_fetch", {}))["ok"]


def test_invalid_allowlist_ignore_is_the_default(
    make_skill: MakeSkill, skills_root: Path, events: ListSink
) -> None:
    make_skill("odd", allowed_tools="Write Edit(src/**)")
    rt = enforcing(skills_root, events)
    s = rt.session()
    full = exposed(rt, s)
    env = load(rt, s, "odd")
    assert codes(env) == ["ALLOWED_TOOLS_IGNORED"]
    assert "matches no available tool" in env["warnings"][0]["message"]
    assert exposed(rt, s) == full
    assert s.trace()[-1]["skills_allowed_tools"] == {
        "mode": "enforce",
        "enforced": False,
        "skill_name": "odd",
        "allow_set_count": 0,
        "ignored_reason": "no_matches",
    }
    ignored = events.of(AllowedToolsPolicyChanged)[-1]
    assert (ignored.action, ignored.reason) == ("ignored", "no_matches")


def test_baseline_names_alone_count_as_no_matches(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("only-baseline", allowed_tools="skills_list skills_load")
    rt = enforcing(skills_root)
    s = rt.session()
    assert codes(load(rt, s, "only-baseline")) == ["ALLOWED_TOOLS_IGNORED"]


def test_invalid_allowlist_enforce_means_baseline_only(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    make_skill("odd", allowed_tools="Write")
    rt = enforcing(skills_root, allowed_tools_invalid_allowlist="enforce")
    s = rt.session()
    env = load(rt, s, "odd")
    assert codes(env) == ["ALLOWED_TOOLS_ENFORCED"]
    assert exposed(rt, s) == ["skills_list", "skills_load", "skills_read_file"]
    assert error_code(rt.call(s, "state_get", {})) == "TOOL_NOT_ALLOWED"
    assert s.trace()[-1]["skills_allowed_tools"]["enforced"] is True


def test_invalid_allowlist_error_fails_the_run(
    make_skill: MakeSkill, skills_root: Path, events: ListSink
) -> None:
    make_skill("odd", allowed_tools="Write")
    rt = enforcing(skills_root, events, allowed_tools_invalid_allowlist="error")
    s = rt.session()
    with pytest.raises(ToolNotAllowedError, match="matches no available tool") as info:
        rt.call(s, "skills_load", {"name": "odd"})
    assert info.value.context["reason"] == "invalid_allowlist"
    assert s.trace()[-1]["code"] == "TOOL_NOT_ALLOWED"
    assert not s.policy.enforced


def test_untrusted_list_narrows_and_never_pre_approves(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    make_skill("remote", allowed_tools="Read")
    asked: list[GovernanceRequest] = []

    def hook(req: GovernanceRequest) -> str:
        # a host that asks the user about Read: nothing in the list may skip that
        if req.phase == "call":
            asked.append(req)
        return "confirm" if req.tool == "Read" else "allow"

    rt = enforcing(skills_root, untrusted=True, governance=hook)
    s = rt.session()
    env = load(rt, s, "remote")
    assert codes(env) == ["ALLOWED_TOOLS_ENFORCED"]
    assert "untrusted" in env["warnings"][0]["message"]
    assert s.policy.enforced and not s.policy.trusted
    # only the baseline and Read are offered
    assert exposed(rt, s) == ["skills_list", "skills_load", "skills_read_file", "Read"]
    assert error_code(rt.call(s, "web_fetch", {})) == "TOOL_NOT_ALLOWED"
    assert error_code(rt.call(s, "Bash", {"command": "ls"})) == "TOOL_NOT_ALLOWED"
    # Read is listed by the skill, yet its confirmation is still required
    assert error_code(rt.call(s, "Read", {})) == "TOOL_CONFIRMATION_REQUIRED"
    assert asked and asked[-1].tool == "Read" and asked[-1].skill_trusted is False


def test_host_may_ignore_untrusted_lists(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("remote", allowed_tools="state_get")
    rt = enforcing(skills_root, untrusted=True, honor_untrusted_allowed_tools=False)
    s = rt.session()
    env = load(rt, s, "remote")
    assert codes(env) == ["ALLOWED_TOOLS_IGNORED"]
    assert "untrusted" in env["warnings"][0]["message"]
    assert s.policy.ignored_reason == "untrusted_source" and not s.policy.enforced
    assert check(rt.call(s, "web_fetch", {}))["ok"]

    trusted = enforcing(skills_root)
    s2 = trusted.session()
    assert codes(load(trusted, s2, "remote")) == ["ALLOWED_TOOLS_ENFORCED"]
    assert s2.policy.trusted
    assert error_code(trusted.call(s2, "web_fetch", {})) == "TOOL_NOT_ALLOWED"


def test_argument_part_reaches_governance_as_constraint(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    make_skill("git-helper", allowed_tools="Bash(git:*) Read")
    seen: list[GovernanceRequest] = []

    def hook(req: GovernanceRequest) -> str:
        seen.append(req)
        if req.tool == "Bash" and req.phase == "call":
            command = str((req.arguments or {}).get("command", ""))
            ok = any(command.startswith(c.split(":")[0] + " ") for c in req.constraints)
            return "allow" if ok else "deny"
        return "allow"

    rt = enforcing(skills_root, governance=hook)
    s = rt.session()
    load(rt, s, "git-helper")
    assert "Read" in exposed(rt, s)
    assert check(rt.call(s, "Bash", {"command": "git status"}))["ok"]
    env = rt.call(s, "Bash", {"command": "rm -rf /"})
    assert error_code(env) == "TOOL_POLICY_DENIED"
    bash_calls = [r for r in seen if r.tool == "Bash" and r.phase == "call"]
    assert bash_calls[0].constraints == ("git:*",)
    assert bash_calls[0].skill == "git-helper"
    read = [r for r in seen if r.tool == "Read"]
    assert read and read[-1].constraints == ()


def test_declared_tools_follow_the_policy(make_skill: MakeSkill, skills_root: Path) -> None:
    body = (
        "# Git\n\n### git_status\n\nShow status.\n\n#### Parameters\n\nNone.\n\n"
        "#### Command\n\n```bash\ngit status --short\n```\n"
    )
    make_skill("gitty", body=body)
    make_skill("narrow", allowed_tools="state_get")
    make_skill("wide", allowed_tools="git_*")
    rt = enforcing(skills_root)
    s = rt.session()
    env = load(rt, s, "gitty")
    assert env["data"]["tools"] == ["git_status"]
    assert "git_status" in exposed(rt, s)
    spec = next(t for t in rt.tool_specs(s) if t.name == "git_status")
    assert spec.origin == "skill:gitty" and spec.parameters["type"] == "object"
    load(rt, s, "narrow")
    assert "git_status" not in exposed(rt, s)
    assert error_code(rt.call(s, "git_status", {})) == "TOOL_NOT_ALLOWED"
    load(rt, s, "wide")
    assert "git_status" in exposed(rt, s)


def test_host_tool_object_and_trace_per_call(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("a", allowed_tools="state_*")
    rt = enforcing(skills_root, tools=[HostTool("state_get", "get", lambda a: {"v": 1})])
    s = rt.session()
    load(rt, s, "a")
    rt.call(s, "state_get", {})
    trace = s.trace()
    assert [t["tool"] for t in trace] == ["skills_load", "state_get"]
    assert trace[0]["warnings"] == ["ALLOWED_TOOLS_ENFORCED"]
    assert trace[1]["skills_allowed_tools"] == {
        "mode": "enforce",
        "enforced": True,
        "skill_name": "a",
        "allow_set_count": 1,
        "ignored_reason": None,
    }
    assert trace[1]["seq"] == 2 and trace[1]["ok"] is True
