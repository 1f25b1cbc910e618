"""Atomic file writes and inter-process locks for config, lock and approval files."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_text", "file_lock", "keep_newest"]


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` so readers see the old or the new file, never half.

    A temp file in the same folder is written, fsync'd and renamed over the
    target; the folder is fsync'd too.
    """
    import tempfile  # imported by writers only, like filelock below

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dfd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


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
