"""The bundled skill-authoring skill: spec-valid, lint-clean, and its declared tools work."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import skilldeck

# the skills shipped inside the package
BUNDLED = Path(skilldeck.__file__).parent / "_bundled"
FOLDER = BUNDLED / "skill-authoring"


def test_strict_valid_lint_clean_scan_clean() -> None:
    report = skilldeck.validate_skill(FOLDER, strict=True)
    assert report.valid and report.diagnostics == ()
    lint = skilldeck.lint_skill(FOLDER)
    assert [d.format() for d in lint.diagnostics] == []
    assert skilldeck.scan_skill(FOLDER) == []
    assert sorted(p.name for p in (FOLDER / "references").iterdir()) == [
        "quality-checklist.md",
        "skill-template.md",
    ]


def test_listed_by_the_default_catalog() -> None:
    entry = skilldeck.Catalog.default(cache=False).get("skill-authoring")
    assert entry.source == "bundled"
    assert entry.visible


@pytest.mark.skipif(shutil.which("skilldeck") is None, reason="skilldeck is not on PATH")
def test_declared_tools_validate_and_lint(tmp_path: Path) -> None:
    bad = tmp_path / "Bad_Skill"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: Bad_Skill\ndescription: Does X.\n---\nBody\n")
    catalog = skilldeck.Catalog([skilldeck.Source.of("bundled", "bundled", [BUNDLED])])
    # run as the test user (not nobody) so tmp_path and the venv are reachable
    executor = skilldeck.Executor(skilldeck.ExecConfig(sandbox="none", run_as=None))
    runtime = skilldeck.SkillRuntime(catalog, executor=executor)
    session = runtime.session()
    assert "skill_validate" not in {s.name for s in runtime.tool_specs(session)}
    loaded = runtime.call(session, "skills_load", {"name": "skill-authoring"})
    assert loaded["data"]["tools"] == ["skill_lint", "skill_validate"]
    # bundled and read-only: runs without an approval prompt
    result = runtime.call(session, "skill_validate", {"path": str(bad), "strict": True})
    assert result["ok"], result
    data = result["data"]
    assert data["exit_code"] == 1
    (report,) = data["parsed"]["data"]["skills"]  # the CLI's {ok, error, data} envelope
    assert report["valid"] is False
    assert "SK203" in {d["code"] for d in report["diagnostics"]}
    lint = runtime.call(session, "skill_lint", {"path": str(FOLDER)})
    assert lint["data"]["exit_code"] == 0
    assert lint["data"]["parsed"]["data"]["summary"]["errors"] == 0
