"""Helpers for catalog tests: real skill folders written into tmp_path."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from tests._skills import write_files

MakeSkill = Callable[..., Path]


def write_skill(
    root: Path,
    name: str,
    description: str | None = None,
    *,
    folder: str | None = None,
    body: str = "# Instructions\n\nDo the thing.\n",
    files: Mapping[str, str | bytes] | None = None,
    frontmatter: str = "",
    raw: str | None = None,
) -> Path:
    """Create ``root/<folder or name>/SKILL.md`` (+ files) and return the skill folder."""
    skill = root / (folder or name)
    skill.mkdir(parents=True, exist_ok=True)
    if raw is None:
        desc = description if description is not None else f"Use {name} when testing."
        raw = f"---\nname: {name}\ndescription: {desc}\n{frontmatter}---\n{body}"
    (skill / "SKILL.md").write_text(raw, encoding="utf-8")
    write_files(skill, files)
    return skill


@pytest.fixture
def make_skill() -> MakeSkill:
    return write_skill


def git_init(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path
