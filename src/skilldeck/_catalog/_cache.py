"""The persisted metadata cache: one JSON file per root in the user cache folder.

Entries are keyed by the SKILL.md path and validated by its ``mtime_ns`` and
size, so an unchanged catalog lists without re-reading or re-parsing any
SKILL.md. The file also records a stamp of the parser (skilldeck's version and
the format modules' sizes and times), so a new parser never serves old results.
A broken or foreign cache file is ignored, never trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from skilldeck._version import __version__

__all__ = ["CACHE_FORMAT", "MAX_FILES", "MetadataCache", "Record"]

CACHE_FORMAT = 1

MAX_FILES = 64
"""At most this many roots are cached; the least recently used are dropped."""

#: ``[mtime_ns, size, parsed]``: parsed is the store's plain-data record.
Record = list[Any]

_STAMP: str | None = None


def parser_stamp() -> str:
    """Identifies the code that produced cached records (changes when it changes)."""
    global _STAMP
    if _STAMP is None:
        import skilldeck._catalog as catalog_pkg
        import skilldeck._format as format_pkg

        parts = [__version__, str(CACHE_FORMAT)]
        for pkg in (format_pkg, catalog_pkg):
            folder = Path(pkg.__file__ or ".").parent
            with contextlib.suppress(OSError):
                for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                    if entry.name.endswith(".py"):
                        st = entry.stat()
                        parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
        _STAMP = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return _STAMP


class MetadataCache:
    """Reads and writes cached records of one root under ``directory``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _file(self, root_key: str) -> Path:
        digest = hashlib.sha256(root_key.encode("utf-8", "surrogateescape")).hexdigest()
        return self.directory / f"{digest[:32]}.json"

    def load(self, root_key: str) -> dict[str, Record]:
        """The cached records of a root (empty when absent, stale or unreadable)."""
        try:
            raw = self._file(root_key).read_bytes()
            data = json.loads(raw)
        except (OSError, ValueError):
            return {}
        if (
            not isinstance(data, dict)
            or data.get("stamp") != parser_stamp()
            or data.get("root") != root_key
            or not isinstance(data.get("entries"), dict)
        ):
            return {}
        entries: dict[str, Record] = data["entries"]
        with contextlib.suppress(OSError):
            os.utime(self._file(root_key))  # recently used: kept by the pruning in save()
        return entries

    def save(self, root_key: str, entries: dict[str, Record]) -> None:
        """Replace a root's cached records (atomically; failures are ignored).

        Written to a temp file and renamed, without fsync: after a crash the
        cache is either the old file, the new one, or unreadable, which only
        costs a re-parse.
        """
        payload = {"stamp": parser_stamp(), "root": root_key, "entries": entries}
        target = self._file(root_key)
        try:
            # ASCII JSON: non-ASCII text as \u escapes (and lone surrogates of
            # undecodable file names too) encodes and decodes faster than UTF-8
            blob = json.dumps(payload, ensure_ascii=True, separators=(",", ":"))
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".cache.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(blob.encode("ascii"))
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except (OSError, ValueError, TypeError):
            return  # a cache that cannot be written only costs speed
        self._prune()

    def _prune(self) -> None:
        """Keep the ``MAX_FILES`` most recently used root files (roots come and go)."""
        try:
            files = [e for e in os.scandir(self.directory) if e.name.endswith(".json")]
            if len(files) <= MAX_FILES:
                return
            files.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
        except OSError:
            return
        for old in files[MAX_FILES:]:
            with contextlib.suppress(OSError):
                os.unlink(old.path)
