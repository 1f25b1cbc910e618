"""An optional semantic ranking behind the search interface, on embeddings the host supplies.

skilldeck ships no model and fetches none. A host passes an embedder,
``fn(texts) -> vectors`` (one row of floats per text: a local model such as a
model2vec or fastembed folder, sentence-transformers, or an API), as
``SkillRuntime(embedder=...)`` or to ``SemanticIndex(lexical, embedder)``.

``SemanticIndex`` is a ``SearchIndex``: the same ``search(query, limit)`` and
``SearchHit`` values, so ``skills_search``, ``suggest`` and ``preflight`` use it
unchanged. It ranks by reciprocal-rank fusion of the lexical ranking (BM25F, see
``skilldeck._search``) and the cosine similarity of the request to each skill's
name and listing description (embedded once, on the first search, in batches);
a skill no more similar than ``similarity[0]`` takes part through its lexical rank
only.
A hit's confidence is the higher of its lexical confidence and its similarity
mapped onto 0-1 through ``similarity`` (``(low, high)``: at ``low`` or under,
0; at ``high`` or over, 1): what counts as similar depends on the model, so the
host sets it for the one it uses.

An embedder that raises, or answers with the wrong shape, does not break search:
the lexical ranking answers alone, the reason is logged (``skilldeck.search``,
once per distinct reason) and kept in ``SemanticIndex.error``; the next search
tries the embedder again. A non-finite vector counts as no similarity.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from skilldeck._search import SearchDocument, SearchHit, SearchIndex

__all__ = ["Embedder", "SemanticIndex"]

#: ``fn(texts) -> vectors``: one vector (a sequence of floats) per text, in order.
Embedder = Callable[[Sequence[str]], Any]

_log = logging.getLogger("skilldeck.search")

_RRF_K = 60  # reciprocal-rank fusion constant (Cormack et al.)
_BATCH = 256
_MAX_TEXT = 2000  # characters of a request or a skill sent to the embedder


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as exc:  # pragma: no cover - numpy comes with the extra
        raise ImportError("semantic search needs numpy: pip install 'skilldeck[semantic]'") from exc
    return numpy


def _doc_text(doc: SearchDocument) -> str:
    return f"{doc.name.replace('-', ' ')}: {doc.listing}"[:_MAX_TEXT]


class SemanticIndex(SearchIndex):
    """A lexical ``SearchIndex`` re-ranked with embeddings (see the module docstring).

    - ``weight``: the semantic ranking's share in the fusion (1.0: as much as
      the lexical one; 0: lexical only).
    - ``similarity``: the cosine similarities that map to confidence 0 and 1.
    - ``depth``: how many candidates of each ranking take part in the fusion.
    """

    def __init__(
        self,
        lexical: SearchIndex,
        embedder: Embedder,
        *,
        weight: float = 1.0,
        similarity: tuple[float, float] = (0.3, 0.7),
        depth: int = 50,
    ) -> None:
        low, high = similarity
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError("similarity must be (low, high) with low < high")
        if not (math.isfinite(weight) and weight >= 0):
            raise ValueError("weight must be a finite number >= 0")
        if depth < 1:
            raise ValueError("depth must be positive")
        # the lexical index's state, shared (not copied): its methods work unchanged
        vars(self).update(vars(lexical))
        self.lexical = lexical
        self.embedder = embedder
        self.weight = float(weight)
        self.similarity = (float(low), float(high))
        self.depth = depth
        self._matrix: Any = None
        #: why the last search fell back to the lexical ranking (``None``: it did not)
        self.error: str | None = None
        self._lock = threading.Lock()
        keys: dict[str, int] = {}
        for i, doc in enumerate(self.documents):
            keys.setdefault(doc.key or doc.name, i)
        self._positions = keys

    def _embed(self, texts: Sequence[str]) -> Any:
        np = _numpy()
        try:
            raw = self.embedder(list(texts))
            rows = np.asarray(raw, dtype="float64")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the embedder's answer is not a list of vectors: {exc}") from None
        if rows.ndim != 2 or rows.shape[0] != len(texts) or rows.shape[1] == 0:
            raise ValueError(
                f"the embedder returned shape {tuple(rows.shape)} for {len(texts)} texts; "
                f"expected ({len(texts)}, dimensions)"
            )
        rows = np.where(np.isfinite(rows), rows, 0.0)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms > 0, norms, 1.0)

    def matrix(self) -> Any:
        """The normalised embeddings of every skill (made on first use)."""
        with self._lock:
            if self._matrix is None:
                np = _numpy()
                texts = [_doc_text(d) for d in self.documents]
                parts = [self._embed(texts[i : i + _BATCH]) for i in range(0, len(texts), _BATCH)]
                matrix = np.vstack(parts) if parts else np.zeros((0, 1))
                if parts and len({p.shape[1] for p in parts}) != 1:
                    raise ValueError("the embedder returned vectors of different sizes")
                self._matrix = matrix
            return self._matrix

    def _confidence(self, sim: float) -> float:
        low, high = self.similarity
        return min(1.0, max(0.0, (sim - low) / (high - low)))

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        if limit <= 0 or not self.documents or not query.strip():
            return []
        lexical = self.lexical.search(query, limit=max(limit, self.depth))
        if self.weight == 0:
            return lexical[:limit]
        try:
            hits = self._fused(query, lexical, limit)
        except Exception as exc:  # the host's model: any failure leaves lexical search
            reason = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            if reason != self.error:
                _log.warning("semantic search fell back to lexical: %s", reason)
            self.error = reason
            return lexical[:limit]
        self.error = None
        return hits

    def _fused(self, query: str, lexical: list[SearchHit], limit: int) -> list[SearchHit]:
        np = _numpy()
        matrix = self.matrix()
        q = self._embed([query[:_MAX_TEXT]])[0]
        if q.shape[0] != matrix.shape[1]:
            raise ValueError(
                f"the embedder returned {q.shape[0]} dimensions for the request and "
                f"{matrix.shape[1]} for the skills"
            )
        sims = matrix @ q
        depth = min(self.depth, len(sims))
        order = np.argpartition(-sims, depth - 1)[:depth]
        order = order[np.argsort(-sims[order], kind="stable")]
        fused: dict[int, float] = {}
        by_doc: dict[int, SearchHit] = {}
        for rank, hit in enumerate(lexical):
            pos = self._positions.get(hit.key or hit.name)
            if pos is not None:
                fused[pos] = 1.0 / (_RRF_K + rank)
                by_doc[pos] = hit
        low = self.similarity[0]
        for rank, pos in enumerate(p for p in order.tolist() if sims[p] > low):
            fused[pos] = fused.get(pos, 0.0) + self.weight / (_RRF_K + rank)
        best = sorted(fused, key=lambda p: (-fused[p], p))[:limit]
        hits: list[SearchHit] = []
        for rank, pos in enumerate(best, start=1):
            doc = self.documents[pos]
            lex = by_doc.get(pos)
            semantic = self._confidence(float(sims[pos]))
            hits.append(
                SearchHit(
                    name=doc.name,
                    score=round(fused[pos] * _RRF_K, 6),
                    description=doc.listing,
                    key=doc.key or doc.name,
                    source=doc.source,
                    rank=rank,
                    confidence=round(max(semantic, lex.confidence if lex else 0.0), 4),
                    matched=lex.matched if lex else (),
                )
            )
        return hits
