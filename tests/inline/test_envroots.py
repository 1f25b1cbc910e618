"""Skill roots from SKILLDECK_PATH, SKILLS_DIR and CUSTOM_SKILLS_DIR, and their precedence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import skilldeck


def write(root: Path, name: str, marker: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: From {marker}. Use when testing.\n---\n# {marker}\n"
    )
    return folder


def description(name: str) -> str:
    catalog = skilldeck.Catalog.default(cache=False)
    return catalog.get(name).metadata.description


def test_precedence_around_the_config_roots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = Path.cwd()
    write(tmp_path / "shipped" / "group", "shared", "shipped")  # SKILLS_DIR is recursive
    write(cwd / "cfg", "shared", "config")
    (cwd / ".skilldeck").mkdir()
    (cwd / ".skilldeck" / "config.toml").write_text('[catalog]\nroots = ["cfg"]\n')
    monkeypatch.setenv("SKILLS_DIR", str(tmp_path / "shipped"))
    assert description("shared") == "From config. Use when testing."

    write(tmp_path / "p1", "shared", "path-first")
    write(tmp_path / "p2", "shared", "path-second")
    monkeypatch.setenv("SKILLDECK_PATH", os.pathsep.join([str(tmp_path / "p1"), "", "p2"]))
    (cwd / "p2").symlink_to(tmp_path / "p2")  # relative entries start at the cwd
    assert description("shared") == "From path-first. Use when testing."

    write(tmp_path / "workspace" / "skills", "shared", "custom")
    monkeypatch.setenv("AGENT_WORKSPACE_ROOT", str(tmp_path / "workspace"))
    monkeypatch.setenv("CUSTOM_SKILLS_DIR", "skills")
    assert description("shared") == "From custom. Use when testing."
    catalog = skilldeck.Catalog.default(cache=False)
    hidden = [e for e in catalog.entries() if e.name == "shared" and e.status.value == "shadowed"]
    assert len(hidden) == 4  # shipped, config, both SKILLDECK_PATH entries


def test_shipped_skills_rank_below_the_config_and_are_found_recursively(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "shipped" / "deep" / "er", "only-shipped", "shipped")
    monkeypatch.setenv("SKILLS_DIR", str(tmp_path / "shipped"))
    entry = skilldeck.Catalog.default(cache=False).get("only-shipped")
    assert entry.source == "extra"
    assert entry.visible


def test_env_roots_in_the_default_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def extra_roots() -> list[tuple[Path, bool]]:
        catalog = skilldeck.Catalog.default(cache=False, cwd=tmp_path)
        return [(r.path, r.recursive) for r in catalog.roots if r.source == "extra"]

    assert extra_roots() == []
    monkeypatch.setenv("SKILLS_DIR", "shipped")
    monkeypatch.setenv("SKILLDECK_PATH", os.pathsep.join(["/a", "", "b"]))
    monkeypatch.setenv("CUSTOM_SKILLS_DIR", "custom")
    # SKILLS_DIR ranks lowest; SKILLDECK_PATH's first entry wins, so it comes later
    assert extra_roots() == [
        (tmp_path / "shipped", True),
        (tmp_path / "b", False),
        (Path("/a"), False),
        (tmp_path / "custom", True),
    ]
