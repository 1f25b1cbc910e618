"""The server's snapshot kept between runs, so ``serve`` starts without re-hashing.

One file per set of catalog roots under the user cache folder (``mcp/``). It
holds, per published skill, the catalog's change token the skill was built
from (``Catalog.snapshot()``: over the path and (inode, mtime, size, ctime) of
every file the walker lists), the stamps of its folders and files
(``SnapshotEntry.stamps``), its frontmatter, and its files with their digests.
On start the catalog's snapshot checks those stamps with ``stat`` alone (a skill
whose stamps no longer hold is walked again): an unchanged skill is taken from
here without walking its folder, parsing its SKILL.md or reading a byte; a
changed one is mapped again.

The file is MessagePack checked against a fixed schema with a stamp of the code
that wrote it (this package, the catalog and the walker): a damaged, foreign or
older file is ignored as a whole (it only costs a rebuild), and it is replaced
atomically after a build that changed something. The ctime in every key cannot
be set back with ``os.utime``, so a file rewritten with its old size and mtime is
hashed again.
"""

from __future__ import annotations

import hashlib
import mmap
import os
from pathlib import Path
from typing import Any

import msgspec

import skilldeck
from skilldeck._atomic import cache_folder, code_stamp_text, keep_newest, open_cache, replacing

__all__ = ["FileRow", "SkillRow", "SnapshotStore", "TreeRow"]

_FORMAT = 3
_MAX_FILES = 32

#: uri, ref, relpath, size, digest (None in a dynamic skill), mime, skill_md path
FileRow = tuple[str, str, str, int, str | None, str, str | None]
#: ``SnapshotEntry.stamps``: real folder, folder count, (path, inode, mtime, size, ctime)
TreeRow = tuple[str, int, tuple[tuple[str, int, int, int, int], ...]]


class SkillRow(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    key: str  # the snapshot entry's key (a skill's folder)
    signature: str  # the entry's change token
    skill_path: str
    ref: str
    source: str
    status: str
    frontmatter: dict[str, Any]
    files: list[FileRow]
    tree: TreeRow | None = None


class _Snapshot(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    stamp: str
    roots: str
    skills: list[SkillRow]


_DECODER = msgspec.msgpack.Decoder(_Snapshot)
_ENCODER = msgspec.msgpack.Encoder()


def _stamp() -> str:
    """The version, the format and the code that decides what a row holds: the
    server's, the catalog's and the walker's (which files a skill has)."""
    text = code_stamp_text(
        skilldeck.__version__, str(_FORMAT), packages=("mcp", "catalog", "_tree")
    )
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


class SnapshotStore:
    """Loads and saves the snapshot of one set of roots under ``directory``."""

    def __init__(self, directory: str | os.PathLike[str], roots: str) -> None:
        self.directory = Path(directory)
        self.roots = roots
        digest = hashlib.sha256(roots.encode("utf-8", "surrogateescape")).hexdigest()
        self.path = self.directory / f"{digest[:32]}.snap"
        self._stamp = _stamp()

    def load(self) -> dict[str, SkillRow]:
        """The saved skills by folder (empty when absent, stale, foreign or damaged)."""
        if not cache_folder(self.directory):
            return {}
        try:
            with (
                open_cache(self.path) as fh,
                mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
            ):
                snapshot = _DECODER.decode(mapped)
        except (OSError, msgspec.DecodeError, ValueError, TypeError, RecursionError):
            return {}
        if snapshot.stamp != self._stamp or snapshot.roots != self.roots:
            return {}
        return {row.key: row for row in snapshot.skills}

    def save(self, skills: list[SkillRow]) -> None:
        """Replace the snapshot atomically; a cache that cannot be written only costs speed."""
        try:
            blob = _ENCODER.encode(_Snapshot(self._stamp, self.roots, skills))
            if not cache_folder(self.directory, create=True):
                return
            with replacing(self.path, mode=0o600, durable=False) as fh:
                fh.write(blob)
        except (OSError, TypeError, msgspec.EncodeError):
            return
        self._prune()

    def _prune(self) -> None:
        keep_newest(self.directory, ".snap", _MAX_FILES)
