# ruff: noqa: E501  (the examples are verbatim copies)
"""Every SKILL.md example in the seed documents parses as the seeds and DESIGN.md say.

The examples are copied verbatim (a test checks them against ../shared/seeds when it is
present), with the outcome expected in lenient and strict mode.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import skilldeck

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"

SEED001_FULL = """\
---
name: my-skill
description: Brief description of what this skill does and when to use it
license: MIT
compatibility: Requires Node.js 18+
metadata:
  author: Your Name
  version: "1.0.0"
allowed-tools: "Bash(git:*) Read"
---

# My Skill

Instructions for the LLM on how to use this skill.

## Usage

Detailed usage examples and guidance...
"""

SEED001_MINIMAL = """\
---
name: my-skill
description: My custom skill for doing useful things
---

# My Skill

Instructions for the LLM on how to use this skill.
"""

SEED001_TOOLSETS = """\
---
name: my-skill
description: Skill with custom tools
toolsets:
  - "toolsets/index:MyToolset"
---
"""

SEED001_TRIGGERS = """\
---
name: my-skill
description: Skill with triggers
triggers:
  keywords: ["hello", "greet"]
  verbs: ["say", "wave"]
  patterns: ["greet\\\\s+\\\\w+"]
---
"""

SEED001_GH = """\
---
name: gh
description: GitHub CLI skill
metadata:
  author: Agent Framework Team
  version: 1.0.0
  requires: gh
---
"""

SEED002_SKILLMAKER = """\
---
name: skillmaker
description: Create and maintain high-quality skills.
metadata:
  version: 1.0.0
  tags:
    - skills
    - quality
  author: ""
---

# Skillmaker

Detailed instructions the agent follows when this skill is loaded...
"""

SEED003_STRUCTURE = """\
---
# YAML Frontmatter (required)
name: skill-name
version: 1.0.0
description: What this skill does and when to use it.
---

# Markdown Body (tool definitions)
"""

SEED003_GIT_STATUS = """\
---
name: git-status
version: 1.0.0
description: Show git working tree status. Use when user asks about git state, uncommitted changes, or branch info.
author: gibb.eri.sh
modes: [Dev, Global]
read_only: true
timeout: 10
---
"""

SEED003_GIT = """\
---
name: git
version: 1.0.0
description: Git operations. Use for checking status, viewing history, or seeing changes.
author: gibb.eri.sh
modes: [Dev, Global]
---

### git_status

Show the current git status with short format.

#### Parameters

None.

#### Command

```bash
git status --short --branch
```

### git_log

Show recent commit history.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| count | integer | no | Number of commits (default: 10) |

#### Command

```bash
git log --oneline -n {{count}}
```

### git_diff

Show uncommitted changes.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| staged | boolean | no | Show only staged changes |

#### Command

```bash
git diff {{staged:--staged}}
```
"""

SEED003_SUMMARIZE = """\
---
name: summarize
version: 1.0.0
description: Summarize webpages or text. Use when user wants a summary of a URL or article.
modes: [Global]
read_only: true
network: true
timeout: 60
---

### summarize_url

Fetch and summarize a webpage.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| url | string | yes | The URL to summarize |

#### Command

```bash
npx @anthropic-ai/summarize {{url}}
```
"""

SEED003_DEPLOY = """\
---
name: deploy
version: 1.0.0
description: Deploy to Vercel. Use when user says "deploy" or "ship it".
modes: [Dev]
read_only: false
always_ask: true
network: true
timeout: 120
---

### deploy_preview

Deploy a preview build to Vercel.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| message | string | no | Deployment message |

#### Command

```bash
./scripts/deploy.sh preview {{message}}
```
"""

SEED004_CODE_REVIEW = """\
---
name: code-review
description: Provides code review workflows and best practices for Python projects.
---

# Code Review Workflow

Follow these steps when reviewing code:

1. Check for security vulnerabilities
2. Verify test coverage
3. Review naming conventions
4. Assess performance implications

## Security Checklist

- [ ] No hardcoded secrets
- [ ] Input validation present
- [ ] SQL injection prevented
...
"""


@dataclass(frozen=True)
class Example:
    text: str
    seed: str
    folder: str
    strict_codes: frozenset[str] = frozenset()  # errors strict mode must report
    lenient_codes: frozenset[str] = frozenset()  # findings lenient mode must report
    lint_codes: frozenset[str] = field(default_factory=frozenset)


EXAMPLES = {
    "SEED001_FULL": Example(
        SEED001_FULL, "001_8fa60805edb98101.txt", "my-skill", lint_codes=frozenset({"SK311"})
    ),
    "SEED001_MINIMAL": Example(
        SEED001_MINIMAL, "001_8fa60805edb98101.txt", "my-skill", lint_codes=frozenset({"SK303"})
    ),
    "SEED001_TOOLSETS": Example(
        SEED001_TOOLSETS,
        "001_8fa60805edb98101.txt",
        "my-skill",
        strict_codes=frozenset({"SK213"}),
        lenient_codes=frozenset({"SK213"}),
        lint_codes=frozenset({"SK303"}),
    ),
    "SEED001_TRIGGERS": Example(
        SEED001_TRIGGERS,
        "001_8fa60805edb98101.txt",
        "my-skill",
        strict_codes=frozenset({"SK213"}),
        lint_codes=frozenset({"SK303"}),
    ),
    "SEED001_GH": Example(
        SEED001_GH, "001_8fa60805edb98101.txt", "gh", lint_codes=frozenset({"SK303"})
    ),
    "SEED002_SKILLMAKER": Example(
        SEED002_SKILLMAKER,
        "002_b2885a1a1ddbace3.txt",
        "skillmaker",
        strict_codes=frozenset({"SK210"}),
        lenient_codes=frozenset({"SK210"}),
        lint_codes=frozenset({"SK303"}),
    ),
    "SEED003_STRUCTURE": Example(
        SEED003_STRUCTURE, "003_cea54dbd94fa01b6.txt", "skill-name", frozenset({"SK213"})
    ),
    "SEED003_GIT_STATUS": Example(
        SEED003_GIT_STATUS, "003_cea54dbd94fa01b6.txt", "git-status", frozenset({"SK213"})
    ),
    "SEED003_GIT": Example(SEED003_GIT, "003_cea54dbd94fa01b6.txt", "git", frozenset({"SK213"})),
    "SEED003_SUMMARIZE": Example(
        SEED003_SUMMARIZE, "003_cea54dbd94fa01b6.txt", "summarize", frozenset({"SK213"})
    ),
    "SEED003_DEPLOY": Example(
        SEED003_DEPLOY, "003_cea54dbd94fa01b6.txt", "deploy", frozenset({"SK213"})
    ),
    "SEED004_CODE_REVIEW": Example(
        SEED004_CODE_REVIEW,
        "004_f5fcd21f69833480.txt",
        "code-review",
        lint_codes=frozenset({"SK303"}),
    ),
}


def _parse(key: str, mode: str = "lenient") -> skilldeck.format.ParsedSkillMd:
    ex = EXAMPLES[key]
    return skilldeck.parse_skill_md(ex.text, folder_name=ex.folder, mode=mode)  # type: ignore[arg-type]


def _codes(parsed: skilldeck.format.ParsedSkillMd | skilldeck.ValidationReport) -> set[str]:
    return {d.code for d in parsed.diagnostics}


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_example_loads_leniently(key: str) -> None:
    parsed = _parse(key)
    assert parsed.ok, [d.format() for d in parsed.diagnostics]
    assert parsed.manifest is not None
    assert parsed.manifest.name == EXAMPLES[key].folder
    assert EXAMPLES[key].lenient_codes <= _codes(parsed)


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_example_in_strict_mode(key: str) -> None:
    parsed = _parse(key, "strict")
    expected = EXAMPLES[key].strict_codes
    errors = {d.code for d in parsed.diagnostics if d.is_error}
    assert errors == expected, [d.format() for d in parsed.diagnostics]
    assert parsed.ok is (not expected)


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_example_as_a_folder_with_lint(key: str, tmp_path: Path) -> None:
    ex = EXAMPLES[key]
    folder = tmp_path / ex.folder
    folder.mkdir()
    (folder / "SKILL.md").write_text(ex.text, encoding="utf-8")
    if key == "SEED003_DEPLOY":
        (folder / "scripts").mkdir()
        (folder / "scripts" / "deploy.sh").write_text("#!/bin/sh\n")
    report = skilldeck.lint_skill(folder)
    assert report.valid
    lint = {c for c in _codes(report) if c.startswith("SK3")}
    assert lint == set(ex.lint_codes), [d.format() for d in report.diagnostics]


def test_seed001_full_fields() -> None:
    manifest = _parse("SEED001_FULL").manifest
    assert manifest is not None
    assert manifest.license == "MIT"
    assert manifest.compatibility == "Requires Node.js 18+"
    assert manifest.metadata == {"author": "Your Name", "version": "1.0.0"}
    assert manifest.author == "Your Name" and manifest.version == "1.0.0"
    assert manifest.allowed_tools is not None
    assert [(t.name, t.argument) for t in manifest.allowed_tools] == [
        ("Bash", "git:*"),
        ("Read", None),
    ]
    assert manifest.allowed_tools[0].matches("Bash") and not manifest.allowed_tools[0].matches(
        "Git"
    )


def test_seed001_triggers_are_recognised() -> None:
    manifest = _parse("SEED001_TRIGGERS").manifest
    assert manifest is not None and manifest.triggers is not None
    assert manifest.triggers.keywords == ("hello", "greet")
    assert manifest.triggers.verbs == ("say", "wave")
    assert manifest.triggers.patterns == ("greet\\s+\\w+",)


def test_seed001_toolsets_kept_as_extra() -> None:
    manifest = _parse("SEED001_TOOLSETS").manifest
    assert manifest is not None
    assert manifest.extra == {"toolsets": ["toolsets/index:MyToolset"]}


def test_seed001_gh_requires() -> None:
    manifest = _parse("SEED001_GH").manifest
    assert manifest is not None
    assert manifest.requires.commands == ("gh",)
    assert manifest.version == "1.0.0"
    assert manifest.author == "Agent Framework Team"


def test_seed002_metadata_tags_list() -> None:
    manifest = _parse("SEED002_SKILLMAKER").manifest
    assert manifest is not None
    assert manifest.tags == ("skills", "quality")
    assert manifest.version == "1.0.0"
    assert manifest.metadata["tags"] == ["skills", "quality"]


def test_seed002_tags_hint_gives_a_string_read_as_the_same_tags() -> None:
    # the hint is a line that, pasted over the list, passes strict mode with the same tags
    (diag,) = [d for d in _parse("SEED002_SKILLMAKER").diagnostics if d.code == "SK210"]
    assert diag.hint == 'join it into one string: tags: "skills quality"'
    fixed = SEED002_SKILLMAKER.replace(
        "  tags:\n    - skills\n    - quality\n", "  " + diag.hint.split(": ", 1)[1] + "\n"
    )
    parsed = skilldeck.parse_skill_md(fixed.encode(), mode="strict")
    assert parsed.manifest is not None and parsed.manifest.tags == ("skills", "quality")
    assert [d.code for d in parsed.diagnostics] == []


def test_metadata_hint_for_other_values_is_one_string_yaml_reads_back() -> None:
    text = "---\nname: a\ndescription: d\nmetadata:\n  cfg: {a: 1, b: [it's]}\n  words: [two words, x]\n---\n"
    hints = {
        d.message.split("'")[1]: d.hint for d in skilldeck.parse_skill_md(text.encode()).diagnostics
    }
    for key, value in (("cfg", {"a": 1, "b": ["it's"]}), ("words", ["two words", "x"])):
        line = hints[key].split(": ", 1)[1]  # "KEY: 'JSON'"
        fixed = f"---\nname: a\ndescription: d\nmetadata:\n  {line}\n---\n"
        manifest = skilldeck.parse_skill_md(fixed.encode(), mode="strict").manifest
        assert manifest is not None and json.loads(manifest.metadata[key]) == value


def test_seed003_extension_fields() -> None:
    status = _parse("SEED003_GIT_STATUS").manifest
    assert status is not None
    assert status.version == "1.0.0"
    assert status.author == "gibb.eri.sh"
    assert status.modes == ("Dev", "Global")
    assert status.read_only is True and status.always_ask is False
    assert status.timeout == 10
    assert status.network is False
    summarize = _parse("SEED003_SUMMARIZE").manifest
    assert summarize is not None
    assert (summarize.network, summarize.timeout, summarize.modes) == (True, 60, ("Global",))
    deploy = _parse("SEED003_DEPLOY").manifest
    assert deploy is not None
    assert deploy.description == 'Deploy to Vercel. Use when user says "deploy" or "ship it".'
    assert (deploy.read_only, deploy.always_ask, deploy.timeout) == (False, True, 120)


def test_seed003_structure_comment_line_is_ignored() -> None:
    parsed = _parse("SEED003_STRUCTURE")
    assert parsed.manifest is not None
    assert parsed.manifest.version == "1.0.0"
    assert parsed.body_line == 7
    assert parsed.body.startswith("\n# Markdown Body")


def test_seed003_git_body_keeps_the_tool_sections() -> None:
    parsed = _parse("SEED003_GIT")
    assert "### git_status" in parsed.body
    assert "git diff {{staged:--staged}}" in parsed.body


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_examples_are_verbatim_copies_of_the_seeds(key: str) -> None:
    if not SEEDS.is_dir():
        pytest.skip("../shared/seeds is not present (only beside a development checkout)")
    ex = EXAMPLES[key]
    assert ex.text in (SEEDS / ex.seed).read_text(encoding="utf-8")
