"""Run every foundation test with both resolvers: openat2 and the walk by hand."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skilldeck._tree import _reader


@pytest.fixture(params=["openat2", "by-hand"])
def resolver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Which path resolution the contained reader uses in this test."""
    if request.param == "openat2":
        if _reader._openat2() is None:
            pytest.skip("this kernel or platform has no openat2")
    else:
        monkeypatch.setattr(_reader, "_openat2_fn", None)
    yield request.param
