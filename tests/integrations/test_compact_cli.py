"""`skilldeck prompt --format compact`: seed 003's manifest for a real catalog."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from skilldeck.cli import main

SEED003 = Path(__file__).resolve().parents[1] / "exec" / "fixtures" / "seed003"


def test_compact_prompt_lists_declared_tools_and_plain_skills(tmp_path: Path) -> None:
    plain = tmp_path / "plain" / "notes"
    plain.mkdir(parents=True)
    (plain / "SKILL.md").write_text(
        "---\nname: notes\ndescription: Take notes. Use when asked to write notes.\n---\nBody\n"
    )
    result = CliRunner().invoke(
        main, ["prompt", "--format", "compact", "--root", str(SEED003), "--root", str(plain.parent)]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("You are a model that can do function calling")
    assert "[Native Tools]" in lines and "[Skills]" in lines
    skills = lines[lines.index("[Skills]") + 1 :]
    assert "- git_status: Show the current git status with short format." in skills
    assert "- notes: Take notes. Use when asked to write notes." in skills
    assert not any(line.startswith("- git:") for line in skills)  # a tool skill lists its tools


def test_compact_prompt_budget_counts_what_it_leaves_out(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["prompt", "--format", "compact", "--root", str(SEED003), "--budget", "400"]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    skills = lines[lines.index("[Skills]") + 1 :]
    assert skills == ["- (5 more not shown: find them with skills_search)"]
    full = CliRunner().invoke(main, ["prompt", "--format", "compact", "--root", str(SEED003)])
    budget = len(full.output) - 60  # a little short of everything
    tight = CliRunner().invoke(
        main, ["prompt", "--format", "compact", "--root", str(SEED003), "--budget", str(budget)]
    )
    listed = tight.output.splitlines()[tight.output.splitlines().index("[Skills]") + 1 :]
    assert 1 <= len([x for x in listed if not x.startswith("- (")]) < 5
    assert len(tight.output) <= budget + 1
    assert "skills_search" in listed[-1]
