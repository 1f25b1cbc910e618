"""Watching a catalog's roots for changes (optional: ``pip install skilldeck[watch]``)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilldeck._errors import InternalError
from skilldeck._paths import within

if TYPE_CHECKING:
    from skilldeck.catalog._catalog import Catalog

__all__ = ["Watcher", "on_the_way", "split_watchable"]

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


def on_the_way(roots: Sequence[Path], watched: Sequence[Path]) -> Callable[[Any, str], bool]:
    """A file-watcher filter: ``True`` for a changed path inside a root or on the way
    down to one that does not exist yet.

    A missing root is watched from its nearest existing parent, often the home
    folder, which sees every change a user makes; only those that can create or touch
    a root should rescan the catalog. Changes under a path that stands for no missing
    root (a linked skill's own folder, say) all pass.
    """
    sep = os.sep
    given = {os.fspath(r).rstrip(sep) or sep for r in roots}
    wanted = sorted(given | {os.path.realpath(r) for r in given})
    stand_ins = [
        w.rstrip(sep) or sep for w in map(os.fspath, watched) if w.rstrip(sep) not in given
    ]

    def keep(_change: Any, path: str) -> bool:
        if not within(path, stand_ins):
            return True
        return any(within(path, (r,)) or within(r, (path,)) for r in wanted)

    return keep


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
                if within(target, (base,)):
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
            from skilldeck._extras import install_hint

            raise InternalError(
                "watching needs the optional 'watchfiles' package",
                hint=install_hint("watch"),
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
        default, ours = self._watchfiles.DefaultFilter(), self.catalog.watch_filter()
        gen = self._watchfiles.watch(
            *paths,
            watch_filter=lambda change, path: ours(change, path) and default(change, path),
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
