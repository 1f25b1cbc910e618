"""Atomic file writes (config, lock and approval files, and every cache) and
inter-process locks."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "cache_folder",
    "file_lock",
    "keep_newest",
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


@contextlib.contextmanager
def replacing(
    path: str | os.PathLike[str],
    *,
    mode: int = 0o644,
    durable: bool = True,
    folder_mode: int = 0o777,
) -> Iterator[BinaryIO]:
    """A file to write ``path``'s new content into: readers see the old or the new
    file, never half of one.

    The block writes a temp file beside ``path``, which is renamed over it when the
    block ends without an error and removed otherwise. ``durable``: the file and
    its folder are fsync'd (config, lock and approval files); a cache leaves that
    out, since after a crash it is old, new or unreadable, which only costs a
    rebuild. A missing folder is made with ``folder_mode`` (less the umask).
    """
    import tempfile  # imported by writers only, like filelock below

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True, mode=folder_mode)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        with contextlib.suppress(OSError):
            dfd = os.open(target.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` durably and atomically (``replacing``)."""
    with replacing(path, mode=mode) as fh:
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
