"""The one walker and the one contained reader (``skilldeck._tree``)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from tests.foundation._trees import (
    HIDDEN,
    OUTSIDE_BYTES,
    VISIBLE,
    build_deep,
    build_tree,
    remove_deep,
)

from skilldeck import FileNotFoundInSkillError, FileTooLargeError, PathNotAllowedError
from skilldeck._tree import (
    ContainedFolder,
    SkillTree,
    WalkLimits,
    _reader,
    looks_like_secret,
    read_beneath,
    read_file,
    walk_skill,
)


def test_walk_lists_exactly_the_visible_files(tmp_path: Path, resolver: str) -> None:
    skill = build_tree(tmp_path)
    walk = walk_skill(skill)
    assert walk.paths == tuple(sorted(VISIBLE))
    assert walk.complete
    by_path = {e.path: e for e in walk.files}
    assert by_path["scripts/run.py"].executable
    assert by_path["guide-link.md"].link and by_path["refs/guide.md"].link
    assert not by_path["references/guide.md"].link
    problems = {(p.kind, p.path) for p in walk.problems}
    assert problems == {
        ("escapes", "escape.md"),
        ("escapes", "references/outdir"),
        ("escapes", "refs/outdir"),
        ("dangling", "dangling.md"),
        ("loop", "references/up"),
        ("loop", "refs/up"),
        ("hidden", "env-link.md"),
        ("special", "assets/pipe"),
    }
    assert ".env" in walk.hidden and ".git" in walk.hidden
    assert "references/deep/.cache" in walk.hidden
    assert not any(part.startswith(".") for p in walk.paths for part in p.split("/"))


def test_reader_serves_every_listed_file_with_its_bytes(tmp_path: Path, resolver: str) -> None:
    skill = build_tree(tmp_path)
    with SkillTree(skill, skill="tricky") as tree:
        for rel, data in VISIBLE.items():
            got = tree.read(rel, max_bytes=1000)
            assert (got.data, got.size, got.truncated) == (data, len(data), False)


@pytest.mark.parametrize(
    ("rel", "code"),
    [
        ("escape.md", "PATH_NOT_ALLOWED"),
        ("references/outdir/secret.md", "PATH_NOT_ALLOWED"),
        ("refs/outdir/guide.md", "PATH_NOT_ALLOWED"),
        ("dangling.md", "FILE_NOT_FOUND"),
        ("env-link.md", "PATH_NOT_ALLOWED"),
        ("assets/pipe", "PATH_NOT_ALLOWED"),
        ("references", "PATH_NOT_ALLOWED"),
        ("nothing.md", "FILE_NOT_FOUND"),
        ("references/guide.md/x", "FILE_NOT_FOUND"),
        ("../outside/secret.md", "PATH_NOT_ALLOWED"),
        ("/etc/passwd", "PATH_NOT_ALLOWED"),
        ("a\x00b", "PATH_NOT_ALLOWED"),
        ("references\\guide.md", "PATH_NOT_ALLOWED"),
        *((h, "PATH_NOT_ALLOWED") for h in HIDDEN),
    ],
)
def test_reader_refuses_with_a_coded_error(
    tmp_path: Path, resolver: str, rel: str, code: str
) -> None:
    skill = build_tree(tmp_path)
    with pytest.raises((PathNotAllowedError, FileNotFoundInSkillError)) as info:
        read_beneath(skill, rel, max_bytes=1000, skill="tricky")
    assert info.value.code == code
    assert OUTSIDE_BYTES.decode() not in str(info.value)


def test_bounded_reads(tmp_path: Path, resolver: str) -> None:
    skill = build_tree(tmp_path)
    (skill / "big.txt").write_bytes(b"x" * 5000)
    with pytest.raises(FileTooLargeError) as info:
        read_beneath(skill, "big.txt", max_bytes=100)
    assert info.value.context["size"] == 5000
    got = read_beneath(skill, "big.txt", max_bytes=100, truncate=True)
    assert (len(got.data), got.size, got.truncated) == (100, 5000, True)


def test_the_shared_bounded_read(tmp_path: Path) -> None:
    """``read_file`` (SKILL.md reads in discovery): whole when it fits, one byte past
    the bound when not, nothing from a pipe or a folder (and no wait on the pipe)."""
    (tmp_path / "small.md").write_bytes(b"abc")
    (tmp_path / "big.md").write_bytes(b"y" * (3 << 20))
    (tmp_path / "empty.md").write_bytes(b"")
    os.mkfifo(tmp_path / "pipe")
    assert read_file(str(tmp_path / "small.md"), 3)[0] == b"abc"
    assert read_file(str(tmp_path / "small.md"), 2)[0] == b"abc"  # 2 + 1: it is longer
    assert read_file(str(tmp_path / "big.md"), (2 << 20) + 5)[0] == b"y" * ((2 << 20) + 6)
    assert read_file(str(tmp_path / "empty.md"), 10)[0] == b""
    assert read_file(str(tmp_path / "pipe"), 10)[0] is None
    assert read_file(str(tmp_path), 10)[0] is None
    with pytest.raises(FileNotFoundError):
        read_file(str(tmp_path / "missing.md"), 10)


def test_a_skill_folder_swapped_for_a_link_is_not_followed(tmp_path: Path, resolver: str) -> None:
    skill = build_tree(tmp_path)
    real = os.path.realpath(skill)
    os.rename(skill, tmp_path / "moved")
    os.symlink(tmp_path / "outside", skill)
    with pytest.raises(FileNotFoundInSkillError):
        read_beneath(real, "secret.md", max_bytes=100, follow_root=False)


def test_a_skill_folder_reached_through_a_linked_folder_above_is_not_its_real_path(
    tmp_path: Path, resolver: str
) -> None:
    """``follow_root=False`` refuses a folder whose path now passes through a link
    anywhere above it (its real path is another), not only one that is a link."""
    (tmp_path / "home" / "skills").mkdir(parents=True)
    skill = build_tree(tmp_path / "home" / "skills")
    real = os.path.realpath(skill)
    os.rename(tmp_path / "home", tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", tmp_path / "home")  # same files, through a link
    with pytest.raises(FileNotFoundInSkillError, match="a link now"):
        read_beneath(real, "SKILL.md", max_bytes=100, follow_root=False)
    with ContainedFolder(real) as tree:  # followed: named by where it really is
        moved = os.path.realpath(tmp_path / "elsewhere" / "skills" / "tricky")
        assert tree.real == os.path.realpath(real) == moved
        assert tree.read("SKILL.md", max_bytes=1000).data == VISIBLE["SKILL.md"]


def test_a_folder_opened_resolved_is_named_and_read_as_by_its_real_path(
    tmp_path: Path, resolver: str
) -> None:
    """``resolved`` opens the folder a path leads to once and names it as the kernel
    does: the same folder, walk and reads as the folder opened by its real path
    (``follow_root=False``), nothing for what is not a folder."""
    (tmp_path / "home").mkdir()
    skill = build_tree(tmp_path / "home")
    (tmp_path / "via").symlink_to(tmp_path / "home")
    through = tmp_path / "via" / os.path.basename(skill)
    real = os.path.realpath(skill)
    opened = SkillTree.resolved(through, skill="tricky")
    if opened is None:
        pytest.skip("the kernel cannot name an open folder here (no /proc)")
    with opened as tree, SkillTree(real, follow_root=False) as by_real:
        assert tree.root == tree.real == by_real.real == real
        assert tree.walk().files == by_real.walk().files
        for rel in VISIBLE:
            assert tree.read(rel, max_bytes=1 << 20).data == VISIBLE[rel]
        with pytest.raises(PathNotAllowedError):
            tree.read("escape.md", max_bytes=100)  # a link to a file outside
    assert SkillTree.resolved(tmp_path / "missing") is None
    assert SkillTree.resolved(os.path.join(real, "SKILL.md")) is None  # not a folder


def test_where_the_kernel_cannot_name_a_folder_the_catalog_takes_two_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without descriptor naming (not Linux), ``resolved`` opens nothing and answers
    ``None``; a snapshot that walks and reads each folder then names it by its real
    path and opens it by that path, with the same files, tokens and digests."""
    from skilldeck.catalog import Catalog

    root = tmp_path / "root"
    root.mkdir()
    build_tree(root)
    (root / "tricky" / "SKILL.md").write_text(
        "---\nname: tricky\ndescription: A tree.\n---\nBody.\n", encoding="utf-8"
    )
    time.sleep(0.08)  # older than the window in which a stamp could repeat

    def listed() -> list[tuple[object, ...]]:
        snap = Catalog.from_roots([root], cache=False).snapshot(digest_within=(512, 1 << 20))
        return [(e.key, e.token, e.files) for e in snap.entries]

    kernel = listed()
    assert kernel and all(f.digest is not None for f in kernel[0][2])  # type: ignore[attr-defined]
    monkeypatch.setattr(_reader, "NAMES_DESCRIPTORS", False)
    assert SkillTree.resolved(root / "tricky") is None
    assert listed() == kernel


def test_limits_raise_coded_errors_or_stop_when_not_strict(tmp_path: Path) -> None:
    skill = tmp_path / "s"
    deep = skill.joinpath(*["d"] * 10)
    deep.mkdir(parents=True)
    (deep / "f.md").write_text("x")
    with pytest.raises(PathNotAllowedError) as info:
        walk_skill(skill, limits=WalkLimits(max_depth=5))
    assert info.value.code == "PATH_NOT_ALLOWED" and info.value.context["reason"] == "too_deep"
    walk = walk_skill(skill, limits=WalkLimits(max_depth=5), strict=False)
    assert not walk.complete and walk.files == ()
    assert [p.kind for p in walk.problems] == ["too_deep"]
    for i in range(5):
        (skill / f"f{i}.md").write_text("x" * 10)
    with pytest.raises(PathNotAllowedError, match="more than 3 files"):
        walk_skill(skill, limits=WalkLimits(max_files=3))
    with pytest.raises(PathNotAllowedError, match="more than 25 bytes"):
        walk_skill(skill, limits=WalkLimits(max_bytes=25))
    partial = walk_skill(skill, limits=WalkLimits(max_files=3), strict=False)
    assert len(partial.files) == 3 and not partial.complete


def test_twelve_hundred_levels_give_a_coded_error_not_a_recursion_error(tmp_path: Path) -> None:
    skill = tmp_path / "deep"
    skill.mkdir()
    build_deep(skill, 1200)
    try:
        with pytest.raises(PathNotAllowedError, match="deeper than 64"):
            walk_skill(skill)
    finally:
        remove_deep(skill)


def test_a_link_cycle_between_folders_is_cut(tmp_path: Path, resolver: str) -> None:
    skill = tmp_path / "s"
    (skill / "a").mkdir(parents=True)
    (skill / "b").mkdir()
    (skill / "a" / "f.md").write_text("a")
    os.symlink("../b", skill / "a" / "to-b")
    os.symlink("../a", skill / "b" / "to-a")
    walk = walk_skill(skill)
    assert set(walk.paths) >= {"a/f.md", "b/to-a/f.md"}
    assert all(p.count("/") < 6 for p in walk.paths)
    assert {p.kind for p in walk.problems} == {"loop"}


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        (".env", True),
        (".env.production", True),
        (".env.example", False),
        ("keys/server.pem", True),
        ("id_ed25519", True),
        (".aws", True),
        ("credentials.json", True),
        ("README.md", False),
        ("scripts/run.py", False),
        (".DS_Store", False),
    ],
)
def test_secret_names(name: str, secret: bool) -> None:
    assert looks_like_secret(name) is secret
