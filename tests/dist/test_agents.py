"""Placing installed skills in agents' folders and keeping them in step."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.dist._helpers import make_skill, run_cli

import skilldeck


def _lock() -> dict[str, object]:
    data: dict[str, object] = json.loads(
        (Path(os.environ["SKILLDECK_HOME"]) / "data" / "skills.lock").read_text()
    )
    return data


def test_install_links_each_agent_folder_to_the_one_installed_copy(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "placed", files={"a.txt": "a\n"})
    result = skilldeck.dist.install(str(src), agents=["claude-code", "codex"])
    home = Path.home()
    installed = Path(result.skills[0].path)
    claude = home / ".claude" / "skills" / "placed"
    codex = home / ".codex" / "skills" / "placed"
    assert set(result.skills[0].placed) == {str(claude), str(codex)}
    for link in (claude, codex):
        assert link.is_symlink() and link.resolve() == installed.resolve()
    entry = _lock()["skills"]["placed"]  # type: ignore[index]
    assert entry["placements"] == [  # type: ignore[index]
        {"agent": "claude-code", "mode": "link"},
        {"agent": "codex", "mode": "link"},
    ]
    [info] = skilldeck.dist.list_installed()
    assert info.agents == ("claude-code", "codex")
    assert all(p.problem is None for p in info.placements)
    assert skilldeck.dist.verify().ok


def test_codex_home_and_claude_config_dir_are_honoured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    src = make_skill(tmp_path / "src", "envy")
    result = skilldeck.dist.install(str(src), agents=["codex"])
    assert result.skills[0].placed == (str(tmp_path / "codex-home" / "skills" / "envy"),)


def test_copy_placements_are_refreshed_by_update(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "copied", body="one\n")
    skilldeck.dist.install(str(src), agents=["cursor"], copy=True)
    copy = Path.home() / ".cursor" / "skills" / "copied"
    assert copy.is_dir() and not copy.is_symlink()
    assert "one" in (copy / "SKILL.md").read_text()
    make_skill(src, "copied", body="two\n")
    upd = skilldeck.dist.update(["copied"]).skills[0]
    assert upd.status == "updated" and upd.placed == (str(copy),)
    assert "two" in (copy / "SKILL.md").read_text()
    assert skilldeck.dist.verify().ok


def test_links_follow_an_update_without_being_touched(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "linked", body="one\n")
    skilldeck.dist.install(str(src), agents=["claude-code"])
    link = Path.home() / ".claude" / "skills" / "linked"
    make_skill(src, "linked", body="two\n")
    skilldeck.dist.update(all_skills=True)
    assert link.is_symlink() and "two" in (link / "SKILL.md").read_text()


def test_shared_project_folders_hold_one_placement(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    src = make_skill(tmp_path / "src", "shared")
    result = skilldeck.dist.install(
        str(src), scope="project", cwd=project, agents=["codex", "cursor", "claude-code"]
    )
    assert sorted(result.skills[0].placed) == [
        str(project / ".agents" / "skills" / "shared"),
        str(project / ".claude" / "skills" / "shared"),
    ]
    [info] = skilldeck.dist.list_installed(scope="project", cwd=project)
    assert sorted(p.agents for p in info.placements) == [("claude-code",), ("codex", "cursor")]


def test_remove_takes_the_skill_out_of_every_agent_folder(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "leaving")
    skilldeck.dist.install(str(src), agents=["claude-code", "codex"])
    result = skilldeck.dist.remove("leaving")
    assert len(result.unplaced) == 2
    assert not os.path.lexists(Path.home() / ".claude" / "skills" / "leaving")
    assert not os.path.lexists(Path.home() / ".codex" / "skills" / "leaving")


def test_remove_leaves_a_folder_that_is_no_longer_skilldecks(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "edited")
    skilldeck.dist.install(str(src), agents=["cursor"], copy=True)
    copy = Path.home() / ".cursor" / "skills" / "edited"
    (copy / "mine.md").write_text("the user's own notes\n")
    check = skilldeck.dist.verify().skills[0]
    assert not check.ok and check.placements[0].problem == "differs from the installed copy"
    result = skilldeck.dist.remove("edited")
    assert result.unplaced == () and len(result.kept) == 1
    assert (copy / "mine.md").is_file()


def test_disable_takes_placements_out_and_enable_puts_them_back(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "switch")
    skilldeck.dist.install(str(src), agents=["claude-code"])
    link = Path.home() / ".claude" / "skills" / "switch"
    skilldeck.dist.set_skill_enabled("switch", False)
    assert not os.path.lexists(link)
    assert skilldeck.dist.verify().ok
    skilldeck.dist.set_skill_enabled("switch", True)
    assert link.is_symlink()
    assert skilldeck.dist.verify().ok


def test_verify_reports_drift_and_update_repairs_it(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "drifty")
    skilldeck.dist.install(str(src), agents=["claude-code", "codex"])
    claude = Path.home() / ".claude" / "skills" / "drifty"
    codex = Path.home() / ".codex" / "skills" / "drifty"
    claude.unlink()
    codex.unlink()
    codex.symlink_to(tmp_path / "nowhere")
    problems = {p.path: p.problem for p in skilldeck.dist.verify().skills[0].placements}
    assert problems == {str(claude): "missing", str(codex): "dangling link"}
    res = run_cli("verify")
    assert res.code == 1 and "dangling link" in res.out
    doctor = run_cli("doctor", "--json")
    assert doctor.code == 1
    [drift] = doctor.json()["data"]["installed_drift"]
    assert drift["name"] == "drifty" and "missing" in drift["problem"]
    listed = run_cli("list", "--installed")
    assert "[agents: claude-code, codex]" in listed.out
    skilldeck.dist.update(["drifty"])
    assert skilldeck.dist.verify().ok
    assert claude.is_symlink() and codex.resolve() == claude.resolve()


def test_an_agent_folder_holding_another_skill_stops_the_install(tmp_path: Path) -> None:
    theirs = make_skill(Path.home() / ".claude" / "skills" / "taken", "taken", body="theirs\n")
    src = make_skill(tmp_path / "src", "taken", body="ours\n")
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.install(str(src), agents=["claude-code"])
    assert "--force" in (info.value.hint or "") and "--name" in (info.value.hint or "")
    assert skilldeck.dist.list_installed() == ()
    assert "theirs" in (theirs / "SKILL.md").read_text()
    renamed = skilldeck.dist.install(str(src), agents=["claude-code"], name="taken-too")
    assert renamed.skills[0].placed
    forced = skilldeck.dist.install(str(src), agents=["claude-code"], force=True)
    assert (Path.home() / ".claude" / "skills" / "taken").is_symlink()
    assert forced.names == ("taken",)


def test_unknown_and_project_only_agents(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "agentless")
    with pytest.raises(skilldeck.InstallError, match="unknown agent"):
        skilldeck.dist.install(str(src), agents=["no-such-agent"])
    with pytest.raises(skilldeck.InstallError, match="project only"):
        skilldeck.dist.install(str(src), agents=["eve"])
    with pytest.raises(skilldeck.InstallError, match="found no agent"):
        skilldeck.dist.install(str(src), agents=["*"])
    assert skilldeck.dist.list_installed() == ()
    res = run_cli("install", str(src), "--agent", "no-such-agent", "--yes")
    assert res.code == 2 and "skilldeck agents" in res.err


def test_star_places_in_every_detected_agent(tmp_path: Path) -> None:
    (Path.home() / ".claude").mkdir()
    (Path.home() / ".cursor").mkdir()
    src = make_skill(tmp_path / "src", "everywhere")
    result = skilldeck.dist.install(str(src), agents=["*"])
    assert sorted(result.skills[0].placed) == [
        str(Path.home() / ".claude" / "skills" / "everywhere"),
        str(Path.home() / ".cursor" / "skills" / "everywhere"),
    ]
    res = run_cli("agents", "--detected", "--json")
    assert [a["id"] for a in res.json()["data"]] == ["claude-code", "cursor"]


def test_export_to_agent_ids_and_unknown_ids_create_nothing(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "exported")
    res = run_cli("export", str(src), "--to", "no-such-agent", cwd=tmp_path)
    assert res.code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    res = run_cli("export", str(src), "--to", "codex", "--scope", "project", cwd=project)
    assert res.code == 0, res.err
    assert (project / ".agents" / "skills" / "exported" / "SKILL.md").is_file()
    assert not (project / ".codex").exists()
    res = run_cli("export", str(src), "--to", "cursor", cwd=project)
    assert res.code == 0, res.err
    assert (Path.home() / ".cursor" / "skills" / "exported").is_dir()
    assert not (project / "cursor").exists()
    with pytest.raises(skilldeck.InstallError, match="unknown agent"):
        skilldeck.dist.export_skills([src], "cursr")


def test_verify_finds_compiled_code_planted_in_a_placed_copy(tmp_path: Path) -> None:
    """A copy placed for an agent is where the agent runs scripts in place: a
    sourceless ``.pyc`` there is outside the digest and would be imported."""
    import py_compile

    src = make_skill(tmp_path / "src", "placed", files={"scripts/helper.py": "X = 1\n"})
    skilldeck.dist.install(str(src), agents=["cursor"], copy=True)
    copy = Path.home() / ".cursor" / "skills" / "placed"
    assert skilldeck.dist.verify().ok
    py_compile.compile(str(copy / "scripts" / "helper.py"), cfile=str(copy / "scripts" / "x.pyc"))
    check = skilldeck.dist.verify().skills[0]
    assert not check.ok
    assert check.placements[0].problem == "holds files outside the digest: scripts/x.pyc"
    (copy / "scripts" / "x.pyc").unlink()
    (copy / ".hidden").write_text("x\n")
    assert skilldeck.dist.verify().skills[0].placements[0].problem == (
        "holds files outside the digest: .hidden"
    )


def test_an_agent_folder_that_is_a_file_stops_the_install_before_anything_changes(
    tmp_path: Path,
) -> None:
    src = make_skill(tmp_path / "src", "placed")
    (Path.home() / ".claude").mkdir()
    (Path.home() / ".claude" / "skills").write_text("not a folder\n")
    res = run_cli("install", str(src), "--agent", "claude-code", "--json")
    # mkdir's FileExistsError escaped after the swap: exit 2, no JSON, and the skill
    # installed and recorded with a placement that was never made
    assert res.code == 1, res.err
    assert res.json()["error"]["code"] == "INSTALL_FAILED"
    assert skilldeck.dist.list_installed() == ()
