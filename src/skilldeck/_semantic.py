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
a skill no more similar than ``floor`` takes part through its lexical rank only.

A hit's confidence (what abstention, ``suggest`` and ``preflight`` go by) is its
lexical confidence, or, if it passes the ``floor`` of similarity, the confidence
of the lexical ranking's best hit if that is higher (how well the request fits
the catalog at all), so search abstains when lexical search would. How similar
two texts look depends on the model (with a small static model an off-domain
request's most similar skill is about as similar as the right skill of an
answerable one), so similarity alone never makes a hit confident unless the
host calibrates it for its model with ``similarity=(low, high)`` (or an
attribute ``similarity`` of the embedder, the way through
``SkillRuntime(embedder=...)``): then a hit's confidence is the higher of its
lexical confidence and its similarity mapped onto 0-1 (at ``low`` or under, 0;
at ``high`` or over, 1).

With ``store=(folder, key)`` (the runtime passes the folder and key of its saved
search index) and an embedder that names its model (a string attribute
``identity``, as ``static_embedder`` models have), the skill embeddings are saved
beside the search index, ``<key>.<digest of the model identity>.embeddings.npy``
(float32, written atomically, the least recently used beyond ``MAX_SAVED``
removed), so a second process embeds only the request. A file that does not
load as the expected matrix (damaged, foreign, another skill count) is ignored
and the skills are embedded again. With ``reuse`` (the runtime passes the index
it replaces when the catalog changes) the skills whose text did not change keep
their vectors, so a rescan embeds only what changed.

An embedder that raises, or answers with the wrong shape, does not break search:
the lexical ranking answers alone, the reason is logged (``skilldeck.search``,
once per distinct reason) and kept in ``SemanticIndex.error``; the next search
tries the embedder again. A non-finite vector counts as no similarity.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import logging
import math
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from skilldeck._atomic import keep_newest
from skilldeck._search import SearchDocument, SearchHit, SearchIndex

__all__ = ["Embedder", "SemanticIndex"]

#: ``fn(texts) -> vectors``: one vector (a sequence of floats) per text, in order.
Embedder = Callable[[Sequence[str]], Any]

_log = logging.getLogger("skilldeck.search")

_RRF_K = 60  # reciprocal-rank fusion constant (Cormack et al.)
_BATCH = 256
_MAX_TEXT = 2000  # characters of a request or a skill sent to the embedder
_FORMAT = 1  # of the text embedded per skill (``_doc_text``) and of the saved file
#: saved embedding files kept per folder (one per catalog state and model)
MAX_SAVED = 8
_SUFFIX = ".embeddings.npy"
_MAX_DIMENSIONS = 65_536  # of a saved embedding: more is not a model's


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
    - ``floor``: the similarity a skill must pass to take part through it.
    - ``similarity``: the cosine similarities that map to confidence 0 and 1
      (``None``: the confidence stays the lexical one).
    - ``depth``: how many candidates of each ranking take part in the fusion.
    - ``store``: ``(folder, key)`` to save the skill embeddings under (see the
      module docstring); ``None`` keeps them in memory only.
    - ``reuse``: an earlier index over the same embedder (a catalog before it
      changed): the skills whose text is unchanged take its embeddings, so a
      rescan embeds only what changed.
    """

    def __init__(
        self,
        lexical: SearchIndex,
        embedder: Embedder,
        *,
        weight: float = 0.25,
        floor: float = 0.5,
        similarity: tuple[float, float] | None = None,
        depth: int = 50,
        store: tuple[str | os.PathLike[str], str] | None = None,
        reuse: SemanticIndex | None = None,
    ) -> None:
        if similarity is None:  # the embedder may state its calibration
            similarity = getattr(embedder, "similarity", None)
        if similarity is not None:
            low, high = similarity
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise ValueError("similarity must be (low, high) with low < high")
            similarity = (float(low), float(high))
        if not math.isfinite(floor):
            raise ValueError("floor must be a finite number")
        if not (math.isfinite(weight) and weight >= 0):
            raise ValueError("weight must be a finite number >= 0")
        if depth < 1:
            raise ValueError("depth must be positive")
        # the lexical index's state, shared (not copied): its methods work unchanged
        vars(self).update(vars(lexical))
        self.lexical = lexical
        self.embedder = embedder
        self.weight = float(weight)
        self.floor = float(floor)
        self.similarity = similarity
        self.depth = depth
        self._matrix: Any = None
        self.store = (Path(store[0]), store[1]) if store is not None else None
        while reuse is not None and reuse._matrix is None:  # never searched: its own earlier
            reuse = reuse._reuse
        same = reuse is not None and _same_model(reuse.embedder, embedder)
        self._reuse: SemanticIndex | None = reuse if same else None
        self._texts: list[str] | None = None  # what each row of the matrix embeds
        #: where the skill embeddings were loaded from (``None``: embedded here)
        self.loaded_from: Path | None = None
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
        """The normalised embeddings of every skill (loaded or made on first use)."""
        with self._lock:
            if self._matrix is None:
                saved = self._saved_file()
                matrix = _load_matrix(saved, len(self.documents)) if saved else None
                if matrix is None:
                    matrix = self._embed_documents()
                    if saved is not None and len(matrix):
                        _save_matrix(saved, matrix)
                else:
                    self.loaded_from = saved
                self._matrix = matrix
                self._reuse = None  # not kept alive by the index that replaced it
            return self._matrix

    def texts(self) -> list[str]:
        """The text embedded for each skill, in the order of the documents."""
        if self._texts is None:
            self._texts = [_doc_text(d) for d in self.documents]
        return self._texts

    def _reusable(self) -> dict[str, Any]:
        """Rows of the earlier index, by the text they embed (none if not made)."""
        earlier = self._reuse
        if earlier is None or earlier._matrix is None:
            return {}
        matrix = earlier._matrix
        return dict(zip(earlier.texts(), matrix, strict=False)) if len(matrix) else {}

    def _embed_documents(self) -> Any:
        np = _numpy()
        texts = self.texts()
        known = self._reusable()
        todo = list(dict.fromkeys(t for t in texts if t not in known))
        parts = [self._embed(todo[i : i + _BATCH]) for i in range(0, len(todo), _BATCH)]
        widths = {p.shape[1] for p in parts} | {len(r) for r in itertools.islice(known.values(), 1)}
        if len(widths) > 1:
            raise ValueError("the embedder returned vectors of different sizes")
        if not texts:
            return np.zeros((0, 1), "float32")
        made = np.vstack(parts).astype("float32") if parts else None
        fresh = {t: made[i] for i, t in enumerate(todo)} if made is not None else {}
        return np.vstack([fresh[t] if t in fresh else known[t] for t in texts]).astype("float32")

    def _saved_file(self) -> Path | None:
        identity = getattr(self.embedder, "identity", None)
        if self.store is None or not isinstance(identity, str) or not identity:
            return None
        folder, key = self.store
        model = hashlib.sha256(f"{_FORMAT}\0{identity}".encode()).hexdigest()[:16]
        return folder / f"{key}.{model}{_SUFFIX}"

    def _confidence(self, sim: float) -> float:
        if self.similarity is None:
            return 0.0
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
        sims = matrix @ q.astype(matrix.dtype)
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
        floor = self.floor
        for rank, pos in enumerate(p for p in order.tolist() if sims[p] > floor):
            fused[pos] = fused.get(pos, 0.0) + self.weight / (_RRF_K + rank)
        best = sorted(fused, key=lambda p: (-fused[p], p))[:limit]
        request = lexical[0].confidence if lexical else 0.0
        hits: list[SearchHit] = []
        for rank, pos in enumerate(best, start=1):
            doc = self.documents[pos]
            lex = by_doc.get(pos)
            semantic = self._confidence(float(sims[pos]))
            if self.similarity is None and float(sims[pos]) > self.floor:
                semantic = request  # uncalibrated: abstain when lexical search would
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


def _same_model(a: Any, b: Any) -> bool:
    """Whether two embedders are one model: the same object, or the same ``identity``."""
    if a is b:
        return True
    ident = getattr(a, "identity", None)
    return isinstance(ident, str) and bool(ident) and ident == getattr(b, "identity", None)


def _load_matrix(path: Path, rows: int) -> Any:
    """The saved ``rows`` x d matrix at ``path`` (renormalised), or ``None``."""
    np = _numpy()
    try:
        # mapped, not read: a header that claims more than the file holds fails here
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
        if (
            not isinstance(mapped, np.ndarray)
            or mapped.dtype != np.float32
            or mapped.ndim != 2
            or mapped.shape[0] != rows
            or not 0 < mapped.shape[1] <= _MAX_DIMENSIONS
        ):
            return None
        matrix = np.array(mapped)
    except (OSError, ValueError, EOFError, MemoryError):
        return None
    matrix = np.where(np.isfinite(matrix), matrix, np.float32(0))
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: kept by the pruning
    return (matrix / np.where(norms > 0, norms, 1)).astype("float32")


def _save_matrix(path: Path, matrix: Any) -> None:
    """Write ``matrix`` atomically; a failure only costs embedding again next time."""
    np = _numpy()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".embeddings.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, np.ascontiguousarray(matrix, dtype="float32"), allow_pickle=False)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except (OSError, ValueError):
        return
    _prune(path.parent)


def _prune(folder: Path) -> None:
    keep_newest(folder, _SUFFIX, MAX_SAVED)
