"""The metadata cache: keyed by path and stat signature; persisted; never trusted blindly."""

from __future__ import annotations

import marshal
import os
import shutil
import struct
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner

from skilldeck import Catalog, Source
from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._paths import dirs
from skilldeck.catalog import _cache, _fs
from skilldeck.catalog._cache import (
    SIG_SIZE,
    MetadataCache,
    pack_diagnostics,
    unpack_diagnostics,
)
from skilldeck.catalog._model import SkillMetadata, metadata_of, raw_diagnostics
from skilldeck.cli import main

from .conftest import MakeSkill, write_skill


def _index_file() -> Path:
    (found,) = (dirs().cache / "catalog").glob("*.idx")
    return found


RACY_S = 0.02


@pytest.fixture(autouse=True)
def short_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files count as settled 20 ms after their last change (1 s outside tests)."""
    monkeypatch.setattr(_fs, "_RACY_NS", int(RACY_S * 1e9))


def settle() -> None:
    time.sleep(RACY_S * 2)


@pytest.fixture
def make_skill() -> MakeSkill:
    def make(*args: Any, **kwargs: Any) -> Path:
        folder = write_skill(*args, **kwargs)
        settle()
        return folder

    return make


def _parts(data: bytes) -> list[Any]:
    """The header and chunks of an index file (each part after its 4-byte length;
    the header gives the chunks' lengths), each chunk's columns turned into rows of
    [signature, record], tags and versions-and-authors taken from the header's tables."""
    (size,) = struct.unpack("<I", data[:4])
    header = marshal.loads(data[4 : 4 + size])
    tag_sets, findings, abouts = header[5:]
    parts, at = [header], 4 + size
    for length in header[3]:
        packed, *fields = marshal.loads(data[at : at + length])
        sigs = [packed[i : i + SIG_SIZE] for i in range(0, len(packed), SIG_SIZE)]
        fields[6] = [bool(flag) for flag in fields[6]]
        for i, table in ((2, tag_sets), (7, findings), (9, abouts)):
            places = struct.unpack(f"<{len(fields[i]) // 4}I", fields[i])
            fields[i] = [table[place] for place in places]
        records = zip(*fields, strict=True)
        parts.append([[sig, list(rec)] for sig, rec in zip(sigs, records, strict=True)])
        at += length
    assert at == len(data)
    return parts


def _rows(path: Path) -> list[Any]:
    """stamp, root, rows as [key, signature, record] (the file: a header with the
    keys, then the [signature, record] rows in chunks)."""
    (stamp, root, keys, *_rest), *chunks = _parts(path.read_bytes())
    values = [value for chunk in chunks for value in chunk]
    return [stamp, root, [[key, *value] for key, value in zip(keys, values, strict=True)]]


def _tuples(value: Any) -> Any:
    """Lists as the tuples the index holds (a damaged row's other values as they are)."""
    return tuple(map(_tuples, value)) if isinstance(value, list | tuple) else value


def _place(table: dict[Any, int], value: Any) -> Any:
    """The place of ``value`` in a header's table (added; a damaged one: itself)."""
    try:
        return table.setdefault(value, len(table))
    except TypeError:
        return value


def _packed(at: int, col: list[Any]) -> Any:
    """A column as the index holds it: the signatures, the valid flags and the places
    in the tables packed into one bytes object (a damaged value: the column as a tuple,
    which no index holds)."""
    try:
        if at == 0 and all(len(sig) == SIG_SIZE for sig in col):
            return b"".join(col)
        if at == 7 and all(type(flag) is bool for flag in col):
            return bytes(col)
        if at in (3, 8, 10) and all(type(place) is int for place in col):
            return struct.pack(f"<{len(col)}I", *col)
    except TypeError:
        pass
    return tuple(col)


def _write(path: Path, data: Any) -> None:
    """Write rows [key, signature, record] as an index; a damaged row (a short one, a
    record that is not a list of eleven values) puts what it has in every column."""
    stamp, root, rows, listing = data
    cols: list[list[Any]] = [[] for _ in range(12)]
    tables: tuple[dict[Any, int], ...] = ({}, {}, {})
    for row in rows:
        sig = row[1] if len(row) > 1 else None
        rec = row[2] if len(row) > 2 else None
        fields = list(rec) if isinstance(rec, list | tuple) and len(rec) == 11 else [rec] * 11
        values = [_tuples(value) for value in [sig, *fields]]
        for at, table in zip((3, 8, 10), tables, strict=True):
            values[at] = _place(table, values[at])
        for col, value in zip(cols, values, strict=True):
            col.append(value)
    chunk = marshal.dumps(tuple(_packed(at, col) for at, col in enumerate(cols)))
    keys = [row[0] for row in rows]
    header = (stamp, root, keys, [len(chunk)] if rows else [], listing, *map(list, tables))
    head = marshal.dumps(header)
    path.write_bytes(struct.pack("<I", len(head)) + head + (chunk if rows else b""))


def test_persisted_cache_serves_a_new_catalog(tmp_path: Path, make_skill: MakeSkill) -> None:
    skill = make_skill(tmp_path / "r", "cached", "AAAA")
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "AAAA"
    stamp, root, rows = _rows(_index_file())
    ((key, sig, record),) = rows
    assert key == str(skill)  # a plain SKILL.md: its folder
    st = (skill / "SKILL.md").stat()
    parts = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev)
    assert sig == struct.pack("<qqQqQ", *parts)  # packed: 40 bytes, one object
    # a row whose signature matches is served without reading the file: prove it
    record[1] = "from the index"
    _write(_index_file(), [stamp, root, [[key, sig, record]], None])
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "from the index"


def test_two_versions_sharing_the_cache_keep_their_own_index(
    tmp_path: Path, make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skilldeck.catalog import _cache

    make_skill(tmp_path / "r", "shared", "AAAA")
    monkeypatch.setattr(_cache, "_STAMP", "1" * 16)
    Catalog.from_roots([tmp_path / "r"]).list()
    first = _index_file()
    stamp, root, [[key, sig, record]] = _rows(first)
    assert stamp == "1" * 16
    record[1] = "served to version one"
    _write(first, [stamp, root, [[key, sig, record]], None])

    monkeypatch.setattr(_cache, "_STAMP", "2" * 16)  # another version parses for itself
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "AAAA"
    assert len(list((dirs().cache / "catalog").glob("*.idx"))) == 2

    monkeypatch.setattr(_cache, "_STAMP", "1" * 16)  # and the first one's index is still there
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "served to version one"


def _rewrite_same_mtime_and_size(path: Path, old: str, new: str) -> None:
    st = path.stat()
    text = path.read_text().replace(old, new)
    assert len(text.encode()) == st.st_size
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_mtime_ns == st.st_mtime_ns and path.stat().st_size == st.st_size
    settle()


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
    settle()
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
    settle()
    assert cat.refresh() is True
    assert [(m.name, m.description) for m in cat.list()] == [
        ("one", "second, longer text"),
        ("two", "Use two when testing."),
    ]
    (md).unlink()
    (root / "one").rmdir()
    settle()
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
    _write(cache_file, ["other", "x", [], None])
    assert [m.name for m in Catalog.from_roots([tmp_path / "r"]).list()] == ["x"]


def _damage(kind: str, row: list[Any]) -> Any:
    key, sig, rec = row
    if kind == "short-row":
        return [key, sig]
    if kind == "sig-not-ints":
        return [key, ["a", "b", 1, 2, 3], rec]
    if kind == "sig-a-list-of-ints":  # the layout before signatures were packed
        return [key, [1, 2, 3, 4, 5], rec]
    if kind == "name-not-text":
        return [key, sig, [7, *rec[1:]]]
    if kind == "tags-not-a-list":
        return [key, sig, [rec[0], rec[1], 5, *rec[3:]]]
    if kind == "valid-not-bool":
        return [key, sig, [*rec[:6], "yes", *rec[7:]]]
    if kind == "bad-severity":
        bad = {"code": "SK201", "severity": "fatal", "message": "m"}
        return [key, sig, [*rec[:7], [bad], *rec[8:]]]
    if kind == "diag-too-short":
        return [key, sig, [*rec[:7], [{"code": "SK201"}], *rec[8:]]]
    if kind == "diag-a-list":
        return [key, sig, [*rec[:7], [["SK201", "error", "m"]], *rec[8:]]]
    if kind == "invocation-not-bool":
        return [key, sig, [*rec[:8], ["no", True, None, None], *rec[9:]]]
    if kind == "run-timeout-a-text":
        return [key, sig, [*rec[:10], ["60", False, False, False, None]]]
    if kind == "run-flag-not-bool":
        return [key, sig, [*rec[:10], [None, 1, False, False, None]]]
    if kind == "run-modes-not-text":
        return [key, sig, [*rec[:10], [None, False, False, False, [1]]]]
    if kind == "run-too-short":
        return [key, sig, [*rec[:10], [None, True]]]
    if kind == "record-a-map":
        return [key, sig, {"name": "x"}]
    if kind == "row-is-null":
        return [key, None]
    raise AssertionError(kind)


DAMAGE = [
    "short-row",
    "sig-not-ints",
    "sig-a-list-of-ints",
    "name-not-text",
    "tags-not-a-list",
    "valid-not-bool",
    "bad-severity",
    "diag-too-short",
    "diag-a-list",
    "invocation-not-bool",
    "run-timeout-a-text",
    "run-flag-not-bool",
    "run-modes-not-text",
    "run-too-short",
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
    _write(_index_file(), [stamp, root, rows, None])
    listed = Catalog.from_roots([tmp_path / "r"]).list()
    assert [(m.name, m.description) for m in listed] == [
        ("good", "Real text."),
        ("other", "Other text."),
    ]
    # the CLI lists too (it used to die with a TypeError), and the index is rewritten
    _write(_index_file(), [stamp, root, rows, None])
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
    write_skill(root, "plain")
    settle()
    first = Catalog.from_roots([root]).entries()
    again = Catalog.from_roots([root]).entries()
    assert [(e.name, e.status) for e in first] == [(e.name, e.status) for e in again]
    assert any(name in str(e.path) for e in again)
    rows = _rows(_index_file())[2]
    assert [r[0].rsplit("/", 1)[-1] for r in rows] == ["plain"]  # keys: the folders


def test_cached_metadata_has_a_manifest_on_demand(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r", "lazy", frontmatter="license: MIT\n")
    Catalog.from_roots([tmp_path / "r"]).list()
    meta = Catalog.from_roots([tmp_path / "r"]).list()[0]
    manifest = meta.manifest
    assert manifest is not None and manifest.license == "MIT"


def test_cache_keeps_a_bounded_number_of_roots(tmp_path: Path, make_skill: MakeSkill) -> None:
    from skilldeck.catalog._cache import MAX_FILES

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
    assert type(fast) is SkillMetadata and hash(fast) == hash(slow)
    with pytest.raises(AttributeError):  # frozen, as the dataclass is
        fast.name = "other"  # type: ignore[misc]
    invocation, about = (False, True, "when", "hint"), ("1.0", "me")
    run = (60, True, False, True, ("Dev",))
    full = metadata_of(*args, invocation, about, run, '{"name": "n"}')
    assert full == SkillMetadata(*args, False, True, "when", "hint", "1.0", "me")
    assert full.frontmatter_json == '{"name": "n"}' and full.manifest is None
    assert full._run == run


def test_fast_entry_constructor_equals_the_dataclass() -> None:
    from skilldeck.catalog._model import CatalogEntry, SkillStatus, Trust, entry_of

    meta = SkillMetadata("n", "d", "/f")
    args: tuple[Any, ...] = (
        "n", "src", SkillStatus.SHADOWED, meta, "why", "x:n", Trust.UNTRUSTED, (), (Path("/d"),),
    )  # fmt: skip
    fast, slow = entry_of(*args), CatalogEntry(*args)
    assert fast == slow and repr(fast) == repr(slow) and fast.to_dict() == slow.to_dict()
    assert type(fast) is CatalogEntry and hash(fast) == hash(slow)
    with pytest.raises(AttributeError):
        fast.reason = None  # type: ignore[misc]


def test_cache_api_round_trip(tmp_path: Path) -> None:
    cache = MetadataCache(tmp_path / "c")
    sig = struct.pack("<qqQqQ", 1, 2, 3, 4, 5)
    run = (60, True, False, False, ("Dev", "Global"))
    rows: Any = [("k", sig, ("n", "d", (), (), (), (), True, b"", None, ("1.0", None), run))]
    cache.save("root", rows, ((1, 2, 3), ["/r/other"]))
    assert cache.load("root") == (
        {"k": (sig, ("n", "d", (), (), (), (), True, b"", None, ("1.0", None), run))},
        ((1, 2, 3), ["/r/other"]),
    )
    assert cache.load("another root") == ({}, None)


def test_packed_diagnostics_round_trip() -> None:
    diags = (
        Diagnostic.make("SK213", "extras kept: domain", path="/r/x/SKILL.md", line=5, column=1),
        Diagnostic.make("SK201", "no name", hint="add one").with_severity(Severity.INFO),
        Diagnostic.make("SK215", "lower case", path="/r/\u00e9/skill.md"),
    )
    packed = pack_diagnostics(diags)
    assert isinstance(packed, bytes) and unpack_diagnostics(packed) == diags
    assert pack_diagnostics(()) == b"" and unpack_diagnostics(b"") == ()
    assert pack_diagnostics(packed) is packed
    # bytes that do not unpack read as none (an edit that still fits the schema)
    assert unpack_diagnostics(b"\x91\x93\xa1x") == ()
    assert unpack_diagnostics(msgspec.msgpack.encode([["SK201", "fatal", "m"]])) == ()
    with pytest.raises(UnicodeEncodeError):
        pack_diagnostics((Diagnostic.make("SK201", "m", path="/r/\udcff/SKILL.md"),))
    # the skill's own SKILL.md is packed as a mark: the same finding in two skills
    # packs to the same bytes, and each unpacks with its own path
    own = pack_diagnostics(diags, "/r/x/SKILL.md")
    assert b"/r/x/SKILL.md" not in own and unpack_diagnostics(own, "/r/x/SKILL.md") == diags
    other = unpack_diagnostics(own, "/s/y/SKILL.md")
    assert [d.path for d in other] == ["/s/y/SKILL.md", None, "/r/\u00e9/skill.md"]
    assert pack_diagnostics(other, "/s/y/SKILL.md") == own
    assert [d.path for d in unpack_diagnostics(own)] == [None, None, "/r/\u00e9/skill.md"]


def test_a_warm_listing_expands_no_diagnostics(tmp_path: Path, make_skill: MakeSkill) -> None:
    """Cached skills keep their diagnostics packed through a listing (metadata and
    entries); read, they equal what parsing the files gives."""
    make_skill(tmp_path / "r", "plain")
    make_skill(tmp_path / "r", "extras", frontmatter="domain: x\ncategory: y\n")
    cold = Catalog.from_roots([tmp_path / "r"])
    parsed = {e.name: e.diagnostics for e in cold.entries()}
    assert any(d.code == "SK213" for d in parsed["extras"])
    warm = Catalog.from_roots([tmp_path / "r"])
    entries = warm.entries()
    assert [e.name for e in entries] == ["extras", "plain"]
    held = [raw_diagnostics(e) for e in entries] + [raw_diagnostics(e.metadata) for e in entries]
    assert held[0].__class__ is bytes and held[2].__class__ is bytes
    assert held[1] == () and held[3] == ()
    assert {e.name: e.diagnostics for e in entries} == parsed
    assert entries[0].metadata.diagnostics == parsed["extras"]
    assert raw_diagnostics(entries[0]) == parsed["extras"]  # expanded once, then kept


def test_a_damaged_packed_row_still_lists(tmp_path: Path, make_skill: MakeSkill) -> None:
    """Packed diagnostics that do not unpack read as none; the listing goes on."""
    make_skill(tmp_path / "r", "good", "Real text.", frontmatter="domain: x\n")
    Catalog.from_roots([tmp_path / "r"]).list()
    stamp, root, rows = _rows(_index_file())
    assert rows[0][2][7]  # packed diagnostics
    rows[0][2][7] = b"\x93\xff"
    _write(_index_file(), [stamp, root, rows, None])
    result = CliRunner().invoke(main, ["list", "--root", str(tmp_path / "r"), "--json"])
    assert result.exit_code == 0, result.output
    (entry,) = Catalog.from_roots([tmp_path / "r"]).entries()
    assert entry.metadata.description == "Real text." and entry.diagnostics == ()


def test_racy_files_are_read_again_until_they_settle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file changed within the racy window of a scan is not cached: an edit in
    the same clock tick would keep its signature."""
    monkeypatch.setattr(_fs, "_RACY_NS", 10**9)
    write_skill(tmp_path / "r", "fresh", "AAAA")
    assert Catalog.from_roots([tmp_path / "r"]).list()[0].description == "AAAA"
    assert _rows(_index_file())[2] == []  # not persisted yet
    cat = Catalog.from_roots([tmp_path / "r"])
    first = cat.list()[0]
    _rewrite_same_mtime_and_size(tmp_path / "r" / "fresh" / "SKILL.md", "AAAA", "BBBB")
    cat.refresh()
    assert cat.list()[0].description == "BBBB" and cat.list()[0] is not first
    monkeypatch.setattr(_fs, "_RACY_NS", 0)
    Catalog.from_roots([tmp_path / "r"]).list()
    assert [r[0] for r in _rows(_index_file())[2]] == [str(tmp_path / "r" / "fresh")]


def _listing_catalog(root: Path) -> Catalog:
    cat = Catalog([Source.of("root1", "root", [root])])  # a skills folder, not a repository
    cat.list()
    return cat


def test_a_repository_root_of_skill_folders_only_is_replayed(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """--root DIR reads DIR as a repository of skills; while every sub-folder is a
    skill, its folder list is reused as an agent's skills folder's is; a folder that
    is no skill is searched below, so the root is walked again each time."""
    root = tmp_path / "r"
    for name in ("a", "b"):
        make_skill(root, name)
    settle()
    cat = Catalog.from_roots([root])
    assert [m.name for m in cat.list()] == ["a", "b"]
    (store,) = [s for _src, _root, s in cat._stores]
    assert store._listing is not None
    make_skill(root / "group", "c")  # a category folder: searched, never replayed
    settle()
    cat.refresh()
    assert [m.name for m in cat.list()] == ["a", "b", "c"] and store._listing is None
    make_skill(root / "group", "d")  # below the root: its signature did not change
    cat.refresh()
    assert [m.name for m in cat.list()] == ["a", "b", "c", "d"]


def test_folder_list_reuse_sees_every_change(tmp_path: Path, make_skill: MakeSkill) -> None:
    """The folder list of an unchanged root is reused (one lstat per skill), and
    every kind of change still shows, in-process and in a new process."""
    root = tmp_path / "r"
    for name in ("a", "b", "c"):
        make_skill(root, name)
    (root / "notes").mkdir()
    (root / "README.md").write_text("hi")
    settle()
    cat = _listing_catalog(root)
    (store,) = [s for _src, _root, s in cat._stores]
    assert store._listing is not None and store._listing[2] == [str(root / "notes")]
    assert _rows(_index_file())[2] and _parts(_index_file().read_bytes())[0][4]  # the listing
    fresh = _listing_catalog(root)  # a new process's catalog replays the stored listing
    assert [m.name for m in fresh.list()] == ["a", "b", "c"]

    def names() -> list[list[str]]:
        settle()
        cat.refresh()
        return [[m.name for m in cat.list()], [m.name for m in _listing_catalog(root).list()]]

    make_skill(root, "d")  # a new folder
    assert names() == [["a", "b", "c", "d"]] * 2
    write_skill(root, "notes")  # SKILL.md appears in a folder that had none
    assert names() == [["a", "b", "c", "d", "notes"]] * 2
    (root / "b" / "SKILL.md").unlink()  # SKILL.md removed, the folder stays
    assert names() == [["a", "c", "d", "notes"]] * 2
    (root / "c" / "SKILL.md").unlink()
    (root / "c" / "SKILL.md").mkdir()  # SKILL.md replaced by a folder: a finding
    assert names() == [["a", "d", "notes"]] * 2
    (odd,) = [e for e in cat.entries() if e.path == root / "c"]  # a candidate, invalid
    assert "SK113" in [d.code for d in odd.diagnostics]
    (root / "c" / "SKILL.md").rmdir()
    os.symlink(root / "a" / "SKILL.md", root / "c" / "SKILL.md")  # a link inside the root
    linked = names()
    assert linked[0] == linked[1] and "a" in linked[0]
    st = root.stat()
    write_skill(root, "e")  # a folder added with the root's mtime put back: ctime moved
    os.utime(root, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert "e" in names()[0] and "e" in names()[1]


def test_a_file_dated_past_the_packed_range_is_listed_and_never_cached(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """An mtime past 2262 does not fit the packed signature: the skill is listed,
    compared exactly, never written to the index, and an edit is still seen."""
    skill = make_skill(tmp_path / "r", "future", "AAAA")
    md = skill / "SKILL.md"
    far = 10**19 + 123  # ns: the year 2286, beyond a signed 64-bit count
    os.utime(md, ns=(far, far))
    if os.stat(md).st_mtime_ns != far:
        pytest.skip("this file system cannot store a date past 2262")
    catalog = Catalog.from_roots([tmp_path / "r"])
    assert [m.description for m in catalog.list()] == ["AAAA"]
    assert not list((dirs().cache / "catalog").glob("*.idx")) or _rows(_index_file())[2] == []
    assert [m.description for m in Catalog.from_roots([tmp_path / "r"]).list()] == ["AAAA"]
    md.write_text(md.read_text().replace("AAAA", "BBBB"))
    os.utime(md, ns=(far, far))
    catalog.refresh()
    assert [m.description for m in catalog.list()] == ["BBBB"]


def _chunked(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    from skilldeck.catalog import _cache

    monkeypatch.setattr(_cache, "CHUNK", rows)


def test_an_index_in_many_chunks_serves_every_row(
    tmp_path: Path, make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows are read chunk by chunk in the listing's order; a folder added in the
    middle (rows asked out of order) and a damaged chunk still give the right listing."""
    _chunked(monkeypatch, 3)
    root = tmp_path / "r"
    for i in range(10):
        make_skill(root, f"s{i:02d}", f"Skill number {i}.")
    cold = [(m.name, m.description, m.diagnostics) for m in Catalog.from_roots([root]).list()]
    (header, *chunks) = _parts(_index_file().read_bytes())
    assert len(chunks) == 4 and len(header[2]) == 10
    warm = Catalog.from_roots([root])
    assert [(m.name, m.description, m.diagnostics) for m in warm.list()] == cold
    (store,) = [s for _src, _root, s in warm._stores]
    assert store._disk is None  # the index was closed after the listing

    make_skill(root, "s04b", "Added in the middle.")
    parsed: list[str] = []
    parse = _fs.FileSystemStore._parse

    def counted(self: Any, real_md: str, folder: str, md: str) -> Any:
        parsed.append(os.path.basename(folder))
        return parse(self, real_md, folder, md)

    monkeypatch.setattr(_fs.FileSystemStore, "_parse", counted)
    added = Catalog.from_roots([root]).list()
    assert parsed == ["s04b"]  # the rows after it are still served
    assert [m.name for m in added] == [*(c[0] for c in cold[:5]), "s04b", *(c[0] for c in cold[5:])]
    assert len(_rows(_index_file())[2]) == 11

    data = bytearray(_index_file().read_bytes())
    (size,) = struct.unpack("<I", data[:4])
    sizes = _parts(bytes(data))[0][3]
    second = 4 + size + sizes[0]
    data[second : second + sizes[1]] = b"\xff" * sizes[1]  # never valid marshal data
    _index_file().write_bytes(bytes(data))
    damaged = Catalog.from_roots([root]).list()
    assert [(m.name, m.description) for m in damaged] == [(m.name, m.description) for m in added]
    assert len(_rows(_index_file())[2]) == 11  # written again whole


def test_a_replayed_listing_takes_its_rows_by_chunk_and_parses_only_edits(
    tmp_path: Path, make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new process whose root's folder list is unchanged takes the index's rows a
    chunk at a time in the saved order (no look-up by key); a SKILL.md edited in a
    middle chunk is parsed again, every other row is served as cached."""
    _chunked(monkeypatch, 3)
    root = tmp_path / "r"
    for i in range(8):
        make_skill(root, f"s{i:02d}", f"Skill number {i}.")
    Catalog.from_roots([root]).list()
    md = root / "s04" / "SKILL.md"
    md.write_text(md.read_text().replace("Skill number 4.", "Edited four."))
    settle()
    parsed: list[str] = []
    taken: list[str] = []
    parse, take = _fs.FileSystemStore._parse, _cache.Stored.take

    def counted(self: Any, real_md: str, folder: str, md: str) -> Any:
        parsed.append(os.path.basename(folder))
        return parse(self, real_md, folder, md)

    def by_key(self: Any, key: str) -> Any:
        taken.append(key)
        return take(self, key)

    monkeypatch.setattr(_fs.FileSystemStore, "_parse", counted)
    monkeypatch.setattr(_cache.Stored, "take", by_key)
    listed = Catalog.from_roots([root]).list()
    assert parsed == ["s04"] and taken == []
    assert [m.description for m in listed] == [
        "Edited four." if i == 4 else f"Skill number {i}." for i in range(8)
    ]
    parsed.clear()
    again = Catalog.from_roots([root]).list()
    assert parsed == [] and taken == []
    assert [(m.name, m.description, m.diagnostics) for m in again] == [
        (m.name, m.description, m.diagnostics) for m in listed
    ]


def test_a_placeholder_is_left_out_of_a_warm_listing_as_of_a_cold_one(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """Found in packed findings without expanding the others: left out and reported
    (SK219, as info) from the cache as when parsed; a listing without one reports none."""
    root = tmp_path / "r"
    make_skill(root, "template", "Replace with a description of the skill.")
    make_skill(root, "noted", "Has a note.", frontmatter="domain: x\n")
    make_skill(root, "plain", "Nothing to say.")

    def seen(catalog: Catalog) -> tuple[list[str], list[tuple[str, Severity, str | None]]]:
        names = [m.name for m in catalog.list()]
        return names, [(d.code, d.severity, d.path) for d in catalog.diagnostics]

    cold = seen(Catalog.from_roots([root]))
    assert cold[0] == ["noted", "plain"]
    assert [c for c, _s, _p in cold[1]] == ["SK219"] and cold[1][0][1] is Severity.INFO
    warm = Catalog.from_roots([root])
    assert seen(warm) == cold
    (store,) = [s for _src, _root, s in warm._stores]
    held = {m.name: type(raw_diagnostics(m)) for m in store.discover().skills}
    assert held == {"noted": bytes, "plain": tuple, "template": tuple}  # only SK219's expanded
    shutil.rmtree(root / "template")
    settle()
    assert seen(Catalog.from_roots([root])) == (["noted", "plain"], [])


@pytest.mark.parametrize("sizes", [[10**12], [-1], [0], [1]])
def test_damaged_chunk_sizes_are_parsed_again(
    tmp_path: Path, make_skill: MakeSkill, sizes: list[int]
) -> None:
    """A chunk size in the header that no chunk has (larger than the file, negative,
    empty, short) serves no row and allocates nothing of that size."""
    make_skill(tmp_path / "r", "x", "Real text.")
    Catalog.from_roots([tmp_path / "r"]).list()
    data = _index_file().read_bytes()
    (size,) = struct.unpack("<I", data[:4])
    header = list(marshal.loads(data[4 : 4 + size]))
    header[3] = sizes
    head = marshal.dumps(tuple(header))
    _index_file().write_bytes(struct.pack("<I", len(head)) + head + data[4 + size :])
    listed = Catalog.from_roots([tmp_path / "r"]).list()
    assert [(m.name, m.description) for m in listed] == [("x", "Real text.")]


def test_streamed_rows_stay_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a large index row by row holds one chunk, not the whole index: the peak
    of a pass that takes every row and drops it is a small part of all rows' size."""
    import tracemalloc

    from skilldeck.catalog._cache import MetadataCache

    _chunked(monkeypatch, 64)
    cache = MetadataCache(tmp_path / "c")
    diags = pack_diagnostics((Diagnostic.make("SK213", "extras kept: domain", path="/r/x"),))
    sig = struct.pack("<qqQqQ", 1, 2, 3, 4, 5)
    keys = [f"/r/skill-{i:05d}/SKILL.md" for i in range(5000)]
    record = ("x", "A description of some length. " * 8, ("a", "b"), (), (), (), True, diags)
    cache.save("root", [(k, sig, (*record, None, None, None)) for k in keys], ((1, 2, 3), []))

    tracemalloc.start()
    try:
        stored = cache.open("root")
        assert stored is not None
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        taken = sum(stored.take(k) is not None for k in keys)
        streamed = tracemalloc.get_traced_memory()[1] - base
        stored.close()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        rows, _listing = cache.load("root")
        whole = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert taken == len(rows) == 5000
    assert streamed * 10 < whole, (streamed, whole)


def test_a_listing_from_chunks_prints_what_parsing_prints(
    tmp_path: Path, make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``list`` and ``list --json`` from a chunked index print what they print with no cache."""
    _chunked(monkeypatch, 2)
    root = tmp_path / "r"
    for i in range(7):
        make_skill(root, f"t{i}", f"Tool {i}.", frontmatter="domain: x\n" if i % 2 else "")
    runner = CliRunner()
    for args in (["list"], ["list", "--json"], ["list", "--all"]):
        cold = runner.invoke(main, [*args, "--root", str(root)])
        warm = runner.invoke(main, [*args, "--root", str(root)])
        assert cold.exit_code == warm.exit_code == 0, cold.output
        assert warm.output == cold.output
        assert len(_parts(_index_file().read_bytes())) == 5  # the header and 4 chunks


def test_cached_tags_versions_and_authors_are_shared(tmp_path: Path, make_skill: MakeSkill) -> None:
    """Skills served from the cache share one string per tag, version and author."""
    about = "tags: [pdf, forms]\nversion: 1.0.0\nauthor: someone\n"
    for name in ("one", "two"):
        make_skill(tmp_path / "r", name, frontmatter=about)
    cold = Catalog.from_roots([tmp_path / "r"]).list()
    one, two = Catalog.from_roots([tmp_path / "r"]).list()
    assert [(m.tags, m.version, m.author) for m in (one, two)] == [
        (m.tags, m.version, m.author) for m in cold
    ]
    assert one.tags == ("pdf", "forms") and one.version == "1.0.0"
    assert one.tags[0] is two.tags[0] and one.tags[1] is two.tags[1]
    assert one.version is two.version and one.author is two.author
    assert one.tags is two.tags  # one tuple per tag set


def test_equal_findings_are_held_once_and_name_each_skill(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """Skills served from the cache with the same finding share its packed bytes; read,
    each names its own SKILL.md, as parsing does (a linked SKILL.md too)."""
    for name in ("one", "two", "three"):
        make_skill(tmp_path / "r", name, frontmatter="domain: x\n")
    linked = tmp_path / "r" / "three"
    (linked / "SKILL.md").rename(linked / "real.md")
    (linked / "SKILL.md").symlink_to("real.md")
    settle()
    roots = [tmp_path / "r"]
    cold = {e.address: e.diagnostics for e in Catalog.from_roots(roots).entries()}
    warm = Catalog.from_roots(roots).entries()
    one, three, two = warm
    assert raw_diagnostics(one.metadata) is raw_diagnostics(two.metadata)
    assert {e.address: e.diagnostics for e in warm} == cold
    assert [d.path for d in one.diagnostics if d.code == "SK213"] == [str(one.path / "SKILL.md")]
    assert [d.path for d in two.diagnostics if d.code == "SK213"] == [str(two.path / "SKILL.md")]
    assert [d.path for d in three.diagnostics if d.code == "SK213"] == [str(linked / "real.md")]
