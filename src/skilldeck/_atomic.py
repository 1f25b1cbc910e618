"""Atomic file writes (config, lock, approval and state files, and every cache) and
inter-process locks."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

# a temp file is always a new name: never a link or a file someone planted
_NEW_FILE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_fchmod = getattr(os, "fchmod", None)
# a cache file is read only as itself: never through a link, never waiting on a pipe
_CACHE_FILE = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "cache_folder",
    "code_stamp_text",
    "file_lock",
    "keep_newest",
    "open_cache",
    "replacing",
]


def cache_folder(folder: str | os.PathLike[str], *, create: bool = False) -> bool:
    """True when ``folder`` may hold skilldeck's cache files: a real folder (not a
    link) owned by the user. ``create``: a missing one is made first (private). A
    cache anywhere else is neither read nor written, since its files feed listings
    and searches; skipping it only costs speed."""
    from skilldeck._statedir import safe_dirs  # its one rule: a real folder, ours

    if create:
        try:
            Path(folder).mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError:
            return False
    return safe_dirs(Path(folder))


def open_cache(path: str | os.PathLike[str]) -> BinaryIO:
    """One of skilldeck's cache files (in a ``cache_folder``) open for reading.

    ``OSError`` unless it is a regular file of the user's: a link is not followed, a
    named pipe never blocks the read, a folder or another user's file is not read.
    Every reader of a cache reads such an error as no cache, a rebuild.
    """
    from skilldeck._errors import UnsafeStateError
    from skilldeck._statedir import check_stat  # its one rule: a regular file, ours

    fd = os.open(path, _CACHE_FILE)
    try:
        check_stat(os.fstat(fd), os.fspath(path), want_dir=False)
    except UnsafeStateError as exc:
        os.close(fd)
        raise OSError(errno.EPERM, str(exc), os.fspath(path)) from None
    return os.fdopen(fd, "rb")


@contextlib.contextmanager
def replacing(
    path: str | os.PathLike[str],
    *,
    mode: int = 0o644,
    durable: bool = True,
    folder_mode: int = 0o777,
    dir_fd: int | None = None,
) -> Iterator[BinaryIO]:
    """A file to write ``path``'s new content into: readers see the old or the new
    file, never half of one.

    The block writes a temp file beside ``path`` (a new name, never a link
    followed), which gets ``mode`` and is renamed over ``path`` when the block ends
    without an error, and is removed otherwise. ``durable``: the file and its folder
    are fsync'd (config, lock, approval and state files); a cache leaves that out,
    since after a crash it is old, new or unreadable, which only costs a rebuild.
    A missing folder is made with ``folder_mode`` (less the umask). ``dir_fd``:
    ``path`` is a name in that open folder (state folders, opened without
    following links: ``_statedir``), and no folder is made.
    """
    name = os.fspath(path)
    nonce = os.urandom(6).hex()
    if dir_fd is None:
        target = Path(name)
        target.parent.mkdir(parents=True, exist_ok=True, mode=folder_mode)
        tmp = str(target.parent / f".{target.name}.{nonce}.tmp")
    else:
        tmp = f".{name}.{nonce}.tmp"
    fd = os.open(tmp, _NEW_FILE, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
            if _fchmod is not None:
                _fchmod(fh.fileno(), mode)
        if _fchmod is None:  # Windows before 3.13 (and never with dir_fd there)
            os.chmod(tmp, mode)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    if durable:
        with contextlib.suppress(OSError):
            if dir_fd is not None:
                os.fsync(dir_fd)
                return
            dfd = os.open(Path(name).parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644, dir_fd: int | None = None
) -> None:
    """Write ``data`` to ``path`` durably and atomically (``replacing``)."""
    with replacing(path, mode=mode, dir_fd=dir_fd) as fh:
        fh.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str, *, mode: int = 0o644) -> None:
    """``atomic_write_bytes`` for UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


@contextlib.contextmanager
def file_lock(path: str | os.PathLike[str], *, timeout: float = 60.0) -> Iterator[None]:
    """Hold an exclusive lock on ``<path>.lock`` (other processes wait up to ``timeout``)."""
    from filelock import FileLock

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock", timeout=timeout):
        yield


def keep_newest(folder: str | os.PathLike[str], suffix: str, keep: int) -> None:
    """Delete all but the ``keep`` most recently modified ``*suffix`` files of ``folder``
    (a cache's files; best effort: an error leaves them)."""
    try:
        files = [e for e in os.scandir(folder) if e.name.endswith(suffix)]
        if len(files) <= keep:
            return
        files.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
    except OSError:
        return
    for old in files[keep:]:
        with contextlib.suppress(OSError):
            os.unlink(old.path)


def code_stamp_text(*parts: str, packages: tuple[str, ...]) -> str:
    """What a cache's stamp is made of: ``parts`` (the version, the cache's format),
    then each Python module of skilldeck's ``packages`` (``"catalog"``, ``"_tree"``)
    by name, size and modification time, so that a cache written by other code is
    never read as this code's. Each cache hashes the text as it needs."""
    out = list(parts)
    here = os.path.dirname(__file__)
    for package in packages:
        with contextlib.suppress(OSError), os.scandir(os.path.join(here, package)) as found:
            for entry in sorted(found, key=lambda e: e.name):
                if entry.name.endswith(".py"):
                    st = entry.stat()
                    out.append(f"{package}/{entry.name}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(out)
