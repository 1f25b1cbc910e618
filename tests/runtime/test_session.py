"""Sessions: restore_block after compaction, the trace, audit via the runtime, threads."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from skilldeck import HostTool, SkillRuntime
from skilldeck.events import REDACTED, JsonlAuditSink

from .conftest import MakeSkill, check, runtime_for


def test_restore_block_empty_before_any_load(skills_root: Path) -> None:
    assert runtime_for(skills_root).session().restore_block(1000) == ""


def test_restore_block_most_recent_first_within_budget(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    make_skill("first", body="# First\n\n" + "alpha " * 50)
    make_skill("second", body="# Second\n\n" + "beta " * 50)
    make_skill("third", body="# Third\n\n" + "gamma " * 400)
    rt = runtime_for(skills_root)
    s = rt.session()
    for n in ("first", "second", "third"):
        check(rt.call(s, "skills_load", {"name": n}))

    big = s.restore_block(100_000)
    assert big.startswith("<loaded_skills>") and big.endswith("</loaded_skills>")
    assert big.index('name="third"') < big.index('name="second"') < big.index('name="first"')
    for n in ("first", "second", "third"):
        assert f'digest="{rt.catalog.digest(n)}"' in big
    assert "gamma gamma" in big and "alpha alpha" in big

    small = s.restore_block(1200)
    assert len(small) <= 1200
    assert "gamma gamma" not in small  # the newest body is too big...
    assert "beta beta" in small  # ...the next ones still fit
    assert small.count('body="omitted"') >= 1
    for n in ("first", "second", "third"):
        assert f'name="{n}"' in small  # every loaded skill is named, whatever the budget

    tiny = s.restore_block(10)
    assert 'name="first"' in tiny and "alpha alpha" not in tiny

    # reloading moves a skill to the front
    check(rt.call(s, "skills_load", {"name": "first"}))
    again = s.restore_block(100_000)
    assert again.index('name="first"') < again.index('name="third"')
    assert [x.name for x in s.loaded] == ["second", "third", "first"]


def test_restore_block_states_the_active_policy(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("narrow", allowed_tools="state_get")
    rt = runtime_for(
        skills_root,
        allowed_tools_enforcement="enforce",
        host_tools=[HostTool("state_get", "get", lambda a: 1)],
    )
    s = rt.session()
    check(rt.call(s, "skills_load", {"name": "narrow"}))
    assert "allowed-tools of 'narrow' is in force: state_get" in s.restore_block(5000)


def test_audit_log_through_the_runtime_redacts_arguments(
    make_skill: MakeSkill, skills_root: Path, tmp_path: Path
) -> None:
    make_skill("a")
    log = tmp_path / "audit.jsonl"
    tool = HostTool(
        "call_api",
        "calls an api",
        lambda a: {"status": 200},
        {
            "type": "object",
            "properties": {"url": {"type": "string"}, "api_key": {"type": "string"}},
        },
    )
    rt = runtime_for(skills_root, host_tools=[tool])
    rt2 = SkillRuntime(rt.catalog, host_tools=[tool], audit_log=log)
    s = rt2.session()
    check(rt2.call(s, "skills_load", {"name": "a"}))
    check(
        rt2.call(
            s,
            "call_api",
            {"url": "https://bob:hunter2@api.example.com", "api_key": "sk-abcdefghijklmnopqrstu"},
        )
    )
    raw = log.read_text("utf-8")
    assert "hunter2" not in raw and "sk-abcdefghijklmnopqrstu" not in raw
    records = JsonlAuditSink(log).read()
    assert [r["event"] for r in records] == ["skill_loaded", "tool_called", "tool_called"]
    api = records[-1]
    assert api["arguments"]["api_key"] == REDACTED
    assert api["arguments"]["url"] == f"https://{REDACTED}@api.example.com"
    assert all(r["session_id"] == s.id for r in records)


def test_trace_holds_no_argument_values(make_skill: MakeSkill, skills_root: Path) -> None:
    make_skill("a")
    rt = runtime_for(skills_root)
    s = rt.session()
    rt.call(s, "skills_read_file", {"name": "a", "path": "references/token-sk-123.md"})
    entry = s.trace()[0]
    assert entry["argument_keys"] == ["name", "path"]
    assert "token-sk-123" not in json.dumps(entry)
    assert entry["code"] == "FILE_NOT_FOUND" and entry["ok"] is False


def test_concurrent_calls_on_one_session(make_skill: MakeSkill, skills_root: Path) -> None:
    for i in range(4):
        make_skill(f"s{i}")
    rt = runtime_for(skills_root)
    s = rt.session()
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            for _ in range(10):
                assert rt.call(s, "skills_load", {"name": f"s{i}"})["ok"]
                assert rt.call(s, "skills_list", {})["ok"]
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    trace = s.trace()
    assert len(trace) == 80
    assert sorted(e["seq"] for e in trace) == list(range(1, 81))
    assert {x.name for x in s.loaded} == {"s0", "s1", "s2", "s3"}
