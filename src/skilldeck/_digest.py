"""Content digests shared by approvals, the lockfile and MCP resources.

A file digest is ``sha256:<hex>`` of its raw bytes. A skill digest is the
digest of its sorted ``(relative path, file digest)`` list, one
``"<path>\\0<digest>\\n"`` record per file, paths POSIX-style. The files of a
skill are those of the one walker (``skilldeck._tree``): what is digested is
what is served.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping

from skilldeck._errors import PathNotAllowedError, hint_command
from skilldeck._frozen import value
from skilldeck._tree import SkillTree, WalkLimits

__all__ = [
    "SkillFile",
    "bytes_digest",
    "digest_of_files",
    "file_digest",
    "require_skill_md",
    "skill_digest",
    "skill_file_digests",
    "skill_files",
]

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


@value
class SkillFile:
    """One file of a skill as the walker lists it, with the digest of its bytes."""

    path: str
    size: int
    executable: bool
    digest: str


def skill_files(
    root: str | os.PathLike[str],
    *,
    limits: WalkLimits | None = None,
    skill: str | None = None,
) -> tuple[SkillFile, ...]:
    """Every file of a skill folder with its digest, sorted by path.

    The file set is ``skilldeck._tree.walk_skill``'s: exactly what is served
    and what a run can see (hidden files, links leaving the folder and special
    files are not part of a skill). Each file is read through the contained
    reader, so a swap mid-walk gives a coded error, never outside bytes.
    Past a walk limit: ``PathNotAllowedError``.
    """
    out: list[SkillFile] = []
    with SkillTree(root, skill=skill) as tree:
        for entry in tree.walk(limits=limits or WalkLimits()).files:
            fd = tree.open(entry.path)
            h = hashlib.sha256()
            size = 0
            with open(fd, "rb", closefd=True) as fh:
                while chunk := fh.read(_CHUNK):
                    h.update(chunk)
                    size += len(chunk)
            out.append(SkillFile(entry.path, size, entry.executable, "sha256:" + h.hexdigest()))
    return tuple(out)


def skill_file_digests(root: str | os.PathLike[str]) -> dict[str, str]:
    """``relative path -> digest`` of every file of a skill folder (see ``skill_files``)."""
    return {f.path: f.digest for f in skill_files(root)}


def skill_digest(root: str | os.PathLike[str]) -> str:
    """The content digest of a whole skill folder (``PathNotAllowedError`` when its
    file set lacks SKILL.md: see ``require_skill_md``)."""
    files = skill_file_digests(root)
    require_skill_md(files, root)
    return digest_of_files(files)


def require_skill_md(paths: Iterable[str], root: str | os.PathLike[str]) -> None:
    """Refuse a skill file set without its SKILL.md (a link leaving the folder, or
    gone): a digest of it, which approvals and runs are bound to, would cover a
    partial or empty set, and a change to the file the link leads to would go
    unnoticed."""
    if "SKILL.md" in paths or "skill.md" in paths:
        return
    raise PathNotAllowedError(
        f"{os.fspath(root)}: SKILL.md is not part of the skill's files (a link leaving "
        "the folder, or missing); the skill cannot be digested, approved or run",
        path=os.fspath(root),
        hint="replace a SKILL.md link with the file itself; run: " + hint_command("validate", root),
        reason="no_skill_md",
    )
