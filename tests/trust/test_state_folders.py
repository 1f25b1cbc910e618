"""A clone's ``.skilldeck`` is never followed through links, and clean-up acts only on
staging folders this user's skilldeck made, rebuilding every path itself."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.dist._helpers import kill_at

from skilldeck.config import dirs

from .conftest import World, snapshot, write_skill

OLD = 1_000_000_000


def _source(world: World, name: str = "hello") -> Path:
    return write_skill(world.outside.parent / "sources" / name, name)


def _refused(res: object) -> None:
    assert res.code == 1, (res.out, res.err)  # type: ignore[attr-defined]
    assert "[UNSAFE_STATE]" in res.err, res.err  # type: ignore[attr-defined]
    assert "hint:" in res.err  # type: ignore[attr-defined]
    assert "Traceback" not in res.err  # type: ignore[attr-defined]


def test_staging_link_never_deletes_folders_outside(world: World) -> None:
    """``.skilldeck/.staging -> ../..``: install, update, remove and verify stop; nothing goes."""
    (world.upstream / ".skilldeck").mkdir()
    os.symlink("../../other-projects", world.upstream / ".skilldeck" / ".staging")
    world.clone()
    assert (world.repo / ".skilldeck" / ".staging").is_symlink()
    src = _source(world)
    before = snapshot(world.outside)
    for args in (
        ("install", str(src), "--scope", "project", "-y"),
        ("update", "--all", "--scope", "project"),
        ("remove", "hello", "--scope", "project"),
        ("verify", "--scope", "project"),
    ):
        _refused(world.run(*args))
        assert snapshot(world.outside) == before, args
    # The user's own scope is untouched by the hostile clone and still works from inside it.
    ok = world.run("install", str(src), "-y")
    assert ok.code == 0, ok.err
    assert (dirs().installed / "hello" / "SKILL.md").is_file()
    assert snapshot(world.outside) == before


def _plant_intent(world: World, stage: str, old: str, name: str = "stolen") -> Path:
    folder = world.upstream / ".skilldeck" / ".staging" / stage
    folder.mkdir(parents=True)
    entry = {
        "source": {"kind": "local", "url": "/x"},
        "digest": "sha256:" + "0" * 64,
        "files": {},
    }
    ops = [{"op": "install", "name": name, "entry": entry, "old": old, "plugin": {}}]
    (folder / "intent.json").write_text(json.dumps({"ops": ops}), encoding="utf-8")
    return folder


def test_shipped_intent_never_moves_user_folders(world: World) -> None:
    """A shipped intent whose ``old`` is ``~/.ssh``: the folder stays where it is."""
    ssh = world.home / ".ssh"
    _plant_intent(world, "1-0123456789abcdef-0123456789abcdef0123456789abcdef", str(ssh))
    _plant_intent(world, "4242-deadbeef", "../../../../.ssh", name="also-stolen")
    world.clone()
    for planted in (world.repo / ".skilldeck" / ".staging").iterdir():
        os.utime(planted, (OLD, OLD))  # long dead, as far as age can tell
    before = snapshot(world.home)
    src = _source(world)
    res = world.run("install", str(src), "--scope", "project", "-y")
    assert res.code == 0, res.err
    assert world.run("verify", "--scope", "project").code == 0
    assert snapshot(ssh) == snapshot(world.home / ".ssh") and (ssh / "id_ed25519").is_file()
    after = snapshot(world.home)
    assert {k: v for k, v in after.items() if k.startswith(".ssh")} == {
        k: v for k, v in before.items() if k.startswith(".ssh")
    }
    installed = world.repo / ".skilldeck" / "skills"
    assert sorted(p.name for p in installed.iterdir()) == ["hello"]
    # The planted folders are not ours: left exactly as they were.
    staging = world.repo / ".skilldeck" / ".staging"
    assert {p.name for p in staging.iterdir()} >= {
        "1-0123456789abcdef-0123456789abcdef0123456789abcdef",
        "4242-deadbeef",
    }


def test_recovery_rebuilds_paths_even_in_its_own_staging_folders(world: World) -> None:
    """A dead folder with a genuine id whose intent names an outside ``old`` path and a
    hostile name: nothing outside is moved; the folder is removed. A copy whose id has a
    forged MAC is not ours: left exactly as it is."""
    world.clone()
    own = _killed_install(world)
    staging = world.repo / ".skilldeck" / ".staging"
    forged = staging / (own.name[:-1] + ("0" if own.name[-1] != "0" else "1"))
    victim = world.outside / "alpha"
    before = snapshot(world.outside)
    entry = {"source": {"kind": "local", "url": "/x"}, "digest": "sha256:0", "files": {}}
    ops = [
        {"op": "install", "name": "alpha", "entry": entry, "old": str(victim)},
        {"op": "install", "name": "../../other-projects/beta", "entry": entry, "old": "x"},
        {"op": "remove", "name": "/etc"},
    ]
    (own / "intent.json").write_text(json.dumps({"ops": ops}), encoding="utf-8")
    forged.mkdir(mode=0o700)
    (forged / "intent.json").write_text(json.dumps({"ops": ops}), encoding="utf-8")
    for folder in (own, forged):
        os.utime(folder, (OLD, OLD))
    res = world.run("verify", "--scope", "project")
    assert "Traceback" not in res.err, res.err
    assert not own.exists()
    assert sorted(p.name for p in staging.iterdir()) == [forged.name]
    assert snapshot(world.outside) == before
    assert not (world.repo / ".skilldeck" / "skills" / "alpha").exists()


def test_installed_folder_link_never_reaches_global_skills(world: World) -> None:
    """``.skilldeck/skills -> ~/.claude/skills``: project install and remove stop."""
    global_skills = world.home / ".claude" / "skills"
    (world.upstream / ".skilldeck").mkdir()
    os.symlink(global_skills, world.upstream / ".skilldeck" / "skills")
    world.clone()
    before = snapshot(world.home)
    src = _source(world)
    _refused(world.run("install", str(src), "--scope", "project", "-y"))
    _refused(world.run("remove", "mine", "--scope", "project"))
    _refused(world.run("verify", "--scope", "project"))
    assert snapshot(world.home) == before
    assert (global_skills / "mine" / "SKILL.md").is_file()
    # The user's skill keeps user trust; the link does not make it an installed one.
    listed = world.run("list", "--format", "json")
    assert listed.code == 0, listed.err
    sources = {s["name"]: s["source"] for s in json.loads(listed.out)["data"]["skills"]}
    assert sources.get("mine") == "user"


@pytest.mark.parametrize(
    "entry", ["skills.lock", "skills.lock.lock", "config.toml.lock", ".skilldeck"]
)
def test_state_file_links_are_refused(world: World, entry: str) -> None:
    """Lock files, the lockfile or the state folder itself shipped as links: nothing is
    read, truncated or written through them."""
    target = world.home / ".bashrc"
    target.write_text("export PATH=$PATH:~/bin\n", encoding="utf-8")
    if entry == ".skilldeck":
        os.symlink(world.home, world.upstream / ".skilldeck")
    else:
        (world.upstream / ".skilldeck").mkdir()
        os.symlink(target, world.upstream / ".skilldeck" / entry)
    world.clone()
    before = snapshot(world.home)
    src = _source(world)
    _refused(world.run("install", str(src), "--scope", "project", "-y"))
    _refused(world.run("verify", "--scope", "project"))
    if entry in (".skilldeck", "config.toml.lock"):
        _refused(world.run("disable", "regex-check", "--scope", "project"))
    assert snapshot(world.home) == before


def _killed_install(world: World) -> Path:
    """Install into the project and kill skilldeck after the swap, before the lockfile;
    returns the staging folder it leaves behind (named with this user's genuine id)."""
    src = _source(world)
    kill_at(
        "record",
        "install",
        [str(src)],
        world.outside.parent,
        kwargs={"scope": "project"},
        cwd=world.repo,
    )
    (folder,) = (world.repo / ".skilldeck" / ".staging").iterdir()
    return folder


def test_interrupted_install_is_rolled_forward(world: World) -> None:
    """Killed after the swap, before the lockfile: the next command finishes the record."""
    world.clone()
    _killed_install(world)
    staging = world.repo / ".skilldeck" / ".staging"
    res = world.run("verify", "--scope", "project")
    assert res.code == 0, res.err
    assert "hello" in res.out
    assert list(staging.iterdir()) == []
    lock = json.loads((world.repo / ".skilldeck" / "skills.lock").read_text(encoding="utf-8"))
    assert list(lock["skills"]) == ["hello"]
    assert oct((staging).stat().st_mode & 0o777) == oct(0o700)


def test_shipped_lockfile_names_no_paths(world: World) -> None:
    """A project lockfile whose skill names are paths: a coded error, nothing touched."""
    (world.upstream / ".skilldeck").mkdir()
    entry = {"source": {"kind": "local", "url": "/x"}, "digest": "sha256:0", "files": {}}
    lock = {"version": 1, "skills": {"../../other-projects/alpha": entry}}
    (world.upstream / ".skilldeck" / "skills.lock").write_text(json.dumps(lock))
    world.clone()
    before = snapshot(world.outside)
    for args in (("verify", "--scope", "project"), ("update", "--all", "--scope", "project")):
        res = world.run(*args)
        assert res.code == 1 and "[CONFIG_INVALID]" in res.err and "hint:" in res.err, res.err
    res = world.run("remove", "../../other-projects/alpha", "--scope", "project")
    assert res.code == 1 and "Traceback" not in res.err
    assert snapshot(world.outside) == before


def test_shipped_lockfile_cannot_copy_the_users_files_into_the_project(world: World) -> None:
    """A project lockfile naming a folder, archive or git repository on this machine
    outside the project: update refused to read it, unless the user installed it."""
    mine = world.home / ".claude" / "skills" / "mine"
    (world.upstream / ".skilldeck").mkdir()
    entry = {"source": {"kind": "local", "url": str(mine)}, "digest": "sha256:0", "files": {}}
    as_git = {**entry, "source": {"kind": "git", "url": mine.as_uri()}}
    lock = {"version": 1, "skills": {"mine": entry, "mine-too": as_git}}
    (world.upstream / ".skilldeck" / "skills.lock").write_text(json.dumps(lock))
    world.clone()
    res = world.run("update", "--all", "--scope", "project", "--json")
    assert res.code == 1, res.err
    skills = {s["name"]: s for s in json.loads(res.out)["data"]["skills"]}
    for name in ("mine", "mine-too"):
        assert skills[name]["status"] == "failed"
        assert "outside the project" in skills[name]["error"]
    # it copied ~/.claude/skills/mine into the repository's .skilldeck/skills
    assert not (world.repo / ".skilldeck" / "skills" / "mine").exists()
    # the hint works: the user installs it, and from then on it updates
    again = skills["mine"]["error"].split("install it yourself: ", 1)[1].rstrip(")")
    assert world.run(*again.split()[1:]).code == 0
    assert (world.repo / ".skilldeck" / "skills" / "mine" / "SKILL.md").is_file()
    res = world.run("update", "mine", "--scope", "project")
    assert res.code == 0 and "mine: unchanged" in res.out, res.err
