"""``[install] dir`` of the user's config file: where user-scope installs go."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

from tests.dist._helpers import make_skill, run_cli

import skilldeck


def _user_config(text: str) -> Path:
    path = skilldeck.config.config_path("user")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_installs_lockfile_and_listing_follow_the_configured_folder(tmp_path: Path) -> None:
    target = tmp_path / "my installs"
    _user_config(f'[install]\ndir = "{target}"\nscan = "warn"\n')
    src = tmp_path / "src"
    make_skill(src / "moved-skill", "moved-skill")

    res = run_cli("install", str(src / "moved-skill"), "--yes")
    assert res.code == 0, res.err

    assert (target / "skills" / "moved-skill" / "SKILL.md").is_file()
    lock = json.loads((target / "skills.lock").read_text())
    assert "moved-skill" in json.dumps(lock)
    data_dir = Path(skilldeck.config.config_path("user")).parent.parent / "data"
    assert not (data_dir / "skills" / "moved-skill").exists()
    assert not (target / ".staging").exists() or not any((target / ".staging").iterdir())

    listed = run_cli("list", "--installed", "--json")
    assert listed.code == 0, listed.err
    rows = listed.json()["data"]["skills"]
    [row] = [r for r in rows if r["name"] == "moved-skill"]
    assert row["source"] == "installed"
    assert Path(row["path"]).resolve().is_relative_to(target.resolve())

    assert [i.name for i in skilldeck.dist.list_installed()] == ["moved-skill"]
    gone = run_cli("remove", "moved-skill")
    assert gone.code == 0, gone.err
    assert not (target / "skills" / "moved-skill").exists()


def test_a_relative_dir_is_taken_from_the_config_folder(tmp_path: Path) -> None:
    config = _user_config('[install]\ndir = "installs"\n')
    src = tmp_path / "src"
    make_skill(src / "rel-skill", "rel-skill")
    res = run_cli("install", str(src / "rel-skill"), "--yes", cwd=tmp_path)
    assert res.code == 0, res.err
    assert (config.parent / "installs" / "skills" / "rel-skill" / "SKILL.md").is_file()


def test_a_project_file_cannot_move_installs(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    evil = tmp_path / "chosen-by-the-repository"
    (project / ".skilldeck").mkdir()
    (project / ".skilldeck" / "config.toml").write_text(f'[install]\ndir = "{evil}"\n')
    src = tmp_path / "src"
    make_skill(src / "plain", "plain")

    res = run_cli("install", str(src / "plain"), "--yes", "--scope", "user", cwd=project)
    assert res.code == 0, res.err
    assert not evil.exists()
    [info] = skilldeck.dist.list_installed()
    assert not Path(info.path).resolve().is_relative_to(evil.resolve())


def test_a_bad_value_is_config_invalid_with_the_line(tmp_path: Path) -> None:
    _user_config("[catalog]\nbudget = 100\n\n[install]\ndir = 42\n")
    make_skill(tmp_path / "x", "x")
    for args in (("install", str(tmp_path / "x"), "--yes"), ("list",)):
        res = run_cli(*args, "--json")
        assert res.code == 1, (args, res.out, res.err)
        error = res.json()["error"]
        assert error["code"] == "CONFIG_INVALID", args
        assert "install.dir" in error["message"] and ":5" in error["message"]
        assert error.get("hint")
        assert "Traceback" not in res.err
    data_dir = Path(skilldeck.config.config_path("user")).parent.parent / "data"
    assert not (data_dir / "skills" / "x").exists()


def test_the_install_folder_cannot_be_mounted_writable(tmp_path: Path) -> None:
    target = tmp_path / "inst"
    target.mkdir()
    _user_config(f'[install]\ndir = "{target}"\n')
    res = run_cli(
        "run", "csv-profile", "profile_csv.py", "--yes", "--sandbox", "none",
        "--mount", f"{target}:rw", "--json",
    )  # fmt: skip
    assert res.code != 0
    assert res.json()["error"]["code"] == "PATH_NOT_ALLOWED", res.out


def test_list_shows_the_agents_of_a_skill_installed_in_the_configured_folder(
    tmp_path: Path,
) -> None:
    _user_config(f'[install]\ndir = "{tmp_path / "installs"}"\nscan = "warn"\n')
    src = make_skill(tmp_path / "src", "placed-skill")
    skilldeck.dist.install(str(src), agents=["claude-code"])
    listed = run_cli("list")
    assert listed.code == 0, listed.err
    assert "[agents: claude-code]" in listed.out
    rows = run_cli("list", "--json").json()["data"]["skills"]
    assert [r["agents"] for r in rows if r["name"] == "placed-skill"] == [["claude-code"]]


def test_an_edited_setting_is_seen_at_once_even_when_settled(tmp_path: Path) -> None:
    def installed_roots() -> set[Path]:
        roots = skilldeck.Catalog.default().roots
        return {r.path for r in roots if r.source == "installed"}

    old = time.time() - 3600
    for n, folder in enumerate((tmp_path / "aaaa", tmp_path / "bbbb", tmp_path / "cccc")):
        path = _user_config(f'[install]\ndir = "{folder}"\n')
        os.utime(path, (old + n, old + n))  # settled: the reader may keep it
        assert folder / "skills" in installed_roots()
        assert installed_roots() == installed_roots()  # served again unchanged
    path.unlink()
    assert not any(str(tmp_path) in str(p) for p in installed_roots())
