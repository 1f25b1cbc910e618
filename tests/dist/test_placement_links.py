"""Placements and removals stay in the place they belong to.

A cloned repository may ship ``.claude -> ~/.claude`` or ``.agents/skills ->
~/.agents/skills`` (git stores links). Project-scope placements never follow
such a link into the user's own folders, and ``remove`` deletes only what
skilldeck's records say it placed. Real clones, real links, the real CLI; the
unprivileged cases run as the second user ``skilldeck-test``.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.dist._helpers import GIT_ENV, GitRepo, make_skill, run_cli, tree_files

import skilldeck

REPO_SRC = Path(__file__).resolve().parents[2] / "src"


def _clone(origin: GitRepo, dest: Path) -> Path:
    subprocess.run(
        ["git", "clone", "-q", str(origin.path), str(dest)],
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    return dest


def _hostile_clone(git_repo: GitRepo, tmp_path: Path, links: dict[str, str]) -> Path:
    """A repository whose commit holds ``links`` (path -> link text), cloned."""
    for rel, text in links.items():
        (git_repo.path / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(text, git_repo.path / rel)
    (git_repo.path / "README").write_text("a project\n")
    git_repo.commit("ship links")
    return _clone(git_repo, tmp_path / "clone")


@pytest.mark.parametrize(
    ("link", "agent", "copy"),
    [
        (".claude", "claude-code", False),
        (".claude", "claude-code", True),
        (".agents/skills", "codex", True),
        (".agents/skills", "codex", False),
    ],
)
def test_project_install_never_writes_through_a_cloned_link(
    git_repo: GitRepo, tmp_path: Path, link: str, agent: str, copy: bool
) -> None:
    home = Path.home()
    user_dir = home / link  # ~/.claude or ~/.agents/skills
    (user_dir / "skills" if link == ".claude" else user_dir).mkdir(parents=True)
    before = tree_files(home / link.split("/")[0])
    clone = _hostile_clone(git_repo, tmp_path, {link: str(user_dir)})
    src = make_skill(tmp_path / "src", "intruder")
    args = ["install", str(src), "--scope", "project", "--agent", agent, "--json"]
    got = run_cli(*args, *(["--copy"] if copy else []), *(["--force"] if copy else []), cwd=clone)
    assert got.code == 1, got.out
    error = got.json()["error"]
    assert error["code"] == "UNSAFE_STATE"
    assert "symbolic link" in error["message"] and link.split("/")[0] in error["message"]
    assert tree_files(home / link.split("/")[0]) == before  # nothing reached the user's folders
    assert not (clone / ".skilldeck" / "skills" / "intruder").exists()  # nothing half-done


def test_project_links_are_relative_and_survive_a_move(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    src = make_skill(tmp_path / "src", "rel")
    skilldeck.dist.install(str(src), scope="project", cwd=project, agents=["claude-code"])
    link = project / ".claude" / "skills" / "rel"
    assert os.readlink(link) == "../../.skilldeck/skills/rel"
    moved = tmp_path / "elsewhere"
    project.rename(moved)
    assert (moved / ".claude" / "skills" / "rel" / "SKILL.md").is_file()
    assert skilldeck.dist.verify(scope="project", cwd=moved).ok


def test_update_rewrites_an_absolute_project_link_of_an_older_version(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    src = make_skill(tmp_path / "src", "old-link")
    skilldeck.dist.install(str(src), scope="project", cwd=project, agents=["claude-code"])
    link = project / ".claude" / "skills" / "old-link"
    link.unlink()
    os.symlink(project / ".skilldeck" / "skills" / "old-link", link)  # as older versions did
    upd = skilldeck.dist.update(scope="project", cwd=project).skills[0]
    assert upd.repaired == (str(link),)
    assert os.readlink(link) == "../../.skilldeck/skills/old-link"


def test_remove_through_a_link_the_project_now_holds_keeps_the_users_skill(
    tmp_path: Path,
) -> None:
    """The project's ``.claude`` became a link to ``~/.claude`` (a pulled commit); the
    user's own copy of the skill there, byte for byte the same, is not touched."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    src = make_skill(tmp_path / "src", "twin", files={"notes.md": "same\n"})
    skilldeck.dist.install(
        str(src), scope="project", cwd=project, agents=["claude-code"], copy=True
    )
    users = Path.home() / ".claude" / "skills" / "twin"
    shutil.copytree(project / ".claude" / "skills" / "twin", users)
    assert (
        skilldeck.catalog.skill_digest(users)
        == skilldeck.dist.list_installed(cwd=project)[0].digest
    )
    shutil.rmtree(project / ".claude")
    (project / ".claude").symlink_to(Path.home() / ".claude")
    got = run_cli("remove", "twin", "--scope", "project", cwd=project)
    assert got.code == 0, got.err
    assert "kept" in got.err and "symbolic link" in got.err
    assert (users / "notes.md").read_text() == "same\n"
    assert not (project / ".skilldeck" / "skills" / "twin").exists()


def test_a_shipped_lockfile_cannot_make_remove_delete_the_users_skill(
    git_repo: GitRepo, tmp_path: Path
) -> None:
    """The clone ships ``.skilldeck/skills.lock`` naming a copy placement, its own
    ``.skilldeck/skills/twin`` and ``.claude -> ~/.claude``."""
    users = make_skill(Path.home() / ".claude" / "skills" / "twin", "twin")
    digest = skilldeck.catalog.skill_digest(users)
    make_skill(git_repo.path / ".skilldeck" / "skills" / "twin", "twin")
    entry = {
        "source": {"kind": "local", "url": "/nowhere", "skill_path": ""},
        "digest": digest,
        "files": {},
        "placements": [{"agent": "claude-code", "mode": "copy", "ino": users.stat().st_ino}],
    }
    lock = {"version": 1, "skills": {"twin": entry}}
    (git_repo.path / ".skilldeck" / "skills.lock").write_text(json.dumps(lock))
    clone = _hostile_clone(git_repo, tmp_path, {".claude": str(Path.home() / ".claude")})
    got = run_cli("remove", "twin", "--scope", "project", cwd=clone)
    assert got.code == 0, got.err
    assert "kept" in got.err
    assert (users / "SKILL.md").is_file()


def test_remove_leaves_an_identical_copy_it_did_not_place(tmp_path: Path) -> None:
    """The user replaced skilldeck's copy with their own copy of the same files: the
    digest matches, but the folder is not the one skilldeck placed."""
    src = make_skill(tmp_path / "src", "lookalike", files={"a.txt": "a\n"})
    skilldeck.dist.install(str(src), agents=["cursor"], copy=True)
    placed = Path.home() / ".cursor" / "skills" / "lookalike"
    own = placed.with_name("own-copy")
    shutil.copytree(placed, own)  # made while ours exists: another inode
    shutil.rmtree(placed)
    own.rename(placed)
    result = skilldeck.dist.remove("lookalike")
    assert result.unplaced == () and "left alone" in result.kept[0]
    assert (placed / "a.txt").read_text() == "a\n"


def test_remove_deletes_the_copy_it_placed_and_records_it(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "mine")
    skilldeck.dist.install(str(src), agents=["cursor"], copy=True)
    placed = Path.home() / ".cursor" / "skills" / "mine"
    data = json.loads((Path(os.environ["SKILLDECK_HOME"]) / "data" / "skills.lock").read_text())
    [record] = data["skills"]["mine"]["placements"]
    assert record == {"agent": "cursor", "mode": "copy", "ino": placed.stat().st_ino}
    assert skilldeck.dist.remove("mine").unplaced == (str(placed),)
    assert not placed.exists()


def test_project_export_to_an_agent_never_follows_a_cloned_link(
    git_repo: GitRepo, tmp_path: Path
) -> None:
    user_dir = Path.home() / ".agents" / "skills"
    user_dir.mkdir(parents=True)
    clone = _hostile_clone(git_repo, tmp_path, {".agents": str(Path.home() / ".agents")})
    src = make_skill(tmp_path / "src", "exported")
    got = run_cli("export", str(src), "--to", "codex", "--scope", "project", cwd=clone)
    assert got.code == 1 and "[UNSAFE_STATE]" in got.err
    assert list(user_dir.iterdir()) == []


# --- another user --------------------------------------------------------------


def _other_user() -> pwd.struct_passwd:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("acting as another user needs root")
    try:
        return pwd.getpwnam("skilldeck-test")
    except KeyError:
        pytest.skip("user skilldeck-test does not exist (.ci/run creates it as root)")


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder the second user can enter (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="skilldeck-place-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _site_packages() -> str:
    import click

    return str(Path(click.__file__).resolve().parents[1])


def _run_as(
    user: pwd.struct_passwd, home: Path, cwd: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """The CLI as ``user`` with the system Python (the test venv lives in root's home)."""
    python = "/usr/bin/python3"
    if not os.access(python, os.X_OK):
        pytest.skip("no /usr/bin/python3 for the second user")
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "NO_COLOR": "1",
        "PYTHONPATH": f"{REPO_SRC}:{_site_packages()}",
    }
    return subprocess.run(
        [
            shutil.which("runuser") or "/usr/sbin/runuser",
            "-u",
            user.pw_name,
            "--",
            python,
            "-m",
            "skilldeck",
            *args,
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _give(path: Path, user: pwd.struct_passwd) -> None:
    for dirpath, dirnames, filenames in os.walk(path):
        os.chown(dirpath, user.pw_uid, user.pw_gid, follow_symlinks=False)
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), user.pw_uid, user.pw_gid, follow_symlinks=False)


def test_as_another_user_a_cloned_link_is_refused_too(shared_tmp: Path) -> None:
    user = _other_user()
    if sys.version_info[:2] != (3, 11) and not Path("/usr/bin/python3").exists():
        pytest.skip("no system Python")
    home = shared_tmp / "home"
    (home / ".claude" / "skills").mkdir(parents=True)
    project = shared_tmp / "proj"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".claude").symlink_to(home / ".claude")
    make_skill(shared_tmp / "src", "intruder")
    _give(shared_tmp, user)
    got = _run_as(
        user, home, project, "install", str(shared_tmp / "src"), "--scope", "project",
        "--agent", "claude-code", "--json",
    )  # fmt: skip
    assert got.returncode == 1, got.stderr
    assert json.loads(got.stdout)["error"]["code"] == "UNSAFE_STATE"
    assert list((home / ".claude" / "skills").iterdir()) == []
    # the same project without the link works for that user, with a relative link
    (project / ".claude").unlink()
    ok = _run_as(
        user, home, project, "install", str(shared_tmp / "src"), "--scope", "project",
        "--agent", "claude-code",
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    link = project / ".claude" / "skills" / "intruder"
    assert os.readlink(link) == "../../.skilldeck/skills/intruder"
    assert link.lstat().st_uid == user.pw_uid


def test_an_agent_folder_of_another_user_in_the_project_is_refused(tmp_path: Path) -> None:
    user = _other_user()
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    theirs = project / ".claude" / "skills"
    theirs.mkdir(parents=True)
    _give(project / ".claude", user)
    src = make_skill(tmp_path / "src", "guest")
    with pytest.raises(skilldeck.UnsafeStateError, match="another user"):
        skilldeck.dist.install(str(src), scope="project", cwd=project, agents=["claude-code"])
    assert list(theirs.iterdir()) == []
