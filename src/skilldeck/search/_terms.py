"""The terms of each skill counted per field, and the index that weighs them when a
query asks.

Building used to tokenize every field of every skill into lists of words and add
weights word by word; for 10,000 skills that was most of the first search. Here a
skill becomes a ``DocTerms`` (per field, each term once with its count), counted in
C where it can be: a body is split on whitespace, each distinct piece is mapped
through a cache to the terms ``tokenize`` makes of it, and ``Counter`` counts them.
``FieldIndex`` keeps, per field, the documents and counts of each term (one
array per term when just built, flat arrays when loaded); the BM25F weights
(``_bm25``'s formulas, unchanged) are computed for a term when a query first uses
it, so building costs an append per posting and a saved index (``search._store``)
is the same postings written flat and mapped.
"""

from __future__ import annotations

import bisect
import math
import operator
from array import array
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, chain, pairwise, repeat
from typing import Any

from skilldeck.search._bm25 import (
    _B,
    _FIELD_B,
    _K1,
    FIELD_WEIGHTS,
    META_FIELDS,
    SearchDocument,
    _Builtin,
    affirmative,
    piece_terms,
    tokenize,
)

__all__ = ["FIELDS", "DocTerms", "FieldIndex", "doc_terms", "word_counts"]

#: The fields in the order ``SearchDocument.fields`` lists them (weights add up in it).
FIELDS = ("name", "tags", "description", "when_to_use", "headings", "usage", "body")
_META = tuple(i for i, f in enumerate(FIELDS) if f in META_FIELDS)
_WEIGHTS = tuple(FIELD_WEIGHTS[f] for f in FIELDS)
#: the evidence fields whose weight is not a multiple of 0.5 (not exact in binary)
_INEXACT = tuple(f for f in _META if not (2 * _WEIGHTS[f]).is_integer())

_ABSENT_MAX = 100_000  # query terms no document has, remembered (then forgotten)


def word_counts(words: Iterable[str], memory: Any = None) -> tuple[Counter[str], int]:
    """The terms ``tokenize(" ".join(words))`` makes, counted, and how many it makes.

    ``tokenize`` never joins across whitespace, so each distinct piece is analysed
    once (and remembered, in ``memory`` when given: ``pieces_memory()``); the pieces
    are looked up and their terms counted in C."""
    counts = Counter(chain.from_iterable(piece_terms(words, memory)))
    return counts, sum(counts.values())


@dataclass(frozen=True, slots=True)
class DocTerms:
    """One skill's terms: per non-empty field (its position in ``FIELDS``) the terms
    and their counts, each field's length in terms, and the length of its evidence
    document (name, tags, ``when_to_use``, description, headings: plain weights)."""

    fields: tuple[tuple[int, tuple[str, ...], array[int]], ...]
    lengths: tuple[int, ...]
    meta_length: float


def doc_terms(
    doc: SearchDocument,
    *,
    body: Sequence[str] | None = None,
    usage: Sequence[str] | None = None,
    memory: Any = None,
) -> DocTerms:
    """``doc`` counted per field, as ``doc.fields()`` tokenizes it; ``body`` and
    ``usage``, when given, are the words of those fields (not joined into text),
    whose pieces are remembered in ``memory`` when given (``word_counts``)."""
    name = tokenize(doc.name.replace("_", "-"))
    if doc.name.lower() not in name:
        name.append(doc.name.lower())
    lengths = [0] * len(FIELDS)
    fields: list[tuple[int, tuple[str, ...], array[int]]] = []

    def add(f: int, counted: Mapping[str, int], total: int) -> None:
        if total:
            lengths[f] = total
            fields.append((f, tuple(counted), array("I", counted.values())))

    if doc.when_to_use:
        # an evidence weight that is not a multiple of 0.5: the evidence length is
        # added up term by term, as ``weighted`` does, so the terms' order matters
        small = [
            (0, name),
            (1, _each(doc.tags)),
            (2, tokenize(affirmative(doc.description))),
            (3, tokenize(affirmative(doc.when_to_use))),
            (4, _each(doc.headings)),
        ]
        own: dict[str, float] = {}
        for f, toks in small:
            add(f, Counter(toks), len(toks))
            weight = _WEIGHTS[f]
            for t in toks:
                own[t] = own.get(t, 0.0) + weight
        meta_length = sum(own.values())
    else:  # weights in halves: the sum is exact in any order, counted as the body is
        add(0, Counter(name), len(name))
        for f, text in (
            (1, "\n".join(doc.tags)),
            (2, affirmative(doc.description)),
            (4, "\n".join(doc.headings)),
        ):
            add(f, *word_counts(text.split(), memory))
        meta_length = float(sum(_WEIGHTS[f] * lengths[f] for f in _META))
    for f, words, text in ((5, usage, doc.usage), (6, body, doc.body)):
        if words is None:
            words = text.split() if text else ()
        if words:
            add(f, *word_counts(words, memory))
    return DocTerms(tuple(fields), tuple(lengths), meta_length)


def _each(texts: Sequence[str]) -> list[str]:
    """The terms of each text in turn (tags, headings): tokenized as one text when
    none has a compound (each text's compounds come after its own words)."""
    joined = "\n".join(texts)
    if "-" in joined or "_" in joined:
        return [t for text in texts for t in tokenize(text)]
    return tokenize(joined)


class FieldIndex:
    """Per field, each term's documents and counts in flat arrays (terms sorted,
    found by bisection); ``lengths[f][d]`` is document ``d``'s length in field ``f``
    and ``meta_lengths[d]`` its evidence length."""

    def __init__(
        self,
        n: int,
        lengths: Sequence[Sequence[int]],
        meta_lengths: Sequence[float],
        fields: Sequence[tuple[Sequence[str], Sequence[int], Sequence[int], Sequence[int]]],
    ) -> None:
        self.n = n
        self.lengths = lengths
        self.meta_lengths = meta_lengths
        #: per field: sorted terms, offsets (one more than terms), documents, counts
        self.fields = fields
        self._scaled: dict[int, float] = {}  # per field: its average length (``scaled``)
        self._vocabulary: list[str] | None = None

    @classmethod
    def build(cls, docs: Sequence[DocTerms]) -> FieldIndex:
        n = len(docs)
        # per field, each term's documents and counts interleaved in one array
        posted: list[defaultdict[str, array[int]]] = [
            defaultdict(partial(array, "I")) for _ in FIELDS
        ]
        lengths = [array("I", bytes(4 * n)) for _ in FIELDS]
        meta_lengths = array("d", bytes(8 * n))
        append = array.append
        for d, doc in enumerate(docs):
            for f, terms, counts in doc.fields:  # two appends per posting, in C
                arrays = list(map(posted[f].__getitem__, terms))
                deque(map(append, arrays, repeat(d)), maxlen=0)
                deque(map(append, arrays, counts), maxlen=0)
            for f, length in enumerate(doc.lengths):
                if length:
                    lengths[f][d] = length
            meta_lengths[d] = doc.meta_length
        return _Built(n, lengths, meta_lengths, [dict(p) for p in posted])

    def arrays(self, f: int) -> tuple[Sequence[str], int, Iterator[Any]]:
        """Field ``f`` as ``save_index`` writes it: its sorted terms, how many
        postings it has, and its offsets, documents and counts as buffers, in
        this order."""
        terms, offsets, docs, counts = self.fields[f]
        return terms, len(docs), iter((offsets, docs, counts))

    def get(self, f: int, term: str) -> tuple[Sequence[int], Sequence[int]] | None:
        """The documents and counts of ``term`` in field ``f``."""
        terms, offsets, docs, counts = self.fields[f]
        i = bisect.bisect_left(terms, term)
        if i >= len(terms) or terms[i] != term:
            return None
        start, end = offsets[i], offsets[i + 1]
        if not start <= end <= len(docs):  # a damaged file lists nothing
            return None
        return docs[start:end], counts[start:end]

    def field_terms(self, f: int) -> Sequence[str]:
        """The terms of field ``f``, sorted."""
        return self.fields[f][0]

    def vocabulary(self) -> list[str]:
        """Every term of every field, sorted (made when first asked for)."""
        if self._vocabulary is None:
            seen: set[str] = set()
            for f in range(len(FIELDS)):
                seen.update(self.field_terms(f))
            self._vocabulary = sorted(seen)
        return self._vocabulary

    def scaled(self, f: int, docs: Iterable[int]) -> dict[int, float]:
        """The weight of one term of field ``f`` in each of ``docs`` (those below
        ``n``): the field's weight over its length normalisation (``1 - b + b *
        length / average length``), for these documents only (a query weighs a few
        terms: not every document's)."""
        average = self._scaled.get(f)
        lengths = self.lengths[f]
        if average is None:
            average = self._scaled[f] = (sum(lengths) / max(self.n, 1)) or 1.0
        weight, n = _WEIGHTS[f], self.n
        return {
            d: weight / (1.0 - _FIELD_B + _FIELD_B * lengths[d] / average) for d in docs if d < n
        }

    def views(self) -> tuple[_Builtin, _Builtin]:
        """The index (every field, BM25F) and the evidence index (``META_FIELDS``)."""
        full = _Weights(self, tuple(range(len(FIELDS))), meta=False)
        meta = _Weights(self, _META, meta=True)
        return (
            _Builtin(full, _Vocabulary(self), _Idf(full), self.n),
            _Builtin(meta, (), _Idf(meta), self.n),
        )


class _Built(FieldIndex):
    """A ``FieldIndex`` just built: each term's documents and counts stay in the
    array the build appended them to, interleaved, instead of being copied into
    flat arrays (which held every posting twice at the build's peak);
    ``save_index`` writes them flat a piece at a time, as a loaded index has them."""

    def __init__(
        self,
        n: int,
        lengths: Sequence[Sequence[int]],
        meta_lengths: Sequence[float],
        posted: list[dict[str, array[int]]],
    ) -> None:
        super().__init__(n, lengths, meta_lengths, ())
        self._posted = posted
        self._sorted: dict[int, list[str]] = {}

    def get(self, f: int, term: str) -> tuple[Sequence[int], Sequence[int]] | None:
        pairs = self._posted[f].get(term)
        if pairs is None:
            return None
        return pairs[0::2], pairs[1::2]

    def field_terms(self, f: int) -> Sequence[str]:
        got = self._sorted.get(f)
        if got is None:
            got = self._sorted[f] = sorted(self._posted[f])
        return got

    def arrays(self, f: int) -> tuple[Sequence[str], int, Iterator[Any]]:
        terms = self.field_terms(f)
        posted = self._posted[f]
        size = sum(map(len, posted.values())) // 2
        return terms, size, self._flat(terms, posted)

    @staticmethod
    def _flat(terms: Sequence[str], posted: dict[str, array[int]]) -> Iterator[array[int]]:
        """The offsets, then the documents, then the counts, a piece of terms at a
        time: each piece's arrays joined as bytes and split by a step (no Python-level
        loop over the terms)."""
        pairs = list(map(posted.__getitem__, terms))
        ends = array("Q", accumulate(map(len, pairs)))  # items so far, two per posting
        offsets = array("I", [0])
        offsets.extend(map(operator.rshift, ends, repeat(1)))
        yield offsets
        bounds = [0]  # pieces of terms with at least _PIECE postings (but the last)
        while bounds[-1] < len(pairs):
            before = ends[bounds[-1] - 1] if bounds[-1] else 0
            bounds.append(min(len(pairs), bisect.bisect_left(ends, before + 2 * _PIECE) + 1))
        for start in (0, 1):  # documents, then counts
            for first, last in pairwise(bounds):
                piece = array("I")
                piece.frombytes(b"".join(pairs[first:last]))
                yield piece[start::2]


_PIECE = 1 << 16  # postings written at a time


class _Weights(Mapping[str, dict[int, float]]):
    """The BM25 weight of each document for a term, computed when first asked for."""

    def __init__(self, index: FieldIndex, fields: tuple[int, ...], *, meta: bool) -> None:
        self._index = index
        self._fields = fields
        self._meta = meta
        self._made: dict[str, dict[int, float]] = {}
        self._absent: set[str] = set()  # terms asked for that no document has
        self._df: dict[str, int] = {}
        self._norms: list[float] | None = None

    def _raw(self, term: str) -> list[tuple[int, Sequence[int], Sequence[int]]]:
        out = []
        for f in self._fields:
            found = self._index.get(f, term)
            if found is not None and len(found[0]):
                out.append((f, found[0], found[1]))
        return out

    def df(self, term: str) -> int:
        """How many documents have ``term`` in one of the fields (0: none)."""
        got = self._df.get(term)
        if got is None:
            raw = self._raw(term)
            if len(raw) == 1:
                got = len(raw[0][1])
            else:
                got = len({d for _f, docs, _c in raw for d in docs})
            self._df[term] = got
        return got

    def idf(self, term: str) -> float:
        n, df = self._index.n, self.df(term)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def _norm(self) -> list[float]:
        if self._norms is None:
            if self._meta:  # the evidence index: normalised by each document's length
                lengths = self._index.meta_lengths
                n = self._index.n
                avgdl = (sum(lengths) / n) if n else 1.0
                self._norms = [
                    _K1 * (1.0 - _B + _B * length / (avgdl or 1.0)) for length in lengths
                ]
            else:  # the index: the fields are normalised already (b = 0)
                self._norms = [_K1 * (1.0 - 0.0 + 0.0)] * self._index.n
        return self._norms

    def __getitem__(self, term: str) -> dict[int, float]:
        got = self._made.get(term)
        if got is not None:
            return got
        raw = self._raw(term) if term not in self._absent else []
        if not raw:
            if len(self._absent) >= _ABSENT_MAX:  # clients choose these words: stay bounded
                self._absent.clear()
            self._absent.add(term)
            raise KeyError(term)
        n = self._index.n
        tf: dict[int, float] = {}
        for f, docs, counts in raw:
            weight = _WEIGHTS[f]
            scaled = None if self._meta else self._index.scaled(f, docs)
            for d, c in zip(docs, counts, strict=True):
                if d >= n:
                    continue  # a damaged file
                add = c * weight if scaled is None else c * scaled[d]
                tf[d] = tf.get(d, 0.0) + add
        if len(raw) > 1:
            tf = dict(sorted(tf.items()))  # catalog order: ties keep it
        idf = self.idf(term)
        norms = self._norm()
        got = {d: idf * t * (_K1 + 1.0) / (t + norms[d]) for d, t in tf.items()}
        self._made[term] = got
        return got

    def __contains__(self, term: object) -> bool:
        if not isinstance(term, str):
            return False
        if term in self._made:
            return True
        if term in self._absent:
            return False
        try:
            self[term]  # weighed now: a term asked about is about to be used
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        seen: set[str] = set()
        for f in self._fields:
            seen.update(self._index.field_terms(f))
        return iter(sorted(seen))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Idf(Mapping[str, float]):
    def __init__(self, weights: _Weights) -> None:
        self._weights = weights

    def __getitem__(self, term: str) -> float:
        if term not in self._weights:
            raise KeyError(term)
        return self._weights.idf(term)

    def __contains__(self, term: object) -> bool:
        return term in self._weights

    def __iter__(self) -> Iterator[str]:
        return iter(self._weights)

    def __len__(self) -> int:
        return len(self._weights)


class _Vocabulary(Sequence[str]):
    """Every term of the index, sorted (made when a prefix is first looked up)."""

    def __init__(self, index: FieldIndex) -> None:
        self._index = index

    def _all(self) -> list[str]:
        return self._index.vocabulary()

    def __getitem__(self, i: Any) -> Any:
        return self._all()[i]

    def __len__(self) -> int:
        return len(self._all())
