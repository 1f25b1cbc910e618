"""``real_path`` / ``real``: the kernel's name for a path, always ``os.path.realpath``'s
answer (``Path.resolve``'s, errors included)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skilldeck._paths import real, real_path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "file").write_text("x")
    links = {
        "to_a": "a",
        "to_b_twisted": "a/b/../b",
        "dangling": "missing",
        "loop": "loop",
        "ping": "pong",
        "pong": "ping",
        "relative_up": f"../{tmp_path.name}/a",
        "absolute": str(tmp_path / "a" / "b"),
        "to_file": "a/file",
    }
    for name, target in links.items():
        (tmp_path / name).symlink_to(target)
    return tmp_path


CASES = [
    "", ".", "/", "//", "a", "a/", "a/b", "a/b/..", "a/../a/b", "to_a", "to_a/", "to_a/b/..",
    "to_a/../a", "to_b_twisted", "to_b_twisted/..", "dangling", "dangling/x", "loop", "loop/x",
    "ping", "relative_up", "relative_up/b", "absolute", "absolute/..", "to_file", "to_file/",
    "a/file", "a/file/", "a/file/..", "missing/../a", "missing", "a/./b/./", "a//b",
    "missing/x/y", "a/missing", "a/b/missing/deeper", "to_a/missing/x", "relative_up/missing",
    "a/file/missing", "dangling/x/y", "loop/x/y", "a/missing/..", "to_a/missing/../b",
]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_the_same_answer_as_realpath(
    tree: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    for path in (case, str(tree / case) if case else str(tree)):
        assert real_path(path) == os.path.realpath(path)
        assert real_path(Path(path)) == os.path.realpath(path)


@pytest.mark.parametrize("case", CASES)
def test_the_same_answer_as_resolve(tree: Path, case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    path = Path(case)
    try:
        expected: Path | type[BaseException] = path.resolve()
    except (OSError, RuntimeError) as exc:
        expected = type(exc)
    if isinstance(expected, Path):
        assert real(path) == expected
    else:
        with pytest.raises(expected):
            real(path)


def test_a_folder_removed_while_open_is_not_named_deleted(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    fd = os.open(gone, os.O_RDONLY)
    try:
        os.rmdir(gone)
        assert real_path(f"/proc/self/fd/{fd}") == os.path.realpath(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)


def test_a_missing_path_below_the_root_is_named_as_realpath_names_it() -> None:
    """A path that does not exist is named from the nearest folder above it that does
    (here ``/``) and the missing names after it."""
    missing = f"/no-such-folder-{os.urandom(6).hex()}"
    for path in (missing, missing + "/x/y"):
        assert real_path(path) == os.path.realpath(path) == path
