"""A search index that follows a changing catalog: documents removed and added in place.

A server whose catalog changes all the time (a replica of a database store: every
publish changes one tenant's skills) used to build the tenant's index again after
each change, from every skill's saved terms. ``LiveIndex.update`` instead takes the
postings of the documents that left or changed out and puts those of the new ones
in: a change costs in proportion to the terms of the documents it touches, plus a
few passes over the list at C speed (comparing identities, mapping positions).

Results stay those of a fresh ``SearchIndex`` over the same documents in the same
order, to the last bit: the index keeps counts, and the BM25F weights (document
frequencies, field lengths and their averages) are computed from the counts held
now when a query first uses a term (``_terms``), never carried over a change.
Document ids stay positions in the list given (ties keep catalog order): postings
are kept per *slot*, the place a document got when it was added, and read back
as positions.

The postings of a term are those of the first build until a change touches the
term; then the term gets arrays of its own, so memory stays below twice the
postings held. ``search`` and ``update`` take one lock: a search sees the index
before a change or after it, never in between.
"""

from __future__ import annotations

import bisect
import threading
from array import array
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, cast

from skilldeck.search._bm25 import SearchDocument, SearchHit, SearchIndex
from skilldeck.search._terms import FIELDS, DocTerms, FieldIndex, doc_terms

if TYPE_CHECKING:
    from skilldeck.search._bm25 import _Builtin

__all__ = ["LiveIndex"]

_NAME = attrgetter("name")
_Posting = tuple["array[int]", "array[int]"]  # slots (ascending) and counts


class _LiveFields(FieldIndex):
    """A ``FieldIndex`` whose documents can be removed and added (see the module
    docstring); ``lengths`` and ``meta_lengths`` are by position, as built."""

    def __init__(self, base: FieldIndex, terms: Sequence[DocTerms]) -> None:
        n = len(terms)
        if base.n != n:
            raise ValueError("the terms must be those the index was built from")
        self._base = base
        self._over: list[dict[str, _Posting]] = [{} for _ in FIELDS]
        # by slot: each document's terms, field lengths and evidence length (0 if free)
        self._slot_terms: list[DocTerms | None] = list(terms)
        self._slot_lengths = [array("I", base.lengths[f]) for f in range(len(FIELDS))]
        self._slot_meta = array("d", base.meta_lengths)
        self._free: list[int] = []  # slots of removed documents, for the next ones
        self._slot_at: list[int] = list(range(n))  # position -> slot
        self._position: dict[int, int] | None = None  # slot -> position (None: the same)
        self._by_position: list[DocTerms] = list(terms)
        self.moved = 0  # postings taken out and put in by the last update
        super().__init__(n, self._slot_lengths, self._slot_meta, ())

    # -- reading (what ``_Weights`` and ``_Vocabulary`` ask) -------------------------

    def _posting(self, f: int, term: str) -> tuple[Sequence[int], Sequence[int]] | None:
        """The slots and counts of ``term`` in field ``f`` (``None``: no document)."""
        own = self._over[f].get(term)
        if own is not None:
            return own if len(own[0]) else None
        return self._base.get(f, term)

    def get(self, f: int, term: str) -> tuple[Sequence[int], Sequence[int]] | None:
        found = self._posting(f, term)
        position = self._position
        if found is None or position is None:
            return found
        slots, counts = found
        at = list(map(position.__getitem__, slots))
        if all(map(int.__lt__, at, at[1:])):
            return at, counts
        order = sorted(range(len(at)), key=at.__getitem__)
        return [at[i] for i in order], [counts[i] for i in order]

    def field_terms(self, f: int) -> Sequence[str]:
        own = self._over[f]
        kept = [t for t in self._base.field_terms(f) if t not in own]
        kept.extend(t for t, (slots, _c) in own.items() if len(slots))
        return sorted(kept)

    # -- changing -------------------------------------------------------------------

    def update(self, terms: Sequence[DocTerms]) -> tuple[int, int]:
        """Hold the documents of ``terms`` (in this order): a document whose terms
        are the object held before is kept; the others are removed and the new ones
        added. Returns how many were removed and added."""
        self.moved = 0
        before = dict(zip(map(id, self._by_position), self._slot_at, strict=True))
        now = list(map(id, terms))
        distinct = set(now)
        slot_at: list[int | None]
        if len(before) == len(self._slot_at) and len(distinct) == len(now):
            slot_at = list(map(before.get, now))
            removed = [before[i] for i in before.keys() - distinct]
        else:  # one terms object twice: every document is taken out and put in again
            slot_at, removed = [None] * len(now), list(self._slot_at)
        for slot in sorted(removed):
            self._remove(slot)
        self._free.sort(reverse=True)
        added = slot_at.count(None)
        p = -1
        for _ in range(added):  # the new documents, found at C speed in one pass
            p = slot_at.index(None, p + 1)
            slot = self._free.pop() if self._free else self._new_slot()
            slot_at[p] = slot
            self._add(slot, terms[p])
        self._place(cast("list[int]", slot_at), terms)
        return len(removed), added

    def _new_slot(self) -> int:
        slot = len(self._slot_terms)
        self._slot_terms.append(None)
        for lengths in self._slot_lengths:
            lengths.append(0)
        self._slot_meta.append(0.0)
        return slot

    def _own(self, f: int, term: str) -> _Posting:
        """The arrays of ``term`` in field ``f``, copied from the first build when a
        change first touches it."""
        own = self._over[f]
        got = own.get(term)
        if got is None:
            found = self._base.get(f, term)
            got = (
                (array("I", found[0]), array("I", found[1])) if found else (array("I"), array("I"))
            )
            own[term] = got
        return got

    def _remove(self, slot: int) -> None:
        doc = self._slot_terms[slot]
        assert doc is not None
        for f, terms, _counts in doc.fields:
            self.moved += len(terms)
            for term in terms:
                slots, counts = self._own(f, term)
                i = bisect.bisect_left(slots, slot)
                del slots[i], counts[i]
                if not slots:
                    if self._base.get(f, term) is None:
                        del self._over[f][term]  # no first-build posting to hide
                    self._vocabulary_drop(term)
        for lengths in self._slot_lengths:
            lengths[slot] = 0
        self._slot_meta[slot] = 0.0
        self._slot_terms[slot] = None
        self._free.append(slot)

    def _add(self, slot: int, doc: DocTerms) -> None:
        for f, terms, counted in doc.fields:
            self.moved += len(terms)
            for term, count in zip(terms, counted, strict=True):
                slots, counts = self._own(f, term)
                i = bisect.bisect_left(slots, slot)
                slots.insert(i, slot)
                counts.insert(i, count)
                if len(slots) == 1:
                    self._vocabulary_add(term)
        for f, length in enumerate(doc.lengths):
            self._slot_lengths[f][slot] = length
        self._slot_meta[slot] = doc.meta_length
        self._slot_terms[slot] = doc

    def _vocabulary_add(self, term: str) -> None:
        vocabulary = self._vocabulary
        if vocabulary is not None:
            i = bisect.bisect_left(vocabulary, term)
            if i == len(vocabulary) or vocabulary[i] != term:
                vocabulary.insert(i, term)

    def _vocabulary_drop(self, term: str) -> None:
        vocabulary = self._vocabulary
        if vocabulary is None or any(self._posting(f, term) for f in range(len(FIELDS))):
            return
        i = bisect.bisect_left(vocabulary, term)
        if i < len(vocabulary) and vocabulary[i] == term:
            del vocabulary[i]

    def _place(self, slot_at: list[int], terms: Sequence[DocTerms]) -> None:
        """Make ``slot_at`` the documents' order (position -> slot)."""
        n = len(slot_at)
        self.n = n
        self._slot_at = slot_at
        self._by_position = list(terms)
        self._scaled = {}
        if slot_at == list(range(n)):  # slots are positions (free slots lie beyond, all 0)
            self._position = None
            self.lengths, self.meta_lengths = self._slot_lengths, self._slot_meta
            return
        self._position = dict(zip(slot_at, range(n), strict=True))
        self.lengths = [list(map(lengths.__getitem__, slot_at)) for lengths in self._slot_lengths]
        self.meta_lengths = list(map(self._slot_meta.__getitem__, slot_at))


class LiveIndex(SearchIndex):
    """A ``SearchIndex`` (builtin backend) that ``update`` brings up to a changed
    list of documents in place, at a cost in proportion to what changed; results
    are those of a fresh ``SearchIndex`` over the same list (see the module
    docstring). Safe to search from several threads while another updates it."""

    def __init__(
        self, documents: Iterable[SearchDocument], terms: Sequence[DocTerms] | None = None
    ) -> None:
        docs = tuple(documents)
        held = list(terms) if terms is not None else [doc_terms(d) for d in docs]
        if len(held) != len(docs):
            raise ValueError("one terms object per document")
        super().__init__(docs, _terms=held)
        self._live = _LiveFields(self.fielded, held)
        self.fielded = self._live
        views: tuple[_Builtin, _Builtin] = self._live.views()
        self._builtin, self._meta = views
        self._live_lock = threading.RLock()

    @property
    def moved(self) -> int:
        """The postings the last ``update`` took out and put in (its cost)."""
        return self._live.moved

    def update(
        self, documents: Sequence[SearchDocument], terms: Sequence[DocTerms]
    ) -> tuple[int, int]:
        """Hold ``documents`` (with ``terms``, one each, in the same order) from now on.

        A document whose terms are the very object given before (``is``, not ``==``)
        is kept as it is; the others are removed and the new ones added. Returns how
        many documents were removed and added."""
        if len(documents) != len(terms):
            raise ValueError("one terms object per document")
        with self._live_lock:
            changed = self._live.update(terms)
            self.documents = tuple(documents)
            views: tuple[_Builtin, _Builtin] = self._live.views()  # no weight kept
            self._builtin, self._meta = views
            # each name's first position: written last, so it wins
            lowered = list(map(str.lower, map(_NAME, self.documents)))
            self._exact = dict(zip(reversed(lowered), range(len(lowered) - 1, -1, -1), strict=True))
            return changed

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        with self._live_lock:
            return super().search(query, limit=limit)

    def evidence_units(self, info: Mapping[str, float]) -> float:
        with self._live_lock:
            return super().evidence_units(info)
