"""A run's processes are found through the run's own process tree, never the host's.

The launch helper and the runner walk down child lists (``/proc/PID/task/TID/children``)
instead of reading every process of the host; what a run leaves behind is still found
and killed, and the fork cap under bubblewrap counts only the run's own processes.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skilldeck.execution import Limits, probe_sandbox

from .conftest import MODES, MakeSkill, executor

REPO_SRC = Path(__file__).resolve().parents[2] / "src"


def _alive_with(marker: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{name}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmd and state != b"Z":
            found.append(int(name))
    return found


ESCAPE = """\
import os, signal, sys, time
if os.fork() == 0:  # a daemon: a new session, then its own child, then away from both
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "{m}"])
    os._exit(0)
time.sleep(0.3)
print("ok", flush=True)  # before: the kernel kills this program with its helper (PDEATHSIG)
os.kill(os.getppid(), signal.SIGKILL)  # the launch helper, which tracks the run
time.sleep(5)  # never reached in full: killed with the helper
"""

HARNESS = """
import ctypes, json, os, sys, threading
import skilldeck
from types import SimpleNamespace as NS
skill = NS(name="escape", path=sys.argv[1], manifest=NS(timeout=10, network=False,
    read_only=True, always_ask=False, modes=None))
ex = skilldeck.Executor(skilldeck.ExecConfig(sandbox="none", run_as=None),
                        approvals=skilldeck.execution.MemoryApprovalStore())
out = {}
def run():  # from a worker thread, as a server runs it: orphans come to the main thread
    out["result"] = ex.run_script(skill, "escape.py", trust="bundled").to_dict()
worker = threading.Thread(target=run)
worker.start()
worker.join()
me = os.getpid()
print(json.dumps({"output": out["result"]["output"],
                  "children": open(f"/proc/{me}/task/{me}/children").read().split()}))
"""


def test_a_daemon_that_escapes_its_group_and_helper_is_killed(make_skill: MakeSkill) -> None:
    marker = f"4{uuid.uuid4().int % 10**6:06d}"
    skill = make_skill(name="escape", scripts={"escape.py": ESCAPE.format(m=marker)})
    try:
        done = subprocess.run(
            [sys.executable, "-c", HARNESS, str(skill.path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout.strip().splitlines()[-1])
        assert report["output"] == "ok\n"
        assert report["children"] == []  # nothing left to the host, not even a zombie
        assert _alive_with(f"sleep {marker}") == []  # killed, not re-parented to init
    finally:
        for pid in _alive_with(f"sleep {marker}"):
            os.kill(pid, 9)


# ------------------------------------------------------------ the fork cap


DAEMON = """\
import os, time
if os.fork() == 0:  # a daemon: a new session, then its own child, then away from both
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "{m}"])
    os._exit(0)
time.sleep(30)
"""

HELPER_DIES_HARNESS = """
import json, os, sys, threading, time
import skilldeck
from types import SimpleNamespace as NS
skill = NS(name="escape", path=sys.argv[1], manifest=NS(timeout=60, network=False,
    read_only=True, always_ask=False, modes=None))
ex = skilldeck.Executor(skilldeck.ExecConfig(sandbox="strict"),
                        approvals=skilldeck.execution.MemoryApprovalStore())
out = {}
def run():
    out["result"] = ex.run_script(skill, "daemon.py", trust="bundled").to_dict()
worker = threading.Thread(target=run)
worker.start()
want = b"sleep\\0" + sys.argv[2].encode() + b"\\0"
def daemon():
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and open(f"/proc/{name}/cmdline", "rb").read() == want:
                return int(name)
        except OSError:
            pass
    return None
for _ in range(300):
    found = daemon()
    if found is not None:
        break
    time.sleep(0.1)
# the daemon's parent: the launch helper, the namespace's init, to which it was re-parented;
# killed from outside, as the kernel's out-of-memory killer may
status = open(f"/proc/{found}/status").read()
helper = int(status.split("PPid:")[1].split()[0])
os.kill(helper, 9)
worker.join()
me = os.getpid()
print(json.dumps({"children": open(f"/proc/{me}/task/{me}/children").read().split()}))
"""


def test_under_bubblewrap_nothing_outlives_a_helper_killed_from_outside(
    make_skill: MakeSkill,
) -> None:
    """A sandboxed run needs no look for strays: when its helper (the PID namespace's
    init) dies, the kernel kills everything the run started; nothing comes to the host."""
    if not probe_sandbox().available:
        pytest.skip("bubblewrap unavailable")
    marker = f"5{uuid.uuid4().int % 10**6:06d}"
    skill = make_skill(name="escape", scripts={"daemon.py": DAEMON.format(m=marker)})
    try:
        done = subprocess.run(
            [sys.executable, "-c", HELPER_DIES_HARNESS, str(skill.path), marker],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout.strip().splitlines()[-1])
        assert report["children"] == []  # nothing re-parented to the host, not even a zombie
        assert _alive_with(f"sleep {marker}") == []
    finally:
        for pid in _alive_with(f"sleep {marker}"):
            os.kill(pid, 9)


def _other_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.skip("acting as another user needs root")
    try:
        return pwd.getpwnam("skilldeck-test")
    except KeyError:
        pytest.skip("user skilldeck-test does not exist (.ci/run creates it as root)")


@pytest.fixture
def shared() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="skilldeck-tree-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


BOMB_HARNESS = """
import json, os, subprocess, sys
import skilldeck
from types import SimpleNamespace as NS
# the user already runs many processes: a cap counted from the host would be theirs + 32
crowd = [subprocess.Popen(["sleep", "60"]) for _ in range(80)]
skill = NS(name="bomb", path=sys.argv[1], manifest=NS(timeout=20, network=False,
    read_only=True, always_ask=False, modes=None))
ex = skilldeck.Executor(
    skilldeck.ExecConfig(sandbox="strict", limits=skilldeck.execution.Limits(processes=32)),
    approvals=skilldeck.execution.MemoryApprovalStore())
try:
    result = ex.run_script(skill, "bomb.py", trust="bundled")
    print(json.dumps({"output": result.output, "isolation": result.isolation}))
finally:
    for proc in crowd:
        proc.kill()
"""


def test_the_fork_cap_under_bubblewrap_counts_only_the_run(
    make_skill: MakeSkill, shared: Path
) -> None:
    user = _other_user()
    if not probe_sandbox().available:
        pytest.skip("bubblewrap is not available")
    python = "/usr/bin/python3"
    if not os.access(python, os.X_OK) or not sys.version.startswith(
        subprocess.run(
            [python, "-c", "import sys; print(sys.version)"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()[:5]
    ):
        pytest.skip("no /usr/bin/python3 of this version for the second user")
    # forks until the cap stops it, then says how many children started
    bomb = textwrap.dedent(
        """\
        import os, time
        n = 0
        for _ in range(60):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(5)
                os._exit(0)
            n += 1
        print("started", n)
        """
    )
    skill = make_skill(name="bomb", scripts={"bomb.py": bomb})
    import click

    env = {
        "HOME": str(shared),
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": f"{REPO_SRC}:{Path(click.__file__).resolve().parents[1]}",
        "SKILLDECK_CONFIG_DIR": str(shared / "config"),
        "SKILLDECK_DATA_DIR": str(shared / "data"),
        "SKILLDECK_CACHE_DIR": str(shared / "cache"),
    }
    done = subprocess.run(
        [
            shutil.which("runuser") or "/usr/sbin/runuser",
            "-u",
            user.pw_name,
            "--",
            python,
            "-c",
            BOMB_HARNESS,
            str(skill.path),
        ],
        cwd=shared,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert "user" in report["isolation"]["namespaces"]
    started = int(report["output"].split("started ")[1].split()[0])
    # the helper inside, the script and its children share the 32; 80 outside do not count
    assert 20 <= started < 32, report["output"]


SHELL_BOMB = 'n=0; for i in $(seq 60); do sleep 5 & n=$((n+1)); echo "started $n"; done\n'
THREADS = (
    "import threading, time\n"
    "for _ in range(100): threading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
    "print('up', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("native", [True, False], ids=["native", "python"])
def test_the_fork_cap_of_a_run_dropped_from_root_counts_only_the_run(
    make_skill: MakeSkill, mode: str, native: bool
) -> None:
    """Root dropping to a user who already runs processes and threads: the run gets
    its own 32, and neither the user's tasks nor the host's count is read (a count of
    the user's processes from /proc left out the threads, the kernel counts them)."""
    user = _other_user()
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("no /usr/bin/python3 to start the user's threads")
    ids: dict[str, Any] = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    crowd = [subprocess.Popen(["sleep", "60"], **ids) for _ in range(20)]
    busy = subprocess.Popen(
        ["/usr/bin/python3", "-c", THREADS], stdout=subprocess.PIPE, cwd="/", **ids
    )
    try:
        assert busy.stdout is not None and busy.stdout.readline() == b"up\n"
        skill = make_skill(name="bomb", scripts={"bomb.sh": SHELL_BOMB})
        result = executor(
            sandbox=mode,
            limits=Limits(processes=32),
            run_as=(user.pw_uid, user.pw_gid),
            native_helper=native,
        ).run_script(skill, "bomb.sh", trust="bundled")
    finally:
        for proc in [*crowd, busy]:
            proc.kill()
            proc.wait()
        if busy.stdout is not None:
            busy.stdout.close()
    assert result.isolation["user"].startswith(str(user.pw_uid)), result.isolation
    started = int(result.output.split("started ")[-1].split()[0])
    # the shell and its children share the 32; the user's 120 tasks outside do not count
    assert 20 <= started < 32, result.output
