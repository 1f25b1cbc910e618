"""Hostile scripts: runaway trees, floods, fork bombs, escapes, exfiltration."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

import skilldeck

from .conftest import MODES, MakeSkill, executor, needs_bwrap


def _proc_table() -> dict[int, tuple[str, str]]:
    """Host PID -> (start time, command line) for every process."""
    out: dict[int, tuple[str, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if fields[0] == b"Z":
            continue
        out[int(name)] = (fields[19].decode(), cmd)
    return out


def _alive(pid: int, start: str) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    fields = stat[stat.rfind(b")") + 2 :].split()
    return fields[19].decode() == start and fields[0] != b"Z"


TREE = """\
trap '' TERM
sleep {m}1 &
sh -c 'trap "" TERM; sleep {m}2 & sleep {m}3; wait' &
setsid sh -c 'sleep {m}4 & sleep {m}5' &
sh -c 'setsid sleep {m}6 &' &
(trap '' TERM; exec sleep {m}7) &
echo started
wait
"""


@pytest.mark.parametrize("mode", MODES)
def test_timeout_kills_the_whole_tree_verified_by_pid(make_skill: MakeSkill, mode: str) -> None:
    marker = f"1{uuid.uuid4().int % 10**6:06d}"  # unique sleep durations
    skill = make_skill(scripts={"tree.sh": TREE.format(m=marker)}, timeout=1)
    seen: dict[int, str] = {}
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            for pid, (start, cmd) in _proc_table().items():
                if f"sleep {marker}" in cmd:
                    seen[pid] = start
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(skilldeck.ScriptTimeoutError) as info:
            executor(sandbox=mode, kill_grace=0.5).run_script(skill, "tree.sh", trust="bundled")
    finally:
        done.set()
        watcher.join()
    elapsed = time.monotonic() - t0
    assert info.value.code == "SCRIPT_TIMEOUT"
    assert info.value.context["output"] == "started\n"
    assert len(seen) >= 7, seen  # every sleep, including the setsid escapers, was observed
    survivors = [pid for pid, start in seen.items() if _alive(pid, start)]
    assert survivors == [], survivors
    assert elapsed < 15, elapsed  # timeout 1 s + grace 0.5 s; slack for a loaded machine
    result = info.value.context["result"]
    assert result.to_dict()["success"] is False and result.isolation


@pytest.mark.parametrize("mode", MODES)
def test_leftover_background_processes_die_with_the_script(
    make_skill: MakeSkill, mode: str
) -> None:
    marker = f"2{uuid.uuid4().int % 10**6:06d}"
    script = f"setsid sleep {marker} & nohup sleep {marker} >/dev/null 2>&1 & echo bye\n"
    skill = make_skill(scripts={"bg.sh": script})
    result = executor(sandbox=mode).run_script(skill, "bg.sh", trust="bundled")
    assert result.success and result.output == "bye\n"
    time.sleep(0.2)
    assert not [p for p, (_, cmd) in _proc_table().items() if f"sleep {marker}" in cmd]


RSS_PROBE = """
import json, resource, sys
from types import SimpleNamespace
import skilldeck
skill = SimpleNamespace(name="flood", path=sys.argv[1], manifest=SimpleNamespace(
    timeout=120, network=False, read_only=True, always_ask=False, modes=None))
ex = skilldeck.Executor(skilldeck.ExecConfig(sandbox=sys.argv[2]),
                        approvals=skilldeck.execution.MemoryApprovalStore())
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
r = ex.run_script(skill, "flood.sh", trust="bundled")
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"before_kb": before, "peak_kb": after, "bytes": r.output_bytes,
                  "truncated": r.truncated, "len": len(r.output), "tail": r.output[-8:]}))
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_gigabyte_of_output_keeps_memory_bounded(
    make_skill: MakeSkill, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = make_skill(
        scripts={"flood.sh": "head -c 1073741824 /dev/zero | tr '\\0' x; echo; echo END\n"}
    )
    # a fresh interpreter, so the peak RSS is the runner's alone
    proc = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, str(skill.path), mode],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    data = json.loads(proc.stdout)
    with capsys.disabled():
        print(
            f"\n[1 GiB flood, {mode}] runner peak RSS {data['peak_kb'] / 1024:.1f} MiB "
            f"(before the run {data['before_kb'] / 1024:.1f} MiB), "
            f"{data['bytes']} bytes streamed, {data['len']} characters kept"
        )
    assert data["bytes"] == 1024**3 + len("\nEND\n")
    assert data["truncated"] and data["tail"] == "xxx\nEND\n"
    assert data["len"] < 4200
    assert data["peak_kb"] - data["before_kb"] < 16 * 1024  # under 16 MiB growth


def _unused_uid() -> int:
    """A uid no process and no account uses, so a run as it counts only its own processes."""
    import pwd

    taken = {st.st_uid for st in _proc_stats()} | {e.pw_uid for e in pwd.getpwall()}
    while True:
        uid = 200_000 + int.from_bytes(os.urandom(3), "big")
        if uid not in taken:
            return uid


def _proc_stats() -> list[os.stat_result]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                out.append(os.stat(f"/proc/{name}"))
            except OSError:
                pass
    return out


@pytest.mark.skipif(os.geteuid() != 0, reason="the process cap binds per user; root drops to one")
@pytest.mark.parametrize("mode", MODES)
def test_fork_bomb_is_contained(make_skill: MakeSkill, mode: str) -> None:
    # the bomb in a subshell (a shell whose own fork fails exits), then a busy loop
    # that needs no fork, so the run lasts until the timeout
    bomb = "(b() { b | b & }; b); while :; do :; done\n"
    name = f"bomb_{uuid.uuid4().hex[:12]}.sh"  # unique: the run uses a snapshot's path
    skill = make_skill(scripts={name: bomb}, timeout=2)
    script = f"/scripts/{name}"
    uid = _unused_uid()

    def count() -> int:
        """Live processes running the bomb (forked shells keep the script's command line)."""
        return sum(script in cmd for cmd in (c for _, c in _proc_table().values()))

    peak = [0]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], count())
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(skilldeck.ScriptTimeoutError) as info:
            executor(
                sandbox=mode,
                kill_grace=0.5,
                limits=skilldeck.execution.Limits(processes=64),
                run_as=(uid, uid),
            ).run_script(skill, name, trust="bundled")
    finally:
        done.set()
        watcher.join()
    assert time.monotonic() - t0 < 20  # timeout 2 s; slack for a loaded machine
    assert "fork" in info.value.context["output"].lower()  # the cap was hit
    # the cap counts the run-as user's processes at launch (none: the uid is the bomb's
    # own) plus 64. With a shared user (nobody) other runs' processes starting or ending
    # meanwhile (other test workers, other checkouts' suites) moved the cap: the bomb
    # grew past any fixed slack, or could not fork at all.
    assert 0 < peak[0] <= 64, peak
    deadline = time.monotonic() + 2
    while count() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert count() == 0


@pytest.mark.parametrize("mode", MODES)
def test_cpu_and_file_size_limits(make_skill: MakeSkill, mode: str) -> None:
    skill = make_skill(
        scripts={
            "big.sh": "head -c 2000000 /dev/zero > $TMPDIR/f; echo rc=$?\n",
            "spin.sh": "while :; do :; done\n",
        }
    )
    limits = skilldeck.execution.Limits(file_size_bytes=1000000, cpu_seconds=1)
    ex = executor(sandbox=mode, limits=limits)
    out = ex.run_script(skill, "big.sh", trust="bundled").output
    assert "rc=0" not in out
    spin = ex.run_script(skill, "spin.sh", trust="bundled")
    assert not spin.success
    assert spin.exit_code in (-24, -9), spin  # SIGXCPU at the soft limit, SIGKILL at the hard
    assert "SIGXCPU" in (spin.error or "") or "SIGKILL" in (spin.error or "")


@needs_bwrap
def test_bubblewrap_denies_writes_outside_the_work_folder(
    make_skill: MakeSkill, world: Path
) -> None:
    outside = world / "outside"
    outside.mkdir(mode=0o777)
    outside.chmod(0o777)
    targets = [outside / "x", Path("/etc/skilldeck-pwned"), Path("/usr/skilldeck-pwned")]
    lines = "".join(f"echo hi > {t} 2>/dev/null && echo WROTE {t}\n" for t in targets)
    lines += "echo hi > $SKILLDECK_SKILL_DIR/planted 2>/dev/null && echo WROTE skill\n"
    lines += "echo ok > ./inside && echo WORK-OK\n"
    lines += 'echo ok > "$TMPDIR/t" && echo TMP-OK\n'
    skill = make_skill(scripts={"w.sh": lines})
    result = executor(sandbox="strict", workdir="temp").run_script(skill, "w.sh", trust="bundled")
    assert "WROTE" not in result.output, result.output
    assert "WORK-OK" in result.output and "TMP-OK" in result.output
    for t in targets:
        assert not t.exists()
    assert not (skill.path / "planted").exists()
    # the skill folder as work folder is read-only too
    ro = executor(sandbox="strict").run_script(skill, "w.sh", trust="bundled")
    assert "WORK-OK" not in ro.output and "TMP-OK" in ro.output


@needs_bwrap
def test_bubblewrap_hides_homes_and_host_secrets(make_skill: MakeSkill) -> None:
    home = Path(os.environ["HOME"])
    (home / "secret.txt").write_text("top-secret")
    (home / "secret.txt").chmod(0o644)
    skill = make_skill(
        scripts={
            "peek.sh": f"cat {home}/secret.txt; ls /root /home; "
            "cat /etc/shadow | head -1; echo done\n"
        }
    )
    result = executor(sandbox="strict").run_script(skill, "peek.sh", trust="bundled")
    assert "top-secret" not in result.output
    assert "Permission denied" in result.output  # /etc/shadow, as an unprivileged user
    assert not [ln for ln in result.output.splitlines() if ln.startswith("root:")]
    assert ".bashrc" not in result.output and ".pyenv" not in result.output
    assert result.output.endswith("done\n")


class _Listener:
    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0

    def drain(self) -> int:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return self.accepted
            self.accepted += 1
            conn.close()


CONNECT = """\
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
    print("CONNECTED")
except OSError as exc:
    print("BLOCKED", exc)
"""


@needs_bwrap
def test_bubblewrap_denies_network_unless_skill_and_host_agree(make_skill: MakeSkill) -> None:
    listener = _Listener()
    try:
        denied_skill = make_skill("netless", scripts={"c.py": CONNECT}, network=True)
        ex = executor(sandbox="strict")  # host grants no network
        result = ex.run_script(denied_skill, "c.py", [str(listener.port)], trust="bundled")
        assert result.output.startswith("BLOCKED"), result.output
        assert result.isolation["network"] == "denied"
        assert listener.drain() == 0

        granted = executor(sandbox="strict", network=True)
        result = granted.run_script(denied_skill, "c.py", [str(listener.port)], trust="bundled")
        assert result.output.startswith("CONNECTED"), result.output
        assert result.isolation["network"] == "allowed"
        assert listener.drain() == 1

        quiet = make_skill("quiet", scripts={"c.py": CONNECT}, network=False)
        result = granted.run_script(quiet, "c.py", [str(listener.port)], trust="bundled")
        assert result.output.startswith("BLOCKED")
        assert listener.drain() == 1
    finally:
        listener.sock.close()


@needs_bwrap
def test_bubblewrap_program_has_no_capabilities(make_skill: MakeSkill) -> None:
    skill = make_skill(
        scripts={"caps.sh": "grep -E '^Cap(Eff|Prm|Bnd|Amb)|NoNewPrivs' /proc/self/status\n"}
    )
    out = executor(sandbox="strict").run_script(skill, "caps.sh", trust="bundled").output
    for line in out.splitlines():
        key, value = line.split(":")
        expected = "1" if key == "NoNewPrivs" else "0000000000000000"
        assert value.strip() == expected, out


@pytest.mark.skipif(os.geteuid() != 0, reason="links differ in owner only when root runs as nobody")
@pytest.mark.parametrize("mode", MODES)
def test_a_link_a_run_left_does_not_expose_its_target_when_typed_later(
    make_skill: MakeSkill, world: Path, tmp_path: Path, mode: str
) -> None:
    # the first run (as nobody) leaves data.csv -> a root-only file in the working folder;
    # a person later passing data.csv must not mount that file nor move the run to root
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE-KEY-MATERIAL\n")
    secret.chmod(0o600)
    work = world / "work"
    work.mkdir()
    work.chmod(0o777)
    plant = f"import os\nos.symlink({str(secret)!r}, 'data.csv')\n"
    read = "import sys\nprint(open(sys.argv[1]).read())\n"
    skill = make_skill(scripts={"plant.py": plant, "read.py": read})
    # a system Python nobody can reach (the test's own may sit under the 0700 /root)
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None:
        pytest.skip("no system python3 in /usr/bin")
    run = executor(
        sandbox=mode,
        workdir=str(work),
        mount_arguments=True,
        interpreters=(("python", python),),
    )
    first = run.run_script(skill, "plant.py", trust="bundled")
    assert first.success, first.output
    assert (work / "data.csv").lstat().st_uid != 0  # made by the run, not by root
    second = run.run_script(skill, "read.py", ["data.csv"], trust="bundled")
    assert "PRIVATE-KEY-MATERIAL" not in second.output
    assert not second.success
    assert second.isolation["user"].startswith("65534")
    assert str(secret) not in " ".join(second.isolation["mounts"])


_SNOOP = """
import os
found = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            if b"sd-marker-7f3a" in f.read():
                found.append(pid)
    except OSError:
        pass
print("found", found)
"""

_HOST = """
import sys
from types import SimpleNamespace
import skilldeck
skill = SimpleNamespace(name="snoop", path=sys.argv[1], manifest=None)
config = skilldeck.ExecConfig(sandbox="none", workdir="skill", kill_grace=0.5)
ex = skilldeck.Executor(config, approvals=skilldeck.execution.MemoryApprovalStore())
result = ex.run_script(skill, "snoop.py", trust="bundled", approver=lambda request: True)
print(result.output.strip())
"""


@pytest.mark.skipif(
    os.geteuid() == 0,
    reason="as root the program runs as nobody or without capabilities: the kernel keeps "
    "it out of skilldeck's /proc entries already",
)
def test_a_script_of_the_same_user_cannot_read_skilldeck_s_environment(
    make_skill: MakeSkill,
) -> None:
    # a host passes a token to skilldeck (an MCP server's env); without bubblewrap the
    # script runs as the same user and could read /proc/<skilldeck>/environ
    skill = make_skill(name="snoop", scripts={"snoop.py": _SNOOP})
    proc = subprocess.run(
        [sys.executable, "-c", _HOST, str(skill.path)],
        env={**os.environ, "GITHUB_TOKEN": "sd-marker-7f3a"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("found []"), proc.stdout


def test_a_writable_mount_through_a_link_to_skilldeck_s_data_is_refused(
    make_skill: MakeSkill, world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # bubblewrap follows the link: mounting it writable would hand the approvals over
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("SKILLDECK_DATA_DIR", str(data))
    link = world / "notes"
    link.symlink_to(data)
    skill = make_skill(scripts={"ok.sh": "echo ok\n"})
    mounts = skilldeck.ExecConfig.from_mapping({"mounts": [f"{link}:rw"]}).mounts
    with pytest.raises(skilldeck.PathNotAllowedError):
        executor(sandbox="none", mounts=mounts).run_script(skill, "ok.sh", trust="bundled")


@pytest.mark.skipif(os.geteuid() != 0, reason="links differ in owner only when root runs as nobody")
@pytest.mark.parametrize("target", ["mount", "workdir"])
def test_a_folder_link_a_run_left_is_refused_as_mount_or_workdir(
    make_skill: MakeSkill, world: Path, tmp_path: Path, target: str
) -> None:
    secret_dir = tmp_path / "keys"
    secret_dir.mkdir()
    work = world / "work"
    work.mkdir()
    work.chmod(0o777)
    skill = make_skill(scripts={"plant.sh": f"ln -s {secret_dir} out\n", "ok.sh": "echo ok\n"})
    first = executor(sandbox="none", workdir=str(work)).run_script(
        skill, "plant.sh", trust="bundled"
    )
    assert first.success, first.output
    link = work / "out"
    assert link.lstat().st_uid != 0, first.isolation  # made by the run (nobody)
    if target == "mount":
        mounts = skilldeck.ExecConfig.from_mapping({"mounts": [f"{link}:rw"]}).mounts
        run = executor(sandbox="none", workdir=str(work), mounts=mounts)
        with pytest.raises(skilldeck.PathNotAllowedError):
            run.run_script(skill, "ok.sh", trust="bundled")
    else:
        with pytest.raises(skilldeck.InvalidArgumentsError):
            executor(sandbox="none", workdir=str(link)).run_script(skill, "ok.sh", trust="bundled")


KILL_THE_SUPERVISOR = """\
import os, signal, subprocess, time
subprocess.Popen(["sleep", "{m}"], start_new_session=True, close_fds=True)
time.sleep(0.3)
os.kill(os.getppid(), signal.SIGKILL)  # the launch helper, which tracks the run
time.sleep(1)
"""


def test_killing_the_launch_helper_does_not_free_the_run_s_processes(
    make_skill: MakeSkill,
) -> None:
    # without bubblewrap the program may run as the helper's own user (the invoking user,
    # or root without capabilities) and can kill it; what it started must still die
    marker = f"3{uuid.uuid4().int % 10**6:06d}"
    skill = make_skill(scripts={"k.py": KILL_THE_SUPERVISOR.format(m=marker)})
    try:
        result = executor(sandbox="none", run_as=None).run_script(skill, "k.py", trust="bundled")
        assert not result.success
        deadline = time.monotonic() + 3
        left = [1]
        while left and time.monotonic() < deadline:
            left = [p for p, (_, cmd) in _proc_table().items() if f"sleep {marker}" in cmd]
            time.sleep(0.1)
        assert left == [], left
    finally:
        for pid, (_, cmd) in _proc_table().items():
            if f"sleep {marker}" in cmd:
                os.kill(pid, 9)
