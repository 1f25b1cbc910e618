"""The walker's type aliases: ``Found`` (one skill a discovery walk found) and
``ProblemKind`` (why a walk refused a path). ``Literal`` and ``Any`` need
``typing``, which costs every command's start-up, so the walker's modules name
these under ``TYPE_CHECKING`` only; the package's facade imports this module when a
program asks for them.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["Found", "ProblemKind"]

#: (folder as found, SKILL.md as found, real SKILL.md or "" when it leaves the
#: folder or dangles (SK214), signature of its stat)
Found = tuple[str, str, str, Any]

ProblemKind = Literal[
    "escapes",
    "dangling",
    "loop",
    "hidden",
    "special",
    "unreadable",
    "too_deep",
    "too_many",
    "undecodable",
    "bad_name",
]
