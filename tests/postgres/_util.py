"""Helpers of the PostgreSQL tests: skill folders written into tmp_path."""

from __future__ import annotations

from pathlib import Path


def make_skill(
    root: Path, name: str, body: str = "Do the thing.", files: dict[str, str] | None = None
) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {name} does one careful thing for tests.\n---\n\n{body}\n"
    )
    for rel, text in (files or {}).items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return folder
