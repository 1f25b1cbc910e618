"""Collecting located findings while a frontmatter mapping is checked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skilldeck._diagnostics import Diagnostic, Severity

__all__ = ["Ctx", "scalar_text", "typename"]


class Ctx:
    """Where keys are, which mode applies, and the findings so far."""

    def __init__(
        self,
        positions: Mapping[str, tuple[int, int]],
        path: str | None,
        strict: bool,
        origin: tuple[int, int] | None = None,
    ) -> None:
        self.positions = positions
        self.origin = origin
        self.path = path
        self.strict = strict
        self.diags: list[Diagnostic] = []

    def add(
        self,
        code: str,
        message: str,
        key: str | None,
        *,
        hint: str | None = None,
        severity: Severity | None = None,
    ) -> None:
        pos = self.positions.get(key) if key else self.origin
        line, col = (pos[0], pos[1]) if pos else (None, None)
        self.diags.append(
            Diagnostic.make(
                code, message, path=self.path, line=line, column=col, hint=hint, severity=severity
            )
        )

    def mode(self, lenient: Severity = Severity.WARNING) -> Severity:
        return Severity.ERROR if self.strict else lenient


def typename(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
