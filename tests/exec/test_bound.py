"""Approvals bound to exactly what runs; programs that cannot run; the portable layers; zombies."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import skilldeck
from skilldeck.format import parse_declared_tools

from .conftest import MODES, MakeSkill, executor, needs_bwrap

_TOOL = (
    "### {name}\n\nA tool.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```bash\n{command}\n```\n"
)

# ------------------------------------------------------------ approval dodges


def test_a_hidden_script_added_after_approval_never_runs(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"ok.sh": "echo ok\n"}, read_only=False)
    ex = executor(sandbox="none")
    ex.approvals.grant("demo", skilldeck.skill_digest(skill.path))
    assert ex.run_script(skill, "ok.sh", trust="user").output == "ok\n"
    # code planted after the approval, in a folder the digest leaves out
    planted = skill.path / "scripts" / ".git" / "x.sh"
    planted.parent.mkdir()
    planted.write_text("echo planted\n")
    assert skilldeck.skill_digest(skill.path) == ex.approvals.get("demo").digest  # type: ignore[union-attr]
    for target in ("scripts/.git/x.sh", ".git/x.sh"):
        with pytest.raises(skilldeck.PathNotAllowedError) as info:
            ex.run_script(skill, target, trust="user")
        assert "hidden" in info.value.message
    # nor can a visible script reach it: the run sees only the approved copy
    (skill.path / "scripts" / "ok.sh").write_text("sh scripts/.git/x.sh\n")
    with pytest.raises(skilldeck.ApprovalRequiredError):
        ex.run_script(skill, "ok.sh", trust="user")


@pytest.mark.parametrize("mode", MODES)
def test_a_change_while_the_approver_is_asked_never_runs(make_skill: MakeSkill, mode: str) -> None:
    skill = make_skill(scripts={"run.sh": "echo approved-content\n"}, read_only=False)
    ex = executor(sandbox=mode)
    seen: list[str] = []

    def approver(request: skilldeck.execution.ApprovalRequest) -> bool:
        seen.append(request.digest)
        # the file changes while the person reads the prompt
        (skill.path / "scripts" / "run.sh").write_text("echo swapped-content\n")
        return True

    before = skilldeck.skill_digest(skill.path)
    result = ex.run_script(skill, "run.sh", trust="user", approver=approver)
    assert result.output == "approved-content\n"  # what was approved, not what is there now
    assert seen == [before] and result.isolation["digest"] == before
    # the remembered approval is for the approved content: the new content asks again
    assert ex.approvals.get("demo").digest == before  # type: ignore[union-attr]
    with pytest.raises(skilldeck.ApprovalRequiredError) as info:
        ex.run_script(skill, "run.sh", trust="user")
    assert info.value.to_dict()["reason"] == "changed"


# ------------------------------------------------------------ programs that cannot run


@pytest.mark.parametrize("mode", MODES)
def test_a_program_that_cannot_be_executed_exits_126(
    make_skill: MakeSkill, world: Path, mode: str
) -> None:
    program = world / "not-executable"
    program.write_text("#!/bin/sh\necho hi\n")
    program.chmod(0o644)
    body = _TOOL.format(name="noexec", command=program)
    skill = make_skill()
    (tool,), _ = parse_declared_tools(body)
    result = executor(sandbox=mode).run_tool(skill, tool, {}, trust="bundled")
    assert result.exit_code == 126 and not result.success
    assert "Permission denied" in result.output
    assert result.error == "Command failed with exit code 126 (cannot execute)"


def test_an_unknown_script_lists_the_skills_scripts(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"a.sh": "true\n", "b.py": "pass\n"})
    with pytest.raises(skilldeck.FileNotFoundInSkillError) as info:
        executor(sandbox="none").run_script(skill, "nope.sh", trust="bundled")
    assert "scripts/a.sh, scripts/b.py" in (info.value.hint or "")
    assert "skilldeck run demo scripts/a.sh" in (info.value.hint or "")


# ------------------------------------------------------------ portable layers


def test_portable_layers_run_and_kill_the_group(
    make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SKILLDECK_EXEC_PORTABLE", "1")
    skill = make_skill(
        scripts={"ok.sh": "echo ok; ulimit -n\n", "bg.sh": "sleep 97532 & echo bye\n"}
    )
    slow = make_skill("slow", {"slow.sh": "sleep 97531 & echo started; sleep 60\n"}, timeout=1)
    ex = executor(sandbox="auto")
    result = ex.run_script(skill, "ok.sh", trust="bundled")
    assert result.output == "ok\n1024\n"
    iso = result.isolation
    assert iso["layers"] == "portable" and iso["sandbox"] == "none"
    assert "SKILLDECK_EXEC_PORTABLE" in iso["platform"] and iso["fallback"]
    assert iso["process_tracking"] == "process-group" and iso["no_new_privs"] is False
    with pytest.raises(skilldeck.ScriptTimeoutError):
        ex.run_script(slow, "slow.sh", trust="bundled")
    assert ex.run_script(skill, "bg.sh", trust="bundled").output == "bye\n"
    left = subprocess.run(["pgrep", "-f", "sleep 9753[12]"], capture_output=True, check=False)
    assert left.stdout == b""  # nothing of either run is left behind
    with pytest.raises(skilldeck.SandboxUnavailableError) as info:
        executor(sandbox="strict").run_script(skill, "ok.sh", trust="bundled")
    assert "Linux-only layers" in info.value.message


# ------------------------------------------------------------ no zombies

_HARNESS = textwrap.dedent(
    """
    import ctypes, json, os, sys, time
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # a subreaper: orphans of the runs come here
    import skilldeck
    from types import SimpleNamespace as NS
    skill = NS(name="z", path=sys.argv[1], manifest=NS(timeout=1, network=False,
        read_only=True, always_ask=False, modes=None))
    ex = skilldeck.Executor(skilldeck.ExecConfig(sandbox=sys.argv[2], kill_grace=0.3),
                            approvals=skilldeck.execution.MemoryApprovalStore())
    for script in ("quick.sh", "slow.sh"):
        try:
            ex.run_script(skill, script, trust="bundled")
        except skilldeck.ScriptTimeoutError:
            pass
    time.sleep(0.5)
    orphans = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        orphans.append(pid)
    print(json.dumps({"orphans": orphans, "children":
        open(f"/proc/self/task/{os.getpid()}/children").read().split()}))
    """
)


@pytest.mark.parametrize("mode", MODES)
def test_no_process_is_left_to_be_reaped_by_someone_else(make_skill: MakeSkill, mode: str) -> None:
    skill = make_skill(
        scripts={"quick.sh": "sleep 30 & echo hi\n", "slow.sh": "setsid sleep 30 & sleep 60\n"}
    )
    done = subprocess.run(
        [sys.executable, "-c", _HARNESS, str(skill.path), mode],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith('{"orphans": [], "children": []}'), done.stdout


# ------------------------------------------------------------ network


def _server() -> tuple[socket.socket, int]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(10)

    def serve() -> None:
        try:
            conn, _ = srv.accept()
            conn.sendall(b"pong\n")
            conn.close()
        except OSError:
            pass

    threading.Thread(target=serve, daemon=True).start()
    return srv, srv.getsockname()[1]


@needs_bwrap
def test_network_granted_by_the_host_works_under_bubblewrap(make_skill: MakeSkill) -> None:
    probe = (
        "import socket, sys\n"
        "try:\n"
        "    s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=3)\n"
        "    print(s.recv(10).decode().strip())\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"
    )
    skill = make_skill(scripts={"net.py": probe}, network=True)
    srv, port = _server()
    try:
        granted = executor(sandbox="strict", network=True).run_script(
            skill, "net.py", [str(port)], trust="bundled"
        )
        denied = executor(sandbox="strict").run_script(
            skill, "net.py", [str(port)], trust="bundled"
        )
    finally:
        srv.close()
    assert granted.output == "pong\n", granted.output
    assert (
        granted.isolation["network"] == "allowed" and "net" not in granted.isolation["namespaces"]
    )
    assert granted.isolation["network_requested"] and granted.isolation["network_granted"]
    assert denied.output.startswith("refused")
    assert denied.isolation["network_requested"] and not denied.isolation["network_granted"]


# ------------------------------------------------------------ shims


def _fake_manager(world: Path) -> Path:
    """A version manager shaped like pyenv: a shim that execs `<root>/libexec/pyenv exec`."""
    root = world / "fakeenv"
    real = root / "versions" / "1.0" / "bin"
    real.mkdir(parents=True)
    (real / "greet").write_text('#!/bin/sh\necho real greet "$@"\n')
    (root / "libexec").mkdir()
    (root / "libexec" / "pyenv").write_text(
        f'#!/bin/sh\nif [ "$1" = which ]; then echo {real}/"$2"; exit 0; fi\n'
        f'shift; p="$1"; shift; exec {real}/"$p" "$@"\n'
    )
    (root / "shims").mkdir()
    (root / "shims" / "greet").write_text(
        f'#!/usr/bin/env bash\nprogram="${{0##*/}}"\nexport PYENV_ROOT="{root}"\n'
        f'exec "{root}/libexec/pyenv" exec "$program" "$@"\n'
    )
    for dirpath, _, files in os.walk(root):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o755)
    return root


@pytest.mark.parametrize("mode", MODES)
def test_version_manager_shims_run_the_real_program(
    make_skill: MakeSkill, world: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _fake_manager(world)
    monkeypatch.setenv("PATH", f"{root / 'shims'}:{os.environ['PATH']}")
    body = _TOOL.format(name="greet", command="greet hi")
    (tool,), _ = parse_declared_tools(body)
    result = executor(sandbox=mode).run_tool(make_skill(), tool, {}, trust="bundled")
    assert result.output == "real greet hi\n", result.output
    assert result.isolation["shim"] == str(root / "shims" / "greet")
    assert result.isolation["program"] == str(root / "versions" / "1.0" / "bin" / "greet")


pyenv_shim = Path(os.path.expanduser("~/.pyenv/shims/python3"))


@pytest.mark.skipif(not pyenv_shim.exists(), reason="no pyenv python3 shim on this machine")
@pytest.mark.parametrize("mode", MODES)
def test_a_pyenv_python3_runs_under_every_mode(
    make_skill: MakeSkill, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", f"{pyenv_shim.parent}:{os.environ['PATH']}")
    body = (
        "### py\n\nPython.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n"
        "```bash\npython3 -c \"import sys; print('py', sys.version_info[0])\"\n```\n"
    )
    (tool,), _ = parse_declared_tools(body)
    result = executor(sandbox=mode).run_tool(make_skill(), tool, {}, trust="bundled")
    assert result.output == "py 3\n", result.output
    assert result.isolation["shim"] == str(pyenv_shim)


@needs_bwrap
def test_the_python_helper_is_the_namespace_init_too(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"hi.sh": "echo hi\n", "slow.sh": "sleep 60\n"}, timeout=1)
    ex = executor(sandbox="strict", native_helper=False)
    result = ex.run_script(skill, "hi.sh", trust="bundled")
    assert result.output == "hi\n" and result.isolation["helper"] == "python"
    with pytest.raises(skilldeck.ScriptTimeoutError):
        ex.run_script(skill, "slow.sh", trust="bundled")


def test_verify_reports_a_hidden_script_planted_in_an_installed_skill(tmp_path: Path) -> None:
    source = tmp_path / "src" / "planted"
    (source / "scripts").mkdir(parents=True)
    (source / "SKILL.md").write_text(
        "---\nname: planted\ndescription: A skill for a tamper test. Use in tests.\n---\n\nBody.\n"
    )
    (source / "scripts" / "ok.sh").write_text("echo ok\n")
    result = skilldeck.dist.install(str(source))
    installed = Path(result.skills[0].path)
    assert skilldeck.dist.verify().ok
    planted = installed / "scripts" / ".git" / "x.sh"
    planted.parent.mkdir()
    planted.write_text("echo planted\n")
    (check,) = skilldeck.dist.verify().skills
    assert not check.ok and "scripts/.git" in (check.problem or "")
    # and it cannot run: it is not part of the skill
    catalog = skilldeck.Catalog.default()
    skill = catalog.load("planted")
    with pytest.raises(skilldeck.PathNotAllowedError):
        executor(sandbox="none").run_script(skill, "scripts/.git/x.sh", trust="untrusted")
