"""Stopping a tool call's run when its request ends early.

A client cancels a request with ``notifications/cancelled``; a server that shuts
down (end of input, SIGTERM, Ctrl-C, an HTTP session closed) cancels every request
in flight. A tool call runs on a worker thread that the event loop cannot
interrupt, so a script it started went on, with its process tree and its run
folders, until its own timeout, or was cut off with the server and left its
folders behind. Here the call's worker runs in ``runs_stop_on`` an event that
cancelling the request sets; any ``Executor`` (the server's own, or one the host
gave ``create_server``) stops a run whose event is set as it stops one that timed
out (the process tree killed, the folders removed) and the call returns before the
cancellation goes on.

A call that runs for long (a script, the first search of a large catalog) also
reports progress once a second to a client that asked for it (a ``progressToken``):
the seconds it has run so far. A client that ends a request after a fixed time
without news (many do, at 60 seconds) keeps waiting for a long run that is still
alive.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from skilldeck.execution import runs_stop_on

__all__ = ["PROGRESS_EVERY", "in_thread"]

T = TypeVar("T")

#: Seconds between two progress reports of a call still running.
PROGRESS_EVERY = 1.0


async def in_thread(
    func: Callable[..., T],
    *args: Any,
    progress: Callable[[float], Awaitable[None]] | None = None,
) -> T:
    """``func(*args)`` on a worker thread whose runs stop when this call is cancelled.

    A cancellation waits for ``func`` to return (a run stops within a tenth of a
    second) and then goes on: nothing the call started outlives it. ``progress``,
    when given, is told the seconds run so far every ``PROGRESS_EVERY`` seconds
    while ``func`` runs (a report that fails is dropped: it is advice).
    """
    event = threading.Event()

    def work() -> T:
        with runs_stop_on(event):
            return func(*args)

    async def watch() -> None:
        try:
            if progress is None:
                await anyio.sleep_forever()
                return
            started = anyio.current_time()
            while True:
                await anyio.sleep(PROGRESS_EVERY)
                # a client gone or a closed stream: the call goes on
                with contextlib.suppress(Exception):
                    await progress(round(anyio.current_time() - started, 1))
        finally:
            event.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(watch)
        try:
            result = await anyio.to_thread.run_sync(work)  # shielded: waits for the thread
        finally:
            tasks.cancel_scope.cancel()
    return result
