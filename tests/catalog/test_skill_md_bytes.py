"""``skill_md_bytes``: a skill's SKILL.md exactly as stored, for memory and folder skills."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skilldeck import (
    Catalog,
    FileTooLargeError,
    MemoryStore,
    PathNotAllowedError,
    SkillNotFoundError,
    Source,
)
from skilldeck.catalog import bytes_digest, file_digest, skill_digest

from .conftest import write_skill

TEXT = "---\nname: notes\ndescription: Notes kept in memory\n---\n\n# Notes\n\nCafé ☕\n"


def _memory_catalog() -> tuple[MemoryStore, Catalog]:
    store = MemoryStore(source="mem")
    store.add(TEXT, {"references/a.md": "a\n"})
    return store, Catalog([Source.of("mem", "inline", [], store=store)], cache=False)


def test_memory_store_serves_the_text_it_was_added_with(tmp_path: Path) -> None:
    store, catalog = _memory_catalog()
    raw = TEXT.encode("utf-8")
    got = store.skill_md_bytes("notes")
    assert (got.relpath, got.data, got.size, got.truncated) == ("SKILL.md", raw, len(raw), False)
    assert catalog.skill_md_bytes("notes") == got
    # the same bytes the skill's digest covers: the digest of the same files in a folder
    folder = tmp_path / "notes"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(raw)
    (folder / "references" / "a.md").write_bytes(b"a\n")
    assert catalog.digest("notes") == skill_digest(folder)
    (folder / "references" / "a.md").write_bytes(b"b\n")
    assert catalog.digest("notes") != skill_digest(folder)


def test_memory_limits_and_unknown_names() -> None:
    store, catalog = _memory_catalog()
    raw = TEXT.encode("utf-8")
    with pytest.raises(FileTooLargeError) as err:
        catalog.skill_md_bytes("notes", max_bytes=10)
    assert err.value.code == FileTooLargeError.code
    cut = catalog.skill_md_bytes("notes", max_bytes=10, truncate=True)
    assert (cut.data, cut.size, cut.truncated) == (raw[:10], len(raw), True)
    with pytest.raises(SkillNotFoundError):
        store.skill_md_bytes("missing")
    with pytest.raises(SkillNotFoundError):
        catalog.skill_md_bytes("missing")


def test_inline_section_skill_md_matches_its_manifest() -> None:
    from skilldeck import InlineSkill, SkillsSection

    skill = InlineSkill(name="naming", description="Naming rules.", title="Naming", template="x\n")
    catalog = SkillsSection(skills=[skill]).catalog(cache=False)
    data = catalog.skill_md_bytes("naming").data
    assert data.decode("utf-8") == skill.to_skill_md()
    assert catalog.load("naming").body in data.decode("utf-8")


def test_folder_skill_reads_its_file(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "root", "disk", body="# Disk\n\nÉtape.\n")
    catalog = Catalog.from_roots([tmp_path / "root"], cache=False)
    got = catalog.skill_md_bytes("disk")
    assert got.data == (folder / "SKILL.md").read_bytes()
    assert bytes_digest(got.data) == file_digest(folder / "SKILL.md")
    with pytest.raises(FileTooLargeError):
        catalog.skill_md_bytes("disk", max_bytes=5)
    assert catalog.skill_md_bytes("disk", max_bytes=5, truncate=True).data == got.data[:5]


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_folder_skill_md_swapped_for_an_outside_link_is_refused(tmp_path: Path) -> None:
    folder = write_skill(tmp_path / "root", "disk")
    catalog = Catalog.from_roots([tmp_path / "root"], cache=False)
    assert catalog.skill_md_bytes("disk").data.startswith(b"---")
    outside = tmp_path / "secret.md"
    outside.write_text((folder / "SKILL.md").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").symlink_to(outside)
    with pytest.raises(PathNotAllowedError):
        catalog.skill_md_bytes("disk")
