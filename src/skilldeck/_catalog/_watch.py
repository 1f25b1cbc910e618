"""Watching a catalog's roots for changes (optional: ``pip install skilldeck[watch]``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skilldeck._errors import InternalError

if TYPE_CHECKING:
    from skilldeck._catalog._catalog import Catalog

__all__ = ["Watcher"]


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
