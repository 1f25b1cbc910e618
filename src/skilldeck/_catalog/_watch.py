"""Watching a catalog's roots for changes (optional: ``pip install skilldeck[watch]``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilldeck._errors import InternalError

if TYPE_CHECKING:
    from skilldeck._catalog._catalog import Catalog

__all__ = ["Watcher", "split_watchable"]

_FOLLOWABLE_FOLDERS = 5_000
"""A path with more folders than this is polled rather than watched."""


def split_watchable(paths: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """``paths`` split into those a recursive file watcher may follow and those to poll.

    A watcher (watchfiles) follows links: a link to ``/`` inside a skill made
    ``serve`` register the whole file system (40 s before it answered, hundreds of
    MB). A path is polled instead when a link under it leads to a folder outside it
    that is not a skill folder (a link to a skill folder is followed and checked the
    same way), or when it holds more than 5,000 folders (a home folder standing in
    for a missing root).
    """
    watch: list[Path] = []
    poll: list[Path] = []
    for path in paths:
        (watch if _followable(path) else poll).append(path)
    return watch, poll


def _followable(path: Path) -> bool:
    todo = [(str(path), os.path.realpath(path))]
    seen = 0
    while todo:
        top, base = todo.pop()
        for dirpath, dirnames, _files in os.walk(top):  # links are listed, not entered
            seen += 1
            if seen > _FOLLOWABLE_FOLDERS:
                return False
            for name in dirnames:
                full = os.path.join(dirpath, name)
                if not os.path.islink(full):
                    continue
                target = os.path.realpath(full)
                if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
                    continue  # stays inside: nothing new to watch
                if not os.path.isfile(os.path.join(target, "SKILL.md")):
                    return False
                todo.append((target, target))  # a linked skill: its own links count too
    return True


class Watcher:
    """A background thread that refreshes a catalog and calls back when it changed.

    The callback runs on the watcher thread; exceptions it raises are kept in
    ``errors`` (the watcher keeps running). ``stop()`` ends the thread.
    """

    def __init__(
        self,
        catalog: Catalog,
        callback: Callable[[Catalog], None],
        *,
        debounce_ms: int = 200,
    ) -> None:
        try:
            import watchfiles
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise InternalError(
                "watching needs the optional 'watchfiles' package",
                hint="pip install 'skilldeck[watch]'",
            ) from exc
        self._watchfiles: Any = watchfiles
        self.catalog = catalog
        self.callback = callback
        self.debounce_ms = debounce_ms
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="skilldeck-watch", daemon=True)
        self._thread.start()
        self._ready.wait(timeout=5)

    def _run(self) -> None:
        paths = [str(p) for p in self.catalog.watched_paths()]
        if not paths:
            self._ready.set()
            return
        gen = self._watchfiles.watch(
            *paths,
            debounce=self.debounce_ms,
            step=20,
            stop_event=self._stop,
            rust_timeout=500,
            yield_on_timeout=True,
            raise_interrupt=False,
            ignore_permission_denied=True,
        )
        self._ready.set()
        for changes in gen:
            if self._stop.is_set():
                break
            if not changes:
                continue
            try:
                if self.catalog.refresh():
                    self.callback(self.catalog)
            except Exception as exc:  # a callback failure must not kill the watcher
                self.errors.append(exc)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching and wait for the thread to end."""
        self._stop.set()
        self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def __enter__(self) -> Watcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
