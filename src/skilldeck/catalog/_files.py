"""A skill's file index and contained reads of bundled files.

Both go through the one walker and reader of ``skilldeck._tree``: hidden files
are never listed or read, links are followed only while they stay inside the
skill folder, special files are left out, and a read resolves beneath the
folder without a window for a swap. Which files are indexed and readable is the
one rule of ``skilldeck.catalog._fileset``. Size limits always apply.
"""

from __future__ import annotations

import functools
import os

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import SkillError
from skilldeck._paths import within
from skilldeck.catalog._fileset import (
    LINK_SCAN_BYTES,
    MAX_INDEX_FILES,
    in_bundled_index,
    in_index,
    linked_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._tree import SkillTree, Walk, WalkLimits
    from skilldeck.catalog._loaded import FileData
    from skilldeck.catalog._types import IndexMode

__all__ = ["index_files", "linked_in", "read_contained", "read_in", "through_loop", "walk_all"]


def read_contained(
    real_dir: str, rel: str, *, max_bytes: int, truncate: bool, skill: str
) -> FileData:
    """Read ``rel`` beneath ``real_dir`` with the contained reader (see module doc)."""
    from skilldeck._tree import SkillTree  # imported on first read: a listing reads nothing

    with SkillTree(real_dir, skill=skill, follow_root=False) as tree:
        return read_in(tree, rel, max_bytes=max_bytes, truncate=truncate)


def read_in(tree: SkillTree, rel: str, *, max_bytes: int, truncate: bool) -> FileData:
    """``read_contained`` through a folder already opened (several reads of one skill)."""
    got = tree.read(rel, max_bytes=max_bytes, truncate=truncate)
    return _file_data()(got.path, got.data, got.size, got.truncated)


@functools.cache
def _file_data() -> type[FileData]:
    """``FileData``, imported on first read (a listing reads nothing), then once: an
    import statement run per read costs about 1 us, and a cold ``serve`` of 2,000
    skills reads 6,600 files."""
    from skilldeck.catalog._loaded import FileData

    return FileData


def _enter_bundled(rel: str) -> bool:
    return "/" not in rel and rel in ("scripts", "references", "assets")


def linked_in(real_dir: str, skill: str) -> frozenset[str]:
    """The relative paths the SKILL.md of a skill folder refers to (``linked_of``)."""
    try:
        data = read_contained(
            real_dir, "SKILL.md", max_bytes=LINK_SCAN_BYTES, truncate=True, skill=skill
        ).data
    except (SkillError, OSError):
        return frozenset()
    return linked_of(data)


def through_loop(real_dir: str, rel: str, known: dict[str, bool] | None = None) -> bool:
    """Does ``rel`` pass through a link to a folder above it (the walker's loop rule:
    such a path is never listed, so never read)? One ``lstat`` per folder of the path.
    ``known``: the answers for folders already asked about in this pass (several
    files of one folder read together), kept there by folder."""
    folder = rel.rpartition("/")[0]
    if known is None or not folder:
        return _through_loop(real_dir, folder)
    found = known.get(folder)
    if found is None:
        found = known[folder] = _through_loop(real_dir, folder)
    return found


def _through_loop(real_dir: str, folder: str) -> bool:
    parts = folder.split("/") if folder else []
    here = real_dir
    for part in parts:
        nxt = os.path.join(here, part)
        if os.path.islink(nxt):
            try:
                target = os.path.realpath(nxt)
                above = os.path.realpath(here)
            except OSError:  # the folder changed under us (a link swapped mid-read): refuse
                return True
            if within(above, (target,)):
                return True
        here = nxt
    return False


def walk_all(real_dir: str, tree: SkillTree | None = None) -> Walk:
    """Every file of the skill the walker lists (SKILL.md too), at most ``MAX_INDEX_FILES``:
    the ``"all"`` index and what a catalog snapshot lists. ``tree``: the folder
    ``real_dir`` already opened (its files are read through it next)."""
    if tree is not None:
        return tree.walk(limits=_all_limits(), strict=False)
    from skilldeck._tree import walk_skill  # imported on first walk

    return walk_skill(real_dir, limits=_all_limits(), strict=False, follow_root=False)


@functools.cache
def _all_limits() -> WalkLimits:
    """The walk's limits for every file of a skill (made on first walk, then once: a
    cold snapshot walks every skill folder)."""
    from skilldeck._tree import WalkLimits  # imported on first walk

    return WalkLimits(max_files=MAX_INDEX_FILES)


def index_files(real_dir: str, mode: IndexMode) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """The skill's file index (``skilldeck.catalog._fileset``'s rule over the files the
    walker lists) and the problems met. For ``"bundled"`` only the bundled folders are
    walked, unless the body links to files elsewhere."""
    from skilldeck._tree import WalkLimits, walk_skill

    if mode == "all":
        walk = walk_all(real_dir)
        return (
            tuple(p for p in walk.paths if in_index(p, mode, ())),
            tuple(p.diagnostic(real_dir) for p in walk.problems),
        )
    walk = walk_skill(
        real_dir,
        limits=WalkLimits(max_files=MAX_INDEX_FILES),
        strict=False,
        enter=_enter_bundled,
        follow_root=False,
    )
    files = tuple(p for p in walk.paths if in_bundled_index(p))
    linked = linked_in(real_dir, os.path.basename(real_dir))
    if linked - set(files):
        every = walk_all(real_dir).paths
        files = tuple(p for p in every if in_index(p, mode, linked))
    return files, tuple(p.diagnostic(real_dir) for p in walk.problems)
