"""The real-world corpus as one recursive root: nothing crashes, every problem is data."""

from __future__ import annotations

import collections
from pathlib import Path

from skilldeck import Catalog, SkillStatus
from skilldeck.disclosure import render_xml


def test_corpus_lists_without_crashing(corpus: Path) -> None:
    cat = Catalog.from_roots([corpus], recursive=True)
    entries = cat.entries()
    counts = collections.Counter(e.status for e in entries)
    assert counts[SkillStatus.ENABLED] > 1500
    assert counts[SkillStatus.INVALID] > 0  # the corpus holds broken skills on purpose
    for e in entries:
        if e.status is SkillStatus.INVALID:
            assert e.reason and e.diagnostics
    text = render_xml(cat.list(), budget=20_000)
    assert len(text) <= 20_000 and "skills_search" in text
    # a second catalog is served from the persisted cache and agrees
    again = Catalog.from_roots([corpus], recursive=True)
    assert [(e.address, e.status) for e in again.entries()] == [
        (e.address, e.status) for e in entries
    ]
    # every visible skill loads
    for meta in cat.list()[:200]:
        skill = cat.load(meta.name)
        assert skill.name == meta.name
