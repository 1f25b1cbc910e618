"""Content digests shared by approvals, the lockfile and MCP resources.

A file digest is ``sha256:<hex>`` of its raw bytes. A skill digest is the
digest of its sorted ``(relative path, file digest)`` list, one
``"<path>\\0<digest>\\n"`` record per file, paths POSIX-style.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["bytes_digest", "digest_of_files", "file_digest", "skill_digest", "skill_file_digests"]

_CHUNK = 1 << 20


def bytes_digest(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def file_digest(path: str | os.PathLike[str]) -> str:
    """``sha256:<hex>`` of a file's bytes, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def digest_of_files(files: Mapping[str, str] | Iterable[tuple[str, str]]) -> str:
    """Combine ``(relative path, file digest)`` pairs into one skill digest."""
    pairs = files.items() if isinstance(files, Mapping) else files
    h = hashlib.sha256()
    for rel, digest in sorted(pairs):
        h.update(f"{rel}\0{digest}\n".encode())
    return "sha256:" + h.hexdigest()


def skill_file_digests(root: str | os.PathLike[str]) -> dict[str, str]:
    """Digest of every regular file under ``root`` (links are not followed out).

    Symlinks to files inside ``root`` are digested by their target's bytes;
    links leaving ``root`` and special files are skipped.
    """
    base = Path(root)
    real_base = base.resolve()
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in {".git"})
        for fname in filenames:
            full = Path(dirpath) / fname
            try:
                real = full.resolve(strict=True)
            except (OSError, RuntimeError):
                continue
            if not real.is_relative_to(real_base) or not real.is_file():
                continue
            rel = full.relative_to(base).as_posix()
            out[rel] = file_digest(real)
    return out


def skill_digest(root: str | os.PathLike[str]) -> str:
    """The content digest of a whole skill folder."""
    return digest_of_files(skill_file_digests(root))
