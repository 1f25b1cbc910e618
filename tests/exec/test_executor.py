"""Running scripts and declared tools for real: results, refusals, approvals, isolation report."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import skilldeck

from .conftest import MODES, FakeSkill, MakeSkill, executor, gone, needs_bwrap

SEED = Path(__file__).parent / "fixtures" / "seed003"
ARGV_SH = 'for a in "$@"; do printf "[%s]" "$a"; done; echo\n'
ISOLATION_KEYS = {
    "sandbox",
    "requested",
    "fallback",
    "user",
    "namespaces",
    "network",
    "filesystem",
    "workdir",
    "timeout_s",
    "process_tracking",
    "limits",
    "umask",
    "env",
    "helper",
}


@pytest.mark.parametrize("mode", MODES)
def test_script_result_shape(make_skill: MakeSkill, mode: str) -> None:
    skill = make_skill(scripts={"ok.sh": 'echo \'{"status": "ok", "n": 5}\'\n'})
    result = executor(sandbox=mode).run_script(skill, "scripts/ok.sh", trust="bundled")
    data = result.to_dict()
    assert set(data) == {
        "success",
        "exit_code",
        "output",
        "truncated",
        "duration_ms",
        "parsed",
        "error",
        "isolation",
    }
    assert data["success"] is True and data["exit_code"] == 0 and data["error"] is None
    assert data["parsed"] == {"status": "ok", "n": 5}
    assert data["truncated"] is False and data["duration_ms"] >= 0
    assert set(data["isolation"]) >= ISOLATION_KEYS
    assert data["isolation"]["sandbox"] == ("bubblewrap" if mode == "strict" else "none")
    json.dumps(data)


@pytest.mark.parametrize("mode", MODES)
def test_nonzero_exit_returns_a_failed_result(make_skill: MakeSkill, mode: str) -> None:
    skill = make_skill(scripts={"fail.sh": "echo out; echo err >&2; exit 3\n"})
    result = executor(sandbox=mode).run_script(skill, "fail.sh", trust="bundled")
    assert (result.success, result.exit_code) == (False, 3)
    assert result.output == "out\nerr\n"
    assert result.error == "Command failed with exit code 3"


@pytest.mark.parametrize("mode", MODES)
def test_stdout_and_stderr_are_merged_in_order(make_skill: MakeSkill, mode: str) -> None:
    script = "for i in 1 2 3; do echo o$i; echo e$i >&2; done\n"
    skill = make_skill(scripts={"mix.sh": script})
    result = executor(sandbox=mode).run_script(skill, "mix.sh", trust="bundled")
    assert result.output.split() == ["o1", "e1", "o2", "e2", "o3", "e3"]


@pytest.mark.parametrize("mode", MODES)
def test_the_program_sees_a_clean_world(
    make_skill: MakeSkill, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = 'echo "uid=$(id -u) umask=$(umask) cwd=$(pwd)"; ls -l /proc/self/fd/0; env | sort\n'
    skill = make_skill(scripts={"env.sh": script})
    result = executor(sandbox=mode).run_script(skill, "env.sh", trust="bundled")
    first = result.output.splitlines()[0]
    if os.geteuid() == 0:
        assert "uid=65534" in first
    assert "umask=0077" in first
    snapshot = result.isolation["skill_dir"]  # workdir = "skill": the private copy
    assert snapshot != str(skill.path) and f"cwd={snapshot}" in first
    assert "/dev/null" in result.output.splitlines()[1]
    assert "SKILLDECK_SKILL_NAME=demo" in result.output
    assert f"SKILLDECK_SKILL_DIR={snapshot}" in result.output
    assert gone(Path(snapshot))  # removed after the run


@pytest.mark.parametrize("mode", MODES)
def test_planted_secrets_are_absent(
    make_skill: MakeSkill, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    planted = {
        "GITHUB_TOKEN": "ghp_planted",
        "MY_APP_TOKEN": "tok_planted",
        "STRIPE_SECRET": "sk_planted",
        "SIGNING_KEY": "key_planted",
        "AWS_SECRET_ACCESS_KEY": "aws_planted",
        "OPENAI_API_KEY": "oa_planted",
        "ANTHROPIC_API_KEY": "an_planted",
        "DB_PASSWORD": "pw_planted",
        "LD_PRELOAD": "/planted.so",
        "PYTHONPATH": "/planted",
    }
    for key, value in planted.items():
        monkeypatch.setenv(key, value)
    skill = make_skill(scripts={"env.sh": "env; cat /proc/self/environ | tr '\\0' '\\n'\n"})
    result = executor(sandbox=mode, env_allow=("MY_*", "DB_*")).run_script(
        skill, "env.sh", trust="bundled"
    )
    assert result.success
    for key, value in planted.items():
        assert key not in result.output and value not in result.output
    assert "planted" not in json.dumps(result.to_dict())


@pytest.mark.parametrize("mode", MODES)
def test_metacharacter_arguments_arrive_literally(make_skill: MakeSkill, mode: str) -> None:
    hostile = [
        "a;b",
        "x | y",
        "$(touch /tmp/pwned)",
        "`id`",
        'it\'s "q"',
        "two\nlines",
        "--help",
        "-rf",
        "*",
        "",
        " spaced ",
    ]
    skill = make_skill(
        scripts={
            "argv.sh": ARGV_SH,
            "argv.py": "import sys, json; print(json.dumps(sys.argv[1:]))\n",
        }
    )
    ex = executor(sandbox=mode, run_as=None) if mode == "none" else executor(sandbox=mode)
    result = ex.run_script(skill, "argv.sh", hostile, trust="bundled")
    assert result.output == "".join(f"[{a}]" for a in hostile) + "\n"
    py = ex.run_script(skill, "argv.py", hostile, trust="bundled")
    assert py.parsed == hostile, py.output
    assert not Path("/tmp/pwned").exists()


def declared(skill_dir: Path, body: str) -> skilldeck.format.DeclaredTool:
    tools, diags = skilldeck.format.parse_declared_tools(textwrap.dedent(body))
    assert tools, [d.format() for d in diags]
    return tools[0]


@pytest.mark.parametrize("mode", MODES)
def test_declared_tool_values_arrive_literally(make_skill: MakeSkill, mode: str) -> None:
    skill = make_skill(scripts={"argv.sh": ARGV_SH})
    tool = declared(
        skill.path,
        """
        ### echo_args

        Echo.

        #### Parameters

        | Name | Type | Required | Description |
        |------|------|----------|-------------|
        | text | string | yes | x |
        | more | array | no | y |
        | loud | boolean | no | z |

        #### Command

        ```bash
        ./scripts/argv.sh {{loud:--loud}} --text={{text}} {{text}} {{more}}
        ```
        """,
    )
    args = {"text": "$(id); `x` | y\nz", "more": ["-a", "b c"], "loud": True}
    result = executor(sandbox=mode).run_tool(skill, tool, args, trust="bundled")
    assert result.output == ("[--loud][--text=$(id); `x` | y\nz][$(id); `x` | y\nz][-a][b c]\n"), (
        result.output
    )


def test_declared_tool_program_on_path_and_not_found(make_skill: MakeSkill) -> None:
    skill = make_skill()
    tool = declared(
        skill.path,
        "### t\n\nx\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```\nprintf '%s-%s' a b\n```\n",
    )
    assert executor(sandbox="none").run_tool(skill, tool, {}, trust="bundled").output == "a-b"
    missing = declared(
        skill.path,
        "### t\n\nx\n\n#### Parameters\n\nNone.\n\n#### Command\n\n"
        "```\nno-such-program-xyz --v\n```\n",
    )
    result = executor(sandbox="none").run_tool(skill, missing, {}, trust="bundled")
    assert (result.success, result.exit_code) == (False, 127)
    assert "not found" in (result.error or "")


def test_script_paths_are_confined(make_skill: MakeSkill, world: Path) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"})
    (skill.path / "assets").mkdir()
    (skill.path / "assets" / "x.sh").write_text("echo no\n")
    outside = world / "outside.sh"
    outside.write_text("echo escaped\n")
    (skill.path / "scripts" / "link.sh").symlink_to(outside)
    ex = executor(sandbox="none")
    for bad in (
        "../outside.sh",
        "/etc/passwd",
        "scripts/../../outside.sh",
        "assets/x.sh",
        "scripts/link.sh",
        "scripts/%2e%2e/x",
        "a\x00b",
    ):
        with pytest.raises(skilldeck.PathNotAllowedError):
            ex.run_script(skill, bad, trust="bundled")
    with pytest.raises(skilldeck.FileNotFoundInSkillError):
        ex.run_script(skill, "scripts/missing.sh", trust="bundled")
    with pytest.raises(skilldeck.InvalidArgumentsError):
        ex.run_script(skill, "ok.sh", [1], trust="bundled")  # type: ignore[list-item]


def test_interpreters_by_extension_and_shebang(make_skill: MakeSkill) -> None:
    skill = make_skill(
        scripts={
            "noext": "#!/usr/bin/env sh\necho from-sh\n",
            "tool.exe": "MZ",
            "weird": "#!/usr/bin/env -S perl -w\nprint 1\n",
        }
    )
    ex = executor(sandbox="none")
    assert ex.run_script(skill, "noext", trust="bundled").output == "from-sh\n"
    for bad in ("tool.exe", "weird"):
        with pytest.raises(skilldeck.InvalidArgumentsError) as info:
            ex.run_script(skill, bad, trust="bundled")
        assert info.value.to_dict()["reason"] == "unsupported_script_kind"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("mode", MODES)
def test_node_scripts_run(make_skill: MakeSkill, mode: str) -> None:
    skill = make_skill(scripts={"hi.mjs": "console.log(JSON.stringify(process.argv.slice(2)))\n"})
    result = executor(sandbox=mode).run_script(skill, "hi.mjs", ["a b"], trust="bundled")
    assert result.parsed == ["a b"], result.output


def test_output_is_capped_head_and_tail(make_skill: MakeSkill) -> None:
    script = "i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done\n"
    skill = make_skill(scripts={"many.sh": script})
    result = executor(sandbox="none", output_head=20, output_tail=20).run_script(
        skill, "many.sh", trust="bundled"
    )
    assert result.truncated
    assert result.output.startswith("line0\nline1\nline2\n")
    assert result.output.endswith("line1998\nline1999\n")
    assert "[truncated " in result.output and result.parsed is None
    assert result.output_bytes > 10000
    assert len(result.output.encode()) < 100


def test_utf8_cut_at_the_edges_stays_valid(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"u.py": "print('é' * 5000)\n"})
    result = executor(
        sandbox="strict" if skilldeck.probe_sandbox().available else "none",
        output_head=7,
        output_tail=7,
        run_as=None,
    ).run_script(skill, "u.py", trust="bundled")
    assert "\ufffd" not in result.output
    assert result.output.startswith("ééé") and result.output.endswith("ééé\n")


# ------------------------------------------------------------------ approvals


def test_user_skill_needs_approval_then_runs_until_it_changes(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"}, read_only=False)
    ex = executor(sandbox="none")
    with pytest.raises(skilldeck.ApprovalRequiredError) as info:
        ex.run_script(skill, "ok.sh", trust="user")
    assert info.value.code == "APPROVAL_REQUIRED"
    assert "skilldeck approve demo" in (info.value.hint or "")

    asked: list[skilldeck.execution.ApprovalRequest] = []

    def approver(request: skilldeck.execution.ApprovalRequest) -> bool:
        asked.append(request)
        return True

    assert ex.run_script(skill, "ok.sh", ["x"], trust="user", approver=approver).success
    (request,) = asked
    assert request.skill == "demo" and request.trust is skilldeck.Trust.USER
    assert request.reason == "first_run" and request.persist
    # the approver sees the private snapshot that runs, bound to the skill's digest
    assert request.argv[-1] == "x" and request.argv[-2].endswith("/scripts/ok.sh")
    assert request.argv[-2].startswith(request.isolation["skill_dir"])
    assert "ok.sh" in request.preview and request.isolation["sandbox"] == "none"
    assert request.digest == skilldeck.skill_digest(skill.path)
    # remembered: no callback needed now
    assert ex.run_script(skill, "ok.sh", trust="user").success
    # any file change voids it
    (skill.path / "scripts" / "extra.txt").write_text("new")
    with pytest.raises(skilldeck.ApprovalRequiredError) as info:
        ex.run_script(skill, "ok.sh", trust="user")
    assert info.value.to_dict()["reason"] == "changed"


def test_declined_approval(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok > /dev/null\n"}, read_only=False)
    with pytest.raises(skilldeck.ApprovalRequiredError) as info:
        executor(sandbox="none").run_script(skill, "ok.sh", trust="user", approver=lambda r: False)
    assert info.value.to_dict()["reason"] == "denied"


def test_always_ask_asks_every_time(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"}, always_ask=True)
    ex = executor(sandbox="none")
    ex.approvals.grant("demo", skilldeck.skill_digest(skill.path))
    count = []
    for _ in range(2):
        ex.run_script(skill, "ok.sh", trust="bundled", approver=lambda r: count.append(r) or True)
    assert len(count) == 2 and count[0].reason == "always_ask" and not count[0].persist
    with pytest.raises(skilldeck.ApprovalRequiredError) as info:
        ex.run_script(skill, "ok.sh", trust="bundled")
    assert "always_ask" in (info.value.hint or "")


def test_untrusted_asks_with_a_warning_and_stored_approval_is_a_fallback(
    make_skill: MakeSkill,
) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"})
    ex = executor(sandbox="none")
    with pytest.raises(skilldeck.ApprovalRequiredError):
        ex.run_script(skill, "ok.sh", trust="untrusted")
    seen: list[skilldeck.execution.ApprovalRequest] = []
    ex.run_script(skill, "ok.sh", trust="untrusted", approver=lambda r: seen.append(r) or True)
    assert seen[0].warning and ex.approvals.get("demo") is None
    ex.approvals.grant("demo", skilldeck.skill_digest(skill.path))
    assert ex.run_script(skill, "ok.sh", trust="untrusted").success
    ex.run_script(skill, "ok.sh", trust="untrusted", approver=lambda r: seen.append(r) or True)
    assert len(seen) == 2


def test_bundled_read_only_runs_without_asking(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"}, read_only=True)
    ex = executor(sandbox="none")
    assert ex.run_script(
        skill, "ok.sh", trust="bundled", approver=lambda r: pytest.fail("asked")
    ).success


# ------------------------------------------------------------------ sandbox modes


def test_strict_without_bubblewrap_refuses(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"})
    with pytest.raises(skilldeck.SandboxUnavailableError) as info:
        executor(sandbox="strict", bwrap_path="/nonexistent/bwrap").run_script(
            skill, "ok.sh", trust="bundled"
        )
    assert info.value.code == "SANDBOX_UNAVAILABLE" and "bubblewrap" in (info.value.hint or "")


def test_auto_reports_its_fallback(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"})
    result = executor(sandbox="auto", bwrap_path="/nonexistent/bwrap").run_script(
        skill, "ok.sh", trust="bundled"
    )
    assert result.success
    assert result.isolation["sandbox"] == "none"
    assert "bubblewrap unavailable" in result.isolation["fallback"]


@needs_bwrap
def test_auto_uses_bubblewrap_when_it_works(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"})
    iso = executor(sandbox="auto").run_script(skill, "ok.sh", trust="bundled").isolation
    assert iso["sandbox"] == "bubblewrap" and iso["fallback"] is None
    assert "pid" in iso["namespaces"] and "net" in iso["namespaces"]
    assert iso["network"] == "denied" and iso["process_tracking"] == "pid-namespace"


@pytest.mark.skipif(os.geteuid() != 0, reason="the privilege drop applies when run as root")
def test_root_without_sandbox_runs_as_itself_when_nobody_cannot_reach(
    make_skill: MakeSkill, tmp_path: Path
) -> None:
    skill = make_skill(scripts={"ok.sh": "id -u; grep CapEff /proc/self/status\n"})
    private = tmp_path / "work"  # under pytest's 0700 tmp folder
    private.mkdir()
    result = executor(sandbox="none", workdir=str(private)).run_script(
        skill, "ok.sh", trust="bundled"
    )
    assert result.success, result.output
    uid, caps = result.output.split("\n")[:2]
    assert uid == "0" and caps.split()[-1] == "0000000000000000"  # root without capabilities
    assert result.isolation["user"].startswith("0 ")
    reason = result.isolation["user_reason"]
    named = reason.split("cannot reach the working folder: ")[1].split(" (mode")[0]
    assert str(private).startswith(named) and os.stat(named).st_mode & 0o777 == 0o700
    # a user named explicitly is not replaced: the run is refused, naming the path
    with pytest.raises(skilldeck.SandboxUnavailableError) as info:
        executor(sandbox="none", workdir=str(private), run_as=(65534, 65534)).run_script(
            skill, "ok.sh", trust="bundled"
        )
    assert "uid 65534" in info.value.message and named in info.value.message
    assert "--run-as self" in (info.value.hint or "")


@pytest.mark.parametrize("mode", MODES)
def test_temp_workdir_is_fresh_and_writable(make_skill: MakeSkill, mode: str) -> None:
    skill = make_skill(scripts={"w.sh": "pwd; ls -A; echo data > f.txt && cat f.txt\n"})
    ex = executor(sandbox=mode, workdir="temp")
    first = ex.run_script(skill, "w.sh", trust="bundled")
    second = ex.run_script(skill, "w.sh", trust="bundled")
    lines1, lines2 = first.output.splitlines(), second.output.splitlines()
    assert lines1[1:] == ["data"] and lines2[1:] == ["data"]
    assert lines1[0] != lines2[0] and gone(Path(lines1[0]))
    assert first.isolation["workdir_mode"] == "temp"


# ------------------------------------------------------------------ seed 003 examples


def seed_skill(name: str, root: Path) -> tuple[FakeSkill, dict[str, skilldeck.format.DeclaredTool]]:
    target = root / name
    shutil.copytree(SEED / name, target)
    for dirpath, _, files in os.walk(target):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o755)
    parsed = skilldeck.read_skill_md(target / "SKILL.md")
    tools, _ = skilldeck.format.parse_declared_tools(parsed.body, body_line=parsed.body_line)
    return FakeSkill(name, target, parsed.manifest), {t.name: t for t in tools}


@pytest.mark.parametrize("mode", MODES)
def test_seed_git_example_runs_in_a_real_repository(
    world: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = world / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    (repo / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first commit"], cwd=repo, check=True)
    (repo / "a.txt").write_text("two\n")
    subprocess.run([*git, "add", "a.txt"], cwd=repo, check=True)
    for dirpath, _, files in os.walk(repo):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o644)
    skill, tools = seed_skill("git", world / "skills")
    ex = skilldeck.Executor(
        skilldeck.ExecConfig(sandbox=mode, workdir="project"),  # type: ignore[arg-type]
        approvals=skilldeck.execution.MemoryApprovalStore(),
        cwd=repo,
    )
    ex.approvals.grant("git", skilldeck.skill_digest(skill.path))
    status = ex.run_tool(skill, tools["git_status"], {}, trust="user")
    assert status.success, status.output
    assert status.output.startswith("## main") and "M  a.txt" in status.output
    log = ex.run_tool(skill, tools["git_log"], {"count": 1}, trust="user")
    assert log.success and "first commit" in log.output
    staged = ex.run_tool(skill, tools["git_diff"], {"staged": True}, trust="user")
    assert "+two" in staged.output
    unstaged = ex.run_tool(skill, tools["git_diff"], {}, trust="user")
    assert unstaged.success and unstaged.output == ""


@pytest.mark.parametrize("mode", MODES)
def test_seed_deploy_example_asks_every_time_and_runs_its_script(world: Path, mode: str) -> None:
    skill, tools = seed_skill("deploy", world / "skills")
    ex = executor(sandbox=mode)
    tool = tools["deploy_preview"]
    with pytest.raises(skilldeck.ApprovalRequiredError):
        ex.run_tool(skill, tool, {"message": "hi"}, trust="user")
    requests: list[skilldeck.execution.ApprovalRequest] = []
    result = ex.run_tool(
        skill,
        tool,
        {"message": "ship it; now"},
        trust="user",
        approver=lambda r: requests.append(r) or True,
    )
    assert result.output == "deploy target=preview message=ship it; now args=2\n"
    assert requests[0].reason == "always_ask"
    assert requests[0].isolation["network_requested"] is True
    assert requests[0].isolation["network_granted"] is False  # the host grants no network
    result = ex.run_tool(skill, tool, {}, trust="user", approver=lambda r: True)
    assert result.output == "deploy target=preview message=<none> args=1\n"


@needs_bwrap
@pytest.mark.skipif(shutil.which("npx") is None, reason="npx is not installed")
def test_seed_summarize_example_starts_without_network(world: Path) -> None:
    skill, tools = seed_skill("summarize", world / "skills")
    tool = tools["summarize_url"]
    ex = executor(sandbox="strict", timeout_cap=2)
    assert ex.preview_tool(tool, {"url": "https://example.com/a b"}) == [
        "npx",
        "@anthropic-ai/summarize",
        "https://example.com/a b",
    ]
    try:
        result = ex.run_tool(skill, tool, {"url": "https://example.com"}, trust="bundled")
    except skilldeck.ScriptTimeoutError as exc:
        result = exc.context["result"]
    assert result.isolation["network"] == "denied"
    assert result.isolation["network_requested"] is True
    assert result.isolation["network_granted"] is False
    assert not result.success


def test_skill_without_a_folder_cannot_run() -> None:
    class NoFolder:
        name = "inline"
        path = None
        manifest = None

    with pytest.raises(skilldeck.ScriptFailedError):
        executor(sandbox="none").run_script(NoFolder(), "x.sh", trust="bundled")  # type: ignore[arg-type]


def test_python_helper_fallback_works(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok $1\n"})
    result = executor(sandbox="none", native_helper=False).run_script(
        skill, "ok.sh", ["x"], trust="bundled"
    )
    assert result.output == "ok x\n" and result.isolation["helper"] == "python"


@pytest.mark.parametrize("mode", MODES)
def test_exit_codes_above_128_are_not_mistaken_for_signals(
    make_skill: MakeSkill, mode: str
) -> None:
    skill = make_skill(scripts={"e.sh": "exit 152\n", "s.sh": "kill -USR1 $$\n"})
    ex = executor(sandbox=mode)
    assert ex.run_script(skill, "e.sh", trust="bundled").exit_code == 152
    killed = ex.run_script(skill, "s.sh", trust="bundled")
    assert killed.exit_code == -10 and killed.error == "Command terminated by SIGUSR1"


@pytest.mark.parametrize("mode", MODES)
def test_cancel_stops_the_run(make_skill: MakeSkill, mode: str) -> None:
    import threading

    skill = make_skill(scripts={"slow.sh": "echo begun; sleep 60\n"})
    cancel = threading.Event()
    # generous: a loaded CI machine can take over 0.5 s to start bubblewrap
    threading.Timer(2.0, cancel.set).start()
    start = time.monotonic()
    with pytest.raises(skilldeck.ScriptFailedError) as info:
        executor(sandbox=mode).run_script(skill, "slow.sh", trust="bundled", cancel=cancel)
    assert time.monotonic() - start < 20  # far below the script's 60 s
    assert info.value.to_dict()["reason"] == "cancelled"
    assert info.value.context["result"].output == "begun\n"


@needs_bwrap
@pytest.mark.parametrize("mode", MODES)
def test_project_workdir_outside_a_repository_is_the_current_folder(
    make_skill: MakeSkill, world: Path, mode: str
) -> None:
    skill = make_skill(scripts={"w.sh": "pwd\n"})
    ex = skilldeck.Executor(
        skilldeck.ExecConfig(sandbox=mode),
        approvals=skilldeck.execution.MemoryApprovalStore(),
        cwd=world,
    )
    result = ex.run_script(skill, "w.sh", trust="bundled")
    assert result.output.strip() == str(world.resolve())
    assert result.isolation["workdir_mode"] == "project (current folder)"


@needs_bwrap
def test_project_workdir_in_the_home_folder_stays_hidden(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"w.sh": "pwd\n"})
    ex = skilldeck.Executor(
        skilldeck.ExecConfig(sandbox="strict"),
        approvals=skilldeck.execution.MemoryApprovalStore(),
        cwd=Path.home(),
    )
    result = ex.run_script(skill, "w.sh", trust="bundled")
    assert result.output.strip() != str(Path.home())
    assert "temp" in result.isolation["workdir_mode"]
    # what `skilldeck sandbox status` / `doctor` say from there agrees with the run
    said = skilldeck.execution.execution_status(
        skilldeck.ExecConfig(sandbox="strict"), cwd=Path.home()
    )
    assert said.workdir == "a fresh empty folder"
    assert "--workdir" in said.workdir_mode
    said = skilldeck.execution.execution_status(
        skilldeck.ExecConfig(sandbox="none"), cwd=Path.home()
    )
    # without bubblewrap the home is the working folder, except as root: the run
    # then goes to nobody, who cannot enter root's home, so it works in a fresh folder
    if os.geteuid() == 0:
        assert said.workdir == "a fresh empty folder"
    else:
        assert said.workdir == str(Path.home().resolve())


def test_huge_arguments_are_invalid_not_internal(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"})
    with pytest.raises(skilldeck.InvalidArgumentsError):
        executor(sandbox="none").run_script(skill, "ok.sh", ["x" * 100_000] * 40, trust="bundled")


def test_relative_path_entries_never_find_programs(
    make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch, world: Path
) -> None:
    (world / "evilprog").write_text("#!/bin/sh\necho pwned\n")
    (world / "evilprog").chmod(0o755)
    monkeypatch.chdir(world)
    monkeypatch.setenv("PATH", ".:" + os.environ["PATH"])
    skill = make_skill()
    tool = declared(
        skill.path,
        "### t\n\nx\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```\nevilprog\n```\n",
    )
    result = executor(sandbox="none").run_tool(skill, tool, {}, trust="bundled")
    assert result.exit_code == 127 and "pwned" not in result.output


_HELPER_OF_A_RUN = """
import sys
import skilldeck
skill = skilldeck.Catalog.from_roots([sys.argv[1]]).load("demo")
config = skilldeck.ExecConfig(sandbox="none", workdir="skill", kill_grace=0.5)
executor = skilldeck.Executor(config, approvals=skilldeck.execution.MemoryApprovalStore())
result = executor.run_script(skill, "ok.sh", trust="bundled", approver=lambda request: True)
print(result.output.strip(), result.isolation["helper"])
"""


def test_a_broken_native_helper_is_rebuilt(
    make_skill: MakeSkill, world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler: the native helper cannot be built (the Python twin is used)")
    make_skill(scripts={"ok.sh": "echo ok\n"})
    monkeypatch.setenv("SKILLDECK_CACHE_DIR", str(tmp_path / "cache"))

    def helper_of_a_fresh_process() -> str:
        argv = [sys.executable, "-c", _HELPER_OF_A_RUN, str(world)]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert helper_of_a_fresh_process() == "ok native"  # built into the cache folder
    (binary,) = [p for p in (tmp_path / "cache" / "exec").glob("helper-*") if p.suffix != ".mac"]
    binary.chmod(0o700)  # skilldeck keeps it read-only; an attacker with the folder need not
    binary.write_text("#!/bin/sh\nexit 3\n")  # present and executable, but not the helper
    # not what skilldeck built (its MAC differs): rebuilt, never run
    assert helper_of_a_fresh_process() == "ok native"
    assert binary.read_bytes()[:4] == b"\x7fELF"


def test_a_cache_folder_that_cannot_be_written_falls_back_to_python(
    make_skill: MakeSkill, world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a read-only or broken home (HOME=/nonexistent for a service user): the run still
    # works with the Python helper instead of failing with "Permission denied"
    if not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler: the native helper is never built")
    make_skill(scripts={"ok.sh": "echo ok\n"})
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("SKILLDECK_CACHE_DIR", str(tmp_path / "a-file" / "cache"))
    argv = [sys.executable, "-c", _HELPER_OF_A_RUN, str(world)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok python"


@pytest.mark.skipif(os.geteuid() != 0, reason="the user switch happens only as root")
def test_status_says_what_a_python_left_as_root_can_touch_without_bubblewrap(
    make_skill: MakeSkill, tmp_path: Path
) -> None:
    # a Python nobody cannot reach (under a 0700 folder, like a pyenv under /root)
    hidden = tmp_path / "locked"
    (hidden / "bin").mkdir(parents=True)
    hidden.chmod(0o700)
    python = hidden / "bin" / "python3"
    shutil.copy2(os.path.realpath(sys.executable), python)
    owned = tmp_path / "root-owned.txt"
    owned.write_text("before\n")
    owned.chmod(0o600)
    cfg = skilldeck.ExecConfig(
        sandbox="auto",
        bwrap_path="/nonexistent/bwrap",
        workdir="skill",
        interpreters=(("python", str(python)),),
        kill_grace=0.5,
    )
    said = skilldeck.execution.execution_status(cfg)
    finding = next(f for f in said.findings if "cannot reach the interpreter" in f.message)
    assert "every file root owns" in finding.message and "approvals" in finding.message
    assert finding.hint is not None and "[execution.interpreters]" in finding.hint
    # and it is true: such a script changes a root-only file
    skill = make_skill(scripts={"w.py": f"open({str(owned)!r}, 'w').write('changed')\n"})
    ex = skilldeck.Executor(cfg, approvals=skilldeck.execution.MemoryApprovalStore())
    result = ex.run_script(skill, "w.py", trust="bundled")
    assert result.isolation["user"].startswith("0 "), result.isolation
    assert owned.read_text() == "changed"


@pytest.mark.parametrize("mode", MODES)
def test_each_run_of_one_executor_resolves_skilldecks_state_anew(
    make_skill: MakeSkill, world: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run resolves skilldeck's own folders once for its plan and launch; the next
    run of the same ``Executor`` resolves them again, so state moved meanwhile (here
    the cache folder, into a folder mounted writable) is caught."""
    skill = make_skill(scripts={"ok.sh": "echo ok\n"})
    shared = world / "shared"
    shared.mkdir()
    shared.chmod(0o755)
    mounts = skilldeck.ExecConfig.from_mapping({"mounts": [f"{shared}:rw"]}).mounts
    runner = executor(sandbox=mode, mounts=mounts)
    assert runner.run_script(skill, "scripts/ok.sh", trust="bundled").output == "ok\n"
    monkeypatch.setenv("SKILLDECK_CACHE_DIR", str(shared / "cache"))
    with pytest.raises(skilldeck.PathNotAllowedError, match="cache folder"):
        runner.run_script(skill, "scripts/ok.sh", trust="bundled")
    monkeypatch.delenv("SKILLDECK_CACHE_DIR")
    assert runner.run_script(skill, "scripts/ok.sh", trust="bundled").output == "ok\n"


def test_output_nested_past_the_json_parser_is_plain_output(make_skill: MakeSkill) -> None:
    # json raised RecursionError on it, and the run failed with an internal error
    script = "print('[' * 5000 + ']' * 5000)\n"
    skill = make_skill(scripts={"deep.py": script})
    result = executor(sandbox="none").run_script(skill, "deep.py", trust="bundled")
    assert result.success and result.parsed is None
    assert result.output.startswith("[[[")
