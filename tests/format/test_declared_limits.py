"""What a declared tool or timeout would do at run time, said before it runs."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

import skilldeck

TOOL = """---
name: demo
description: Runs the build. Use when the user asks to build the project.
{extra}---

### build

Build the project.

#### Command

```bash
{program}
```
"""


def _skill(tmp_path: Path, program: str, extra: str = "") -> Path:
    folder = tmp_path / "demo"
    (folder / "scripts").mkdir(parents=True)
    (folder / "other").mkdir()
    (folder / "other" / "run.sh").write_text("echo other\n")
    (folder / "scripts" / "run.sh").write_text("echo ok\n")
    (folder / "SKILL.md").write_text(TOOL.format(program=program, extra=extra))
    return folder


@pytest.mark.parametrize(
    ("program", "why"),
    [
        ("./other/run.sh", "outside scripts/"),
        ("other/run.sh", "outside scripts/"),
        ("../run.sh", "leaves the skill folder"),
        ("./scripts/missing.sh", "has no scripts/missing.sh"),
        ("./nothing/here.sh", "has no scripts/nothing/here.sh"),
    ],
)
def test_lint_refuses_a_program_the_executor_would_refuse(
    tmp_path: Path, program: str, why: str
) -> None:
    report = skilldeck.lint_skill(_skill(tmp_path, program))
    found = [d for d in report.diagnostics if d.code == "SK420"]
    assert len(found) == 1, report.diagnostics
    assert why in found[0].message and found[0].severity.value == "error"
    assert found[0].line == 6 and found[0].hint and "scripts/" in found[0].hint
    assert not report.valid


@pytest.mark.parametrize("program", ["./scripts/run.sh", "scripts/run.sh", "./run.sh", "git"])
def test_lint_accepts_what_can_run(tmp_path: Path, program: str) -> None:
    report = skilldeck.lint_skill(_skill(tmp_path, program))
    assert [d for d in report.diagnostics if d.code == "SK420"] == []


def test_the_executor_refuses_what_lint_flags(tmp_path: Path) -> None:
    """Lint and the run agree: the same program is refused by both."""
    folder = _skill(tmp_path, "./other/run.sh")
    report = skilldeck.validate_skill(folder)
    skill = SimpleNamespace(name="demo", path=folder, manifest=report.manifest)
    tools, _ = skilldeck.format.parse_declared_tools(report.body or "")
    executor = skilldeck.Executor(skilldeck.ExecConfig(sandbox="none"))
    with pytest.raises(skilldeck.PathNotAllowedError, match="only files under scripts/"):
        executor.run_tool(skill, tools[0], {}, trust="bundled")
    assert folder.is_dir()


@pytest.mark.parametrize(
    ("value", "applied", "says"),
    [
        ("500", 300, "300 applies"),
        ("301", 300, "300 applies"),
        ("120", 120, None),
        ("0", None, "default timeout applies"),
        ("soon", None, "default timeout applies"),
    ],
)
def test_an_out_of_range_timeout_says_what_applies(
    tmp_path: Path, value: str, applied: int | None, says: str | None
) -> None:
    folder = _skill(tmp_path, "./scripts/run.sh", extra=f"timeout: {value}\n")
    parsed = skilldeck.validate_skill(folder)
    assert parsed.manifest is not None and parsed.manifest.timeout == applied
    found = [d for d in parsed.diagnostics if d.code == "SK217"]
    if says is None:
        assert found == []
    else:
        assert len(found) == 1 and says in found[0].message and found[0].line == 4


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: p / "missing", "does not exist"),
        (lambda p: (p / "notes.txt").write_text("x") and p / "notes.txt", "is not a folder"),
        (lambda p: (p / "empty").mkdir() or p / "empty", "no SKILL.md in"),
    ],
)
def test_validate_says_what_the_path_is(tmp_path: Path, make: object, says: str) -> None:
    target = make(tmp_path)  # type: ignore[operator]
    report = skilldeck.validate_skill(target)
    assert [d.code for d in report.diagnostics] == ["SK201"]
    assert says in report.diagnostics[0].message
