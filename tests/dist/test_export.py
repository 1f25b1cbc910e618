"""Exporting skills into other agents' folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.dist._helpers import make_skill, run_cli, tree_files

import skilldeck


def test_export_by_name_and_by_path_into_an_isolated_home(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "exported", files={"scripts/run.sh": "#!/bin/sh\n"})
    os.chmod(src / "scripts" / "run.sh", 0o755)
    skilldeck.dist.install(str(src))
    other = make_skill(tmp_path / "other", "by-path")
    home = tmp_path / "agent-home"
    events: list[object] = []
    result = skilldeck.dist.export_skills(
        ["exported", other], "claude", home=home, events=events.append
    )
    target = home / ".claude" / "skills"
    assert Path(result.skills_dir) == target
    assert result.names == ("exported", "by-path")
    assert tree_files(target / "exported") == tree_files(src)
    assert os.stat(target / "exported" / "scripts" / "run.sh").st_mode & 0o111
    assert [type(e).__name__ for e in events] == ["SkillsInstalled"]
    # again: identical copies are left alone
    again = skilldeck.dist.export_skills(["exported"], "claude", home=home)
    assert [s.status for s in again.skills] == ["unchanged"]


def test_a_different_copy_is_kept_unless_forced(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "kept", body="one\n")
    home = tmp_path / "home2"
    skilldeck.dist.export_skills([src], "universal", home=home)
    make_skill(src, "kept", body="two\n")
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.export_skills([src], "universal", home=home)
    assert "--force" in (info.value.hint or "")
    copy = home / ".config" / "agents" / "skills" / "kept" / "SKILL.md"
    assert "one" in copy.read_text()
    replaced = skilldeck.dist.export_skills([src], "universal", home=home, force=True)
    assert [s.status for s in replaced.skills] == ["replaced"]
    assert "two" in copy.read_text()
    leftovers = [p.name for p in copy.parent.parent.iterdir() if p.name != "kept"]
    assert leftovers == []


def test_an_invalid_skill_stops_the_export_before_anything_is_copied(tmp_path: Path) -> None:
    good = make_skill(tmp_path / "good", "good")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: Bad!\n---\n")
    target = tmp_path / "out"
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.export_skills([good, bad], target)
    assert not (target / "good").exists()


def test_a_link_leaving_the_skill_is_left_out_on_export(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "leaky")
    (src / "leak").symlink_to("/etc/passwd")
    (src / ".env").write_text("TOKEN=1\n")
    skilldeck.dist.export_skills([src], tmp_path / "out")
    out = tmp_path / "out" / "leaky"
    assert (out / "SKILL.md").is_file()
    assert not os.path.lexists(out / "leak") and not os.path.lexists(out / ".env")


def test_unknown_names_are_a_coded_error(tmp_path: Path) -> None:
    with pytest.raises(skilldeck.SkillNotFoundError):
        skilldeck.dist.export_skills(["no-such-skill"], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_export_target_for_scopes(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    assert skilldeck.dist.export_target("claude") == Path.home() / ".claude" / "skills"
    assert skilldeck.dist.export_target("agents", scope="project", cwd=project) == (
        project / ".agents" / "skills"
    )
    assert skilldeck.dist.export_target(tmp_path / "x") == tmp_path / "x"


def test_a_target_that_cannot_be_a_folder_is_a_coded_error(tmp_path: Path) -> None:
    make_skill(tmp_path / "src" / "one", "one")
    (tmp_path / "taken").write_text("a file\n")
    os.mkfifo(tmp_path / "pipe")
    for target in ("./taken", "./taken/skills", "./pipe"):
        res = run_cli("export", "./src/one", "--to", target, "--json", cwd=tmp_path)
        assert res.code == 1, (target, res.out, res.err)  # an OSError escaped: exit 2, no JSON
        assert res.json()["error"]["code"] == "INSTALL_FAILED"
    assert (tmp_path / "taken").read_text() == "a file\n"
