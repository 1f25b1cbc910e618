"""The security scan of skill folders, and its step in installing them.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._scan import (
    SCAN_CODES as SCAN_CODES,
)
from skilldeck._scan import (
    Judge as Judge,
)
from skilldeck._scan import (
    JudgeRequest as JudgeRequest,
)
from skilldeck._scan import (
    JudgeVerdict as JudgeVerdict,
)
from skilldeck._scan import (
    ScanOptions as ScanOptions,
)
from skilldeck._scan import (
    install_scan as install_scan,
)
from skilldeck._scan import (
    openai_judge as openai_judge,
)
from skilldeck._scan import (
    scan_mode as scan_mode,
)
from skilldeck._scan import (
    scan_skill as scan_skill,
)
from skilldeck._scan import (
    scan_skills as scan_skills,
)
from skilldeck._scan import (
    scan_text as scan_text,
)

__all__ = [
    "SCAN_CODES",
    "Judge",
    "JudgeRequest",
    "JudgeVerdict",
    "ScanOptions",
    "install_scan",
    "openai_judge",
    "scan_mode",
    "scan_skill",
    "scan_skills",
    "scan_text",
]
