"""A skill whose body links to files outside scripts/references/assets lists them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from skilldeck import Catalog, SkillRuntime
from skilldeck.cli import main

_BODY = """---
name: security-review
description: Reviews code for security issues. Use when asked for a security review.
---
Go through [the OWASP checklist](checklists/owasp.md), then the
[patterns](patterns/) and `scripts/scan.sh`. Never [this](.private/notes.md).
"""


def _skill(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    skill = root / "security-review"
    for rel, text in {
        "checklists/owasp.md": "# OWASP\n",
        "checklists/unlinked.md": "# not linked\n",
        "patterns/sql.md": "# SQL\n",
        "patterns/deep/x.md": "# deeper than the linked folder\n",
        "scripts/scan.sh": "echo scan\n",
        "drafts/todo.md": "# unlinked folder\n",
        ".private/notes.md": "secret\n",
    }.items():
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_text(text)
    (skill / "SKILL.md").write_text(_BODY)
    return root


def test_linked_resource_folders_are_listed_and_readable(tmp_path: Path) -> None:
    root = _skill(tmp_path)
    cat = Catalog.from_roots([root], cache=False)
    assert cat.files("security-review") == (
        "checklists/owasp.md",
        "patterns/sql.md",
        "scripts/scan.sh",
    )
    rt = SkillRuntime(cat)
    s = rt.session()
    loaded = rt.call(s, "skills_load", {"name": "security-review"})
    assert loaded["data"]["files"] == list(cat.files("security-review"))
    args = {"name": "security-review", "path": "patterns/sql.md"}
    read = rt.call(s, "skills_read_file", args)
    assert read["ok"] and "# SQL" in json.dumps(read["data"])
    hidden = rt.call(s, "skills_read_file", {**args, "path": ".private/notes.md"})
    assert not hidden["ok"] and "secret" not in json.dumps(hidden)


def test_lint_warns_about_a_link_the_index_refuses(tmp_path: Path) -> None:
    root = _skill(tmp_path)
    result = CliRunner().invoke(main, ["lint", str(root / "security-review")])
    assert "SK313" in result.output
    assert ".private/notes.md" in result.output
    assert "checklists/owasp.md" not in result.output  # a listed file: no warning
