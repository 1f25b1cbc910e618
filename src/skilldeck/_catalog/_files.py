"""A skill's file index and contained reads of bundled files (tier 3).

Both go through the one walker and reader of ``skilldeck._tree``: hidden files
are never listed or read, links are followed only while they stay inside the
skill folder, special files are left out, and a read resolves beneath the
folder without a window for a swap. At the store level a read must also name
a file of the skill's index. Size limits always apply.
"""

from __future__ import annotations

import os

from skilldeck._catalog._store import FileData, IndexMode, in_bundled_index
from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import SkillError
from skilldeck._tree import SkillTree, Walk, WalkLimits, walk_skill

__all__ = [
    "MAX_INDEX_FILES",
    "index_files",
    "read_contained",
    "readable_files",
    "walk_all",
]

MAX_INDEX_FILES = 5_000
"""At most this many files are indexed per skill with ``index="all"``."""


def read_contained(
    real_dir: str, rel: str, *, max_bytes: int, truncate: bool, skill: str
) -> FileData:
    """Read ``rel`` beneath ``real_dir`` with the contained reader (see module doc)."""
    with SkillTree(real_dir, skill=skill, follow_root=False) as tree:
        got = tree.read(rel, max_bytes=max_bytes, truncate=truncate)
    return FileData(got.path, got.data, got.size, got.truncated)


def _enter_bundled(rel: str) -> bool:
    return "/" not in rel and rel in ("scripts", "references", "assets")


_LINK_SCAN_BYTES = 256 * 1024
"""How much of SKILL.md is searched for links to files outside the bundled folders."""


def _linked(real_dir: str, skill: str) -> frozenset[str]:
    """The relative paths SKILL.md's body (its first 256 KiB) refers to."""
    try:
        text = read_contained(
            real_dir, "SKILL.md", max_bytes=_LINK_SCAN_BYTES, truncate=True, skill=skill
        ).data.decode("utf-8", "replace")
    except (SkillError, OSError):
        return frozenset()
    if text.startswith("---"):
        end = text.find("\n---", 3)
        text = text[end + 4 :] if end >= 0 else ""
    from skilldeck._format import linked_paths  # imported when first needed

    return linked_paths(text)


def walk_all(real_dir: str) -> Walk:
    """Every file of the skill the walker lists (SKILL.md too), at most ``MAX_INDEX_FILES``:
    the ``"all"`` index and what a catalog snapshot lists."""
    return walk_skill(
        real_dir, limits=WalkLimits(max_files=MAX_INDEX_FILES), strict=False, follow_root=False
    )


def index_files(real_dir: str, mode: IndexMode) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """The skill's file index (sorted relative POSIX paths) and problems met.

    ``"all"``: every file the walker lists but SKILL.md (at most
    ``MAX_INDEX_FILES``); ``"bundled"``: those at the skill's root and one level
    deep in ``scripts/``, ``references/`` and ``assets/``, plus every file the
    body links to (``checklists/owasp.md``) and the files directly inside a
    linked folder (``patterns/``), wherever they are, as the walker lists them
    (never a hidden file).
    """
    bundled = mode == "bundled"
    if bundled:
        walk = walk_skill(
            real_dir,
            limits=WalkLimits(max_files=MAX_INDEX_FILES),
            strict=False,
            enter=_enter_bundled,
            follow_root=False,
        )
    else:
        walk = walk_all(real_dir)
    if bundled:
        files = tuple(p for p in walk.paths if in_bundled_index(p))
        links = _linked(real_dir, os.path.basename(real_dir))
        if links - set(files):
            every = walk_all(real_dir).paths
            extra = {p for p in every if p in links or p.rpartition("/")[0] in links}
            extra.discard("SKILL.md")
            files = tuple(sorted(set(files) | extra))
    else:
        files = tuple(p for p in walk.paths if p != "SKILL.md")
    return files, tuple(p.diagnostic(real_dir) for p in walk.problems)


def readable_files(real_dir: str) -> frozenset[str]:
    """Every path a read may name: the whole index and SKILL.md, whatever the index mode
    lists, so every front end (tool, CLI, MCP) serves the same set."""
    walk = walk_skill(
        real_dir, limits=WalkLimits(max_files=MAX_INDEX_FILES + 1), strict=False, follow_root=False
    )
    return frozenset(walk.paths)
