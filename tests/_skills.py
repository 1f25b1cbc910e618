"""Helpers shared by several test folders (import as ``from tests._skills import ...``)."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from skilldeck import (
    FileNotFoundInSkillError,
    FileTooLargeError,
    Skill,
    SkillMetadata,
    SkillNotFoundError,
    parse_skill_md,
)


def write_files(folder: Path, files: Mapping[str, str | bytes] | None) -> None:
    """Write ``files`` (path relative to ``folder`` -> text or bytes), making parent folders."""
    for rel, content in (files or {}).items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


class HostStore:
    """A host application's store with exactly the documented ``Store`` methods
    (``list_skills``, ``load_skill``, ``read_file``), as an app that injects its own
    store writes it: SKILL.md texts and their bundled files held in a dict."""

    def __init__(self, skills: Mapping[str, tuple[str, Mapping[str, bytes]]]) -> None:
        self.skills = dict(skills)

    def list_skills(self) -> list[SkillMetadata]:
        out = []
        for text, _files in self.skills.values():
            parsed = parse_skill_md(text)
            assert parsed.manifest is not None
            out.append(SkillMetadata.of_manifest(parsed.manifest, source="host"))
        return out

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> Skill:
        text, files = self._get(name)
        parsed = parse_skill_md(text)
        assert parsed.manifest is not None
        meta = SkillMetadata.of_manifest(parsed.manifest, source="host")
        return Skill(meta, parsed.manifest, parsed.body, False, tuple(sorted(files)))

    def read_file(self, name: str, relpath: str, *, max_bytes: int = 200_000) -> bytes:
        _text, files = self._get(name)
        if relpath not in files:
            raise FileNotFoundInSkillError(f"no file {relpath} in {name}", skill=name)
        data = files[relpath]
        if len(data) > max_bytes:
            raise FileTooLargeError(f"{relpath} is too large", skill=name)
        return data

    def _get(self, name: str) -> tuple[str, Mapping[str, bytes]]:
        if name not in self.skills:
            raise SkillNotFoundError(f"no skill {name}", skill=name)
        return self.skills[name]


@functools.cache
def frozen_at_start() -> int:
    """How many objects this interpreter has frozen (``gc.get_freeze_count()``) when it
    starts: 0 on most, a few hundred constant tuples on CPython 3.12. skilldeck promotes
    nothing where it is not 0 (``skilldeck._gc``)."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", "import gc; print(gc.get_freeze_count())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)
