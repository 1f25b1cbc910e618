"""What a sandboxed run costs: bubblewrap makes no mount that another one covers.

Every mount costs a run CPU (bubblewrap reads the whole mount table for each bind);
these pin, from inside real sandboxes, that no empty folder is mounted over state the
private ``/tmp`` already hides and no fresh working folder gets a mount of its own,
while the program still sees what it saw (its working folder writable, skilldeck's
state out of reach, hidden again where a mount of ``/tmp`` shows the host's).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from skilldeck.execution import parse_mount

from .conftest import MODES, MakeSkill, executor, needs_bwrap


@pytest.fixture
def state_in_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """skilldeck's state folders inside the host's /tmp (as ``SKILLDECK_HOME=/tmp/x``)."""
    base = Path(tempfile.mkdtemp(prefix="skilldeck-state-", dir="/tmp"))
    base.chmod(0o755)
    for sub in ("config", "data", "cache"):
        (base / sub).mkdir()
    monkeypatch.setenv("SKILLDECK_HOME", str(base))
    for var in ("SKILLDECK_CONFIG_DIR", "SKILLDECK_DATA_DIR", "SKILLDECK_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@needs_bwrap
def test_a_sandboxed_run_makes_no_covered_mount(state_in_tmp: Path, make_skill: MakeSkill) -> None:
    secret = state_in_tmp / "data" / "secret.txt"
    secret.write_text("secret")
    secret.chmod(0o644)
    script = """
        import json, os, sys
        try:
            found = open(sys.argv[1]).read()
        except OSError as exc:
            found = type(exc).__name__
        with open("out.txt", "w") as fh:
            fh.write("written")
        with open("/proc/self/mountinfo") as fh:
            points = [line.split()[4] for line in fh]
        print(json.dumps({"secret": found, "cwd": os.getcwd(), "points": points,
                          "read": open("out.txt").read()}))
    """
    skill = make_skill(scripts={"look.py": script})
    for mounts in ((), (parse_mount("/tmp"),)):
        run = executor(sandbox="strict", workdir="temp", mounts=mounts).run_script(
            skill, "scripts/look.py", [str(secret)], approver=lambda request: True
        )
        assert run.success, run.to_dict()
        got = json.loads(run.output)
        assert got["secret"] in ("FileNotFoundError", "PermissionError"), (mounts, got)
        assert got["read"] == "written"
        work = got["cwd"]
        assert work == run.isolation["workdir"]
        assert work not in got["points"]  # shown by the scratch folder's mount
        assert str(Path(work).parent) in got["points"]
        state = [p for p in got["points"] if p.startswith(str(state_in_tmp))]
        if mounts:  # the host's /tmp is shown again: the state is hidden again
            assert str(state_in_tmp / "data") in state, got["points"]
        else:  # the private /tmp hides it: no mount of its own
            assert state == [], got["points"]


@pytest.mark.parametrize("sandbox", MODES)
def test_a_private_home_is_made_only_for_a_run_that_gets_one(
    sandbox: str, make_skill: MakeSkill
) -> None:
    """Each folder costs a run CPU to make and delete (on a journaling disk about
    0.17 ms): the run's scratch folder holds a home only when ``HOME`` points there."""
    script = """
        import json, os
        scratch = os.environ["TMPDIR"]
        print(json.dumps({"inside": sorted(os.listdir(scratch)), "home": os.environ.get("HOME"),
                          "scratch": scratch, "cwd": os.getcwd()}))
    """
    skill = make_skill(scripts={"look.py": script})
    run = executor(sandbox=sandbox, workdir="temp").run_script(
        skill, "scripts/look.py", approver=lambda request: True
    )
    assert run.success, run.to_dict()
    got = json.loads(run.output)
    private = got["home"] == os.path.join(got["scratch"], "home")
    assert got["inside"] == (["home", "work"] if private else ["work"]), got
    assert got["cwd"] == os.path.join(got["scratch"], "work")
    if sandbox == "strict":  # bubblewrap hides the real home
        assert private


def _tree(root: Path, files: list[str]) -> None:
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)


def test_a_runs_folders_are_removed_as_made_and_whatever_was_added(tmp_path: Path) -> None:
    from skilldeck.execution._executor import _remove

    files = ["SKILL.md", "scripts/run.py", "references/a/b/deep.md", "assets/logo.txt"]
    copy = tmp_path / "copy"
    _tree(copy, files)
    _remove(copy, set(files))
    assert not copy.exists()
    # a scratch folder: the working folder holds what the program wrote, no home was made
    scratch = tmp_path / "scratch"
    _tree(scratch, ["work/out/result.json", "tmpfile"])
    _remove(scratch, (), ("work", "home"))
    assert not scratch.exists()
    # a copy the program changed: a file gone, one added
    _tree(copy, [*files, "scripts/new.py"])
    (copy / "assets" / "logo.txt").unlink()
    _remove(copy, set(files))
    assert not copy.exists()


def test_removing_a_runs_folder_follows_no_link_a_program_left(tmp_path: Path) -> None:
    """A program without a sandbox may replace a folder of its copy by a link to another
    folder holding the same names: those files stay, the link goes."""
    from skilldeck.execution._executor import _remove

    outside = tmp_path / "outside"
    _tree(outside, ["run.py", "work/keep.txt"])
    copy = tmp_path / "copy"
    _tree(copy, ["SKILL.md", "scripts/run.py"])
    shutil.rmtree(copy / "scripts")
    (copy / "scripts").symlink_to(outside)
    _remove(copy, {"SKILL.md", "scripts/run.py"})
    assert not os.path.lexists(copy)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "work").symlink_to(outside / "work")
    _remove(scratch, (), ("work", "home"))
    assert not os.path.lexists(scratch)
    assert (outside / "run.py").read_text() == "run.py"
    assert (outside / "work" / "keep.txt").read_text() == "work/keep.txt"


def test_a_process_that_exits_right_after_runs_leaves_none_of_their_folders(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """One thread removes every run's folders (a thread per run cost about 0.1 ms to
    start); a process that exits at once still waits until each is gone, and a child
    forked meanwhile runs and removes its own."""
    skill = make_skill(scripts={"where.py": "import os\nprint(os.environ['TMPDIR'])\n"})
    program = f"""
import os, sys
import skilldeck
skill = skilldeck.Catalog.from_roots([{str(skill.path.parent)!r}]).runnable({skill.name!r})
ex = skilldeck.Executor(skilldeck.ExecConfig(sandbox="none", workdir="temp"),
                        approvals=skilldeck.execution.MemoryApprovalStore())
def run():
    r = ex.run_script(skill, "scripts/where.py", trust="bundled", approver=lambda q: True)
    print(r.isolation["skill_dir"], r.output.strip(), flush=True)
for _ in range(3):
    run()
pid = os.fork()
if pid == 0:
    run()
    sys.exit(0)  # a normal exit (os._exit would skip every exit handler)
run()
os.waitpid(pid, 0)
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    folders = [Path(p) for line in done.stdout.splitlines() for p in line.split()]
    assert len(folders) == 10, done.stdout
    assert [p for p in folders if p.exists()] == []


@pytest.mark.parametrize(
    "path",
    ["/", "/a", "/a/b/c", "//a//b/", "///a/b", "/a/./b", "/a/../b", "/root/.pyenv/versions/3.11.7"],
)
def test_the_folders_bubblewrap_makes_above_a_mount_are_those_pathlib_names(path: str) -> None:
    """The parents made for a mount inside a private folder, found with strings (a
    ``Path`` for each cost a sandboxed run about 0.05 ms): the same as ``Path.parents``."""
    from skilldeck.execution._access import ancestors

    assert ancestors(path) == [str(p) for p in reversed(Path(path).parents)]


def test_the_remover_thread_ends_when_idle(tmp_path: Path, make_skill: MakeSkill) -> None:
    """After the runs' folders are gone the process is one thread again: the catalog's
    parse pool forks only in a process of one thread, so a host that ran a script
    would otherwise list a large catalog without it for the rest of its life."""
    skill = make_skill(scripts={"ok.py": "print('ok')\n"})
    program = f"""
import threading, time
import skilldeck
skill = skilldeck.Catalog.from_roots([{str(skill.path.parent)!r}]).runnable({skill.name!r})
ex = skilldeck.Executor(skilldeck.ExecConfig(sandbox="none"),
                        approvals=skilldeck.execution.MemoryApprovalStore())
for _ in range(3):
    r = ex.run_script(skill, "scripts/ok.py", trust="bundled", approver=lambda q: True)
    assert r.output.strip() == "ok", r
busy = threading.active_count()
deadline = time.monotonic() + 30
while threading.active_count() > 1 and time.monotonic() < deadline:
    time.sleep(0.05)
idle = threading.active_count()
r = ex.run_script(skill, "scripts/ok.py", trust="bundled", approver=lambda q: True)
print(busy, idle, r.output.strip())
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "1", "ok"]
