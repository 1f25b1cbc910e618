"""The metadata cache: keyed by path, mtime and size; persisted; refresh picks up changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from skilldeck import Catalog
from skilldeck._paths import dirs

from .conftest import MakeSkill


def _rewrite_same_stat(path: Path, text: str) -> None:
    """Change the content but keep size and mtime (the cache cannot notice)."""
    st = path.stat()
    assert len(text.encode()) == st.st_size
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_persisted_cache_serves_a_new_catalog(tmp_path: Path, make_skill: MakeSkill) -> None:
    skill = make_skill(tmp_path / "r", "cached", "AAAA")
    first = Catalog.from_roots([tmp_path / "r"])
    assert first.list()[0].description == "AAAA"
    files = list((dirs().cache / "catalog").glob("*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert str(skill / "SKILL.md") in data["entries"]
    md = skill / "SKILL.md"
    _rewrite_same_stat(md, md.read_text().replace("AAAA", "BBBB"))
    # same (path, mtime, size): served from the cache without reading the file
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "AAAA"
    # a changed mtime invalidates the entry
    os.utime(md, ns=(md.stat().st_atime_ns, md.stat().st_mtime_ns + 1_000_000_000))
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "BBBB"


def test_refresh_picks_up_changes_in_process(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "r"
    make_skill(root, "one", "first text")
    cat = Catalog.from_roots([root])
    before = cat.list()
    assert cat.refresh() is False  # nothing changed
    assert cat.list()[0] is before[0]  # unchanged metadata objects are reused
    make_skill(root, "two")
    md = root / "one" / "SKILL.md"
    md.write_text(md.read_text().replace("first text", "second, longer text"))
    assert cat.refresh() is True
    assert [(m.name, m.description) for m in cat.list()] == [
        ("one", "second, longer text"),
        ("two", "Use two when testing."),
    ]
    (md).unlink()
    (root / "one").rmdir()
    assert cat.refresh() is True
    assert [m.name for m in cat.list()] == ["two"]


def test_cache_off_and_corrupt_cache(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r", "x")
    Catalog.from_roots([tmp_path / "r"], cache=False).list()
    assert not (dirs().cache / "catalog").exists()
    Catalog.from_roots([tmp_path / "r"]).list()
    (cache_file,) = (dirs().cache / "catalog").glob("*.json")
    cache_file.write_text("{not json")
    assert [m.name for m in Catalog.from_roots([tmp_path / "r"]).list()] == ["x"]
    cache_file.write_text(json.dumps({"stamp": "other", "root": "x", "entries": {}}))
    assert [m.name for m in Catalog.from_roots([tmp_path / "r"]).list()] == ["x"]


def test_cached_metadata_has_a_manifest_on_demand(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r", "lazy", frontmatter="license: MIT\n")
    Catalog.from_roots([tmp_path / "r"]).list()
    meta = Catalog.from_roots([tmp_path / "r"]).list()[0]
    manifest = meta.manifest
    assert manifest is not None and manifest.license == "MIT"


def test_cache_keeps_a_bounded_number_of_roots(tmp_path: Path, make_skill: MakeSkill) -> None:
    from skilldeck._catalog._cache import MAX_FILES

    for i in range(MAX_FILES + 5):
        make_skill(tmp_path / f"root{i}", "s")
        Catalog.from_roots([tmp_path / f"root{i}"]).list()
    files = list((dirs().cache / "catalog").glob("*.json"))
    assert len(files) == MAX_FILES
