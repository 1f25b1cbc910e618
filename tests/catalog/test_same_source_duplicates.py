"""Two skills of one name inside one source: the usable one stays addressable."""

from __future__ import annotations

from pathlib import Path

import pytest

from skilldeck import Catalog, ManifestError, SkillRuntime, SkillStatus


def _skill(folder: Path, text: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text)


def test_source_address_prefers_the_usable_copy(tmp_path: Path) -> None:
    root = tmp_path / "root"
    # "a/dup" sorts before "b/dup"; the first copy is broken
    _skill(root / "a" / "dup", "---\nname: dup\n---\nno description\n")
    _skill(root / "b" / "dup", "---\nname: dup\ndescription: Works. Use when testing.\n---\nok\n")
    cat = Catalog.from_roots([root], recursive=True)
    visible = cat.get("dup")
    assert visible.status is SkillStatus.ENABLED
    addressed = cat.get(f"{visible.source}:dup")
    assert addressed.status is SkillStatus.ENABLED
    assert addressed.metadata.path == root / "b" / "dup"
    assert cat.load(f"{visible.source}:dup").body == "ok\n"


def test_a_skill_broken_after_listing_fails_to_load_with_a_code(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _skill(root / "demo", "---\nname: demo\ndescription: D. Use when x.\n---\nbody\n")
    cat = Catalog.from_roots([root])
    assert cat.load("demo").body == "body\n"
    (root / "demo" / "SKILL.md").write_text("no frontmatter any more\n")
    with pytest.raises(ManifestError) as info:
        cat.load("demo")
    assert info.value.code == "INVALID_SKILL"
    assert [d.code for d in info.value.diagnostics] == ["SK101"]
    runtime = SkillRuntime(cat)
    envelope = runtime.call(runtime.session(), "skills_load", {"name": "demo"})
    assert envelope["ok"] is False
    assert envelope["error"]["code"] in {"INVALID_SKILL", "SKILL_UNAVAILABLE"}
