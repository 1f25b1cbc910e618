"""Symlinks: in (followed once), out (skipped, never read), dangling, looping, duplicate."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import skilldeck
from skilldeck import Catalog, FileSystemStore

from .conftest import MakeSkill


def _codes(cat: Catalog) -> list[str]:
    return sorted(d.code for d in cat.diagnostics)


def _never_readable(skill_dir: Path) -> None:
    """Make SKILL.md a FIFO: any attempt to read it would block the test (timeout)."""
    skill_dir.mkdir(parents=True)
    os.mkfifo(skill_dir / "SKILL.md")


def test_link_inside_the_root_is_followed_once(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    store = tmp_path / "skills" / "_store"  # not a skill folder itself
    make_skill(store / "pool", "linked")
    (root / "linked").symlink_to(store / "pool" / "linked", target_is_directory=True)
    cat = Catalog.from_roots([root])
    assert [m.name for m in cat.list()] == ["linked"]
    assert cat.get("linked").path == root / "linked"  # the path as found
    assert cat.load("linked").body.startswith("# Instructions")


def test_link_to_other_allowed_root_is_followed(tmp_path: Path, make_skill: MakeSkill) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    target = make_skill(b, "shared")
    a.mkdir()
    (a / "alias").symlink_to(target, target_is_directory=True)
    cat = Catalog.from_roots([a, b])
    # same real folder reached twice: one entry, no noise
    entries = cat.entries()
    assert [e.address for e in entries] == ["root2:shared"]
    assert entries[0].duplicates == (a / "alias",)
    assert _codes(cat) == []


def test_escaping_link_is_skipped_and_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside" / "evil"
    _never_readable(outside)
    root = tmp_path / "skills"
    root.mkdir()
    (root / "evil").symlink_to(outside, target_is_directory=True)
    cat = Catalog.from_roots([root])
    assert cat.list() == []
    assert _codes(cat) == ["SK503"]
    assert "outside every skills root" in cat.diagnostics[0].message


def _entry_codes(cat: Catalog, address: str) -> list[str]:
    entry = next(e for e in cat.entries() if e.path is not None and e.path.name == address)
    return [d.code for d in entry.diagnostics]


def test_escaping_skill_md_link_is_an_invalid_skill_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _never_readable(outside)
    skill = tmp_path / "skills" / "sneaky"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").symlink_to(outside / "SKILL.md")
    cat = Catalog.from_roots([tmp_path / "skills"])
    assert cat.list() == []
    assert _codes(cat) == []
    assert _entry_codes(cat, "sneaky") == ["SK214"]  # as validate says
    assert [d.code for d in skilldeck.validate_skill(skill).diagnostics] == ["SK214"]


def test_skill_md_link_to_another_skill_leaves_the_folder(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    root = tmp_path / "skills"
    src = make_skill(root, "original")
    twin = root / "original-link"
    twin.mkdir()
    (twin / "SKILL.md").symlink_to(src / "SKILL.md")
    cat = Catalog.from_roots([root])
    assert [m.name for m in cat.list()] == ["original"]
    assert _entry_codes(cat, "original-link") == ["SK214"]
    assert [d.code for d in skilldeck.validate_skill(twin).diagnostics] == ["SK214"]


def test_skill_md_link_inside_the_folder_is_followed(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "inner-link"
    (skill / "docs").mkdir(parents=True)
    (skill / "docs" / "skill.txt").write_text(
        "---\nname: inner-link\ndescription: A linked SKILL.md. Use when testing.\n---\nBody\n"
    )
    (skill / "SKILL.md").symlink_to("docs/skill.txt")
    cat = Catalog.from_roots([tmp_path / "skills"])
    assert [m.name for m in cat.list()] == ["inner-link"]
    assert skilldeck.skill_digest(skill) == cat.digest("inner-link")
    assert skilldeck.validate_skill(skill).valid


def test_dangling_link_is_a_diagnostic(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    make_skill(root, "ok")
    (root / "gone").symlink_to(tmp_path / "nowhere", target_is_directory=True)
    skill = root / "half"
    skill.mkdir()
    (skill / "SKILL.md").symlink_to(tmp_path / "missing.md")
    cat = Catalog.from_roots([root])
    assert [m.name for m in cat.list()] == ["ok"]
    assert _codes(cat) == ["SK504"]  # the folder link
    assert _entry_codes(cat, "half") == ["SK214"]  # a dangling SKILL.md: as validate says


def test_loop_in_recursive_root_terminates(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    inner = make_skill(root / "a", "inner")
    (inner / "references").mkdir()
    (inner / "references" / "back").symlink_to(root, target_is_directory=True)
    (root / "self").symlink_to(".", target_is_directory=True)
    cat = Catalog.from_roots([root], recursive=True)
    assert [m.name for m in cat.list()] == ["inner"]
    assert _codes(cat) == ["SK505", "SK505"]


def test_link_to_folder_already_scanned_is_a_duplicate(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    root = tmp_path / "skills"
    make_skill(root / "group", "one")
    (root / "again").symlink_to(root / "group", target_is_directory=True)
    cat = Catalog.from_roots([root], recursive=True)
    assert [m.name for m in cat.list()] == ["one"]
    assert _codes(cat) == ["SK506"]


@pytest.mark.parametrize("recursive", [False, True])
def test_link_into_allowed_root_found_in_both_modes(
    tmp_path: Path, make_skill: MakeSkill, recursive: bool
) -> None:
    root = tmp_path / "skills"
    pool = make_skill(root / ".pool", "pooled")
    (root / "pooled").symlink_to(pool, target_is_directory=True)
    names = [m.name for m in Catalog.from_roots([root], recursive=recursive).list()]
    assert names == ["pooled"]


def test_bundled_file_link_leaving_the_skill_is_not_indexed(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    skill = make_skill(tmp_path / "r", "s", files={"references/ok.md": "fine"})
    (skill / "references" / "leak.md").symlink_to(secret)
    (skill / "assets").symlink_to(tmp_path, target_is_directory=True)
    store = FileSystemStore(tmp_path / "r")
    assert store.files("s") == ("references/ok.md",)
    assert sorted(d.code for d in store.file_problems("s")) == ["SK514", "SK514"]
