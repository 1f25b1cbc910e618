"""The security scan of skill folders.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._scan import (
    SCAN_CODES as SCAN_CODES,
)
from skilldeck._scan import (
    ScanOptions as ScanOptions,
)
from skilldeck._scan import (
    scan_skill as scan_skill,
)
from skilldeck._scan import (
    scan_text as scan_text,
)

__all__ = [
    "SCAN_CODES",
    "ScanOptions",
    "scan_skill",
    "scan_text",
]
