"""A SKILL.md (or its folder) swapped for a link after the listing: the manifest a
listed skill parses on first use is read through the catalog's contained read, so
the link's target is never parsed; the read's own error (``PATH_NOT_ALLOWED``) is
raised instead."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from skilldeck import Catalog, PathNotAllowedError, SkillNotFoundError

from .conftest import write_skill

TARGET = "---\nname: target\ndescription: The target's own words.\nlicense: SECRET\n---\n"


def _listed(tmp_path: Path) -> tuple[Catalog, Path]:
    folder = write_skill(tmp_path / "root", "own", frontmatter="license: MIT\n")
    catalog = Catalog.from_roots([tmp_path / "root"], cache=False)
    assert [m.name for m in catalog.list()] == ["own"]
    return catalog, folder


def _swap(link: Path, target: Path) -> None:
    """``link`` replaced by a symbolic link to ``target`` in one rename."""
    tmp = link.with_name(link.name + ".new")
    tmp.symlink_to(target)
    os.replace(tmp, link)


def test_a_listed_skill_reads_its_own_manifest(tmp_path: Path) -> None:
    catalog, _folder = _listed(tmp_path)
    manifest = catalog.get("own").metadata.manifest
    assert manifest is not None and manifest.license == "MIT"


def test_skill_md_swapped_for_a_link_out_of_its_folder_is_refused(tmp_path: Path) -> None:
    catalog, folder = _listed(tmp_path)
    outside = tmp_path / "elsewhere.md"
    outside.write_text(TARGET, encoding="utf-8")
    _swap(folder / "SKILL.md", outside)
    meta = catalog.get("own").metadata
    with pytest.raises(PathNotAllowedError) as err:
        meta.manifest  # noqa: B018 (the property reads)
    assert err.value.code == "PATH_NOT_ALLOWED"
    with pytest.raises(PathNotAllowedError):  # what a read of the swapped file gives
        catalog.skill_md_bytes("own")
    with pytest.raises(PathNotAllowedError):  # and a load
        catalog.load("own")


def test_skill_md_swapped_for_a_link_to_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    catalog, folder = _listed(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _swap(folder / "SKILL.md", fifo)
    started = time.monotonic()
    with pytest.raises(PathNotAllowedError):
        catalog.get("own").metadata.manifest  # noqa: B018
    assert time.monotonic() - started < 5


def test_skill_md_swapped_for_a_link_to_a_huge_file_is_refused(tmp_path: Path) -> None:
    catalog, folder = _listed(tmp_path)
    huge = tmp_path / "huge.md"
    with open(huge, "wb") as fh:
        fh.write(TARGET.encode())
        fh.truncate(1 << 32)  # 4 GiB, sparse
    _swap(folder / "SKILL.md", huge)
    with pytest.raises(PathNotAllowedError):
        catalog.get("own").metadata.manifest  # noqa: B018


def test_a_huge_skill_md_of_its_own_is_read_within_the_bound(tmp_path: Path) -> None:
    catalog, folder = _listed(tmp_path)
    own = folder / "SKILL.md"
    with open(own, "r+b") as fh:
        fh.seek(0, os.SEEK_END)
        fh.write(b"x" * 100)
        fh.truncate(1 << 32)  # the same frontmatter, then 4 GiB: only its start is read
    manifest = catalog.get("own").metadata.manifest
    assert manifest is not None and manifest.license == "MIT"


def test_a_link_inside_the_folder_still_gives_the_skills_own_text(tmp_path: Path) -> None:
    catalog, folder = _listed(tmp_path)
    kept = folder / "references" / "main.md"
    kept.parent.mkdir()
    kept.write_bytes((folder / "SKILL.md").read_bytes())
    _swap(folder / "SKILL.md", Path("references/main.md"))
    manifest = catalog.get("own").metadata.manifest
    assert manifest is not None and manifest.license == "MIT"


def test_skill_folder_swapped_for_a_link_out_of_the_roots_is_refused(tmp_path: Path) -> None:
    catalog, folder = _listed(tmp_path)
    other = write_skill(tmp_path / "outside", "own", frontmatter="license: SECRET\n")
    moved = tmp_path / "moved"
    folder.rename(moved)
    folder.symlink_to(other, target_is_directory=True)
    with pytest.raises(PathNotAllowedError):
        catalog.get("own").metadata.manifest  # noqa: B018


def test_a_skill_removed_since_the_listing_has_no_manifest(tmp_path: Path) -> None:
    catalog, folder = _listed(tmp_path)
    (folder / "SKILL.md").unlink()
    assert catalog.get("own").metadata.manifest is None
    with pytest.raises(SkillNotFoundError):  # the load says why
        catalog.load("own")
