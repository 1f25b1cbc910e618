"""A skill whose SKILL.md is a link: inside the folder it is part of the skill everywhere
(digest, approval, run); leaving the folder it is the SK214 error everywhere and the
skill can be neither approved nor run (never an approval of an empty or partial set)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import skilldeck
from skilldeck.cli import main


def _skill_md(command: str) -> str:
    return (
        "---\nname: tool\ndescription: Echo things back. Use for tests.\n---\n\n"
        "### say\n\nSay something.\n\n#### Command\n\n"
        f"```bash\n{command}\n```\n"
    )


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_linked_skill_md_inside_the_folder_is_bound_by_the_approval(world: Path) -> None:
    root = world / "skills"
    tool = root / "tool"
    (tool / "docs").mkdir(parents=True)
    (tool / "docs" / "skill.md.txt").write_text(_skill_md("echo first"))
    (tool / "SKILL.md").symlink_to("docs/skill.md.txt")
    code, out, _ = invoke("approve", "tool", "--root", str(root))
    assert code == 0 and out.startswith("approved tool")
    assert invoke("run", "tool", "say", "--root", str(root))[:2] == (0, "first\n")
    (tool / "docs" / "skill.md.txt").write_text(_skill_md("echo second"))  # the linked file
    code, _, err = invoke("run", "tool", "say", "--root", str(root))
    assert code == 1 and "APPROVAL_REQUIRED" in err
    invoke("approve", "tool", "--root", str(root))
    assert invoke("run", "tool", "say", "--root", str(root))[:2] == (0, "second\n")


def test_a_skill_md_link_leaving_the_folder_is_refused_everywhere(world: Path) -> None:
    root = world / "skills"
    (root / "tool").mkdir(parents=True)
    elsewhere = world / "elsewhere.md"
    elsewhere.write_text(_skill_md("echo sneaky"))
    (root / "tool" / "SKILL.md").symlink_to(elsewhere)
    code, out, _ = invoke("validate", "--format", "json", str(root / "tool"))
    data = json.loads(out)
    data = data.get("data", data)  # the CLI's envelope
    assert [d["code"] for d in data["skills"][0]["diagnostics"]] == ["SK214"]
    code, out, _ = invoke("approve", "tool", "--root", str(root), "--json")
    assert code != 0
    assert "e3b0c442" not in out  # never the digest of an empty set
    assert invoke("approvals")[1].strip() == "no stored approvals"
    code, _, err = invoke("run", "tool", "say", "--root", str(root))
    assert code != 0 and "sneaky" not in err
    code, _, err = invoke("read", "tool", "SKILL.md", "--root", str(root))
    assert code != 0
    cat = skilldeck.Catalog.from_roots([root])
    assert cat.list() == []
    (entry,) = cat.entries()
    assert [d.code for d in entry.diagnostics] == ["SK214"]
    with pytest.raises(skilldeck.PathNotAllowedError, match="cannot be digested"):
        skilldeck.skill_digest(root / "tool")
    assert os.path.islink(root / "tool" / "SKILL.md")
