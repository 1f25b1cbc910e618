"""The real ``skilldeck`` CLI for installing and managing skills, in fresh processes."""

from __future__ import annotations

from pathlib import Path

from tests.dist._helpers import GitRepo, make_skill, run_cli

import skilldeck


def test_install_list_update_verify_remove_round_trip(git_repo: GitRepo, tmp_path: Path) -> None:
    make_skill(git_repo.path, "cli-skill", body="one\n")
    first = git_repo.commit()

    res = run_cli("install", git_repo.url, "--yes")
    assert res.code == 0, res.err
    assert "installed cli-skill" in res.out and first[:12] in res.out

    listed = run_cli("manage", "--json")
    assert listed.code == 0
    [item] = listed.json()["data"]
    assert item["name"] == "cli-skill" and item["commit"] == first

    make_skill(git_repo.path, "cli-skill", body="two\n", files={"extra.md": "x\n"})
    git_repo.commit()
    upd = run_cli("update", "cli-skill")
    assert upd.code == 0, upd.err
    assert "cli-skill: updated" in upd.out and "+ extra.md" in upd.out

    ok = run_cli("verify")
    assert ok.code == 0 and "ok       cli-skill" in ok.out
    folder = Path(skilldeck.dist.list_installed()[0].path)
    (folder / "extra.md").write_text("tampered\n")
    bad = run_cli("verify", "--json")
    assert bad.code == 1
    payload = bad.json()
    assert payload["ok"] is False
    assert payload["data"]["skills"][0]["changes"]["modified"] == ["extra.md"]

    gone = run_cli("remove", "cli-skill")
    assert gone.code == 0 and "removed cli-skill" in gone.out
    assert skilldeck.dist.list_installed() == ()


def test_failures_are_coded_messages_with_hints_and_no_traceback(tmp_path: Path) -> None:
    res = run_cli("install", str(tmp_path / "missing"))
    assert res.code == 1
    assert "error:" in res.err and "[INSTALL_FAILED]" in res.err
    assert "Traceback" not in res.err

    js = run_cli("install", str(tmp_path / "missing"), "--json")
    assert js.code == 1 and js.json()["error"]["code"] == "INSTALL_FAILED"

    unknown = run_cli("remove", "nothing-here")
    assert unknown.code == 1 and "hint:" in unknown.err


def test_usage_errors_exit_2() -> None:
    assert run_cli("install").code == 2
    assert run_cli("install", "x", "--scope", "galaxy").code == 2


def test_a_hostile_archive_through_the_cli(tmp_path: Path) -> None:
    import zipfile

    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("s/SKILL.md", "---\nname: evil\ndescription: x. Use when x.\n---\n")
        zf.writestr("../../escaped.txt", "owned")
    res = run_cli("install", str(archive), "--yes")
    assert res.code == 1 and "Traceback" not in res.err
    assert not (tmp_path.parent / "escaped.txt").exists()
    assert skilldeck.dist.list_installed() == ()


def test_enable_disable_and_export(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "switchable")
    assert run_cli("install", str(src), "--yes").code == 0
    assert run_cli("disable", "switchable").code == 0
    assert not skilldeck.dist.list_installed()[0].enabled
    assert run_cli("enable", "switchable").code == 0
    assert skilldeck.dist.list_installed()[0].enabled

    home = tmp_path / "agent"
    res = run_cli("export", "switchable", "--to", "claude", "--home", str(home))
    assert res.code == 0, res.err
    assert (home / ".claude" / "skills" / "switchable" / "SKILL.md").is_file()


def test_project_scope_through_the_cli(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    src = make_skill(tmp_path / "src", "proj-cli")
    res = run_cli("install", str(src), "--scope", "project", "--yes", cwd=project)
    assert res.code == 0, res.err
    assert (project / ".skilldeck" / "skills" / "proj-cli" / "SKILL.md").is_file()
    listed = run_cli("list", "--format", "json", cwd=project)
    assert listed.code == 0 and "proj-cli" in listed.out
