"""Ranked search over a skill catalog: names, descriptions, tags and headings.

The ranking is BM25 over one weighted bag of words per skill (a skill's name
counts three times, its tags twice, description and headings once — a cheap
BM25F). Text is lower-cased, split on anything that is not a letter or digit
(``pdf-tools`` gives ``pdf``, ``tools`` and ``pdf-tools``), English stop words
are dropped and a light suffix stemmer folds plurals and ``-ing``/``-ed``
forms. A query word absent from the index falls back to the indexed words it
is a prefix of (``spread`` finds ``spreadsheet``), at half weight.

Two backends compute the same ranking:

- ``builtin`` (the default): a pure-Python inverted index with per-posting
  BM25 weights computed at indexing time, so a query only adds floats.
- ``bm25s``: the ``bm25s`` library (extra ``skilldeck[search]``), fed the same
  tokens. ``bench/search.py`` measures both; the builtin one was kept as the
  default because it answers as well and faster on typical skill catalogs
  (figures in ``docs/runtime.md``). ``backend="auto"`` picks ``builtin``;
  ``backend="bm25s"`` raises ``ImportError`` with the install hint when the
  extra is missing.
"""

from __future__ import annotations

import bisect
import heapq
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["SearchDocument", "SearchHit", "SearchIndex", "extract_headings", "tokenize"]

Backend = Literal["auto", "builtin", "bm25s"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_FENCE = re.compile(r"^\s{0,3}(```|~~~).*?^\s{0,3}\1", re.MULTILINE | re.DOTALL)

_STOP = frozenset(
    """a an and are as at be been but by can do does for from has have how i if in into is it
    its me my no not of on or our should so than that the their them then there these they
    this to use used uses using was we what when where which while who will with you your
    skill skills""".split()
)

NAME_WEIGHT = 3
TAG_WEIGHT = 2
TEXT_WEIGHT = 1
_K1 = 1.2
_B = 0.75
_PREFIX_MIN = 3
_PREFIX_WEIGHT = 0.5
_PREFIX_MAX_EXPANSIONS = 20


def _stem(word: str) -> str:
    """A deliberately small suffix stripper: plurals first, then -ing / -ed.

    ``strings``, ``string``; ``embedded``, ``embedding``, ``embed``; ``tests``,
    ``testing``, ``test`` each fold to one form.
    """
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix, keep in (("ing", 3), ("ed", 4)):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            word = word[: -len(suffix)]
            if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
                word = word[:-1]  # running -> run, embedded -> embed
            break
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case, split, drop stop words, stem; hyphenated words also kept whole."""
    out: list[str] = []
    lowered = text.lower()
    for chunk in lowered.split():
        words = _WORD.findall(chunk)
        for w in words:
            if w not in _STOP:
                out.append(_stem(w))
        if len(words) > 1:
            joined = "-".join(words)
            if len(joined) <= 64:
                out.append(joined)
    return out


def extract_headings(body: str, *, limit: int = 40) -> tuple[str, ...]:
    """The Markdown ATX headings of a body (outside code fences), first ``limit``."""
    text = _FENCE.sub("", body)
    return tuple(m.group(1) for m in _HEADING.finditer(text))[:limit]


@dataclass(frozen=True, slots=True)
class SearchDocument:
    """What is indexed for one skill. ``key`` is what a hit returns (e.g. ``SOURCE:NAME``)."""

    name: str
    description: str = ""
    tags: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    key: str = ""
    source: str | None = None

    def tokens(self) -> list[str]:
        toks: list[str] = []
        name_toks = tokenize(self.name.replace("_", "-"))
        if self.name.lower() not in name_toks:
            name_toks.append(self.name.lower())
        toks.extend(name_toks * NAME_WEIGHT)
        for tag in self.tags:
            toks.extend(tokenize(tag) * TAG_WEIGHT)
        toks.extend(tokenize(self.description))
        for heading in self.headings:
            toks.extend(tokenize(heading))
        return toks


@dataclass(frozen=True, slots=True)
class SearchHit:
    name: str
    score: float
    description: str = ""
    key: str = ""
    source: str | None = None
    rank: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "score": round(self.score, 4),
        }
        if self.key and self.key != self.name:
            out["key"] = self.key
        if self.source:
            out["source"] = self.source
        return out


@dataclass(slots=True)
class _Builtin:
    postings: dict[str, dict[int, float]] = field(default_factory=dict)
    vocab: list[str] = field(default_factory=list)

    @classmethod
    def build(cls, corpus: Sequence[list[str]]) -> _Builtin:
        n = len(corpus)
        lengths = [len(toks) for toks in corpus]
        avgdl = (sum(lengths) / n) if n else 1.0
        counts = [Counter(toks) for toks in corpus]
        df: Counter[str] = Counter()
        for c in counts:
            df.update(c.keys())
        idf = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        postings: dict[str, dict[int, float]] = {}
        for doc, c in enumerate(counts):
            norm = _K1 * (1.0 - _B + _B * lengths[doc] / avgdl)
            for term, tf in c.items():
                weight = idf[term] * tf * (_K1 + 1.0) / (tf + norm)
                postings.setdefault(term, {})[doc] = weight
        return cls(postings, sorted(postings))

    def expand(self, term: str) -> list[str]:
        i = bisect.bisect_left(self.vocab, term)
        out: list[str] = []
        while i < len(self.vocab) and self.vocab[i].startswith(term):
            out.append(self.vocab[i])
            i += 1
            if len(out) >= _PREFIX_MAX_EXPANSIONS:
                break
        return out

    def scores(self, weighted_terms: Iterable[tuple[str, float]]) -> dict[int, float]:
        lists = [(self.postings[t], qw) for t, qw in weighted_terms if t in self.postings]
        if not lists:
            return {}
        # start from the longest posting list, copied at C speed; add the others
        lists.sort(key=lambda pw: len(pw[0]), reverse=True)
        first, qw0 = lists[0]
        acc = dict(first) if qw0 == 1.0 else {d: qw0 * w for d, w in first.items()}
        get = acc.get
        for post, qw in lists[1:]:
            if qw == 1.0:
                for doc, w in post.items():
                    acc[doc] = get(doc, 0.0) + w
            else:
                for doc, w in post.items():
                    acc[doc] = get(doc, 0.0) + qw * w
        return acc


class SearchIndex:
    """A BM25 index over skills; build once, query many times (thread-safe to read)."""

    def __init__(self, documents: Iterable[SearchDocument], *, backend: Backend = "auto") -> None:
        self.documents: tuple[SearchDocument, ...] = tuple(documents)
        corpus = [doc.tokens() for doc in self.documents]
        self._builtin = _Builtin.build(corpus)
        self._bm25s: Any = None
        self.backend: str = "builtin"
        if backend == "bm25s":
            self._bm25s = _build_bm25s(corpus)
            self.backend = "bm25s"
        self._exact = {doc.name.lower(): i for i, doc in enumerate(self.documents)}

    def __len__(self) -> int:
        return len(self.documents)

    def _query_terms(self, query: str) -> list[tuple[str, float]]:
        terms: dict[str, float] = {}
        for tok in tokenize(query):
            if tok in self._builtin.postings:
                terms[tok] = max(terms.get(tok, 0.0), 1.0)
            elif len(tok) >= _PREFIX_MIN:
                for exp in self._builtin.expand(tok):
                    terms[exp] = max(terms.get(exp, 0.0), _PREFIX_WEIGHT)
        return list(terms.items())

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """The best ``limit`` skills for ``query``, best first; ties keep catalog order."""
        if limit <= 0 or not self.documents:
            return []
        terms = self._query_terms(query)
        if not terms:
            return []
        if self._bm25s is not None:
            scores = _bm25s_scores(self._bm25s, terms, len(self.documents))
        else:
            scores = self._builtin.scores(terms)
        exact = self._exact.get(query.strip().lower())
        if exact is not None:
            # naming a skill exactly should always find it first
            top = max(scores.values(), default=0.0)
            scores[exact] = top + 1.0
        best = heapq.nlargest(limit, scores, key=scores.__getitem__)
        hits: list[SearchHit] = []
        for rank, doc_id in enumerate(best, start=1):
            score = scores[doc_id]
            if score <= 0.0:
                break
            doc = self.documents[doc_id]
            hits.append(
                SearchHit(
                    name=doc.name,
                    score=score,
                    description=doc.description,
                    key=doc.key or doc.name,
                    source=doc.source,
                    rank=rank,
                )
            )
        return hits


def _build_bm25s(corpus: Sequence[list[str]]) -> Any:
    try:
        import bm25s
    except ImportError as exc:
        raise ImportError(
            "the bm25s search backend needs the extra: pip install 'skilldeck[search]'"
        ) from exc
    retriever = bm25s.BM25(k1=_K1, b=_B, method="lucene")
    retriever.index([list(toks) or [""] for toks in corpus], show_progress=False)
    return retriever


def _bm25s_scores(retriever: Any, terms: list[tuple[str, float]], n: int) -> dict[int, float]:
    import numpy as np

    total = np.zeros(n, dtype="float32")
    vocab = retriever.vocab_dict
    for term, weight in terms:
        if term in vocab:
            total += weight * retriever.get_scores([term])
    k = min(n, 200)
    idx = np.argpartition(-total, k - 1)[:k]
    return {int(i): float(total[i]) for i in idx if total[i] > 0}
