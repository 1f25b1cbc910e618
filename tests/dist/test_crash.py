"""A real skilldeck process killed with SIGKILL mid-operation leaves the previous state whole.

The process runs the library with a progress callback that, at the named stage
(``checkout``: fetched, not checked out; ``staged``: copied and validated;
``swap``: intent written, nothing moved; ``record``: swapped, lockfile not yet
written), touches a marker file and sleeps; the test kills it there. The next
command (which takes the scope lock) cleans up: the state is then either the
old one or, when the swap had already happened, the new one, never a mix.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from tests.dist._helpers import GitRepo, kill_at, make_skill, tree_files

import skilldeck


def _data() -> Path:
    return Path(os.environ["SKILLDECK_HOME"]) / "data"


def _state() -> tuple[dict[str, str], dict[str, dict[str, bytes]]]:
    """(lockfile digests by name, installed files by skill) after a recovering command."""
    report = skilldeck.dist.verify()  # takes the scope lock: recovers what the kill left
    assert report.ok, report
    assert report.untracked == ()
    lock = (
        json.loads((_data() / "skills.lock").read_text())
        if (_data() / "skills.lock").exists()
        else {"skills": {}}
    )
    digests = {name: e["digest"] for name, e in lock["skills"].items()}
    skills_dir = _data() / "skills"
    files = {p.name: tree_files(p) for p in skills_dir.iterdir()} if skills_dir.is_dir() else {}
    staging = _data() / ".staging"
    assert not staging.exists() or list(staging.iterdir()) == []
    return digests, files


@pytest.mark.parametrize("stage", ["checkout", "staged", "swap"])
def test_a_fresh_install_killed_before_the_swap_installs_nothing(
    stage: str, git_repo: GitRepo, tmp_path: Path
) -> None:
    make_skill(git_repo.path, "fresh")
    git_repo.commit()
    kill_at(stage, "install", [git_repo.url], tmp_path)
    digests, files = _state()
    assert digests == {} and files == {}
    # and the next install works
    assert skilldeck.dist.install(git_repo.url).names == ("fresh",)


def test_a_fresh_install_killed_after_the_swap_is_rolled_forward(
    git_repo: GitRepo, tmp_path: Path
) -> None:
    make_skill(git_repo.path, "forward")
    git_repo.commit()
    kill_at("record", "install", [git_repo.url], tmp_path)
    digests, files = _state()
    assert set(digests) == {"forward"} and set(files) == {"forward"}
    assert [i.name for i in skilldeck.dist.list_installed()] == ["forward"]
    assert (
        "[installed.forward]"
        in (Path(os.environ["SKILLDECK_HOME"]) / "config" / "config.toml").read_text()
    )


@pytest.mark.parametrize("stage", ["checkout", "staged", "swap", "record"])
def test_an_update_killed_anywhere_leaves_one_whole_version(
    stage: str, git_repo: GitRepo, tmp_path: Path
) -> None:
    make_skill(git_repo.path, "versioned", body="old\n", files={"old.txt": "old\n"})
    git_repo.commit()
    skilldeck.dist.install(git_repo.url)
    old_digests, old_files = _state()

    (git_repo.path / "old.txt").unlink()
    make_skill(git_repo.path, "versioned", body="new\n", files={"new.txt": "new\n"})
    git_repo.commit()
    kill_at(stage, "update", [["versioned"]], tmp_path)
    digests, files = _state()
    if stage == "record":
        assert digests != old_digests
        assert sorted(files["versioned"]) == ["SKILL.md", "new.txt"]
    else:
        assert (digests, files) == (old_digests, old_files)
    # a later update completes the work
    skilldeck.dist.update(["versioned"])
    assert sorted(_state()[1]["versioned"]) == ["SKILL.md", "new.txt"]


@pytest.mark.parametrize("stage", ["swap", "record"])
def test_a_forced_reinstall_killed_keeps_the_old_or_the_new_copy(
    stage: str, tmp_path: Path
) -> None:
    src = make_skill(tmp_path / "src", "forced", body="old\n")
    skilldeck.dist.install(str(src))
    old = _state()
    make_skill(src, "forced", body="new\n")
    kill_at(stage, "install", [str(src)], tmp_path, kwargs={"force": True})
    now = _state()
    if stage == "swap":
        assert now == old
    else:
        assert b"new" in now[1]["forced"]["SKILL.md"]


@pytest.mark.parametrize("stage", ["swap", "record"])
def test_a_removal_killed_is_either_undone_or_completed(stage: str, tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "removing")
    skilldeck.dist.install(str(src))
    old = _state()
    kill_at(stage, "remove", ["removing"], tmp_path)
    now = _state()
    if stage == "swap":
        assert now == old
    else:
        assert now == ({}, {})
        assert skilldeck.dist.list_installed() == ()


def test_a_stale_lock_holder_does_not_block_the_next_command(tmp_path: Path) -> None:
    """The kill happens while the scope lock is held (between swap and record)."""
    src = make_skill(tmp_path / "src", "locked")
    kill_at("record", "install", [str(src)], tmp_path)
    started = time.monotonic()
    other = make_skill(tmp_path / "other", "after")
    assert skilldeck.dist.install(str(other)).names == ("after",)
    assert time.monotonic() - started < 30
    assert sorted(_state()[0]) == ["after", "locked"]


def test_an_install_into_agents_killed_after_the_swap_is_put_right_by_update(
    tmp_path: Path,
) -> None:
    """Placements come after the record: a kill there leaves them to `update`."""
    src = make_skill(tmp_path / "src", "placed-late")
    kill_at("record", "install", [str(src)], tmp_path, kwargs={"agents": ["claude-code"]})
    report = skilldeck.dist.verify()  # recovers: the swap had happened, so it is rolled forward
    [check] = report.skills
    assert check.name == "placed-late" and not check.ok
    assert [p.problem for p in check.placements] == ["missing"]
    skilldeck.dist.update()
    assert skilldeck.dist.verify().ok
    assert (Path.home() / ".claude" / "skills" / "placed-late").is_symlink()
