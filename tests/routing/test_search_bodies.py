"""The search index reads a skill's body where the catalog says the frontmatter ends
(one rule: the SKILL.md split the catalog parses with), not by a rule of its own."""

from __future__ import annotations

from pathlib import Path

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
