"""The names of the tree's rules that a listing needs without the walker or the reader.

The codes of what a walk or a discovery leaves out (documented with the catalog's
SK5xx codes) and the walk's default depth cap: the catalog names them on every
listing, the walker (``_walk``) and discovery (``_discover``) report them.
"""

from __future__ import annotations

__all__ = [
    "FILE_LINK_ESCAPES",
    "LINK_DANGLING",
    "LINK_DUPLICATE",
    "LINK_ESCAPES",
    "LINK_LOOP",
    "NOT_A_SKILL_FILE",
    "PLACEHOLDER",
    "REFUSED_NAME",
    "ROOT_UNREADABLE",
    "SECRET_FILE",
    "SKILL_MD_ESCAPES",
    "SPECIAL_FILE",
    "TOO_DEEP",
    "TOO_MANY_FILES",
    "UNDECODABLE_NAME",
    "WALK_DEPTH",
    "below_walk_depth",
]

# Codes of what a discovery leaves out
ROOT_UNREADABLE = "SK502"
LINK_ESCAPES = "SK503"
LINK_DUPLICATE = "SK506"
NOT_A_SKILL_FILE = "SK508"
SKILL_MD_ESCAPES = "SK214"
# found when SKILL.md is read (skilldeck.format._placeholder); registered here so the
# catalog and install leave such skills out without importing the parser
PLACEHOLDER = "SK219"

# Codes of what a walk leaves out
LINK_DANGLING = "SK504"
LINK_LOOP = "SK505"
TOO_DEEP = "SK507"
FILE_LINK_ESCAPES = "SK514"
SPECIAL_FILE = "SK515"
TOO_MANY_FILES = "SK516"
SECRET_FILE = "SK518"  # noqa: S105  (a diagnostic code, not a password)
UNDECODABLE_NAME = "SK519"
REFUSED_NAME = "SK520"

WALK_DEPTH = 64
"""How deep a walk of one skill folder goes by default (``WalkLimits.max_depth``)."""


def below_walk_depth(rel: str, max_depth: int = WALK_DEPTH) -> bool:
    """Whether the file at the skill-relative ``rel`` lies in more folders than a walk
    of ``max_depth`` enters: the one depth rule of what a skill holds (the walker
    never lists such a file, and no file index or read reaches it). A file of the
    deepest folder a walk enters (``max_depth`` folders above it) is not."""
    return rel.count("/") > max_depth
