"""A recursive root with translated copies: the original wins, and why/doctor say so."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from skilldeck import Catalog, SkillStatus
from skilldeck.cli import main


def _skill(folder: Path, description: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: review\ndescription: {description}\n---\nbody\n")


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    # path order puts docs/ first; the translations must not win
    _skill(root / "docs" / "ja-JP" / "skills" / "review", "Japanese copy. Use when reviewing.")
    _skill(root / "docs" / "zh-CN" / "skills" / "review", "Chinese copy. Use when reviewing.")
    _skill(root / "i18n" / "review", "Placeholder: needs translation. Use when reviewing.")
    _skill(root / "skills" / "review", "Reviews code. Use when reviewing.")
    return root


def test_the_copy_outside_translation_folders_wins(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    cat = Catalog.from_roots([root], recursive=True, cache=False)
    visible = cat.get("review")
    assert visible.metadata.path == root / "skills" / "review"
    hidden = [e for e in cat.entries() if e.status is SkillStatus.SHADOWED]
    assert len(hidden) == 3
    assert all("SK509" in {d.code for d in e.diagnostics} for e in hidden)


def test_shallowest_copy_wins_without_translations(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _skill(root / "a" / "b" / "review", "Deep copy. Use when reviewing.")
    _skill(root / "z" / "review", "Shallow copy. Use when reviewing.")
    cat = Catalog.from_roots([root], recursive=True, cache=False)
    assert cat.get("review").metadata.path == root / "z" / "review"


def test_why_and_doctor_report_the_collision(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    runner = CliRunner()
    why = runner.invoke(main, ["why", "review", "--root", str(root), "--recursive"])
    assert str(root / "skills" / "review") in why.output
    assert "ja-JP" in why.output and "not used: " in why.output
    doctor = runner.invoke(main, ["doctor", "--root", str(root), "--recursive"])
    assert "SK509" in doctor.output and "has the same name in the same source" in doctor.output
    data = json.loads(
        runner.invoke(
            main, ["doctor", "--root", str(root), "--recursive", "--format", "json"]
        ).output
    )["data"]
    assert len(data["shadowed"]) == 3
    assert all("same name in the same source" in e["reason"] for e in data["shadowed"])
