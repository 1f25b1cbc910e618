"""The catalog's side of discovery: a folder store walks its root with the one
``SkillFinder`` of ``skilldeck._tree`` and, for an immediate root whose folder
list cannot have changed, lists the last walk's skills again (``replay``)."""

from __future__ import annotations

import os
import stat as _stat
import struct

from skilldeck.catalog._cache import SIG_SIZE, pack_sig_into

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._tree import Found

__all__ = ["found_of", "replay"]

_SEP = os.sep
_SKILL_MD = _SEP + "SKILL.md"


def replay(folders: list[str], others: list[str]) -> bytearray | None:
    """The skills of an immediate root whose folder list did not change (its
    mtime, ctime and inode are those of a plain walk): one ``lstat`` per skill,
    and the packed signatures (``pack_sig``) of the folders' SKILL.md one after
    the other, ``SIG_SIZE`` bytes each (no object kept per skill).

    ``None`` when a SKILL.md is gone or no longer a regular file, or a folder
    without one gained one (or a stored folder is no possible path, or a signature
    is out of the packed range, which a walk gives its exact, longer form): the
    caller walks the root again.
    """
    sigs = bytearray(len(folders) * SIG_SIZE)
    lstat, is_reg, pack_into, md_of = os.lstat, _stat.S_ISREG, pack_sig_into, _SKILL_MD
    at = 0
    try:
        for folder in folders:
            st = lstat(folder + md_of)
            if not is_reg(st.st_mode):
                return None
            pack_into(sigs, at, st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev)
            at += SIG_SIZE
    except (OSError, ValueError, struct.error):
        return None
    for folder in others:
        if os.path.lexists(folder + _SEP + "SKILL.md") or os.path.lexists(
            folder + _SEP + "skill.md"
        ):
            return None
    return sigs


def found_of(folders: list[str], sigs: bytes | bytearray, start: int = 0) -> list[Found]:
    """What a walk finds in ``folders[start:]``, made from ``replay``'s signatures:
    each folder, its SKILL.md (twice: a plain file is its own real path), its signature."""
    out: list[Found] = []
    for i in range(start, len(folders)):
        folder = folders[i]
        md = folder + _SKILL_MD
        out.append((folder, md, md, bytes(sigs[i * SIG_SIZE : (i + 1) * SIG_SIZE])))
    return out
