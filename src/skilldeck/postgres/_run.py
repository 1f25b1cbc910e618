"""Running a stored skill: its current version written straight into the run's copy.

``StoreExecutor`` is an ``Executor`` whose run copy of a stored skill is the
skill's current version, written from the store into a new private folder with
every file checked against its digest and the whole against the version's
digest as it is written: that one pass is the run's hashing, and the version's
digest is what approval is decided on (so an approval granted on any replica
holds here and a new version asks again). From there the run is the ordinary
one, with the same isolation as a local skill; the copy is removed afterwards.
Skills with a folder on disk run as usual.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

from skilldeck.execution import Executor
from skilldeck.postgres._store import PostgresStore

__all__ = ["StoreExecutor"]


class StoreExecutor(Executor):
    """An ``Executor`` for skills of a ``PostgresStore`` (local folders run as usual)."""

    def __init__(self, store: PostgresStore, **options: Any) -> None:
        super().__init__(**options)
        self.store = store

    def _write_copy(self, skill: Any, dest: Path) -> tuple[str, Collection[str]]:
        version = self.store.materialize(skill.name, dest)
        return version.digest, version.files
