"""The cycle collector paused while a bulk build allocates many small, acyclic objects."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["paused"]

_PROMOTE_AFTER = 10_000
"""Objects a build must have left (net) for them to be promoted at once (see ``paused``):
the young collection that would otherwise follow walks every one of them (the 30,000 a
listing of 10,000 cached skills leaves cost it 7 ms)."""


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Pause the cycle collector while a scan or an index build allocates many small,
    acyclic objects.

    Full collections triggered mid-build would otherwise traverse every object of
    a large catalog again and again; nothing built there forms reference cycles.
    After a build that left many objects (a first listing of 100,000 skills builds
    some 750,000), they go straight to the oldest generation (``gc.freeze()`` then
    ``gc.unfreeze()``, no traversal): they are long-lived by construction, and the
    collections that would otherwise promote them generation by generation cost a
    sixth of such a listing's CPU, to find nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # (not when the application froze objects itself: unfreeze would thaw them)
            if gc.get_count()[0] > _PROMOTE_AFTER and not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()
