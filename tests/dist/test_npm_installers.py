"""skilldeck next to the real ``skills`` and ``openskills`` installers from npm.

CI installs both into a private npm prefix and points ``SKILLDECK_TEST_NPM_BIN``
at its ``bin`` folder; elsewhere they are looked up on PATH, and these tests
skip (with the reason) when node or the packages are missing. Everything runs
offline on local folders, with a private HOME.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.dist._helpers import make_skill, run_cli

import skilldeck

# read at import: the hermetic test environment removes SKILLDECK_* variables
_BIN = os.environ.get("SKILLDECK_TEST_NPM_BIN")


def _tool(name: str) -> str:
    folder = _BIN
    path = shutil.which(name, path=folder) if folder else shutil.which(name)
    if path is None or shutil.which("node") is None:
        pytest.skip(f"the npm package {name!r} (and node) is not installed; .ci/run installs it")
    return path


def _run(tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DO_NOT_TRACK": "1", "DISABLE_TELEMETRY": "1", "CI": "1"}
    proc = subprocess.run(
        [tool, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def _names_listed(project: Path) -> set[str]:
    res = run_cli("list", "--format", "json", cwd=project)
    assert res.code == 0, res.err
    data = res.json()
    return {i["name"] for i in data["skills"] if i["status"] == "enabled"}


def test_what_npx_skills_installs_is_discovered(project: Path, tmp_path: Path) -> None:
    tool = _tool("skills")
    make_skill(tmp_path / "src" / "from-skills", "from-skills")
    make_skill(tmp_path / "src" / "from-skills-global", "from-skills-global")
    _run(
        tool,
        "add",
        str(tmp_path / "src" / "from-skills"),
        "-a",
        "claude-code",
        "-a",
        "codex",
        "-y",
        cwd=project,
    )
    _run(
        tool,
        "add",
        str(tmp_path / "src" / "from-skills-global"),
        "-g",
        "-a",
        "codex",
        "-y",
        cwd=project,
    )
    names = _names_listed(project)
    assert {"from-skills", "from-skills-global"} <= names


def test_what_openskills_installs_is_discovered(project: Path, tmp_path: Path) -> None:
    tool = _tool("openskills")
    make_skill(tmp_path / "src" / "open-universal", "open-universal")
    make_skill(tmp_path / "src" / "open-claude", "open-claude")
    make_skill(tmp_path / "src" / "open-global", "open-global")
    _run(
        tool, "install", str(tmp_path / "src" / "open-universal"), "--universal", "-y", cwd=project
    )
    _run(tool, "install", str(tmp_path / "src" / "open-claude"), "-y", cwd=project)
    _run(tool, "install", str(tmp_path / "src" / "open-global"), "-g", "-y", cwd=project)
    assert (project / ".agent" / "skills" / "open-universal").is_dir()
    names = _names_listed(project)
    assert {"open-universal", "open-claude", "open-global"} <= names


def test_skilldeck_placements_are_listed_updated_and_removed_for_npx_skills(
    project: Path, tmp_path: Path
) -> None:
    tool = _tool("skills")
    src = make_skill(tmp_path / "src" / "deck-skill", "deck-skill", body="one\n")
    res = run_cli(
        "install", str(src), "--agent", "claude-code", "--agent", "codex", "--yes", cwd=project
    )
    assert res.code == 0, res.err

    listed = json.loads(_run(tool, "list", "-g", "--json", cwd=project).stdout)
    [entry] = [e for e in listed if e["name"] == "deck-skill"]
    assert sorted(entry["agents"]) == ["Claude Code", "Codex"]

    make_skill(src, "deck-skill", body="two\n")
    assert run_cli("update", "deck-skill", cwd=project).code == 0
    for agent_dir in (".claude", ".codex"):
        text = (Path.home() / agent_dir / "skills" / "deck-skill" / "SKILL.md").read_text()
        assert "two" in text

    assert run_cli("remove", "deck-skill", cwd=project).code == 0
    listed = json.loads(_run(tool, "list", "-g", "--json", cwd=project).stdout)
    assert [e for e in listed if e["name"] == "deck-skill"] == []
    assert skilldeck.dist.list_installed() == ()


def test_copies_are_listed_and_refreshed_too(project: Path, tmp_path: Path) -> None:
    tool = _tool("skills")
    src = make_skill(tmp_path / "src" / "copied", "copied", body="one\n")
    res = run_cli("install", str(src), "--agent", "cursor", "--copy", "--yes", cwd=project)
    assert res.code == 0, res.err
    listed = json.loads(_run(tool, "list", "-g", "--json", "-a", "cursor", cwd=project).stdout)
    assert [e["name"] for e in listed] == ["copied"]
    make_skill(src, "copied", body="two\n")
    assert run_cli("update", cwd=project).code == 0
    assert "two" in (Path.home() / ".cursor" / "skills" / "copied" / "SKILL.md").read_text()
