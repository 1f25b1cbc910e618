"""Helpers shared by several test folders (import as ``from tests._skills import ...``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_files(folder: Path, files: Mapping[str, str | bytes] | None) -> None:
    """Write ``files`` (path relative to ``folder`` -> text or bytes), making parent folders."""
    for rel, content in (files or {}).items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
