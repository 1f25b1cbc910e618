"""InlineSkill, SkillTool, SkillRef and SkillsSection through the public namespace."""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

import skilldeck
from skilldeck import InlineSkill, SkillRef, SkillsSection, SkillTool
from skilldeck.events import ListSink


def skill(name: str = "code-review", **kw: object) -> InlineSkill:
    base: dict[str, object] = {
        "name": name,
        "description": "Code review workflows and checklists for Python projects.",
        "title": "Code Review",
        "template": "# Workflow\n\n1. Check $focus first.\n",
    }
    base.update(kw)
    return InlineSkill(**base)  # type: ignore[arg-type]


def write_skill(root: Path, name: str, body: str = "# Body\n") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} skill. Use when testing.\n---\n{body}"
    )
    return folder


# --- InlineSkill ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("name", "Code_Review", "name"),
        ("name", "-x", "name"),
        ("name", "a" * 65, "name"),
        ("description", "", "description"),
        ("description", "x" * 1025, "description"),
        ("description", "Uses <b>bold</b> tags", "XML"),
        ("title", " ", "title"),
        ("template", "\n", "template"),
        ("metadata", {"n": 1}, "metadata"),
    ],
)
def test_invalid_inline_skills_fail_at_construction(field: str, value: object, needle: str) -> None:
    with pytest.raises(skilldeck.SkillValidationError, match=needle) as info:
        skill(**{field: value})
    assert isinstance(info.value, skilldeck.SkillError)
    assert info.value.code == "INVALID_SKILL"


def test_to_skill_md_is_strict_valid_and_renders_params(tmp_path: Path) -> None:
    s = skill(
        description="Reviews code: security, tests and style. Use when asked to review.",
        template="""
            # Workflow

            1. Check $focus first.
            2. Costs $$5 per ${unit}; $unknown stays.
        """,
        default_params={"focus": "security", "unit": "review"},
        license="MIT",
        metadata={"version": "1.0", "author": "Team"},
    )
    text = s.to_skill_md({"focus": "tests"})
    assert "1. Check tests first." in text
    assert "2. Costs $5 per review; $unknown stays." in text
    assert text.startswith("---\nname: code-review\n")
    folder = tmp_path / "code-review"
    folder.mkdir()
    (folder / "SKILL.md").write_text(text)
    report = skilldeck.validate_skill(folder, strict=True)
    assert report.valid, [d.format() for d in report.diagnostics]
    assert report.manifest is not None
    assert report.manifest.description == s.description
    assert report.manifest.license == "MIT"
    assert dict(report.manifest.metadata) == {"version": "1.0", "author": "Team"}


def test_params_from_a_dataclass_and_enabled_predicate() -> None:
    @dataclass(frozen=True)
    class Review:
        language: str
        focus: str = "tests"

    s = skill(enabled=lambda p: p.language == "python", default_params=Review("python"))
    assert s.is_enabled()
    assert not s.is_enabled(Review("go"))
    assert "Check tests first" in s.to_skill_md()
    assert "Check style first" in s.to_skill_md(Review("python", "style"))


def test_predicate_reading_params_without_params_is_a_coded_error() -> None:
    @dataclass(frozen=True)
    class Review:
        language: str

    s = skill(enabled=lambda p: p.language == "python")
    section = SkillsSection(skills=[s])
    with pytest.raises(skilldeck.InvalidArgumentsError, match="no params were given") as info:
        section.runtime()
    assert info.value.code == "INVALID_ARGUMENTS"
    assert info.value.skill == "code-review" and info.value.field == "params"
    assert info.value.hint and "params=" in info.value.hint
    # with params bound the same section works
    assert section.runtime(Review("python")) is not None
    assert [x.name for x in section.active(Review("go"))] == []


def test_summary_defaults_and_names_the_tools() -> None:
    def lint_code(paths: list[str]) -> dict[str, int]:
        """Run the linter."""
        return {"issues": len(paths)}

    plain = skill()
    assert plain.render_summary() == (
        "[Skill: code-review] Code review workflows and checklists for Python projects."
    )
    assert not plain.has_tools
    tooled = skill(name="linting", tools=[lint_code], summary="$title: see $name")
    text = tooled.render_summary()
    assert text.startswith("Code Review: see linting\n")
    assert "`skills_load`" in text and "lint_code" in text
    assert tooled.catalog_description().endswith("Load this skill to use its tools: lint_code.")


class Mode(enum.Enum):
    FAST = "fast"
    FULL = "full"


def test_tool_schema_from_signature() -> None:
    def run(
        paths: list[str],
        depth: int = 1,
        ratio: float | None = None,
        mode: Mode = Mode.FAST,
        kind: Literal["a", "b"] = "a",
        strict: bool = False,
        options: dict[str, str] | None = None,
        context: skilldeck.ToolContext | None = None,
    ) -> dict[str, object]:
        """Run things.

        Longer text that is not part of the description.
        """
        return {}

    tool = SkillTool.of(run)
    assert tool.name == "run"
    assert tool.description == "Run things."
    assert tool.schema == {
        "type": "object",
        "properties": {
            "paths": {"type": "array", "items": {"type": "string"}},
            "depth": {"type": "integer"},
            "ratio": {"type": "number"},
            "mode": {"enum": ["fast", "full"]},
            "kind": {"enum": ["a", "b"]},
            "strict": {"type": "boolean"},
            "options": {"type": "object"},
        },
        "required": ["paths"],
        "additionalProperties": False,
    }
    explicit = SkillTool("t", "d", run, parameters={"type": "object", "properties": {}})
    assert explicit.schema == {"type": "object", "properties": {}}


def test_invalid_tools() -> None:
    with pytest.raises(skilldeck.SkillValidationError):
        SkillTool("bad name", "d", lambda: None)
    with pytest.raises(skilldeck.SkillValidationError, match="twice"):
        skill(tools=[SkillTool("t", "d", lambda: 1), SkillTool("t", "e", lambda: 2)])


# --- SkillRef --------------------------------------------------------------------


def test_skill_ref_reasons(tmp_path: Path) -> None:
    cases: dict[str, Path] = {}
    cases["not_found"] = tmp_path / "missing"
    (tmp_path / "file").write_text("x")
    cases["not_directory"] = tmp_path / "file"
    (tmp_path / "empty").mkdir()
    cases["missing_skill_md"] = tmp_path / "empty"
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: [oops\n---\nbody\n")
    cases["invalid_frontmatter"] = bad
    for reason, path in cases.items():
        with pytest.raises(skilldeck.SkillRefError) as info:
            SkillRef(path)
        assert info.value.reason == reason
        assert info.value.code == "INVALID_SKILL"
        assert info.value.hint


def test_skill_ref_paths_and_metadata(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "lib", "security-review")
    absolute = SkillRef(folder)
    assert absolute.name == "security-review"
    assert absolute.description.startswith("The security-review skill")
    relative = SkillRef("lib/security-review", base_path=tmp_path)
    assert relative.resolved_path == folder.resolve()
    os.chdir(tmp_path / "lib")
    assert SkillRef("security-review").skill_md_path == folder.resolve() / "SKILL.md"


def test_disabled_ref_is_not_validated_until_enabled(tmp_path: Path) -> None:
    flag = {"on": False}
    ref = SkillRef(tmp_path / "later", enabled=lambda: flag["on"])
    section = SkillsSection(skill_refs=[ref])
    assert section.active() == ()
    flag["on"] = True
    with pytest.raises(skilldeck.SkillRefError) as info:
        section.active()
    assert info.value.reason == "not_found"
    write_skill(tmp_path, "later")
    assert [s.name for s in section.active()] == ["later"]


# --- SkillsSection ------------------------------------------------------------------


def test_duplicate_names_across_inline_and_refs(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "code-review")
    with pytest.raises(skilldeck.SkillValidationError, match="two skills named 'code-review'"):
        SkillsSection(skills=[skill()], skill_refs=[SkillRef(folder)])
    with pytest.raises(skilldeck.SkillValidationError):
        SkillsSection(skills=[skill(), skill()])
    flag = {"on": False}
    late = SkillsSection(
        skills=[skill()], skill_refs=[SkillRef(folder, enabled=lambda: flag["on"])]
    )
    assert len(late.active()) == 1
    flag["on"] = True
    with pytest.raises(skilldeck.SkillValidationError, match="two active skills"):
        late.active()


def test_partitions_and_enabled_skills_filter(tmp_path: Path) -> None:
    ref1 = SkillRef(write_skill(tmp_path, "docs"))
    ref2 = SkillRef(write_skill(tmp_path, "style"))
    native = skill(name="naming")
    prompt = skill(name="testing", tools=[SkillTool("run_tests", "Run tests.", lambda: 0)])
    section = SkillsSection(skills=[prompt, ref1, native], skill_refs=[ref2])
    assert section.all_skills == (prompt, ref1, native, ref2)
    assert section.inline_skills == (prompt, native)
    assert section.referenced_skills == (ref1, ref2)
    assert section.native_skills == (native,)
    assert section.prompt_skills == (prompt,)
    kept = section.active(enabled_skills={"docs", "testing"})
    assert [s.name for s in kept] == ["testing", "docs"]


def test_render_summaries(tmp_path: Path) -> None:
    ref = SkillRef(write_skill(tmp_path, "docs"))
    prompt = skill(name="testing", tools=[SkillTool("run_tests", "Run tests.", lambda: 0)])
    section = SkillsSection(skills=[skill(name="naming"), prompt], skill_refs=[ref])
    installed = section.render_summaries()
    assert installed.startswith("## Skills\n\n[Skill: testing]")
    assert "naming" not in installed and "docs" not in installed
    everything = section.render_summaries(installed=False)
    assert "[Skill: naming]" in everything and "[Skill: docs]" in everything


# --- install_skills -------------------------------------------------------------------


def test_install_writes_inline_and_copies_refs(tmp_path: Path) -> None:
    src = write_skill(tmp_path / "src", "security-review")
    (src / "scripts").mkdir()
    script = src / "scripts" / "scan.sh"
    script.write_text("#!/bin/sh\necho ok\n")
    script.chmod(0o755)
    (src / "data.json").write_text("{}")
    os.symlink("data.json", src / "alias.json")
    sink = ListSink()
    section = SkillsSection(skills=[skill()], skill_refs=[SkillRef(src)])
    home = tmp_path / "home"
    target = skilldeck.dist.export_target("claude", home=home)
    paths = section.install_skills(skills_dir=target, events=sink)
    assert paths == (target / "code-review", target / "security-review")
    assert sorted(p.name for p in (target / "code-review").iterdir()) == ["SKILL.md"]
    copied = target / "security-review"
    assert os.access(copied / "scripts" / "scan.sh", os.X_OK)
    assert not os.access(copied / "data.json", os.X_OK)
    assert not (copied / "alias.json").is_symlink()
    assert (copied / "alias.json").read_text() == "{}"
    (event,) = sink.of(skilldeck.events.InlineSkillsInstalled)
    assert isinstance(event, skilldeck.events.SkillsInstalled)
    assert event.inline_skills == ("code-review",)
    assert event.referenced_skills == ("security-review",)
    assert event.skills == ("code-review", "security-review")
    assert event.location == str(target)
    assert event.to_dict()["event"] == "skills_installed"
    # installing again replaces in place, leaving no temporary folders
    section.install_skills(skills_dir=target)
    assert sorted(p.name for p in target.iterdir()) == ["code-review", "security-review"]


def test_install_skips_prompt_skills_unless_asked(tmp_path: Path) -> None:
    prompt = skill(name="testing", tools=[SkillTool("run_tests", "Run tests.", lambda: 0)])
    section = SkillsSection(skills=[prompt, skill()])
    assert [p.name for p in section.install_skills(skills_dir=tmp_path / "a")] == ["code-review"]
    both = section.install_skills(skills_dir=tmp_path / "b", include_prompt_skills=True)
    assert [p.name for p in both] == ["testing", "code-review"]


def test_install_failure_names_the_skill_and_leaves_nothing_half_written(tmp_path: Path) -> None:
    src = write_skill(tmp_path / "src", "leaky")
    src.joinpath(*["d"] * 70).mkdir(parents=True)  # deeper than a skill may nest
    target = tmp_path / "skills"
    section = SkillsSection(skills=[skill()], skill_refs=[SkillRef(src)])
    with pytest.raises(skilldeck.SkillInstallationError) as info:
        section.install_skills(skills_dir=target)
    err = info.value
    assert (err.skill_name, err.source, err.skills_dir) == ("leaky", "ref", target)
    assert isinstance(err.cause, skilldeck.InstallError)
    assert "deeper than 64" in err.message
    assert err.code == "INSTALL_FAILED"
    assert sorted(p.name for p in target.iterdir()) == ["code-review"]


def test_install_into_an_unwritable_place(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(skilldeck.SkillInstallationError) as info:
        SkillsSection(skills=[skill()]).install_skills(skills_dir=blocker / "skills")
    assert info.value.skill_name == "code-review"
    assert info.value.source == "inline"


def _with_outside_link(tmp_path: Path) -> Path:
    src = write_skill(tmp_path / "src", "linky")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    os.symlink(outside, src / "notes.txt")
    return src


def test_a_link_leaving_a_ref_is_reported_as_install_reports_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    src = _with_outside_link(tmp_path)
    sink = ListSink()
    target = tmp_path / "skills"
    with caplog.at_level("WARNING", logger="skilldeck"):
        SkillsSection(skill_refs=[SkillRef(src)]).install_skills(skills_dir=target, events=sink)
    assert not (target / "linky" / "notes.txt").exists()
    (event,) = sink.of(skilldeck.events.InlineSkillsInstalled)
    [problem] = event.warnings
    assert (problem.code, problem.severity.value) == ("SK514", "warning")
    assert "notes.txt" in str(problem.path)
    assert "SK514" in caplog.text and "linky" in caplog.text
    # the CLI install of the same folder reports the same finding
    import subprocess
    import sys

    cli = subprocess.run(
        [sys.executable, "-m", "skilldeck", "install", str(src), "--yes"],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0, cli.stderr
    assert "SK514" in cli.stderr and problem.message in cli.stderr


def test_a_skill_md_link_leaving_a_ref_is_an_error(tmp_path: Path) -> None:
    src = tmp_path / "src" / "hollow"
    src.mkdir(parents=True)
    real = write_skill(tmp_path / "elsewhere", "hollow") / "SKILL.md"
    os.symlink(real, src / "SKILL.md")
    with pytest.raises(skilldeck.SkillInstallationError) as info:
        SkillsSection(skill_refs=[SkillRef(src)]).install_skills(skills_dir=tmp_path / "t")
    assert "SKILL.md" in info.value.message


@pytest.mark.parametrize("kind", ["file", "link"])
def test_a_file_where_a_skill_goes_is_not_replaced_without_force(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "skills"
    target.mkdir()
    precious = tmp_path / "precious.txt"
    precious.write_text("mine\n")
    there = target / "code-review"
    if kind == "file":
        there.write_text("mine\n")
    else:
        there.symlink_to(precious)
    section = SkillsSection(skills=[skill(name="aaa-first"), skill()])
    with pytest.raises(skilldeck.SkillInstallationError) as info:
        section.install_skills(skills_dir=target)
    err = info.value
    assert (err.code, err.reason, err.skill_name) == (
        "INSTALL_FAILED",
        "target_exists",
        "code-review",
    )
    assert "force=True" in (err.hint or "")
    assert sorted(p.name for p in target.iterdir()) == ["code-review"]  # nothing written
    assert there.is_symlink() == (kind == "link") and precious.read_text() == "mine\n"
    section.install_skills(skills_dir=target, force=True)
    assert (there / "SKILL.md").is_file() and not there.is_symlink()
    assert precious.read_text() == "mine\n"
    assert sorted(p.name for p in target.iterdir()) == ["aaa-first", "code-review"]


@pytest.mark.parametrize(
    "text",
    [
        "Tabs\tand a carriage\rreturn: still one description.",
        "Two lines,\nkept as two.",
        "A vertical tab \x0b, a next-line \x85 and a line separator \u2028 in it.",
        "Quotes \"double\" and 'single', a backslash \\ and a # hash.",
        "Emoji \U0001f600 and accents: \u00e9t\u00e9.",
        "yes",
        "Plain words only, nothing odd",
    ],
)
def test_to_skill_md_reads_back_every_text_exactly(text: str, tmp_path: Path) -> None:
    s = skill(description=text, license=text, metadata={text: text})
    folder = tmp_path / "code-review"
    folder.mkdir()
    (folder / "SKILL.md").write_text(s.to_skill_md(), encoding="utf-8", newline="")
    parsed = skilldeck.read_skill_md(folder / "SKILL.md")
    assert not [d for d in parsed.diagnostics if d.severity == "error"], parsed.diagnostics
    assert parsed.manifest.description == text
    assert parsed.manifest.license == text
    assert dict(parsed.manifest.metadata) == {text: text}
