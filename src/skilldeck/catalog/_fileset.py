"""The one file-set rule of a skill: what it is made of, what is listed, what is readable.

Every store (folder, memory, PostgreSQL), MCP, install and export go by it:

- **The file set** is what the one walker of ``skilldeck._tree`` lists (SKILL.md
  included; hidden names, compiled caches, links leaving the folder and special
  files are never part of it). It is what is digested, approved, published,
  copied into a run, installed and exported. A store that keeps files (memory,
  PostgreSQL) keeps exactly such a set.
- **The file index** (``skills_load``'s list) is a subset of the set, by
  ``index``: ``"all"``, every file but SKILL.md; ``"bundled"`` (the default),
  the files at the skill's root and one level deep in ``scripts/``,
  ``references/`` and ``assets/``, plus every file the body links to and the
  files directly inside a folder it links to (``in_index``).
- **Reads are bounded by the index** a host exposes (``check_read``): SKILL.md
  and the files the index lists, nothing else, whatever the store. A host
  chooses the boundary by choosing the index: ``index="all"`` lists and opens
  every file of the set (``skilldeck read --all-files``; MCP publishes and
  serves the whole set). A read is decided from the path and SKILL.md's links,
  never by walking the skill, so it costs the same whatever the skill's size.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from skilldeck._errors import FileNotFoundInSkillError, PathNotAllowedError, files_hint
from skilldeck._tree import below_walk_depth

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.catalog._types import IndexMode

__all__ = [
    "BUNDLED_DIRS",
    "MAX_INDEX_FILES",
    "check_read",
    "in_bundled_index",
    "in_index",
    "index_of",
    "linked_of",
]


BUNDLED_DIRS = ("scripts", "references", "assets")
"""The folders whose files form a skill's default file index (one level deep),
with the files at the skill's root."""

MAX_INDEX_FILES = 5_000
"""At most this many files are indexed per skill."""

LINK_SCAN_BYTES = 256 * 1024
"""How much of SKILL.md is searched for links to files outside the bundled folders."""


def in_bundled_index(rel: str) -> bool:
    """Is ``rel`` a file at the skill's root (not SKILL.md) or one level deep in
    ``scripts/``, ``references/`` or ``assets/``?"""
    head, sep, tail = rel.partition("/")
    if not sep:
        return bool(head) and head != "SKILL.md"
    return head in BUNDLED_DIRS and bool(tail) and "/" not in tail


def in_index(rel: str, mode: IndexMode, linked: Collection[str]) -> bool:
    """Is ``rel``, a file of the skill's set, in its file index? ``linked``: the
    paths SKILL.md's body refers to (``linked_of``)."""
    if rel == "SKILL.md" or below_walk_depth(rel):
        return False
    if mode == "all" or in_bundled_index(rel):
        return True
    return rel in linked or rel.rpartition("/")[0] in linked


def index_of(paths: Iterable[str], mode: IndexMode, linked: Collection[str]) -> tuple[str, ...]:
    """The file index (sorted) of a skill whose file set is ``paths``."""
    return tuple(sorted(p for p in paths if in_index(p, mode, linked)))


def linked_of(skill_md: bytes) -> frozenset[str]:
    """The relative paths the body of a SKILL.md (its first 256 KiB) refers to."""
    text = skill_md[:LINK_SCAN_BYTES].decode("utf-8", "replace")
    if text.startswith("---"):
        end = text.find("\n---", 3)
        text = text[end + 4 :] if end >= 0 else ""
    from skilldeck.format import linked_paths  # imported when first needed

    return linked_paths(text)


def check_read(
    clean: str,
    mode: IndexMode,
    linked: Callable[[], Collection[str]],
    *,
    skill: str,
    exists: Callable[[str], bool],
    must_exist: bool = False,
) -> None:
    """Refuse a read of ``clean`` (a cleaned relative path) outside SKILL.md and the
    index ``mode`` lists: ``PathNotAllowedError`` when such a file ``exists``,
    ``FileNotFoundInSkillError`` when it does not. ``linked`` is asked only when the
    path alone does not decide. ``must_exist``: a path the index allows is refused
    too when it does not ``exist`` (a store that holds its files in memory or a
    database; a folder store learns it from the read itself)."""
    allowed = clean == "SKILL.md" or (mode == "all" and not below_walk_depth(clean))
    if allowed or in_bundled_index(clean) or in_index(clean, mode, linked()):
        if not must_exist or exists(clean):
            return
    elif exists(clean):
        raise PathNotAllowedError(
            f"{clean} is not in the file index of {skill}",
            skill=skill,
            path=clean,
            hint=files_hint(
                skill,
                first="only the files a skill lists can be read (a host that lists every "
                'file uses index "all")',
            ),
        )
    raise FileNotFoundInSkillError(
        f"no file {clean} in skill {skill}",
        skill=skill,
        path=clean,
        hint=files_hint(skill),
    )
