"""Diagnostic codes of discovery and the catalog (SK5xx)."""

from __future__ import annotations

from skilldeck._tree import (  # what a walk or a discovery leaves out
    FILE_LINK_ESCAPES,
    LINK_DANGLING,
    LINK_DUPLICATE,
    LINK_ESCAPES,
    LINK_LOOP,
    NOT_A_SKILL_FILE,
    ROOT_UNREADABLE,
    SPECIAL_FILE,
    TOO_DEEP,
    TOO_MANY_FILES,
)

__all__ = [
    "FILE_LINK_ESCAPES",
    "LINK_DANGLING",
    "LINK_DUPLICATE",
    "LINK_ESCAPES",
    "LINK_LOOP",
    "NOT_A_SKILL_FILE",
    "ROOT_UNREADABLE",
    "SPECIAL_FILE",
    "TOO_DEEP",
    "TOO_MANY_FILES",
]


ROOT_NOT_DIR = "SK501"
DUPLICATE_NAME = "SK509"
SHADOWED = "SK510"
MISSING_COMMAND = "SK511"
MISSING_ENV = "SK512"
UNCHECKED_REQUIREMENT = "SK513"
UNKNOWN_CONFIG_NAME = "SK517"
