"""One depth rule for what a skill holds: the file of the deepest folder a walk
enters is listed, indexed, readable and in a serve snapshot; one folder deeper is
none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from skilldeck import Catalog, PathNotAllowedError
from skilldeck._tree import WALK_DEPTH, walk_skill


def _deep(root: Path, depth: int, name: str) -> str:
    rel = "/".join(f"{name}{i}" for i in range(depth)) + "/f.txt"
    path = root / rel
    path.parent.mkdir(parents=True)
    path.write_text(f"{depth}\n")
    return rel


def test_the_deepest_listed_file_is_indexed_and_read_as_the_walk_lists_it(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "deep"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deep\ndescription: Deep. Use when deep.\n---\n")
    kept = _deep(skill, WALK_DEPTH, "a")
    cut = _deep(skill, WALK_DEPTH + 1, "b")
    walked = [e.path for e in walk_skill(skill, strict=False).files]
    assert kept in walked and cut not in walked
    catalog = Catalog.from_roots([tmp_path / "skills"], cache=False)
    assert kept in catalog.files("deep", index="all")
    assert cut not in catalog.files("deep", index="all")
    assert catalog.read_bundled("deep", kept, index="all").data == f"{WALK_DEPTH}\n".encode()
    with pytest.raises(PathNotAllowedError):
        catalog.read_bundled("deep", cut, index="all")
    files = {f.path for f in catalog.snapshot().entries[0].files}
    assert kept in files and cut not in files
