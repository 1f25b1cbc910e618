"""The catalog's side of discovery: a folder store walks its root with the one
``SkillFinder`` of ``skilldeck._tree`` and, for an immediate root whose folder
list cannot have changed, lists the last walk's skills again (``replay``)."""

from __future__ import annotations

import os
import stat as _stat
import struct
from typing import TYPE_CHECKING

from skilldeck.catalog._cache import pack_sig, sig_of

if TYPE_CHECKING:
    from skilldeck._tree import Found

__all__ = ["replay"]

_SEP = os.sep


def replay(folders: list[str], others: list[str]) -> list[Found] | None:
    """The skills of an immediate root whose folder list did not change (its
    mtime, ctime and inode are those of a plain walk): one ``lstat`` per skill.

    ``None`` when a SKILL.md is gone or no longer a regular file, or a folder
    without one gained one (or a stored folder is no possible path): the caller
    walks the root again.
    """
    found: list[Found] = []
    append, lstat, is_reg, md_of = found.append, os.lstat, _stat.S_ISREG, _SEP + "SKILL.md"
    pack = pack_sig
    try:
        for folder in folders:
            md = folder + md_of
            st = lstat(md)
            if not is_reg(st.st_mode):
                return None
            try:
                sig = pack(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev)
            except struct.error:
                sig = sig_of(st)
            append((folder, md, md, sig))
    except (OSError, ValueError):
        return None
    for folder in others:
        if os.path.lexists(folder + _SEP + "SKILL.md") or os.path.lexists(
            folder + _SEP + "skill.md"
        ):
            return None
    return found
