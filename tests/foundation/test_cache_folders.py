"""Every cache skilldeck keeps (catalog index, search index and terms, saved vectors,
serve's snapshot) follows one rule: it is read and written only in a real folder the
user owns, through one atomic writer. A cache through a link or in another user's
folder is skipped (which only costs speed), never read, never written."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from tests._skills import write_files

from skilldeck import Catalog
from skilldeck._atomic import replacing
from skilldeck.mcp._store import SkillRow, SnapshotStore
from skilldeck.search._store import load_index, save_index
from skilldeck.search._terms import FieldIndex

OTHER_UID = 4242  # no such user: a folder of "someone else"


def _catalog(tmp_path: Path) -> tuple[Callable[[Path], None], Callable[[Path], bool]]:
    root = tmp_path / "skills"
    write_files(root, {"demo/SKILL.md": "---\nname: demo\ndescription: Say hello.\n---\nHi.\n"})
    os.utime(root / "demo" / "SKILL.md", (1e9, 1e9))  # settled: a file just written is not kept

    def write(folder: Path) -> None:
        Catalog.from_roots([root], cache=folder).list()

    def read(folder: Path) -> bool:
        # a used index is touched (kept by the pruning): an old mtime moves
        files = list(folder.glob("*.idx"))
        for f in files:
            os.utime(f, (1, 1), follow_symlinks=False)
        Catalog.from_roots([root], cache=folder).list()
        return any(f.stat().st_mtime > 1 for f in files)

    return write, read


def _search(tmp_path: Path) -> tuple[Callable[[Path], None], Callable[[Path], bool]]:
    def write(folder: Path) -> None:
        save_index(folder, "k", FieldIndex.build([]))

    def read(folder: Path) -> bool:
        return load_index(folder, "k") is not None

    return write, read


def _snapshot(tmp_path: Path) -> tuple[Callable[[Path], None], Callable[[Path], bool]]:
    row = SkillRow("k", "sig", "/s/SKILL.md", "r", "user", "ok", {}, [])

    def write(folder: Path) -> None:
        SnapshotStore(folder, "roots").save([row])

    def read(folder: Path) -> bool:
        return bool(SnapshotStore(folder, "roots").load())

    return write, read


def _vectors(tmp_path: Path) -> tuple[Callable[[Path], None], Callable[[Path], bool]]:
    np = pytest.importorskip("numpy", reason="saved vectors need the semantic extra (numpy)")
    from skilldeck.search import _semantic

    def write(folder: Path) -> None:
        _semantic._save_matrix(folder / "k.m.npz", [b"\1" * _semantic._DIGEST], np.ones((1, 4)))

    def read(folder: Path) -> bool:
        return _semantic._read(folder / "k.m.npz") is not None

    return write, read


CACHES = {"catalog": _catalog, "search": _search, "snapshot": _snapshot, "vectors": _vectors}


@pytest.fixture(params=sorted(CACHES))
def cache(
    request: pytest.FixtureRequest, tmp_path: Path
) -> tuple[Callable[[Path], None], Callable[[Path], bool]]:
    return CACHES[request.param](tmp_path)


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_missing_cache_folder_is_made_private_and_used(
    cache: tuple[Callable[[Path], None], Callable[[Path], bool]], tmp_path: Path
) -> None:
    write, read = cache
    folder = tmp_path / "cache" / "here"
    write(folder)
    assert folder.stat().st_mode & 0o777 == 0o700
    written = _files(folder)
    assert written and not [n for n in written if n.endswith(".tmp")]
    assert all(os.stat(folder / n).st_mode & 0o077 == 0 for n in written)
    assert read(folder)


def test_a_cache_folder_reached_through_a_link_is_neither_read_nor_written(
    cache: tuple[Callable[[Path], None], Callable[[Path], bool]], tmp_path: Path
) -> None:
    write, read = cache
    real = tmp_path / "real"
    write(real)
    before = _files(real)
    link = tmp_path / "link"
    link.symlink_to(real)
    assert not read(link)
    for f in real.iterdir():  # a fresh folder behind the link: nothing is written there
        f.unlink()
    write(link)
    assert _files(real) == []
    assert before  # the real folder did hold a cache


@pytest.mark.parametrize("kind", ["fifo", "link", "folder"])
def test_a_cache_file_that_is_not_a_regular_file_is_not_read(
    cache: tuple[Callable[[Path], None], Callable[[Path], bool]], tmp_path: Path, kind: str
) -> None:
    # a named pipe in place of a cache file hung every command that read the cache
    # (the open waited for a writer), and a link was read through
    write, read = cache
    folder = tmp_path / "cache"
    write(folder)
    assert read(folder)
    outside = tmp_path / "outside"
    outside.mkdir()
    for f in folder.iterdir():
        f.rename(outside / f.name)
        if kind == "fifo":
            os.mkfifo(f)
        elif kind == "folder":
            f.mkdir()
        else:
            f.symlink_to(outside / f.name)
        os.utime(outside / f.name, (1, 1))  # the catalog touches the index it reads
    answer: list[bool] = []
    reader = threading.Thread(target=lambda: answer.append(read(folder)), daemon=True)
    reader.start()
    reader.join(20)
    hung = reader.is_alive()
    if hung:  # a writer on each pipe lets the hung read end
        for f in folder.iterdir():
            with contextlib.suppress(OSError):
                os.close(os.open(f, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(20)
    assert not hung
    # nothing was read from the entry (the catalog then writes a new index over it)
    entries = list(folder.iterdir())
    assert answer == [False] or all(f.is_file() and not f.is_symlink() for f in entries)
    assert all(f.stat().st_mtime == 1 for f in outside.iterdir())


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_cache_folder_of_another_user_is_neither_read_nor_written(
    cache: tuple[Callable[[Path], None], Callable[[Path], bool]], tmp_path: Path
) -> None:
    write, read = cache
    folder = tmp_path / "theirs"
    write(folder)
    assert read(folder)
    os.chown(folder, OTHER_UID, OTHER_UID)
    assert not read(folder)
    for f in folder.iterdir():
        f.unlink()
    write(folder)
    assert _files(folder) == []


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), replacing(target, durable=False) as fh:
        fh.write(b"half")
        raise RuntimeError("interrupted")
    assert target.read_bytes() == b"old"
    assert _files(tmp_path) == ["f.bin"]
    with replacing(target, mode=0o600) as fh:
        fh.write(b"new")
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o600


def test_state_files_written_in_an_open_folder_follow_the_same_rule(tmp_path: Path) -> None:
    """State files (lockfile, intents, remembered probes) are written relative to a
    folder opened without following links, by the same writer: old or new, never
    half, no temp file left, the mode asked for whatever the umask."""
    from skilldeck._statedir import O_DIR, write_file_at

    (tmp_path / "skills.lock").write_bytes(b"old")
    fd = os.open(tmp_path, O_DIR)
    old_umask = os.umask(0o077)
    try:
        with pytest.raises(RuntimeError), replacing("skills.lock", dir_fd=fd) as fh:
            fh.write(b"half")
            raise RuntimeError("interrupted")
        assert (tmp_path / "skills.lock").read_bytes() == b"old"
        assert _files(tmp_path) == ["skills.lock"]
        write_file_at(fd, "skills.lock", b"new", mode=0o644)
    finally:
        os.umask(old_umask)
        os.close(fd)
    assert (tmp_path / "skills.lock").read_bytes() == b"new"
    assert (tmp_path / "skills.lock").stat().st_mode & 0o777 == 0o644
    assert _files(tmp_path) == ["skills.lock"]


def test_a_cache_stamp_follows_each_module_of_the_code_that_fills_it() -> None:
    """The one stamp rule every code-dependent cache (the catalog's metadata, serve's
    snapshot) is made from: a module edited, added or removed changes it."""
    import skilldeck
    from skilldeck._atomic import code_stamp_text

    text = code_stamp_text("1.0", "7", packages=("catalog", "_tree", "no-such-package"))
    lines = text.split("\n")
    assert lines[:2] == ["1.0", "7"]
    root = Path(skilldeck.__file__).parent
    want = []
    for package in ("catalog", "_tree"):
        for path in sorted((root / package).glob("*.py"), key=lambda p: p.name):
            st = path.stat()
            want.append(f"{package}/{path.name}:{st.st_size}:{st.st_mtime_ns}")
    assert lines[2:] == want and want
