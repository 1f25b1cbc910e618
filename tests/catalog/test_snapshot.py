"""``Catalog.snapshot()``: change tokens move exactly when a skill's served files do
(real files: edits, renames, link swaps), digests match the bytes, diffs name keys."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.catalog.conftest import MakeSkill

from skilldeck import FileTooLargeError, SkillError
from skilldeck.catalog import (
    Catalog,
    CatalogSnapshot,
    FileSystemStore,
    MemoryStore,
    SkillMetadata,
    SkillStatus,
    Source,
    bytes_digest as sha,
)


def _settle() -> None:
    """Let the last writes age past the window in which a stamp could repeat."""
    time.sleep(0.08)


def _take(catalog: Catalog) -> CatalogSnapshot:
    _settle()
    catalog.refresh()
    return catalog.snapshot()


def _token(snap: CatalogSnapshot, key: Path) -> str | None:
    return snap.by_key[os.fspath(key)].token


@pytest.fixture
def two(tmp_path: Path, make_skill: MakeSkill) -> tuple[Catalog, Path, Path]:
    root = tmp_path / "skills"
    alpha = make_skill(
        root,
        "alpha",
        files={"references/a.md": "A\n", "references/b.md": "Bee\n", "scripts/run.sh": "echo\n"},
    )
    beta = make_skill(root, "beta", files={"notes.txt": "beta notes\n"})
    return Catalog.from_roots([root], cache=False), alpha, beta


def test_tokens_change_exactly_when_files_change(two: tuple[Catalog, Path, Path]) -> None:
    catalog, alpha, beta = two
    first = _take(catalog)
    assert first.token is not None and len(first) == 2
    again = _take(catalog)
    assert again.token == first.token and not again.diff(first)
    assert all(a is b for a, b in zip(again.entries, first.entries, strict=True))

    steps = [
        lambda: (alpha / "references/a.md").write_text("A, edited\n"),  # an edit
        lambda: (alpha / "references/b.md").rename(alpha / "references/c.md"),  # a rename
        lambda: (alpha / "assets").mkdir(),  # an empty folder: no file changed
        lambda: (alpha / "assets/logo.txt").write_text("logo\n"),  # a new file
        lambda: (alpha / "scripts/run.sh").unlink(),  # a removed file
    ]
    moved = [True, True, False, True, True]
    before = again
    for step, should in zip(steps, moved, strict=True):
        step()
        after = _take(catalog)
        assert (_token(after, alpha) != _token(before, alpha)) is should
        assert _token(after, beta) == _token(before, beta)
        assert after.diff(before).changed == ({os.fspath(alpha)} if should else set())
        assert (after.token != before.token) is should
        before = after


def test_same_size_same_mtime_rewrite_is_caught(two: tuple[Catalog, Path, Path]) -> None:
    catalog, alpha, _beta = two
    before = _take(catalog)
    target = alpha / "references/a.md"
    st = target.stat()
    target.write_text("Z\n")  # same size
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = _take(catalog)
    assert _token(after, alpha) != _token(before, alpha)
    entry = after.by_key[os.fspath(alpha)]
    assert after.digest(entry, "references/a.md", max_bytes=100).digest == sha(b"Z\n")


def test_hidden_files_and_fifos_do_not_move_the_token(two: tuple[Catalog, Path, Path]) -> None:
    catalog, alpha, _beta = two
    before = _take(catalog)
    (alpha / ".env").write_text("SECRET=1\n")
    (alpha / ".git").mkdir()
    (alpha / ".git" / "HEAD").write_text("ref\n")
    os.mkfifo(alpha / "pipe")
    after = _take(catalog)
    assert _token(after, alpha) == _token(before, alpha)
    assert [f.path for f in after.by_key[os.fspath(alpha)].files] == [
        "SKILL.md",
        "references/a.md",
        "references/b.md",
        "scripts/run.sh",
    ]


def test_link_swap_moves_the_token_and_the_digest(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    skill = make_skill(root, "linked", files={"one.md": "one\n", "two.md": "two two\n"})
    (skill / "current.md").symlink_to("one.md")
    (skill / "gone.md").symlink_to(tmp_path / "outside.md")  # leaves the folder: never listed
    (tmp_path / "outside.md").write_text("outside\n")
    catalog = Catalog.from_roots([root], cache=False)
    before = _take(catalog)
    entry = before.by_key[os.fspath(skill)]
    assert "gone.md" not in {f.path for f in entry.files}
    assert before.digest(entry, "current.md", max_bytes=100).digest == sha(b"one\n")

    (skill / "next.md").symlink_to("two.md")
    os.replace(skill / "next.md", skill / "current.md")  # an atomic swap
    after = _take(catalog)
    assert _token(after, skill) != _token(before, skill)
    entry = after.by_key[os.fspath(skill)]
    assert after.digest(entry, "current.md", max_bytes=100).digest == sha(b"two two\n")

    (tmp_path / "outside.md").write_text("outside, edited at length\n")
    assert _token(_take(catalog), skill) == _token(after, skill)  # not served: no change


def test_skills_added_and_removed_are_named(
    two: tuple[Catalog, Path, Path], make_skill: MakeSkill
) -> None:
    catalog, alpha, beta = two
    before = _take(catalog)
    gamma = make_skill(alpha.parent, "gamma")
    (beta / "SKILL.md").unlink()
    after = _take(catalog)
    diff = after.diff(before)
    assert diff.added == {os.fspath(gamma)}
    assert diff.removed == {os.fspath(beta)}
    assert not diff.changed
    assert after.diff(None).added == set(after.by_key)


def test_digests_are_the_served_bytes_and_limits_hold(two: tuple[Catalog, Path, Path]) -> None:
    catalog, alpha, _beta = two
    snap = _take(catalog)
    entry = snap.by_key[os.fspath(alpha)]
    assert entry.ref == "alpha" and entry.status is SkillStatus.ENABLED
    for f in entry.files:
        got = snap.digest(entry, f.path, max_bytes=10_000)
        data = catalog.skill_md_bytes("alpha").data if f.path == "SKILL.md" else None
        if data is None:
            data = (alpha / f.path).read_bytes()
        assert (got.digest, got.size, got.text) == (sha(data), len(data), True)
    with pytest.raises(FileTooLargeError):
        snap.digest(entry, "SKILL.md", max_bytes=3)


def test_digests_of_a_skill_read_together_equal_one_by_one(
    two: tuple[Catalog, Path, Path],
) -> None:
    catalog, alpha, _beta = two
    snap = _take(catalog)
    entry = snap.by_key[os.fspath(alpha)]
    paths = [f.path for f in entry.files]
    together = snap.digests(entry, paths, max_bytes=10_000)
    assert together == [snap.digest(entry, p, max_bytes=10_000) for p in paths]
    fresh = Catalog.from_roots([alpha.parent], cache=False).snapshot()
    assert fresh.digests(fresh.by_key[os.fspath(alpha)], paths, max_bytes=10_000) == together
    data = (alpha / "references/b.md").read_bytes()
    (b,) = fresh.digests(fresh.by_key[os.fspath(alpha)], ["references/b.md"], max_bytes=100)
    assert (b.digest, b.size) == (sha(data), len(data))
    with pytest.raises(FileTooLargeError):
        snap.digests(entry, ["references/a.md", "SKILL.md"], max_bytes=3)


def test_read_many_applies_the_checks_of_one_read(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    alpha = make_skill(root, "alpha", files={"references/a.md": "A\n", ".env": "SECRET=1\n"})
    (tmp_path / "outside.txt").write_text("outside\n")
    (alpha / "references" / "out.md").symlink_to(tmp_path / "outside.txt")
    for store in (FileSystemStore(root, index="all"), MemoryStore(index="all")):
        if isinstance(store, MemoryStore):
            store.add((alpha / "SKILL.md").read_text(), {"references/a.md": "A\n"})
        got = store.read_many("alpha", ["SKILL.md", "references/a.md"], max_bytes=100)
        assert [g.data for g in got] == [
            store.skill_md_bytes("alpha").data,
            store.read_bundled("alpha", "references/a.md").data,
        ]
        for bad in (".env", "references/out.md", "../alpha/SKILL.md", "references/none.md"):
            with pytest.raises(SkillError) as one:
                store.read_bundled("alpha", bad)
            with pytest.raises(SkillError) as many:
                store.read_many("alpha", ["references/a.md", bad], max_bytes=100)
            assert (many.value.code, many.value.message) == (one.value.code, one.value.message)
        with pytest.raises(FileTooLargeError):
            store.read_many("alpha", ["references/a.md", "SKILL.md"], max_bytes=3)


def test_a_changed_skill_rehashes_only_changed_files(
    two: tuple[Catalog, Path, Path],
) -> None:
    catalog, alpha, _beta = two
    big = b"B" * 4_000_000
    (alpha / "references/b.md").write_bytes(big)
    snap = _take(catalog)
    entry = snap.by_key[os.fspath(alpha)]
    old = snap.digest(entry, "references/b.md", max_bytes=len(big))
    assert old.digest == sha(big)
    (alpha / "references/a.md").write_text("A changed\n")
    read_before = _bytes_read()
    after = _take(catalog)
    entry = after.by_key[os.fspath(alpha)]
    assert after.digest(entry, "references/b.md", max_bytes=len(big)) == old
    assert after.digest(entry, "references/a.md", max_bytes=100).digest == sha(b"A changed\n")
    # the unchanged 4 MB file was not read again (this process's read bytes, as the
    # kernel counts them; making it unreadable instead changed its stamp for a user
    # other than root: a mode change is a change of its status time)
    assert _bytes_read() - read_before < 1_000_000


def _bytes_read() -> int:
    """Bytes this process has read so far (``rchar`` of ``/proc/self/io``)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def test_files_hashed_with_the_walk_are_those_read_later(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    root = tmp_path / "skills"
    many = make_skill(root, "many", files={"a.md": "A\n", "b.md": "B\n", "c.md": "C\n"})
    few = make_skill(root, "few", files={"notes.txt": "notes\n", "big.bin": b"\0" * 20_000})
    _settle()
    plain = Catalog.from_roots([root], cache=False).snapshot()
    eager = Catalog.from_roots([root], cache=False).snapshot(digest_within=(3, 10_000))
    assert eager.token == plain.token  # the same listing, tokens and files
    for key in (many, few):
        mine, theirs = eager.by_key[os.fspath(key)], plain.by_key[os.fspath(key)]
        assert [(f.path, f.size, f.stamp) for f in mine.files] == [
            (f.path, f.size, f.stamp) for f in theirs.files
        ]
        sized, fits = mine.within(3, 10_000)
        paths = [f.path for f in sized]
        assert eager.digests(mine, paths, max_bytes=10_000) == plain.digests(
            theirs, paths, max_bytes=10_000
        )
        listed = {f.path: f.digest for f in mine.files}
        if fits:  # read with the walk: known without a read
            assert all(listed[p] is not None for p in paths)
            assert listed["big.bin"] is None  # over max_bytes: never read
        else:  # four files: more than three, none read
            assert (key, set(listed.values())) == (many, {None})


def test_a_folder_that_now_leads_outside_is_not_walked_or_read(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """A skill folder replaced by a link to a folder outside the roots after the scan:
    the snapshot that walks and reads it in one pass lists nothing of it (unknown),
    as the read of one of its files refuses it; the other skills are listed."""
    root = tmp_path / "skills"
    make_skill(root, "kept", files={"a.md": "A\n"})
    moved = make_skill(root, "moved", files={"b.md": "B\n"})
    catalog = Catalog.from_roots([root], cache=False)
    catalog.list()
    outside = tmp_path / "outside"
    os.rename(moved, outside)
    os.symlink(outside, moved)
    _settle()
    snap = catalog.snapshot(digest_within=(512, 10_000))
    gone = snap.by_key[os.fspath(moved)]
    assert (gone.files, gone.token, gone.complete) == ((), None, False)
    with pytest.raises(SkillError, match="leads outside the allowed roots"):
        catalog.read_bundled("moved", "b.md")
    kept = snap.by_key[os.fspath(root / "kept")]
    assert [(f.path, f.digest is not None) for f in kept.files] == [
        ("SKILL.md", True),
        ("a.md", True),
    ]


def test_every_file_a_snapshot_lists_can_be_digested(tmp_path: Path, make_skill: MakeSkill) -> None:
    # names a read refuses are never listed either (one name rule): a file the walker
    # listed but a read refused used to leave every digest of the skill unknown
    root = tmp_path / "skills"
    refused = ["~deep.md", "a\\b.md", "%2e%2e.md", "c:x.md", "line\nbreak.md"]
    alpha = make_skill(root, "alpha", files={"a.md": "A\n", **dict.fromkeys(refused, "x\n")})
    _settle()
    eager = Catalog.from_roots([root], cache=False).snapshot(digest_within=(512, 10_000))
    entry = eager.by_key[os.fspath(alpha)]
    assert sorted(f.path for f in entry.files) == ["SKILL.md", "a.md"]
    assert all(f.digest is not None for f in entry.files)
    assert [d.digest for d in eager.digests(entry, ["a.md"], max_bytes=10_000)] == [sha(b"A\n")]


def test_memory_store_entries_use_the_store_digest() -> None:
    store = MemoryStore(index="all")
    text = "---\nname: inline\ndescription: An inline skill.\n---\nBody.\n"
    store.add(text, {"ref.md": "one"})
    catalog = Catalog([Source.of("mem", "inline", store=store)], cache=False)
    first = catalog.snapshot()
    (entry,) = first.entries
    assert entry.key == "store:mem:inline" and [f.path for f in entry.files] == [
        "SKILL.md",
        "ref.md",
    ]
    assert first.digest(entry, "ref.md", max_bytes=10).digest == sha(b"one")
    catalog.refresh()
    assert catalog.snapshot().token == first.token
    store.add(text, {"ref.md": "two"})
    catalog.refresh()
    second = catalog.snapshot()
    assert second.diff(first).changed == {"store:mem:inline"}
    (entry,) = second.entries
    assert second.digest(entry, "ref.md", max_bytes=10).digest == sha(b"two")


def test_a_file_changed_a_moment_ago_has_no_token(two: tuple[Catalog, Path, Path]) -> None:
    catalog, alpha, beta = two
    _take(catalog)
    (alpha / "references/a.md").write_text("again\n")
    catalog.refresh()
    now = catalog.snapshot()  # no pause: a second write could keep this timestamp
    assert now.by_key[os.fspath(alpha)].token is None
    assert now.by_key[os.fspath(beta)].token is not None
    assert now.token is None
    assert os.fspath(alpha) in now.diff(catalog.snapshot()).changed


def test_a_skill_folder_link_swapped_to_another_folder(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    root = tmp_path / "skills"
    store = root / ".versions"  # inside the root (links may not leave it), never discovered
    make_skill(store, "same", folder="a", files={"notes.md": "from a\n"})
    make_skill(store, "same", folder="b", files={"notes.md": "from b, longer\n"})
    (root / "same").symlink_to(store / "a")
    catalog = Catalog.from_roots([root], cache=False)
    before = _take(catalog)
    key = os.fspath(root / "same")
    assert _take(catalog).by_key[key] is before.by_key[key]  # nothing moved: no walk
    (root / "next").symlink_to(store / "b")
    os.replace(root / "next", root / "same")
    after = _take(catalog)
    assert after.by_key[key].token != before.by_key[key].token
    entry = after.by_key[key]
    assert after.digest(entry, "notes.md", max_bytes=100).digest == sha(b"from b, longer\n")


_scans: list[object] | None = None


def _count_scans(event: str, args: tuple[object, ...]) -> None:
    if _scans is not None and event in ("os.scandir", "os.listdir"):
        _scans.append(args[0] if args else None)


sys.addaudithook(_count_scans)  # counts only while a test sets _scans


def _kept(snap: CatalogSnapshot) -> dict[str, Any]:
    return {e.key: e.stamps for e in snap.entries if e.stamps is not None}


def _new_process_snapshot(root: Path, kept: dict[str, Any]) -> tuple[CatalogSnapshot, int]:
    """A snapshot as a new process takes it from ``kept``, and how many folders it listed."""
    global _scans
    catalog = Catalog.from_roots([root], cache=False)
    catalog.refresh()  # the catalog's own scan is not the snapshot's
    _scans = []
    try:
        snap = catalog.snapshot(kept=kept)
        return snap, len(_scans)
    finally:
        _scans = None


def _listing(snap: CatalogSnapshot, key: Path) -> list[tuple[str, int, Any]]:
    return [(f.path, f.size, f.stamp) for f in snap.by_key[os.fspath(key)].files]


def test_kept_stamps_stand_in_for_the_walk_in_a_new_process(
    two: tuple[Catalog, Path, Path],
) -> None:
    catalog, alpha, beta = two
    root = alpha.parent
    first = _take(catalog)
    kept = _kept(first)
    assert set(kept) == {os.fspath(alpha), os.fspath(beta)}
    again, listed = _new_process_snapshot(root, kept)
    assert listed == 0, "every kept stamp held: no folder is walked"
    assert again.token == first.token
    for key in (alpha, beta):
        assert _listing(again, key) == _listing(first, key)
        assert again.by_key[os.fspath(key)].stamps == first.by_key[os.fspath(key)].stamps
    entry = again.by_key[os.fspath(alpha)]
    assert again.digest(entry, "references/a.md", max_bytes=100).digest == sha(b"A\n")


def test_a_change_after_the_stamps_were_kept_is_caught(
    two: tuple[Catalog, Path, Path],
) -> None:
    catalog, alpha, beta = two
    root = alpha.parent

    def same_size_same_mtime() -> None:
        target = alpha / "references/a.md"
        st = target.stat()
        target.write_text("Z\n")
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))

    def link_swap() -> None:
        (alpha / "next.md").symlink_to("references/b.md")
        os.replace(alpha / "next.md", alpha / "current.md")

    steps = [
        lambda: (alpha / "references/a.md").write_text("A, edited\n"),
        same_size_same_mtime,
        lambda: (alpha / "references/b.md").rename(alpha / "references/c.md"),
        lambda: (alpha / "assets").mkdir() or (alpha / "assets/logo.txt").write_text("logo\n"),
        lambda: (alpha / "current.md").symlink_to("references/a.md"),
        link_swap,
        lambda: (alpha / "scripts/run.sh").unlink(),
        lambda: (alpha / "SKILL.md").write_text(
            (alpha / "SKILL.md").read_text().replace("testing", "checking")
        ),
    ]
    for step in steps:
        before = _take(catalog)
        kept = _kept(before)
        step()
        _settle()
        walked = Catalog.from_roots([root], cache=False).snapshot()
        hinted, listed = _new_process_snapshot(root, kept)
        assert listed >= 1, "the changed skill is walked again"
        assert _token(hinted, alpha) == _token(walked, alpha) != _token(before, alpha)
        assert _listing(hinted, alpha) == _listing(walked, alpha)
        assert hinted.by_key[os.fspath(beta)].token == before.by_key[os.fspath(beta)].token
        for f in hinted.by_key[os.fspath(alpha)].files:
            entry = hinted.by_key[os.fspath(alpha)]
            want = walked.digest(walked.by_key[os.fspath(alpha)], f.path, max_bytes=1000)
            assert hinted.digest(entry, f.path, max_bytes=1000) == want


@pytest.mark.parametrize(
    "folder",
    ["/a/b", "/a//b", "/a/./b", "/a/b/", "/a/../b", "//a/b", "///a", "/", "rel/x", "./x", "/a/b.."],
)
def test_a_skill_md_as_text_is_what_path_gives(folder: str) -> None:
    """The published SKILL.md paths are made without ``Path`` objects where a folder
    is normal: the same text ``Path`` gives for any folder."""
    for md in ("SKILL.md", "skill.md"):
        meta = SkillMetadata("s", "d", folder, md)
        assert meta.skill_md_text == str(meta.skill_md)


def test_snapshot_keys_are_the_folders_as_path_gives_them(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """Keys are made without ``Path`` objects where a folder is normal, and are what
    ``Path`` gives however the root was written."""
    make_skill(tmp_path / "skills", "alpha")
    for written in (f"{tmp_path}/skills", f"{tmp_path}//skills/./", f"{tmp_path}/x/../skills/"):
        snap = Catalog.from_roots([written], cache=False).snapshot()
        assert (
            [e.key for e in snap.entries] == [os.fspath(e.entry.path) for e in snap.entries] != []
        )
