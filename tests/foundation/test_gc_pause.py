"""The collector pause around a scan or an index build: one that built many objects
hands them to the oldest generation at once; a small one leaves them young; an
application's own ``gc.disable()`` and ``gc.freeze()`` are kept."""

from __future__ import annotations

import gc

from skilldeck._gc import _PROMOTE_AFTER, pause, paused as _gc_paused, resume


def _promoted_generation() -> int:
    """Where a promoted build goes: the oldest generation, unless objects are frozen
    already (the interpreter's own, as on CPython 3.12, or a test's): then nothing is
    thawed to promote it, and it stays young."""
    return 2 if gc.get_freeze_count() == 0 else 0


def _generation_of(obj: object) -> int | None:
    for gen in (0, 1, 2):
        if any(o is obj for o in gc.get_objects(generation=gen)):
            return gen
    return None


def test_a_large_scan_s_objects_go_to_the_oldest_generation() -> None:
    assert gc.isenabled()
    frozen, promoted = gc.get_freeze_count(), _promoted_generation()
    with _gc_paused():
        assert not gc.isenabled()
        kept = [[i] for i in range(_PROMOTE_AFTER + 10_000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen  # nothing thawed, nothing frozen
    if promoted == 2:
        assert gc.get_count()[0] < 1_000  # nothing left for the next collection to walk
        assert _generation_of(kept[0]) == 2 and _generation_of(kept[-1]) == 2
    else:
        assert _generation_of(kept[-1]) in (0, 1)


def test_a_small_scan_s_objects_stay_young() -> None:
    gc.collect()
    with _gc_paused():
        kept = [[i] for i in range(100)]
    assert gc.isenabled()
    assert _generation_of(kept[-1]) == 0


def test_a_command_s_small_build_is_promoted_when_asked() -> None:
    # a command that ends soon after (skilldeck run): nothing it built is walked again
    gc.collect()
    promoted = _promoted_generation()
    with _gc_paused(promote_after=0):
        kept = [[i] for i in range(100)]
    assert gc.isenabled()
    assert _generation_of(kept[-1]) == promoted


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
        # not thawed by a promotion (frozen objects that died meanwhile leave the count)
        assert 0 < gc.get_freeze_count() <= count
        assert _generation_of(frozen) is None  # still in the permanent generation
        assert _generation_of(kept[-1]) in (0, 1)
    finally:
        gc.unfreeze()


def test_a_server_start_up_is_frozen_and_a_failed_one_is_not() -> None:
    gc.collect()
    count = gc.get_freeze_count()
    try:
        with _gc_paused(freeze=True):
            kept = [[i] for i in range(100)]
        assert gc.isenabled()
        assert gc.get_freeze_count() > count
        assert _generation_of(kept[-1]) is None  # in the permanent generation
    finally:
        gc.unfreeze()
    try:
        with _gc_paused(freeze=True):
            lost = [[i] for i in range(100)]
            raise RuntimeError("start-up failed")
    except RuntimeError:
        pass
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert _generation_of(lost[-1]) == 0


def test_a_command_s_start_up_is_promoted_however_small() -> None:
    gc.collect()
    promoted = _promoted_generation()
    was_enabled = pause()
    assert was_enabled and not gc.isenabled()
    kept = [[i] for i in range(100)]
    resume(was_enabled, promote_after=0)
    assert gc.isenabled()
    assert _generation_of(kept[-1]) == promoted
