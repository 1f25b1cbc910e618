"""Diagnostics: coded findings about a skill, shared by every layer.

Code ranges (stable; extend, never rename):

- ``SK1xx`` reading and parsing SKILL.md (frontmatter, YAML)
- ``SK2xx`` the Agent Skills specification's rules (validation)
- ``SK3xx`` lint: style and quality, never blocking
- ``SK4xx`` tools declared in the Markdown body (seed 003)
- ``SK5xx`` discovery and catalog (roots, symlinks, requirements)
- ``SK6xx`` security scan

Every code is registered in ``CODES`` with its default severity and a title;
``docs/diagnostics.md`` documents each one with an example and the fix, and a
test keeps the two in step.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, replace
from typing import Any

__all__ = ["CODES", "CodeInfo", "Diagnostic", "Severity", "register_code"]


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    severity: Severity
    title: str


CODES: dict[str, CodeInfo] = {}


def register_code(code: str, severity: Severity | str, title: str) -> str:
    """Register a diagnostic code (idempotent for the same definition)."""
    info = CodeInfo(code, Severity(severity), title)
    existing = CODES.get(code)
    if existing is not None and existing != info:
        raise ValueError(f"diagnostic code {code} registered twice with different meanings")
    CODES[code] = info
    return code


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding. ``line`` and ``column`` are 1-based and refer to the file at ``path``."""

    code: str
    severity: Severity
    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = None

    @classmethod
    def make(
        cls,
        code: str,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
        severity: Severity | str | None = None,
    ) -> Diagnostic:
        """A diagnostic with the code's registered severity unless one is given."""
        sev = Severity(severity) if severity is not None else CODES[code].severity
        return cls(code, sev, message, path, line, column, hint)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def with_severity(self, severity: Severity) -> Diagnostic:
        return replace(self, severity=severity)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["severity"] = self.severity.value
        return out

    def format(self) -> str:
        """Compiler style: ``path:line:col: CODE severity: message``."""
        loc = self.path or "<input>"
        if self.line is not None:
            loc += f":{self.line}"
            if self.column is not None:
                loc += f":{self.column}"
        text = f"{loc}: {self.code} {self.severity.value}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text
