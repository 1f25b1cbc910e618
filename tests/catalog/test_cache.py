"""The metadata cache: keyed by path and stat signature; persisted; never trusted blindly."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner

from skilldeck import Catalog
from skilldeck._catalog._cache import MetadataCache
from skilldeck._catalog._model import SkillMetadata, metadata_of
from skilldeck._paths import dirs
from skilldeck.cli import main

from .conftest import MakeSkill


def _index_file() -> Path:
    (found,) = (dirs().cache / "catalog").glob("*.idx")
    return found


def _rows(path: Path) -> list[Any]:
    stamp, root, rows = msgspec.msgpack.decode(path.read_bytes())
    return [stamp, root, rows]


def _write(path: Path, data: Any) -> None:
    path.write_bytes(msgspec.msgpack.encode(data))


def test_persisted_cache_serves_a_new_catalog(tmp_path: Path, make_skill: MakeSkill) -> None:
    skill = make_skill(tmp_path / "r", "cached", "AAAA")
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "AAAA"
    stamp, root, rows = _rows(_index_file())
    ((key, sig, record),) = rows
    assert key == str(skill / "SKILL.md")
    st = (skill / "SKILL.md").stat()
    assert sig == [st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev]
    # a row whose signature matches is served without reading the file: prove it
    record[1] = "from the index"
    _write(_index_file(), [stamp, root, [[key, sig, record]]])
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "from the index"


def _rewrite_same_mtime_and_size(path: Path, old: str, new: str) -> None:
    st = path.stat()
    text = path.read_text().replace(old, new)
    assert len(text.encode()) == st.st_size
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size


def test_an_edit_that_keeps_mtime_and_size_is_not_served(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """The ctime moves on every write and cannot be set back: the row is stale."""
    skill = make_skill(tmp_path / "r", "cached", "AAAA")
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "AAAA"
    _rewrite_same_mtime_and_size(skill / "SKILL.md", "AAAA", "BBBB")
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "BBBB"
    # in-process memory follows the same rule
    cat = Catalog.from_roots([tmp_path / "r"])
    assert cat.list()[0].description == "BBBB"
    _rewrite_same_mtime_and_size(skill / "SKILL.md", "BBBB", "CCCC")
    assert cat.refresh() is True
    assert cat.list()[0].description == "CCCC"


def test_a_file_swapped_in_with_the_same_stat_is_not_served(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """A replacement renamed over SKILL.md is another inode."""
    skill = make_skill(tmp_path / "r", "cached", "AAAA")
    md = skill / "SKILL.md"
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "AAAA"
    st = md.stat()
    other = tmp_path / "other.md"
    other.write_text(md.read_text().replace("AAAA", "DDDD"))
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, md)
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "DDDD"


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
    cache_file = _index_file()
    cache_file.write_text("{not json")
    assert [m.name for m in Catalog.from_roots([tmp_path / "r"]).list()] == ["x"]
    _write(cache_file, ["other", "x", []])
    assert [m.name for m in Catalog.from_roots([tmp_path / "r"]).list()] == ["x"]


def _damage(kind: str, row: list[Any]) -> Any:
    key, sig, rec = row
    if kind == "short-row":
        return [key, sig]
    if kind == "sig-not-ints":
        return [key, ["a", "b", 1, 2, 3], rec]
    if kind == "name-not-text":
        return [key, sig, [7, *rec[1:]]]
    if kind == "tags-not-a-list":
        return [key, sig, [rec[0], rec[1], 5, *rec[3:]]]
    if kind == "valid-not-bool":
        return [key, sig, [*rec[:6], "yes", rec[7]]]
    if kind == "bad-severity":
        return [key, sig, [*rec[:7], [["SK201", "fatal", "m", None, 1, 1, None]]]]
    if kind == "diag-too-short":
        return [key, sig, [*rec[:7], [["SK201"]]]]
    if kind == "record-a-map":
        return [key, sig, {"name": "x"}]
    if kind == "row-is-null":
        return None
    raise AssertionError(kind)


DAMAGE = [
    "short-row",
    "sig-not-ints",
    "name-not-text",
    "tags-not-a-list",
    "valid-not-bool",
    "bad-severity",
    "diag-too-short",
    "record-a-map",
    "row-is-null",
]


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_malformed_row_falls_back_to_parsing(
    tmp_path: Path, make_skill: MakeSkill, kind: str
) -> None:
    """Every row is checked against the schema; a damaged index is parsed again."""
    make_skill(tmp_path / "r", "good", "Real text.")
    make_skill(tmp_path / "r", "other", "Other text.")
    Catalog.from_roots([tmp_path / "r"]).list()
    stamp, root, rows = _rows(_index_file())
    rows[0] = _damage(kind, rows[0])
    _write(_index_file(), [stamp, root, rows])
    listed = Catalog.from_roots([tmp_path / "r"]).list()
    assert [(m.name, m.description) for m in listed] == [
        ("good", "Real text."),
        ("other", "Other text."),
    ]
    # the CLI lists too (it used to die with a TypeError), and the index is rewritten
    _write(_index_file(), [stamp, root, rows])
    result = CliRunner().invoke(main, ["list", "--root", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "good" in result.output and "Traceback" not in result.output
    assert _rows(_index_file())[2][0][2][0] == "good"


@pytest.mark.parametrize(
    "blob",
    [b"", b"\x93", b"\xc1" * 10, b"\x93\xa1s\xa1r\x91\x93" + b"\xff" * 4, b"x" * 100_000],
)
def test_garbage_index_files_are_ignored(
    tmp_path: Path, make_skill: MakeSkill, blob: bytes
) -> None:
    make_skill(tmp_path / "r", "x")
    Catalog.from_roots([tmp_path / "r"]).list()
    _index_file().write_bytes(blob)
    assert [m.name for m in Catalog.from_roots([tmp_path / "r"]).list()] == ["x"]


def test_an_unwritable_cache_only_costs_speed(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r", "x")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    cat = Catalog.from_roots([tmp_path / "r"], cache=blocker / "sub")
    assert [m.name for m in cat.list()] == ["x"]


def test_undecodable_file_names_are_parsed_not_cached(tmp_path: Path) -> None:
    root = tmp_path / "r"
    odd = os.fsencode(root) + b"/caf\xe9"
    os.makedirs(odd)
    name = "caf\udce9"
    with open(odd + b"/SKILL.md", "wb") as fh:
        fh.write(b"---\nname: cafe\ndescription: d\n---\n")
    from tests.catalog.conftest import write_skill

    write_skill(root, "plain")
    first = Catalog.from_roots([root]).entries()
    again = Catalog.from_roots([root]).entries()
    assert [(e.name, e.status) for e in first] == [(e.name, e.status) for e in again]
    assert any(name in str(e.path) for e in again)
    rows = _rows(_index_file())[2]
    assert [r[0].rsplit("/", 2)[-2] for r in rows] == ["plain"]


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
    files = list((dirs().cache / "catalog").glob("*.idx"))
    assert len(files) == MAX_FILES


def test_fast_metadata_constructor_equals_the_dataclass() -> None:
    args: tuple[Any, ...] = (
        "n", "d", "/f", "SKILL.md", "src", "/f", ("t",), ("git",), ("E",), ("o",), (), False,
    )  # fmt: skip
    fast, slow = metadata_of(*args), SkillMetadata(*args)
    assert fast == slow and repr(fast) == repr(slow)
    assert fast.path == slow.path and fast.location == slow.location


def test_cache_api_round_trip(tmp_path: Path) -> None:
    cache = MetadataCache(tmp_path / "c")
    rows: Any = [("k", (1, 2, 3, 4, 5), ("n", "d", (), (), (), (), True, (), None))]
    cache.save("root", rows)
    assert cache.load("root") == {
        "k": ((1, 2, 3, 4, 5), ("n", "d", (), (), (), (), True, (), None))
    }
    assert cache.load("another root") == {}
