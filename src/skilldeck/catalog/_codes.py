"""Diagnostic codes of discovery and the catalog (SK5xx)."""

from __future__ import annotations

from skilldeck._diagnostics import Severity, register_code
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

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

ROOT_NOT_DIR = register_code("SK501", E, "a skills root is not a folder")
DUPLICATE_NAME = register_code("SK509", W, "two skills in one source have the same name")
SHADOWED = register_code("SK510", I, "a skill is hidden by one of the same name")
MISSING_COMMAND = register_code("SK511", W, "a required command is not on PATH")
MISSING_ENV = register_code("SK512", W, "a required environment variable is not set")
UNCHECKED_REQUIREMENT = register_code("SK513", I, "a requirement skilldeck cannot check")
UNKNOWN_CONFIG_NAME = register_code("SK517", I, "the config names a skill that does not exist")
