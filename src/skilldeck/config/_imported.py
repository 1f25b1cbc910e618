"""What another agent runtime's ``~/.agent/config.yaml`` turned off (``_import`` reads it).

Apart from the reader: every configuration load asks for the file, few users have one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from skilldeck._diagnostics import Diagnostic

__all__ = ["AGENT_CONFIG_READ", "ImportedSettings"]

AGENT_CONFIG_READ = "SK532"


@dataclass(frozen=True, slots=True)
class ImportedSettings:
    """What ``~/.agent/config.yaml`` turns off, and a note saying so."""

    file: Path
    #: ``bundled:NAME`` entries (``disabledBundled``)
    disabled: tuple[str, ...] = ()
    #: ``(plugin name, real folder)`` of plugins with ``enabled: false``
    disabled_paths: tuple[tuple[str, str], ...] = ()
    #: ``enabledBundled`` when the file sets it
    enabled_bundled: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()

    @property
    def diagnostic(self) -> Diagnostic:
        return Diagnostic.make(
            AGENT_CONFIG_READ,
            f"read {self.file}: " + "; ".join(self.notes),
            path=str(self.file),
            hint="to change these, edit that file, or move them to skilldeck's own config "
            "(docs/compatibility.md shows the equivalents)",
        )
