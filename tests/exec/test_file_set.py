"""The execution layer takes a skill's files from the one walker and its environment
rules from one place: declared packages, the scripts a hint lists, a build's environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import skilldeck
from skilldeck.execution import packages_report

from .conftest import MakeSkill, executor

DECLARES = """\
# /// script
# dependencies = ["{package}"]
# ///
print("hi")
"""


def _write(folder: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_packages_are_read_from_the_skill_s_file_set_only(
    make_skill: MakeSkill, tmp_path: Path
) -> None:
    skill = make_skill(name="pkgs", scripts={"a.py": DECLARES.format(package="pypdf>=4")})
    _write(
        skill.path,
        {
            "scripts/.hidden/b.py": DECLARES.format(package="hidden-pkg"),
            "scripts/.c.py": DECLARES.format(package="dot-pkg"),
        },
    )
    outside = tmp_path / "outside.py"
    outside.write_text(DECLARES.format(package="outside-pkg"))
    os.symlink(outside, skill.path / "scripts" / "link.py")
    rows = packages_report([("pkgs", skill.path)])["skills"]
    assert [row["requirements"] for row in rows] == [["pypdf>=4"]]


def test_a_missing_script_s_hint_lists_the_file_set_s_scripts(
    make_skill: MakeSkill, tmp_path: Path
) -> None:
    skill = make_skill(name="hints", scripts={"real.sh": "echo hi\n"})
    _write(skill.path, {"scripts/.secret/run.sh": "echo no\n"})
    outside = tmp_path / "away.sh"
    outside.write_text("echo away\n")
    os.symlink(outside, skill.path / "scripts" / "away.sh")
    with pytest.raises(skilldeck.FileNotFoundInSkillError) as info:
        executor(sandbox="none").run_script(skill, "scripts/missing.sh", trust="bundled")
    hint = info.value.hint or ""
    assert "scripts/real.sh" in hint
    assert ".secret" not in hint and "away.sh" not in hint
