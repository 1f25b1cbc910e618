"""The search index reads a skill's body where the catalog says the frontmatter ends
(one rule: the SKILL.md split the catalog parses with), not by a rule of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import skilldeck


def _names(root: Path, query: str) -> list[str]:
    runtime = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    return [hit.name for hit in runtime.search_index().search(query, limit=5)]


def test_frontmatter_after_blank_lines_is_not_searched_as_body(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "invoices").mkdir(parents=True)
    # the catalog accepts blank lines before the opening '---' (with a warning)
    (root / "invoices" / "SKILL.md").write_text(
        "\n\n---\nname: invoices\ndescription: Format invoices for clients.\n"
        "license: wombat-license\n---\n# Usage\n\nRun the formatter.\n"
    )
    (root / "habitats").mkdir()
    (root / "habitats" / "SKILL.md").write_text(
        "---\nname: habitats\ndescription: Map animal habitats.\n---\n# Wombat burrows\n"
    )
    listed = {m.name for m in skilldeck.Catalog.from_roots([root], cache=False).list()}
    assert listed == {"invoices", "habitats"}
    assert _names(root, "wombat") == ["habitats"]
    assert _names(root, "formatter") == ["invoices"]  # the body itself is searched


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_a_skill_md_swapped_for_a_pipe_is_not_waited_on(tmp_path: Path) -> None:
    """A SKILL.md replaced by a named pipe after the listing: the index reads the
    bodies with the tree's bounded read, which does not wait for a writer (the
    skill is still found by its listing's description)."""
    root = tmp_path / "skills"
    for name, text in (("alpha", "Alpha tables."), ("beta", "Beta charts.")):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {text}\n---\n# {name}\n"
        )
    script = textwrap.dedent(
        f"""
        import os, skilldeck
        runtime = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([{str(root)!r}], cache=False))
        runtime.catalog.list()  # listed before the swap
        md = {str(root / "beta" / "SKILL.md")!r}
        os.remove(md)
        os.mkfifo(md)
        print([hit.name for hit in runtime.search_index().search("beta charts")])
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip().splitlines()[-1] == "['beta']"
