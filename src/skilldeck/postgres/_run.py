"""Running a stored skill: its current version materialised into a private folder.

``StoreExecutor`` is an ``Executor`` whose runs start by writing the skill's
current version from the store into a new private folder (mode 0700), each
file checked against its digest and the whole against the version's digest.
From there the run is the ordinary one: the executor snapshots that folder,
binds approval to the snapshot's digest (the version's digest, so an approval
granted on any replica holds here and a new version asks again), and runs it
with the same isolation as a local skill. The folder is removed afterwards.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from skilldeck import Executor, RunResult, Skill, SkillMetadata
from skilldeck.postgres._store import PostgresStore

__all__ = ["StoreExecutor"]


class StoreExecutor(Executor):
    """An ``Executor`` for skills of a ``PostgresStore`` (local folders run as usual)."""

    def __init__(self, store: PostgresStore, **options: Any) -> None:
        super().__init__(**options)
        self.store = store

    @contextmanager
    def _materialized(self, skill: Any) -> Iterator[Any]:
        if getattr(skill, "path", None) is not None:
            yield skill  # a folder on disk: nothing to materialise
            return
        tmp = tempfile.mkdtemp(prefix="skilldeck-store-run-")
        try:
            folder = Path(tmp) / skill.name
            folder.mkdir(mode=0o700)
            self.store.materialize(skill.name, folder)
            yield _with_folder(skill, str(folder))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def run_script(
        self, skill: Any, script: str, args: Sequence[str] = (), **options: Any
    ) -> RunResult:
        with self._materialized(skill) as local:
            return super().run_script(local, script, args, **options)

    def run_tool(
        self, skill: Any, tool: Any, arguments: Mapping[str, Any], **options: Any
    ) -> RunResult:
        with self._materialized(skill) as local:
            return super().run_tool(local, tool, arguments, **options)


def _with_folder(skill: Any, folder: str) -> Any:
    if isinstance(skill, Skill):
        meta = dataclasses.replace(skill.metadata, folder=folder, md_name="SKILL.md", _path=None)
        return dataclasses.replace(skill, metadata=meta)
    if isinstance(skill, SkillMetadata):
        return dataclasses.replace(skill, folder=folder, md_name="SKILL.md", _path=None)
    return skill
