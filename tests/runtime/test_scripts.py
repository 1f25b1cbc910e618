"""skills_run_script and body-declared tools through the runtime, with real subprocesses."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from skilldeck import ExecConfig, Executor
from skilldeck.events import ApprovalAsked, ApprovalDenied, ApprovalGranted, ListSink, ScriptRun
from skilldeck.execution import ApprovalRequest, MemoryApprovalStore

from .conftest import MakeSkill, check, error_code, runtime_for

HELLO = """import json, sys
print(json.dumps({"args": sys.argv[1:], "ok": True}))
"""
FAIL = "import sys\nprint('boom')\nsys.exit(3)\n"
SLOW = "import time\ntime.sleep(30)\n"
LOUD = "print('x' * 200000)\n"


def executor(**config: Any) -> Executor:
    cfg = ExecConfig(sandbox=config.pop("sandbox", "none"), run_as=None, **config)
    return Executor(cfg, approvals=MemoryApprovalStore())


def yes(_req: ApprovalRequest) -> bool:
    return True


@pytest.fixture
def scripted(make_skill: MakeSkill) -> None:
    make_skill(
        "tools",
        files={
            "scripts/hello.py": HELLO,
            "scripts/fail.py": FAIL,
            "scripts/slow.py": SLOW,
            "scripts/loud.py": LOUD,
        },
        extra="timeout: 1\n",
    )


@pytest.mark.usefixtures("scripted")
def test_run_script_with_approval(skills_root: Path, events: ListSink) -> None:
    asked: list[ApprovalRequest] = []

    def approve(req: ApprovalRequest) -> bool:
        asked.append(req)
        return True

    rt = runtime_for(skills_root, sink=events, executor=executor(), approver=approve)
    s = rt.session()
    env = check(
        rt.call(
            s, "skills_run_script", {"name": "tools", "script": "scripts/hello.py", "args": ["a b"]}
        )
    )
    data = env["data"]
    assert data["success"] is True and data["exit_code"] == 0
    assert data["parsed"] == {"args": ["a b"], "ok": True}
    assert asked[0].skill == "tools" and asked[0].digest == rt.catalog.digest("tools")
    assert [type(e) for e in events.events if isinstance(e, ApprovalAsked | ApprovalGranted)] == [
        ApprovalAsked,
        ApprovalGranted,
    ]
    run = events.of(ScriptRun)[0]
    assert (run.skill, run.target, run.success, run.exit_code) == (
        "tools",
        "scripts/hello.py",
        True,
        0,
    )


@pytest.mark.usefixtures("scripted")
def test_approval_required_without_or_against_approver(skills_root: Path, events: ListSink) -> None:
    rt = runtime_for(skills_root, sink=events, executor=executor())
    args = {"name": "tools", "script": "scripts/hello.py"}
    env = rt.call(rt.session(), "skills_run_script", args)
    assert error_code(env) == "APPROVAL_REQUIRED"
    assert events.of(ScriptRun)[0].error == "APPROVAL_REQUIRED"

    no = runtime_for(skills_root, sink=events, executor=executor(), approver=lambda r: False)
    assert error_code(no.call(no.session(), "skills_run_script", args)) == "APPROVAL_REQUIRED"
    assert events.of(ApprovalDenied)[0].skill == "tools"


@pytest.mark.usefixtures("scripted")
def test_failed_slow_and_loud_scripts(skills_root: Path) -> None:
    rt = runtime_for(skills_root, executor=executor(kill_grace=0.5), approver=yes)
    s = rt.session()

    failed = check(rt.call(s, "skills_run_script", {"name": "tools", "script": "scripts/fail.py"}))
    assert failed["data"]["success"] is False and failed["data"]["exit_code"] == 3
    assert "boom" in failed["data"]["output"]

    slow = rt.call(s, "skills_run_script", {"name": "tools", "script": "scripts/slow.py"})
    assert error_code(slow) == "SCRIPT_TIMEOUT"

    loud = check(rt.call(s, "skills_run_script", {"name": "tools", "script": "scripts/loud.py"}))
    assert loud["data"]["truncated"] is True
    assert [w["code"] for w in loud["warnings"]] == ["CONTENT_TRUNCATED"]
    assert len(loud["data"]["output"]) < 10_000


@pytest.mark.usefixtures("scripted")
def test_script_refusals(skills_root: Path) -> None:
    rt = runtime_for(skills_root, executor=executor(), approver=yes)
    s = rt.session()

    def code(script: str) -> str | None:
        return error_code(rt.call(s, "skills_run_script", {"name": "tools", "script": script}))

    assert code("../../etc/passwd") == "PATH_NOT_ALLOWED"
    assert code("scripts/missing.py") == "FILE_NOT_FOUND"
    # a name past the file system's limit (ENAMETOOLONG) is a missing file, not INTERNAL
    assert code("a" * 300) == "FILE_NOT_FOUND"
    assert code("scripts/" + "b" * 300 + ".py") == "FILE_NOT_FOUND"
    # a lone surrogate: bytes no UTF-8 name has, which no skill lists (not INTERNAL)
    assert code("\ud800") == "PATH_NOT_ALLOWED"
    # the hint names the runnable scripts, not the caches pip or Python leave beside them
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(skills_root)], check=True)
    missing = rt.call(s, "skills_run_script", {"name": "tools", "script": "scripts/missing.py"})
    assert "scripts/hello.py" in missing["error"]["hint"]
    assert "pyc" not in missing["error"]["hint"], missing["error"]["hint"]


@pytest.mark.usefixtures("scripted")
def test_sandbox_unavailable_when_required(skills_root: Path) -> None:
    ex = executor(sandbox="strict", bwrap_path="/nonexistent/bwrap")
    rt = runtime_for(skills_root, executor=ex, approver=yes)
    env = rt.call(
        rt.session(), "skills_run_script", {"name": "tools", "script": "scripts/hello.py"}
    )
    assert error_code(env) == "SANDBOX_UNAVAILABLE"


def test_script_failed_for_a_skill_without_folder(tmp_path: Path) -> None:
    from skilldeck import Catalog, MemoryStore, SkillRuntime, Source

    store = MemoryStore(source="mem")
    store.add("---\nname: inline\ndescription: An inline skill. Use for tests.\n---\nbody\n")
    catalog = Catalog([Source("mem", "inline", store=store)], cache=False)
    rt = SkillRuntime(catalog, executor=executor(), approver=yes)
    env = rt.call(rt.session(), "skills_run_script", {"name": "inline", "script": "scripts/x.py"})
    assert error_code(env) == "SCRIPT_FAILED"


def test_declared_tool_appears_after_load_and_runs(
    make_skill: MakeSkill, skills_root: Path, events: ListSink
) -> None:
    body = (
        "# Echo\n\n### say\n\nRepeat a word.\n\n#### Parameters\n\n"
        "| Name | Type | Required | Description |\n|---|---|---|---|\n"
        "| word | string | yes | what to say |\n\n"
        f'#### Command\n\n```bash\n{sys.executable} -c "import sys; print(sys.argv[1])" '
        "{{word}}\n```\n"
    )
    make_skill("echo", body=body)
    rt = runtime_for(skills_root, sink=events, executor=executor(), approver=yes)
    s = rt.session()
    assert "say" not in [t.name for t in rt.tool_specs(s)]
    assert error_code(rt.call(s, "say", {"word": "hi"})) == "TOOL_NOT_ALLOWED"
    env = check(rt.call(s, "skills_load", {"name": "echo"}))
    assert env["data"]["tools"] == ["say"]
    spec = next(t for t in rt.tool_specs(s) if t.name == "say")
    assert spec.parameters["required"] == ["word"]
    assert "declared by skill echo" in spec.description
    out = check(rt.call(s, "say", {"word": "hello; rm -rf /"}))
    assert out["data"]["output"].strip() == "hello; rm -rf /"
    assert error_code(rt.call(s, "say", {})) == "INVALID_ARGUMENTS"
    assert events.of(ScriptRun)[-1].target == "say"
    # another session has not loaded the skill: no tool there
    assert "say" not in [t.name for t in rt.tool_specs(rt.session())]


@pytest.mark.usefixtures("scripted")
def test_an_approver_cancels_with_the_cancel_exception(skills_root: Path) -> None:
    from skilldeck import Cancelled

    def no(_req: ApprovalRequest) -> bool:
        raise Cancelled()

    ex = executor()
    rt = runtime_for(skills_root, executor=ex, approver=no)
    env = rt.call(
        rt.session(), "skills_run_script", {"name": "tools", "script": "scripts/hello.py"}
    )
    assert error_code(env) == "CANCELLED"
    assert ex.approvals.get("tools") is None


RUN_FROM_INDEX = """
import sys
from skilldeck import Catalog, ExecConfig, Executor, SkillRuntime
from skilldeck.execution import MemoryApprovalStore

catalog = Catalog.from_roots([sys.argv[1]])
executor = Executor(ExecConfig(sandbox="none"), approvals=MemoryApprovalStore())
rt = SkillRuntime(catalog, executor=executor, approver=lambda request: True)
s = rt.session()
slow = rt.call(s, "skills_run_script", {"name": "tools", "script": "scripts/slow.py"})
print(slow["error"]["code"], "skilldeck.format._skillmd" in sys.modules)
"""


@pytest.mark.usefixtures("scripted")
def test_a_run_through_the_runtime_takes_its_settings_from_the_index(skills_root: Path) -> None:
    # the skill's timeout (1 s) holds, and SKILL.md's parser is never imported
    time.sleep(1.5)  # settled: a SKILL.md changed within a second of a scan is read again
    listed = [
        sys.executable,
        "-c",
        "import sys, skilldeck; skilldeck.Catalog.from_roots(sys.argv[1:]).list()",
    ]
    subprocess.run([*listed, str(skills_root)], check=True, timeout=120)  # the index is made
    done = subprocess.run(
        [sys.executable, "-c", RUN_FROM_INDEX, str(skills_root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["SCRIPT_TIMEOUT", "False"]
