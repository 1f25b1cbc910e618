"""The collector pause around a scan or an index build: one that built many objects
hands them to the oldest generation at once; a small one leaves them young; an
application's own ``gc.disable()`` and ``gc.freeze()`` are kept."""

from __future__ import annotations

import gc

from skilldeck._gc import _PROMOTE_AFTER, paused as _gc_paused


def _generation_of(obj: object) -> int | None:
    for gen in (0, 1, 2):
        if any(o is obj for o in gc.get_objects(generation=gen)):
            return gen
    return None


def test_a_large_scan_s_objects_go_to_the_oldest_generation() -> None:
    assert gc.isenabled()
    with _gc_paused():
        assert not gc.isenabled()
        kept = [[i] for i in range(_PROMOTE_AFTER + 10_000)]
    assert gc.isenabled()
    assert gc.get_count()[0] < 1_000  # nothing left for the next collection to walk
    assert _generation_of(kept[0]) == 2 and _generation_of(kept[-1]) == 2


def test_a_small_scan_s_objects_stay_young() -> None:
    gc.collect()
    with _gc_paused():
        kept = [[i] for i in range(100)]
    assert gc.isenabled()
    assert _generation_of(kept[-1]) == 0


def test_an_application_s_own_pause_is_kept() -> None:
    gc.disable()
    try:
        with _gc_paused():
            kept = [[i] for i in range(_PROMOTE_AFTER + 10_000)]
        assert not gc.isenabled()
        assert _generation_of(kept[-1]) == 0  # not promoted: the application decides
    finally:
        gc.enable()


def test_an_application_s_frozen_objects_stay_frozen() -> None:
    frozen = [object()]
    gc.freeze()
    try:
        count = gc.get_freeze_count()
        with _gc_paused():
            kept = [[i] for i in range(_PROMOTE_AFTER + 10_000)]
        assert gc.isenabled()
        assert gc.get_freeze_count() == count  # not thawed by a promotion
        assert _generation_of(frozen) is None  # still in the permanent generation
        assert _generation_of(kept[-1]) in (0, 1)
    finally:
        gc.unfreeze()
