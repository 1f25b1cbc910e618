"""Update, remove, enable/disable, verify and the lockfile's digests."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from tests.dist._helpers import make_skill

import skilldeck


def _lockfile() -> Path:
    return Path(os.environ["SKILLDECK_HOME"]) / "data" / "skills.lock"


def test_the_lockfile_pins_every_file_by_digest(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "pinned", files={"scripts/x.py": "x = 1\n"})
    result = skilldeck.dist.install(str(src))
    entry = json.loads(_lockfile().read_text())["skills"]["pinned"]
    folder = Path(result.skills[0].path)
    for rel, digest in entry["files"].items():
        assert digest == "sha256:" + hashlib.sha256((folder / rel).read_bytes()).hexdigest()
    assert sorted(entry["files"]) == ["SKILL.md", "scripts/x.py"]
    assert entry["digest"] == result.skills[0].digest == skilldeck.skill_digest(folder)
    assert entry["source"]["kind"] == "local"


def test_verify_names_modified_added_removed_and_stray_files(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "watched", files={"a.txt": "a\n", "b.txt": "b\n"})
    folder = Path(skilldeck.dist.install(str(src)).skills[0].path)
    assert skilldeck.dist.verify().ok
    (folder / "a.txt").write_text("tampered\n")
    (folder / "b.txt").unlink()
    (folder / "new.txt").write_text("new\n")
    report = skilldeck.dist.verify()
    check = report.skills[0]
    assert not report.ok and not check.ok
    assert check.changes.modified == ("a.txt",)
    assert check.changes.removed == ("b.txt",)
    assert check.changes.added == ("new.txt",)

    # update restores the tampered copy from its source
    upd = skilldeck.dist.update(["watched"]).skills[0]
    assert upd.status == "updated"
    assert skilldeck.dist.verify().ok

    (folder / "link").symlink_to("/etc/passwd")
    check = skilldeck.dist.verify(["watched"]).skills[0]
    assert not check.ok and "link" in (check.problem or "")
    (folder / "link").unlink()
    assert skilldeck.dist.verify().ok

    # a file no walk lists (outside the digest) is still a sign of tampering
    (folder / "~payload.py").write_text("x = 1\n")
    check = skilldeck.dist.verify(["watched"]).skills[0]
    assert not check.ok and "~payload.py" in (check.problem or "")


def test_verify_reports_a_missing_folder_and_untracked_folders(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "gone")
    folder = Path(skilldeck.dist.install(str(src)).skills[0].path)
    os.rename(folder, folder.parent / "stranger")
    report = skilldeck.dist.verify()
    assert report.skills[0].problem == "folder missing"
    assert report.untracked == ("stranger",)
    with pytest.raises(skilldeck.SkillNotFoundError):
        skilldeck.dist.verify(["nope"])


def test_remove_deletes_folder_lock_entry_and_config_table(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "leaving")
    keep = make_skill(tmp_path / "keep", "staying")
    folder = Path(skilldeck.dist.install(str(src)).skills[0].path)
    skilldeck.dist.install(str(keep))
    config = skilldeck.config.config_path("user")
    assert "[installed.leaving]" in config.read_text()
    events: list[object] = []
    result = skilldeck.dist.remove("leaving", events=events.append)
    assert result.name == "leaving"
    assert not folder.exists()
    assert "leaving" not in json.loads(_lockfile().read_text())["skills"]
    assert "[installed.leaving]" not in config.read_text()
    assert "[installed.staying]" in config.read_text()
    assert [type(e).__name__ for e in events] == ["SkillsRemoved"]
    assert [i.name for i in skilldeck.dist.list_installed()] == ["staying"]
    with pytest.raises(skilldeck.SkillNotFoundError) as info:
        skilldeck.dist.remove("leaving")
    assert "staying" in (info.value.hint or "")


@pytest.mark.parametrize("bad", ["../escape", ".", "..", "a/b", ".staging"])
def test_remove_refuses_names_that_are_not_one_folder(bad: str) -> None:
    with pytest.raises(skilldeck.SkillNotFoundError):
        skilldeck.dist.remove(bad)


@pytest.mark.parametrize(
    "bad", ["../..", "a/b", 'x"\n[execution]\nbwrap = "evil', "a\x1b]0;t\x07", "", "src:"]
)
@pytest.mark.parametrize("enabled", [False, True])
def test_enable_and_disable_refuse_a_name_no_skill_can_have(bad: str, enabled: bool) -> None:
    # each was written into [catalog].disabled, and printed back as it was: a line
    # break or a terminal's escape sequence from the command line into the config file
    config = skilldeck.config.config_path("user")
    with pytest.raises(skilldeck.InvalidArgumentsError, match="is not a skill name") as caught:
        skilldeck.dist.set_skill_enabled(bad, enabled)
    assert str(caught.value).isprintable()
    assert not config.exists()
    assert skilldeck.dist.set_skill_enabled("Odd_Name", enabled) == config  # lenient: usable
    assert skilldeck.dist.set_skill_enabled("project:odd", enabled) == config


def test_disable_and_enable_survive_an_update(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "toggled", body="one\n")
    skilldeck.dist.install(str(src))
    skilldeck.dist.set_skill_enabled("toggled", False)
    assert not skilldeck.dist.list_installed()[0].enabled
    entries = [e for e in skilldeck.Catalog.default().entries() if e.name == "toggled"]
    assert entries and not any(e.visible for e in entries)
    make_skill(src, "toggled", body="two\n")
    assert skilldeck.dist.update(all_skills=True).skills[0].status == "updated"
    assert not skilldeck.dist.list_installed()[0].enabled
    skilldeck.dist.set_skill_enabled("toggled", True)
    assert skilldeck.dist.list_installed()[0].enabled


def test_update_without_names_updates_everything(tmp_path: Path) -> None:
    assert skilldeck.dist.update().skills == ()
    skilldeck.dist.install(str(make_skill(tmp_path / "a", "first")))
    skilldeck.dist.install(str(make_skill(tmp_path / "b", "second")))
    assert [u.name for u in skilldeck.dist.update().skills] == ["first", "second"]


def test_update_of_an_unknown_skill_names_the_installed_ones(tmp_path: Path) -> None:
    skilldeck.dist.install(str(make_skill(tmp_path / "src", "known")))
    with pytest.raises(skilldeck.SkillNotFoundError) as info:
        skilldeck.dist.update(["unknown"])
    assert "known" in (info.value.hint or "")


def test_a_damaged_lockfile_is_a_config_error_and_is_left_alone(tmp_path: Path) -> None:
    skilldeck.dist.install(str(make_skill(tmp_path / "src", "first")))
    _lockfile().write_text("{ not json")
    with pytest.raises(skilldeck.ConfigError):
        skilldeck.dist.install(str(make_skill(tmp_path / "src2", "second")))
    with pytest.raises(skilldeck.ConfigError):
        skilldeck.dist.verify()
    assert _lockfile().read_text() == "{ not json"


def test_a_lockfile_entry_pointing_outside_is_refused(tmp_path: Path) -> None:
    skilldeck.dist.install(str(make_skill(tmp_path / "src", "first")))
    data = json.loads(_lockfile().read_text())
    data["skills"]["../../evil"] = data["skills"]["first"]
    _lockfile().write_text(json.dumps(data))
    with pytest.raises(skilldeck.ConfigError, match="not a skill name"):
        skilldeck.dist.update(all_skills=True)
    assert not (tmp_path.parent / "evil").exists()
    assert (Path(os.environ["SKILLDECK_HOME"]) / "data" / "skills" / "first").is_dir()


def test_a_record_in_the_older_plugins_spelling_is_kept_in_step(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "veteran", body="one\n")
    skilldeck.dist.install(str(src))
    config = skilldeck.config.config_path("user")
    # a config file written by an older skilldeck: [plugins.<name>]
    config.write_text(config.read_text().replace("[installed.", "[plugins."))
    assert [i.enabled for i in skilldeck.dist.list_installed()] == [True]
    skilldeck.dist.set_skill_enabled("veteran", False)
    assert "[plugins.veteran]" in config.read_text()
    assert [i.enabled for i in skilldeck.dist.list_installed()] == [False]
    skilldeck.dist.set_skill_enabled("veteran", True)
    config.write_text(config.read_text().replace("enabled = true", "enabled = false"))
    make_skill(src, "veteran", body="two\n")
    assert skilldeck.dist.update(["veteran"]).skills[0].status == "updated"
    text = config.read_text()
    assert "[plugins" not in text and "[installed.veteran]" in text
    assert skilldeck.load_config().installed["veteran"]["enabled"] is False
    config.write_text(config.read_text().replace("[installed.", "[plugins."))
    skilldeck.dist.remove("veteran")
    assert "veteran" not in config.read_text() and "[plugins" not in config.read_text()


@pytest.mark.parametrize("bad", ["~evil", "a\\b", "c:x", "line\nbreak", "%2e%2e"])
def test_state_holds_only_names_a_walk_would_list(tmp_path: Path, bad: str) -> None:
    # the lockfile is state on disk: a name no skill folder may have is damage, and
    # never becomes a path below the install folder
    src = make_skill(tmp_path / "src", "kept")
    skilldeck.dist.install(str(src))
    data = json.loads(_lockfile().read_text())
    data["skills"][bad] = data["skills"].pop("kept")
    _lockfile().write_text(json.dumps(data))
    with pytest.raises(skilldeck.SkillError) as damaged:
        skilldeck.dist.verify()
    assert "damaged lockfile" in damaged.value.message
    with pytest.raises(skilldeck.SkillError) as refused:
        skilldeck.dist.remove(bad)
    assert refused.value.code in ("SKILL_NOT_FOUND", "CONFIG_INVALID")


def test_verify_tells_python_caches_from_planted_compiled_code(tmp_path: Path) -> None:
    """Running an installed script in place writes ``__pycache__``: not tampering. A
    compiled file Python never writes from the skill's sources is: a sourceless
    ``.pyc`` (imported as it is), a cache with no source beside it, an unchecked-hash
    cache (run without looking at the source)."""
    import py_compile
    import subprocess
    import sys

    src = make_skill(tmp_path / "src", "cached", files={"scripts/helper.py": "X = 1\n"})
    folder = Path(skilldeck.dist.install(str(src)).skills[0].path)
    scripts = folder / "scripts"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-c", "import helper"], cwd=scripts, env=env, check=True, timeout=60
    )
    cache = scripts / "__pycache__"
    assert any(cache.iterdir())
    py_compile.compile(
        str(scripts / "helper.py"),
        cfile=str(cache / "helper.checked-1.pyc"),
        invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH,
    )
    assert skilldeck.dist.verify(["cached"]).ok

    def planted(path: Path, mode: py_compile.PycInvalidationMode) -> str | None:
        path.parent.mkdir(exist_ok=True)
        py_compile.compile(str(scripts / "helper.py"), cfile=str(path), invalidation_mode=mode)
        check = skilldeck.dist.verify(["cached"]).skills[0]
        path.unlink()
        assert skilldeck.dist.verify(["cached"]).ok
        return None if check.ok else check.problem

    stamp = py_compile.PycInvalidationMode.TIMESTAMP
    unchecked = py_compile.PycInvalidationMode.UNCHECKED_HASH
    tag = sys.implementation.cache_tag
    for path, mode in [
        (scripts / "other.pyc", stamp),  # sourceless, beside the sources
        (folder / "top.pyo", stamp),
        (cache / f"gone.{tag}.pyc", stamp),  # no gone.py beside it
        (cache / f"helper.{tag}.opt-1.pyc", unchecked),
        (cache / "helper.pyc", stamp),  # not a name Python gives a cache
    ]:
        problem = planted(path, mode)
        assert problem is not None and path.name in problem, path


def test_a_deeply_nested_lockfile_is_a_config_error_and_doctor_says_how_to_fix_it(
    tmp_path: Path,
) -> None:
    from tests.dist._helpers import run_cli

    skilldeck.dist.install(str(make_skill(tmp_path / "src", "first")))
    _lockfile().write_text("[" * 100_000)  # json.loads recursed past the limit: INTERNAL
    with pytest.raises(skilldeck.ConfigError, match="damaged lockfile"):
        skilldeck.dist.verify()
    res = run_cli("doctor", cwd=tmp_path)
    assert res.code == 1 and "INTERNAL" not in res.err
    assert "damaged lockfile" in res.out
    # the hint is the lockfile's own: `skilldeck update` fails on it just the same
    assert "hint: restore it from a backup" in res.out and "skilldeck update" not in res.out
    assert "no problems found" not in res.out


def test_a_link_in_place_of_an_installed_folder_is_named_and_never_read_through(
    tmp_path: Path,
) -> None:
    src = make_skill(tmp_path / "src", "linked")
    folder = Path(skilldeck.dist.install(str(src)).skills[0].path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "private.txt").write_text("not the skill's\n")
    shutil.rmtree(folder)
    folder.symlink_to(elsewhere)
    assert skilldeck.dist.verify().skills[0].problem == "a link in place of the folder"
    # update compared the link's target with the skill: it read every file below it
    (change,) = skilldeck.dist.update(dry_run=True).skills
    assert "private.txt" not in change.changes.removed
    (done,) = skilldeck.dist.update().skills
    assert done.status == "updated" and not folder.is_symlink()
    assert (elsewhere / "private.txt").read_text() == "not the skill's\n"
