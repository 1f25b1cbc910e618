"""What the search index reads of a skill: its SKILL.md as the catalog reads it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from .conftest import MakeSkill, runtime_for

BODY = "## Quokka care\n\n## When to use\n\nA wombat needs feeding.\n"
PRIVATE = (
    "---\nname: alpha\ndescription: Does alpha.\n---\n\n"
    "## Zanzibar ledger\n\n## When to use\n\nThe vault combination is kept here.\n"
)


def _search(rt: object, query: str) -> list[str]:
    from skilldeck import SkillRuntime

    assert isinstance(rt, SkillRuntime)
    env = rt.call(rt.session(), "skills_search", {"query": query})
    assert env["ok"], env
    return [hit["name"] for hit in env["data"]["results"]]


def test_a_skill_md_swapped_for_a_link_out_of_its_folder_adds_no_word(
    make_skill: MakeSkill, skills_root: Path, tmp_path: Path
) -> None:
    """A SKILL.md replaced by a link to a file outside the skill between the listing
    and the index build: the index reads it as the catalog does, refuses the link, and
    none of the target's words become searchable or reach the model in headings."""
    folder = make_skill("alpha", "Does alpha.", body=BODY)
    make_skill("beta", "Does beta.")
    outside = tmp_path / "private.md"
    outside.write_text(PRIVATE, encoding="utf-8")
    rt = runtime_for(skills_root)
    assert sorted(m.name for m in rt.catalog.list()) == ["alpha", "beta"]  # listed
    md = folder / "SKILL.md"
    md.unlink()
    md.symlink_to(outside)

    assert _search(rt, "zanzibar ledger") == []
    assert _search(rt, "vault combination") == []
    env = rt.call(rt.session(), "skills_search", {"query": "alpha"})
    assert env["ok"] and env["data"]["results"][0]["name"] == "alpha"
    assert "Zanzibar" not in str(env["data"])


def test_a_skill_md_linked_inside_its_folder_is_still_read(
    make_skill: MakeSkill, skills_root: Path
) -> None:
    """The same swap to a link that stays inside the skill folder is read, as every
    other read of the skill reads it."""
    folder = make_skill("alpha", "Does alpha.", body=BODY)
    rt = runtime_for(skills_root)
    assert [m.name for m in rt.catalog.list()] == ["alpha"]
    (folder / "docs").mkdir()
    (folder / "docs" / "real.md").write_text(PRIVATE, encoding="utf-8")
    md = folder / "SKILL.md"
    md.unlink()
    md.symlink_to("docs/real.md")

    assert _search(rt, "zanzibar ledger") == ["alpha"]


def test_the_texts_embedded_leave_out_a_skill_md_swapped_for_a_link(
    make_skill: MakeSkill, skills_root: Path, tmp_path: Path
) -> None:
    """The usage sections a host's embedder is given come from the same read."""
    pytest.importorskip("numpy", reason="semantic search is the skilldeck[semantic] extra")
    folder = make_skill("alpha", "Does alpha.", body=BODY)
    outside = tmp_path / "private.md"
    outside.write_text(PRIVATE, encoding="utf-8")
    seen: list[str] = []

    def embed(texts: Sequence[str]) -> list[list[float]]:
        seen.extend(texts)
        return [[1.0, float(len(text) % 5)] for text in texts]

    rt = runtime_for(skills_root, embedder=embed)
    assert [m.name for m in rt.catalog.list()] == ["alpha"]
    md = folder / "SKILL.md"
    md.unlink()
    md.symlink_to(outside)
    rt.prepare_search()
    assert seen and not any("vault" in text for text in seen), seen
