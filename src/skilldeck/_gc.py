"""The cycle collector paused while skilldeck builds many long-lived, acyclic objects.

One policy for every place that does so (a catalog scan, a search index build, the
MCP server's index, the command line's and the server's start-up): pause the
collector, and when it runs again hand what was built to the oldest generation at
once (``gc.freeze()`` then ``gc.unfreeze()``, no traversal) or, for a server's
start-up, keep it out of every later collection (``gc.freeze()``). An application's
own ``gc.disable()`` and ``gc.freeze()`` are respected: nothing is re-enabled that
was off, nothing thawed that someone else froze. An interpreter that starts with
objects frozen of its own (CPython 3.12 keeps a few hundred constant tuples of its
deep-frozen modules in the permanent generation) is treated the same: its builds
are not promoted, since ``gc.unfreeze()`` would thaw those too.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["froze_since_start", "pause", "paused", "resume"]

_PROMOTE_AFTER = 10_000
"""Objects a build must have left (net) for them to be promoted at once (see ``resume``)."""


_FROZEN_AT_START = gc.get_freeze_count()
"""What was frozen when skilldeck was first imported: the interpreter's own frozen
objects (see above), or what an application froze before importing skilldeck."""


def froze_since_start() -> bool:
    """Whether the process froze objects since skilldeck was imported (a server's
    start-up, ``paused(freeze=True)``, or the application's own ``gc.freeze()``):
    what lives as long as that start-up should join it."""
    return gc.get_freeze_count() > _FROZEN_AT_START


def pause() -> bool:
    """Pause the collector; the answer (was it running?) goes to ``resume``."""
    was_enabled = gc.isenabled()
    gc.disable()
    return was_enabled


def resume(was_enabled: bool, *, promote_after: int = _PROMOTE_AFTER) -> None:
    """Let the collector run again after ``pause`` (unless it was off before).

    When more than ``promote_after`` objects were left by what ran meanwhile (a
    listing of 10,000 cached skills leaves about 30,000), they go straight to the
    oldest generation: they are long-lived by construction, and the collections that
    would otherwise promote them generation by generation cost a sixth of a large
    listing's CPU, to find nothing.
    """
    if not was_enabled:
        return
    # (not when the application froze objects itself: unfreeze would thaw them)
    if gc.get_count()[0] > promote_after and not gc.get_freeze_count():
        gc.freeze()
        gc.unfreeze()
    gc.enable()


@contextlib.contextmanager
def paused(*, freeze: bool = False, promote_after: int = _PROMOTE_AFTER) -> Iterator[None]:
    """The collector paused while the block builds (``pause``/``resume``).

    ``freeze``: when the block succeeds, what exists then stays out of every later
    collection (``gc.freeze``), for a long-running server's start-up; a block that
    fails freezes nothing. ``promote_after``: as for ``resume`` (``0``: what the block
    left is promoted whatever its size, for a command that ends soon after).
    """
    was_enabled = pause()
    try:
        yield
        if freeze and was_enabled:
            gc.freeze()
    finally:
        resume(was_enabled, promote_after=promote_after)
