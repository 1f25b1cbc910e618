"""Every SK1xx / SK2xx diagnostic code, triggered by a minimal SKILL.md, at the right place.

The SK3xx lint codes have their own tests in test_lint.py; a meta-test below keeps
this table complete as codes are added.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import skilldeck

D = "description: Does X. Use when Y.\n"

# code -> (SKILL.md content, mode, expected (line, column) or None when not tied to a key)
CONTENT_CASES: dict[str, tuple[str | bytes, str, tuple[int | None, int | None] | None]] = {
    "SK101": ("no frontmatter\n", "lenient", (1, 1)),
    "SK102": ("---\nname: demo\n" + D, "lenient", (1, 1)),
    "SK103": ("---\n---\nbody\n", "lenient", (1, 1)),
    "SK104": ("---\n- a\n- b\n---\n", "lenient", (2, 1)),
    "SK105": ("---\nname: [demo\n" + D + "---\n", "lenient", None),
    "SK106": ("---\nname: demo\n" + D + "x: " + "[" * 100 + "]" * 100 + "\n---\n", "lenient", None),
    "SK107": ("---\nname: demo\n" + D + "x: " + "y" * 70_000 + "\n---\n", "lenient", None),
    "SK108": ("---\nname: demo\nname: demo\n" + D + "---\n", "lenient", (3, 1)),
    "SK109": ("---\nname: demo\nName: demo\n" + D + "---\n", "lenient", (3, 1)),
    "SK110": (
        "---\nname: demo\ndescription: Extract: tables. Use when asked.\n---\n",
        "lenient",
        (3, None),
    ),
    "SK111": (b"---\nname: demo\ndescription: caf\xe9. Use when.\n---\n", "lenient", (3, None)),
    "SK112": ("\n\n---\nname: demo\n" + D + "---\n", "lenient", (1, 1)),
    "SK114": ("---\nname: demo\n" + D + "{a: 1}: x\n---\n", "lenient", (4, 1)),
    "SK202": ("---\n" + D + "---\n", "lenient", None),
    "SK203": ("---\nname: Demo_X\n" + D + "---\n", "lenient", (2, 1)),
    "SK204": ("---\nname: other\n" + D + "---\n", "lenient", (2, 1)),
    "SK205": ("---\nname: démo\n" + D + "---\n", "lenient", (2, 1)),
    "SK206": ("---\nname: demo\n---\n", "lenient", None),
    "SK207": ("---\nname: demo\ndescription: " + "x" * 1025 + "\n---\n", "lenient", (3, 1)),
    "SK208": ("---\nname: demo\n" + D + "compatibility: ''\n---\n", "strict", (4, 1)),
    "SK209": ("---\nname: demo\n" + D + "metadata: [a]\n---\n", "lenient", (4, 1)),
    "SK210": ("---\nname: demo\n" + D + "metadata:\n  n: 1\n---\n", "lenient", (5, 3)),
    "SK211": ("---\nname: demo\n" + D + "allowed-tools: [Read, Bash]\n---\n", "strict", (4, 1)),
    "SK212": ("---\nname: demo\n" + D + "allowed-tools: Read, Bash\n---\n", "lenient", (4, 1)),
    "SK213": ("---\nname: demo\n" + D + "foo: bar\n---\n", "lenient", (4, 1)),
    "SK216": ("---\nname: demo\n" + D + "license: [MIT]\n---\n", "lenient", (4, 1)),
    "SK217": ("---\nname: demo\n" + D + "timeout: forever\n---\n", "lenient", (4, 1)),
    "SK218": ("---\nname: demo\n" + D + "allowed_tools: Read\n---\n", "lenient", (4, 1)),
    "SK219": (
        "---\nname: template-skill\ndescription: Replace with description of the skill.\n---\n",
        "lenient",
        (3, 1),
    ),
}

# Codes about the folder or the file itself, exercised on disk below.
FOLDER_CODES = {"SK113", "SK201", "SK214", "SK215"}


@pytest.mark.parametrize("code", sorted(CONTENT_CASES))
def test_code_is_reported(code: str) -> None:
    text, mode, where = CONTENT_CASES[code]
    parsed = skilldeck.parse_skill_md(text, path="demo/SKILL.md", mode=mode, folder_name="demo")
    found = [d for d in parsed.diagnostics if d.code == code]
    assert found, [d.code for d in parsed.diagnostics]
    diag = found[0]
    assert diag.path == "demo/SKILL.md"
    assert diag.hint, "every diagnostic says how to fix it"
    assert diag.message
    if where is not None:
        line, column = where
        assert diag.line == line
        if column is not None:
            assert diag.column == column
    if mode == "strict":
        assert diag.severity is skilldeck.Severity.ERROR


@pytest.mark.parametrize("code", sorted(CONTENT_CASES))
def test_strict_never_reports_less_than_lenient(code: str) -> None:
    text, _, _ = CONTENT_CASES[code]
    lenient = skilldeck.parse_skill_md(text, folder_name="demo")
    strict = skilldeck.parse_skill_md(text, folder_name="demo", mode="strict")
    if not lenient.ok:
        assert not strict.ok
    lenient_errors = sum(d.is_error for d in lenient.diagnostics)
    assert sum(d.is_error for d in strict.diagnostics) >= min(lenient_errors, 1)


def test_clean_skill_md_has_no_diagnostics() -> None:
    text = "---\nname: demo\n" + D + "license: MIT\nallowed-tools: Read\n---\nbody\n"
    for mode in ("lenient", "strict"):
        parsed = skilldeck.parse_skill_md(text, folder_name="demo", mode=mode)  # type: ignore[arg-type]
        assert parsed.ok and parsed.diagnostics == ()


def _skill(root: Path, name: str = "demo", text: str = "---\nname: demo\n" + D + "---\n") -> Path:
    folder = root / name
    folder.mkdir()
    (folder / "SKILL.md").write_text(text)
    return folder


def _codes(report: skilldeck.ValidationReport) -> list[str]:
    return [d.code for d in report.diagnostics]


def test_sk113_unreadable(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    (folder / "SKILL.md").mkdir(parents=True)
    report = skilldeck.validate_skill(folder)
    assert _codes(report) == ["SK113"]
    assert not report.valid


def test_sk201_no_skill_md(tmp_path: Path) -> None:
    report = skilldeck.validate_skill(tmp_path)
    assert _codes(report) == ["SK201"]
    assert report.skill_md is None


def test_sk214_link_leaving_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("---\nname: demo\n" + D + "---\n")
    folder = tmp_path / "demo"
    folder.mkdir()
    os.symlink(outside, folder / "SKILL.md")
    report = skilldeck.validate_skill(folder)
    assert "SK214" in _codes(report)
    assert not report.valid


def test_link_inside_the_folder_is_fine(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "SKILL.md").rename(folder / "real.md")
    os.symlink("real.md", folder / "SKILL.md")
    assert skilldeck.validate_skill(folder, strict=True).valid


def test_sk215_lowercase_skill_md(tmp_path: Path) -> None:
    folder = _skill(tmp_path)
    (folder / "SKILL.md").rename(folder / "skill.md")
    lenient = skilldeck.validate_skill(folder)
    assert lenient.valid and "SK215" in _codes(lenient)
    strict = skilldeck.validate_skill(folder, strict=True)
    assert not strict.valid and "SK215" in _codes(strict)


def test_every_format_code_has_a_test() -> None:
    registered = {c for c in skilldeck.CODES if c[:3] in ("SK1", "SK2")}
    covered = set(CONTENT_CASES) | FOLDER_CODES
    assert registered == covered, (
        f"untested: {sorted(registered - covered)}; unknown: {sorted(covered - registered)}"
    )
