"""Seed 004's user stories 1-6, with the Claude Agent SDK adapter replaced by skilldeck's
runtime and by installation into an isolated agent home (``export_target("claude", home=)``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

import skilldeck
from skilldeck import InlineSkill, SkillRef, SkillsSection, SkillTool
from skilldeck.events import ListSink, SkillLoaded

CODE_REVIEW = InlineSkill(
    name="code-review",
    description="Code review workflows and checklists for Python projects.",
    title="Code Review",
    key="code-review",
    template="""
    # Code Review Workflow

    1. **Security**: Check for hardcoded secrets, SQL injection, XSS
    2. **Tests**: Verify coverage meets 80% threshold
    3. **Style**: Run ruff, check docstrings
    4. **Performance**: Profile hot paths

    ## Severity Levels

    - **Critical**: Security vulnerabilities, data loss risks
    - **Major**: Missing tests, breaking changes
    - **Minor**: Style issues, documentation gaps
    """,
)

REFACTORING = InlineSkill(
    name="refactoring",
    description="Safe refactoring patterns and techniques.",
    title="Refactoring",
    key="refactoring",
    template="""
    # Refactoring Patterns

    ## Extract Method
    When a code fragment can be grouped together...

    ## Rename Symbol
    Use IDE support to safely rename across codebase...
    """,
)


@dataclass(frozen=True)
class LintParams:
    paths: tuple[str, ...]


@dataclass(frozen=True)
class LintResult:
    issues: int
    fixed: int

    def render(self) -> str:
        return f"Found {self.issues} issues, fixed {self.fixed}"


CALLS: list[tuple[str, ...]] = []


def lint_handler(params: LintParams, *, context: skilldeck.ToolContext) -> LintResult:
    CALLS.append((context.skill, context.tool, *params.paths))
    return LintResult(issues=5, fixed=3)


LINT_TOOL = SkillTool("lint_code", "Run ruff linter on specified paths", lint_handler)

LINTING = InlineSkill(
    name="linting",
    description="Code linting workflows with automated fixes.",
    title="Linting",
    key="linting",
    template="""
    # Linting Workflow

    Use the `lint_code` tool to check Python files:

    1. Run on changed files first
    2. Review unfixable issues manually
    3. Re-run to verify fixes
    """,
    tools=[LINT_TOOL],
)


def run_tests(pattern: str = "tests/") -> dict[str, object]:
    """Run the test suite."""
    return {"passed": 12, "pattern": pattern}


def coverage() -> dict[str, float]:
    """Report line coverage."""
    return {"coverage": 0.87}


def make_testing_skill(*tools: object) -> InlineSkill:
    return InlineSkill(
        name="testing",
        description="Testing workflows with execution tools.",
        title="Testing",
        template="# Testing\n\nRun `run_tests`, then read coverage.\n",
        tools=list(tools),  # type: ignore[arg-type]
    )


def make_folder_skill(root: Path, name: str, files: dict[str, str] | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: The {name} workflow. Use when asked about {name}.\n"
        f"---\n# {name}\n\nFollow the checklist.\n"
    )
    for rel, text in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if rel.endswith(".sh"):
            path.chmod(0o755)
    return folder


def names_in(skills_dir: Path) -> list[str]:
    return sorted(p.name for p in skills_dir.iterdir())


def tools_of(runtime: skilldeck.SkillRuntime, session: skilldeck.Session) -> set[str]:
    return {spec.name for spec in runtime.tool_specs(session)}


def test_story_1_native_installation(tmp_path: Path) -> None:
    """Skills without tools are installed into the isolated home and load progressively."""
    section = SkillsSection(skills=[CODE_REVIEW, REFACTORING])
    assert section.native_skills == (CODE_REVIEW, REFACTORING)
    home = tmp_path / "ephemeral-home"
    skills_dir = skilldeck.dist.export_target("claude", home=home)
    assert skills_dir == home / ".claude" / "skills"
    sink = ListSink()
    section.install_skills(skills_dir=skills_dir, events=sink)
    assert names_in(skills_dir) == ["code-review", "refactoring"]
    for name in ("code-review", "refactoring"):
        assert skilldeck.validate_skill(skills_dir / name, strict=True).valid
    (installed,) = sink.of(skilldeck.events.InlineSkillsInstalled)
    assert installed.inline_skills == ("code-review", "refactoring")
    # the agent then discovers them from its home: metadata -> body on demand
    runtime = skilldeck.SkillRuntime.from_roots([skills_dir], sinks=[sink])
    session = runtime.session()
    listed = runtime.call(session, "skills_list", {})["data"]["skills"]
    assert [s["name"] for s in listed] == ["code-review", "refactoring"]
    loaded = runtime.call(session, "skills_load", {"name": "code-review"})
    assert "1. **Security**" in loaded["data"]["body"]
    assert [e.skill for e in sink.of(SkillLoaded)] == ["code-review"]


def test_story_2_skill_with_tools_is_unlocked_by_loading() -> None:
    """A skill with tools starts as a summary; loading it exposes its tools."""
    CALLS.clear()
    sink = ListSink()
    section = SkillsSection(skills=[LINTING])
    assert section.prompt_skills == (LINTING,)
    assert "lint_code" in section.render_summaries()
    runtime = section.runtime(sinks=[sink])
    session = runtime.session()
    assert "lint_code" not in tools_of(runtime, session)
    listed = runtime.call(session, "skills_list", {})["data"]["skills"]
    assert listed == [
        {
            "name": "linting",
            "description": "Code linting workflows with automated fixes. "
            "Load this skill to use its tools: lint_code.",
            "source": "inline",
        }
    ]
    early = runtime.call(session, "lint_code", {"paths": ["a.py"]})
    assert early["ok"] is False
    assert early["error"]["code"] == "TOOL_NOT_ALLOWED"
    loaded = runtime.call(session, "skills_load", {"name": "linting"})
    assert loaded["ok"] is True
    assert "Use the `lint_code` tool" in loaded["data"]["body"]
    assert "lint_code" in tools_of(runtime, session)
    result = runtime.call(session, "lint_code", {"paths": ["a.py", "b.py"]})
    assert result == {
        "ok": True,
        "data": {"issues": 5, "fixed": 3, "message": "Found 5 issues, fixed 3"},
        "warnings": [],
    }
    assert CALLS == [("linting", "lint_code", "a.py", "b.py")]
    (expanded,) = sink.of(SkillLoaded)  # seed 004's SkillExpanded
    assert (expanded.skill, expanded.source, expanded.session_id) == (
        "linting",
        "inline",
        session.id,
    )
    # another session has not loaded it: the tool is not there
    assert "lint_code" not in tools_of(runtime, runtime.session())


def test_story_3_mixed_native_and_prompt(tmp_path: Path) -> None:
    architecture = InlineSkill(
        name="architecture",
        description="System architecture principles.",
        title="Architecture",
        template="# Architecture\n\nPrefer boring technology.\n",
    )
    testing = make_testing_skill(run_tests, coverage)
    section = SkillsSection(skills=[architecture, testing])
    assert section.native_skills == (architecture,)
    assert section.prompt_skills == (testing,)
    skills_dir = skilldeck.dist.export_target("claude", home=tmp_path / "home")
    section.install_skills(skills_dir=skills_dir)
    assert names_in(skills_dir) == ["architecture"]
    runtime = section.runtime()
    session = runtime.session()
    assert runtime.call(session, "skills_load", {"name": "testing"})["ok"]
    assert {"run_tests", "coverage"} <= tools_of(runtime, session)
    assert runtime.call(session, "coverage", {})["data"] == {"coverage": 0.87}
    ran = runtime.call(session, "run_tests", {"pattern": "tests/unit"})
    assert ran["data"] == {"passed": 12, "pattern": "tests/unit"}


def test_story_4_filesystem_skills(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    company = tmp_path / "opt" / "company" / "skills"
    security = make_folder_skill(
        company,
        "security-review",
        {
            "scripts/scan-secrets.sh": "#!/bin/sh\ngrep -r password .\n",
            "scripts/check-dependencies.py": "print('ok')\n",
            "checklists/owasp-top-10.md": "# OWASP\n",
            "patterns/vulnerable-patterns.json": "[]\n",
        },
    )
    project = tmp_path / "project"
    make_folder_skill(project / "skills", "code-style")
    make_folder_skill(tmp_path / "opt" / "skills", "compliance")
    refs = [
        SkillRef(path=str(security)),
        SkillRef(path="skills/code-style", base_path=project),
        SkillRef(
            path=str(tmp_path / "opt" / "skills" / "compliance"),
            enabled=lambda: os.getenv("ENABLE_COMPLIANCE") == "1",
        ),
    ]
    section = SkillsSection(skill_refs=refs)
    home = tmp_path / "home"
    skills_dir = skilldeck.dist.export_target("claude", home=home)
    section.install_skills(skills_dir=skills_dir)
    assert names_in(skills_dir) == ["code-style", "security-review"]
    copied = skills_dir / "security-review"
    assert sorted(p.relative_to(copied).as_posix() for p in copied.rglob("*") if p.is_file()) == [
        "SKILL.md",
        "checklists/owasp-top-10.md",
        "patterns/vulnerable-patterns.json",
        "scripts/check-dependencies.py",
        "scripts/scan-secrets.sh",
    ]
    assert os.access(copied / "scripts" / "scan-secrets.sh", os.X_OK)
    monkeypatch.setenv("ENABLE_COMPLIANCE", "1")
    section.install_skills(skills_dir=skills_dir)
    assert names_in(skills_dir) == ["code-style", "compliance", "security-review"]
    # the copied home is what an agent uses: the bundled files are readable there
    runtime = skilldeck.SkillRuntime.from_roots([skills_dir])
    session = runtime.session()
    read = runtime.call(
        session, "skills_read_file", {"name": "security-review", "path": "scripts/scan-secrets.sh"}
    )
    assert read["ok"], read
    assert "grep -r password" in read["data"]["content"]


def test_story_5_mixed_inline_and_filesystem(tmp_path: Path) -> None:
    documentation = make_folder_skill(
        tmp_path / "shared" / "skills", "documentation", {"references/style.md": "# Style\n"}
    )
    naming = InlineSkill(
        name="naming",
        description="Naming conventions guide.",
        title="Naming",
        template="# Naming\n\nUse nouns for data, verbs for functions.\n",
    )
    testing = make_testing_skill(run_tests)
    section = SkillsSection(skills=[testing, SkillRef(path=str(documentation)), naming])
    assert section.prompt_skills == (testing,)
    assert [r.name for r in section.referenced_skills] == ["documentation"]
    assert section.native_skills == (naming,)
    sink = ListSink()
    skills_dir = skilldeck.dist.export_target("claude", home=tmp_path / "home")
    section.install_skills(skills_dir=skills_dir, events=sink)
    assert names_in(skills_dir) == ["documentation", "naming"]
    assert (skills_dir / "documentation" / "references" / "style.md").is_file()
    (event,) = sink.of(skilldeck.events.InlineSkillsInstalled)
    assert (event.inline_skills, event.referenced_skills) == (("naming",), ("documentation",))
    # in skilldeck's own runtime all three are one catalog, each from the inline source
    runtime = section.runtime()
    session = runtime.session()
    listed = runtime.call(session, "skills_list", {})["data"]["skills"]
    assert [(s["name"], s["source"]) for s in listed] == [
        ("documentation", "inline"),
        ("naming", "inline"),
        ("testing", "inline"),
    ]
    doc = runtime.call(
        session, "skills_read_file", {"name": "documentation", "path": "references/style.md"}
    )
    assert doc["data"]["content"] == "# Style\n"
    runtime.call(session, "skills_load", {"name": "testing"})
    assert runtime.call(session, "run_tests", {})["data"]["passed"] == 12


@dataclass(frozen=True)
class ReviewParams:
    language: str


def test_story_6_conditional_enablement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    security = make_folder_skill(tmp_path / "skills", "security")
    section = SkillsSection(
        skills=[
            InlineSkill(
                name="python-review",
                description="Python-specific review guidance.",
                title="Python Review",
                key="python-review",
                template="# Python\n\nCheck typing.\n",
                enabled=lambda p: p.language == "python",
            ),
            InlineSkill(
                name="typescript-review",
                description="TypeScript-specific review guidance.",
                title="TypeScript Review",
                key="typescript-review",
                template="# TypeScript\n\nCheck strict mode.\n",
                enabled=lambda p: p.language == "typescript",
            ),
        ],
        skill_refs=[
            SkillRef(path=str(security), enabled=lambda: os.getenv("SECURITY_REVIEW") == "1"),
        ],
    )
    params = ReviewParams(language="python")
    assert [s.name for s in section.active(params)] == ["python-review"]
    skills_dir = skilldeck.dist.export_target("claude", home=tmp_path / "home")
    section.install_skills(skills_dir=skills_dir, params=params)
    assert names_in(skills_dir) == ["python-review"]
    monkeypatch.setenv("SECURITY_REVIEW", "1")
    ts = ReviewParams(language="typescript")
    assert [s.name for s in section.active(ts)] == ["typescript-review", "security"]
    runtime = section.runtime(ts)
    listed = runtime.call(runtime.session(), "skills_list", {})["data"]["skills"]
    assert [s["name"] for s in listed] == ["security", "typescript-review"]
    # enabled_skills narrows further (seed 004's SkillsSectionParams)
    only = section.active(ts, enabled_skills={"security"})
    assert [s.name for s in only] == ["security"]


@dataclass(frozen=True)
class FwLintParams:
    paths: tuple[str, ...]


@dataclass(frozen=True)
class FwLintResult:
    issues: int
    fixed: int

    def render(self) -> str:
        return f"Found {self.issues} issues, fixed {self.fixed}"


def test_tool_and_result_shapes_of_other_python_skill_frameworks() -> None:
    """``Tool[P, R](name=..., description=..., handler=...)`` and handlers returning
    ``ToolResult(message=..., value=...)`` work unchanged, mapped onto SkillTool."""
    from skilldeck import InlineSkill as Skill, SkillTool as Tool, ToolContext, ToolResult

    seen: list[FwLintParams] = []

    def lint_handler(params: FwLintParams, *, context: ToolContext) -> ToolResult[FwLintResult]:
        seen.append(params)
        if not params.paths:
            return ToolResult(message="nothing to lint", success=False)
        return ToolResult(message="Linting complete", value=FwLintResult(issues=5, fixed=3))

    lint_tool = Tool[FwLintParams, FwLintResult](
        name="lint_code",
        description="Run ruff linter on specified paths",
        handler=lint_handler,
    )
    skill = Skill(
        name="linting",
        description="Code linting workflows with automated fixes.",
        title="Linting",
        key="linting",
        template="# Linting\n\nUse the `lint_code` tool.",
        tools=[lint_tool],
    )
    rt = SkillsSection(skills=[skill]).runtime()
    s = rt.session()
    assert rt.call(s, "skills_load", {"name": "linting"})["ok"]
    ok = rt.call(s, "lint_code", {"paths": ["a.py"]})
    assert ok == {
        "ok": True,
        "data": {"issues": 5, "fixed": 3, "message": "Linting complete"},
        "warnings": [],
    }
    assert isinstance(seen[0], FwLintParams) and list(seen[0].paths) == ["a.py"]
    failed = rt.call(s, "lint_code", {"paths": []})
    assert failed["ok"] is False
    assert failed["error"]["code"] == "SCRIPT_FAILED"
    assert "nothing to lint" in failed["error"]["message"]
