"""An optional semantic ranking behind the search interface, on embeddings a model supplies.

skilldeck ships no model and fetches none. A host passes an embedder,
``fn(texts) -> vectors`` (one row of floats per text: a sentence model loaded
with ``skilldeck.search.load_embedder``, a model2vec folder, fastembed, an API),
as ``SkillRuntime(embedder=...)`` or to ``SemanticIndex(lexical, embedder)``. An
embedder with a string attribute ``query_prefix`` (a retrieval model's
instruction) has it put before each request, never before a skill's text.

``SemanticIndex`` is a ``SearchIndex``: the same ``search(query, limit)`` and
``SearchHit`` values, so ``skills_search``, ``suggest`` and ``preflight`` use it
unchanged. It ranks by a weighted sum of two normalised scores: the lexical one
(BM25F, see ``skilldeck.search._bm25``) as a share of the best lexical score, times
the lexical confidence of the request (what lexical search is unsure of counts
less), and the cosine similarity of the request to each skill's name, listing
description and usage sections as a share of the best cosine. The semantic score
counts ``weight`` (0.55) and the lexical one the rest; the candidates are the
first ``depth`` (100) of each ranking, a skill no more similar than ``floor`` 0
counting through its lexical score only; a request that names a skill exactly
keeps it first.

Confidence (what abstention, ``suggest`` and ``preflight`` go by) is one number
per request, given to the first hit; the hits after it never have more. Without
a fitted abstention it is the lexical ranking's (its first hit's confidence), so
search abstains exactly where lexical search abstains. With one (``abstention=
(intercept, lexical, cosine[, first])``, or an attribute ``abstention`` of the
embedder: ``load_embedder`` sets it for the models it knows), it is a logistic
model of the logit of the lexical confidence and the best cosine similarity of
the request to any skill (and, with a fourth coefficient, its cosine similarity
to lexical search's first hit), fitted for that model on labelled requests, so a
request lexical search abstains on is answered only when the model is confident,
and the other way round.

With ``store=(folder, key)`` (the runtime passes the folder and key of its saved
search index) and an embedder that names its model (a string attribute
``identity``), the skill embeddings are saved beside the search index,
``<key>.<digest of the model identity>.embeddings.npz`` (each row with the
digest of the text it embeds; float32, written atomically, the least recently
used beyond ``MAX_SAVED`` removed), so a second process embeds only the
request, and a process over a changed catalog embeds only the skills whose text
is in none of the saved files of that model. A file that does not load as the
expected arrays is ignored. With ``reuse`` (the runtime passes the index it
replaces when the catalog changes) the skills whose text did not change keep
their vectors in memory too. ``prepare(progress=)`` makes the vectors now and
reports progress; without a callback, embedding that takes more than a second
shows its progress on a terminal (standard error). With ``background`` the
vectors are made in a thread and searches answer lexically until they are ready.

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
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from skilldeck._atomic import cache_folder, keep_newest, open_cache, replacing
from skilldeck.search._bm25 import SearchDocument, SearchHit, SearchIndex

__all__ = ["Embedder", "SemanticIndex"]

#: ``fn(texts) -> vectors``: one vector (a sequence of floats) per text, in order.
Embedder = Callable[[Sequence[str]], Any]

_log = logging.getLogger("skilldeck.search")

# the fusion's parameters, chosen on the tuning sets (bench/data/routing.jsonl and
# routing_tuning2.jsonl) with all-MiniLM-L6-v2 (fp32 and int8) by cross-validation:
# docs/routing.md, "Semantic backend"
FUSION_WEIGHT = 0.55  # the semantic score's share (the lexical one has the rest)
FUSION_DEPTH = 100  # candidates of each ranking in the fusion
_BATCH = 256
_MAX_TEXT = 2000  # characters of a request or a skill sent to the embedder
_FORMAT = 4  # of the text embedded per skill (``_doc_text``), its run, and the saved file
#: saved embedding files kept per folder (one per catalog state and model)
MAX_SAVED = 8
_SUFFIX = ".embeddings.npz"
_MAX_DIMENSIONS = 65_536  # of a saved embedding: more is not a model's
_PROGRESS_AFTER = 1.0  # seconds of embedding before progress shows on a terminal
_DIGEST = 16  # bytes of the digest of each embedded text, saved with its row
_LOGIT_CLIP = 9.0  # of the lexical confidence's logit (1.0 for a named skill)


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as exc:  # pragma: no cover - numpy comes with the extra
        from skilldeck._extras import install_hint

        raise ImportError(f"semantic search needs numpy: {install_hint('semantic')}") from exc
    return numpy


def _doc_text(doc: SearchDocument) -> str:
    """What the model embeds for one skill: its name, listing description and the
    usage sections of its body (when to use it, often in the user's words)."""
    text = f"{doc.name.replace('-', ' ')}: {doc.listing}"
    if doc.usage:
        text = f"{text} {doc.usage}"
    return text[:_MAX_TEXT]


def _text_digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=_DIGEST).digest()


def lexical_logit(confidence: float) -> float:
    """The first feature of the abstention: the logit of the lexical
    confidence, within +-9 (a named skill's 1.0 is not infinitely sure)."""
    p = min(max(confidence, 1e-6), 1 - 1e-6)
    return max(-_LOGIT_CLIP, min(_LOGIT_CLIP, math.log(p / (1 - p))))


#: ``(intercept, lexical, cosine[, first])``: the coefficients of the abstention model
Abstention = tuple[float, ...]


def fused_confidence(
    abstention: Abstention, lexical: float, cosine: float, first: float = 0.0
) -> float:
    """The request's confidence from the lexical confidence, the best cosine
    similarity of the request to any skill and the cosine similarity of the
    request to lexical search's first hit (0 without one: whether the model agrees
    with it), by the logistic model ``abstention``: ``(intercept, lexical,
    cosine)`` or ``(intercept, lexical, cosine, first)``."""
    intercept, a, b = abstention[:3]
    c = abstention[3] if len(abstention) > 3 else 0.0
    z = intercept + a * lexical_logit(lexical) + b * cosine + c * first
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def _abstention(value: Any) -> Abstention | None:
    if value is None:
        return None
    values = tuple(float(v) for v in value)
    if len(values) not in (3, 4) or not all(math.isfinite(v) for v in values):
        raise ValueError("abstention must be (intercept, lexical, cosine[, first]), finite")
    return values


class SemanticIndex(SearchIndex):
    """A lexical ``SearchIndex`` fused with an embedding ranking (see the module docstring).

    - ``weight``: the semantic score's share in the fusion, 0 to 1 (0: lexical
      only; 1: the lexical ranking only adds candidates).
    - ``depth``: how many candidates of each ranking take part.
    - ``floor``: the similarity a skill must pass to take part through it (0:
      a skill no more similar than an unrelated text counts through its lexical
      rank only; ``None``: every skill among the first ``depth``).
    - ``abstention``: ``(intercept, lexical, cosine[, first])`` of the model of
      the request's confidence (``None``: the embedder's ``abstention``
      attribute, else the lexical confidence alone).
    - ``store``: ``(folder, key)`` to save the skill embeddings under (see the
      module docstring); ``None`` keeps them in memory only. The key must change
      whenever the text of a skill does (the runtime's index key covers every
      SKILL.md): a file saved under it is used without reading the skills again.
    - ``reuse``: an earlier index over the same embedder (a catalog before it
      changed): the skills whose text is unchanged take its embeddings.
    - ``documents``: the index's documents with their body fields (the usage
      sections are embedded too), made when the skills are embedded; ``None``:
      the index's own documents.
    - ``background``: embed the skills in a thread, started by the first search
      (or ``prepare(background=True)``), and answer lexically until they are ready.
    """

    def __init__(
        self,
        lexical: SearchIndex,
        embedder: Embedder,
        *,
        weight: float = FUSION_WEIGHT,
        depth: int = FUSION_DEPTH,
        floor: float | None = 0.0,
        abstention: Sequence[float] | None = None,
        store: tuple[str | os.PathLike[str], str] | None = None,
        reuse: SemanticIndex | None = None,
        documents: Callable[[], Sequence[SearchDocument]] | None = None,
        background: bool = False,
    ) -> None:
        if abstention is None:  # the embedder may carry its fitted model
            abstention = getattr(embedder, "abstention", None)
        fitted = _abstention(abstention)
        if floor is not None and not math.isfinite(floor):
            raise ValueError("floor must be a finite number")
        if not (math.isfinite(weight) and 0 <= weight <= 1):
            raise ValueError("weight must be a number from 0 to 1")
        if depth < 1:
            raise ValueError("depth must be positive")
        # the lexical index's state, shared (not copied): its methods work unchanged
        vars(self).update(vars(lexical))
        self.lexical = lexical
        self.embedder = embedder
        self.weight = float(weight)
        self.depth = int(depth)
        self.floor = None if floor is None else float(floor)
        self.abstention = fitted
        self.background = background
        self._full_documents = documents
        self._matrix: Any = None
        self.store = (Path(store[0]), store[1]) if store is not None else None
        while reuse is not None and reuse._matrix is None:  # never searched: its own earlier
            reuse = reuse._reuse
        same = reuse is not None and _same_model(reuse.embedder, embedder)
        self._reuse: SemanticIndex | None = reuse if same else None
        self._texts: list[str] | None = None  # what each row of the matrix embeds
        #: where the skill embeddings were loaded from (``None``: embedded here)
        self.loaded_from: Path | None = None
        #: how many skills this index embedded (the rest were saved or reused)
        self.embedded = 0
        #: why the last search fell back to the lexical ranking (``None``: it did not)
        self.error: str | None = None
        #: skills embedded so far and how many need it (while the vectors are made)
        self.progress: tuple[int, int] = (0, 0)
        self._lock = threading.Lock()  # held while the matrix is loaded or made
        self._starting = threading.Lock()  # never held while embedding: searches take it
        self._worker: threading.Thread | None = None
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

    @property
    def ready(self) -> bool:
        """Whether the skill embeddings are made (searches are fused)."""
        return self._matrix is not None

    def prepare(
        self,
        *,
        background: bool = False,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        """Load or make the skill embeddings now, calling ``progress(done, total)``
        as they are made; with ``background``, in a thread (searches answer
        lexically meanwhile) and return at once. A failure is kept in ``error``
        (and the next search tries again), never raised."""
        if background:
            self.background = True
            self._start(progress)
            return
        try:
            self.matrix(progress=progress)
        except Exception as exc:  # the host's model: reported like a failing search
            self._failed(exc)

    def _start(self, progress: Callable[[int, int], None] | None = None) -> None:
        # not self._lock: the worker holds that while it embeds, and a search that
        # waited for it would wait for the whole catalog to be embedded
        with self._starting:
            if self._matrix is not None or (self._worker and self._worker.is_alive()):
                return
            self._worker = threading.Thread(
                target=self._work, args=(progress,), name="skilldeck-embed", daemon=True
            )
            self._worker.start()

    def _work(self, progress: Callable[[int, int], None] | None) -> None:
        started = time.monotonic()
        try:
            self.matrix(progress=progress)
        except Exception as exc:  # kept in error; the next search starts again
            self._failed(exc)
            return
        if self.embedded:
            _log.info(
                "embedded %d skills for search in %.1f s", self.embedded, time.monotonic() - started
            )

    def _failed(self, exc: Exception) -> None:
        reason = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        if reason != self.error:
            _log.warning("semantic search fell back to lexical: %s", reason)
        self.error = reason

    def matrix(self, *, progress: Callable[[int, int], None] | None = None) -> Any:
        """The normalised embeddings of every skill (loaded or made on first use)."""
        with self._lock:
            if self._matrix is None:
                saved = self._saved_file()
                matrix = _load_matrix(saved, len(self.documents)) if saved else None
                if matrix is None:
                    digests = [_text_digest(t) for t in self.texts()]
                    known = self._reusable()
                    if saved is not None:
                        known = {**_saved_rows(saved, set(digests)), **known}
                    matrix = self._embed_documents(known, progress)
                    if saved is not None and len(matrix):
                        _save_matrix(saved, digests, matrix)
                else:
                    self.loaded_from = saved
                self._matrix = matrix
                self._reuse = None  # not kept alive by the index that replaced it
            return self._matrix

    def texts(self) -> list[str]:
        """The text embedded for each skill, in the order of the documents."""
        if self._texts is None:
            docs = self._full_documents() if self._full_documents else self.documents
            if len(docs) != len(self.documents):
                raise ValueError("the documents to embed are not the index's")
            self._texts = [_doc_text(d) for d in docs]
        return self._texts

    def _reusable(self) -> dict[bytes, Any]:
        """Rows of the earlier index, by the digest of the text they embed."""
        earlier = self._reuse
        if earlier is None or earlier._matrix is None:
            return {}
        matrix = earlier._matrix
        if not len(matrix):
            return {}
        return {_text_digest(t): row for t, row in zip(earlier.texts(), matrix, strict=False)}

    def _embed_documents(
        self, known: dict[bytes, Any], report: Callable[[int, int], None] | None
    ) -> Any:
        np = _numpy()
        texts = self.texts()
        if not texts:
            return np.zeros((0, 1), "float32")
        digests = [_text_digest(t) for t in texts]
        todo = list(dict.fromkeys(t for t, d in zip(texts, digests, strict=True) if d not in known))
        parts = []
        # progress on a terminal, unless the caller shows it or it runs in the background
        shown = report if report is not None or self.background else _Progress(len(todo)).update
        self.progress = (0, len(todo))
        for i in range(0, len(todo), _BATCH):
            parts.append(self._embed(todo[i : i + _BATCH]))
            self.progress = (min(i + _BATCH, len(todo)), len(todo))
            if shown is not None:
                shown(*self.progress)
        self.embedded = len(todo)
        widths = {p.shape[1] for p in parts} | {len(r) for r in itertools.islice(known.values(), 1)}
        if len(widths) > 1:
            raise ValueError("the embedder returned vectors of different sizes")
        made = np.vstack(parts).astype("float32") if parts else None
        fresh = {_text_digest(t): made[i] for i, t in enumerate(todo)} if made is not None else {}
        return np.vstack([fresh[d] if d in fresh else known[d] for d in digests]).astype("float32")

    def _saved_file(self) -> Path | None:
        identity = getattr(self.embedder, "identity", None)
        if self.store is None or not isinstance(identity, str) or not identity:
            return None
        folder, key = self.store
        model = hashlib.sha256(f"{_FORMAT}\0{identity}".encode()).hexdigest()[:16]
        return folder / f"{key}.{model}{_SUFFIX}"

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        if limit <= 0 or not self.documents or not query.strip():
            return []
        lexical = self.lexical.search(query, limit=max(limit, self.depth))
        if self.weight == 0:
            return lexical[:limit]
        if self.background and self._matrix is None:
            self._start()  # lexical answers until the skills are embedded
            return lexical[:limit]
        try:
            hits = self._fused(query, lexical, limit)
        except Exception as exc:  # the host's model: any failure leaves lexical search
            self._failed(exc)
            return lexical[:limit]
        self.error = None
        return hits

    def similarities(self, query: str) -> Any:
        """The cosine similarity of ``query`` to every skill, in document order."""
        matrix = self.matrix()
        # a retrieval model's instruction for requests (``query_prefix``), never for skills
        prefix = getattr(self.embedder, "query_prefix", "")
        text = f"{prefix}{query}" if isinstance(prefix, str) else query
        q = self._embed([text[:_MAX_TEXT]])[0]
        if q.shape[0] != matrix.shape[1]:
            raise ValueError(
                f"the embedder returned {q.shape[0]} dimensions for the request and "
                f"{matrix.shape[1]} for the skills"
            )
        # einsum, not BLAS: OpenBLAS threads a product this size, costing a small
        # machine several times the CPU for the same answer
        return _numpy().einsum("ij,j->i", matrix, q.astype(matrix.dtype))

    def dense_search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """The model's ranking alone (cosine similarity, best first): what the fusion
        adds to lexical search, for measuring it. Each hit's confidence is the
        model's dense abstention (``dense_abstention`` of the embedder: ``(intercept,
        cosine)`` of a logistic model of the best cosine) for the first hit, never
        more after it; without one, the cosine similarity itself."""
        np = _numpy()
        if limit <= 0 or not self.documents or not query.strip():
            return []
        sims = self.similarities(query)
        order = np.argsort(-sims, kind="stable")[:limit].tolist()
        fit = getattr(self.embedder, "dense_abstention", None)
        top = float(sims[order[0]])
        if fit is not None:
            z = float(fit[0]) + float(fit[1]) * top
            top = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
        hits = []
        for rank, pos in enumerate(order, start=1):
            doc = self.documents[pos]
            own = top if rank == 1 else min(top, max(0.0, float(sims[pos])))
            hits.append(
                SearchHit(
                    name=doc.name,
                    score=round(float(sims[pos]), 6),
                    description=doc.listing,
                    key=doc.key or doc.name,
                    source=doc.source,
                    rank=rank,
                    confidence=round(max(0.0, min(1.0, own)), 4),
                )
            )
        return hits

    def _fused(self, query: str, lexical: list[SearchHit], limit: int) -> list[SearchHit]:
        np = _numpy()
        sims = self.similarities(query)
        depth = min(self.depth, len(sims))
        order = np.argpartition(-sims, depth - 1)[:depth]
        order = order[np.argsort(-sims[order], kind="stable")]
        fused: dict[int, float] = {}
        by_doc: dict[int, SearchHit] = {}
        # the lexical score as a share of the best, times how sure lexical search is
        sure = min(1.0, lexical[0].confidence) if lexical else 0.0
        best_score = lexical[0].score if lexical else 0.0
        for hit in lexical[: self.depth]:
            pos = self._positions.get(hit.key or hit.name)
            if pos is not None and pos not in by_doc:
                share = hit.score / best_score if best_score > 0 else 0.0
                fused[pos] = (1.0 - self.weight) * sure * share
                by_doc[pos] = hit
        # each candidate's cosine as a share of the best (a negative one adds nothing)
        best_cosine = float(sims[order[0]]) if len(order) else 0.0
        for pos in dict.fromkeys([*by_doc, *order.tolist()]):
            cosine = float(sims[pos])
            if best_cosine <= 0 or (self.floor is not None and cosine <= self.floor):
                continue
            fused[pos] = fused.get(pos, 0.0) + self.weight * max(0.0, cosine) / best_cosine
        ranked = sorted(fused, key=lambda p: (-fused[p], p))
        if lexical and lexical[0].confidence >= 1.0:  # the request names this skill
            named = self._positions.get(lexical[0].key or lexical[0].name)
            if named is not None:
                ranked = [named, *(p for p in ranked if p != named)]
        best = ranked[:limit]
        confidence = lexical[0].confidence if lexical else 0.0
        if self.abstention is not None:
            named = self._positions.get(lexical[0].key or lexical[0].name) if lexical else None
            first = float(sims[named]) if named is not None else 0.0
            confidence = fused_confidence(self.abstention, confidence, float(sims.max()), first)
        top = fused[best[0]] if best and fused[best[0]] > 0 else 1.0
        hits: list[SearchHit] = []
        for rank, pos in enumerate(best, start=1):
            doc = self.documents[pos]
            lex = by_doc.get(pos)
            if rank == 1:
                own = confidence
            elif lex is not None:  # never above the request's
                own = min(confidence, lex.confidence)
            else:
                own = confidence * fused[pos] / top
            hits.append(
                SearchHit(
                    name=doc.name,
                    score=round(fused[pos], 6),
                    description=doc.listing,
                    key=doc.key or doc.name,
                    source=doc.source,
                    rank=rank,
                    confidence=round(own, 4),
                    matched=lex.matched if lex else (),
                )
            )
        return hits


class _Progress:
    """``embedding skills n/total`` on standard error, when it is a terminal and the
    work has taken more than a second."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.started = time.monotonic()
        self.shown = False
        try:
            self.tty = total > 0 and sys.stderr is not None and sys.stderr.isatty()
        except (AttributeError, ValueError, OSError):
            self.tty = False

    def update(self, done: int, total: int) -> None:
        if not self.tty or time.monotonic() - self.started < _PROGRESS_AFTER:
            return
        self.shown = True
        end = "\n" if done >= total else ""
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"\rskilldeck: embedding skills for search {done}/{total}{end}")
            sys.stderr.flush()


def _same_model(a: Any, b: Any) -> bool:
    """Whether two embedders are one model: the same object, or the same ``identity``."""
    if a is b:
        return True
    ident = getattr(a, "identity", None)
    return isinstance(ident, str) and bool(ident) and ident == getattr(b, "identity", None)


def _read(path: Path) -> tuple[Any, Any] | None:
    """The digests and vectors saved at ``path``, or ``None`` when it does not load
    as them."""
    if not cache_folder(path.parent):
        return None
    np = _numpy()
    try:
        with open_cache(path) as fh, np.load(fh, allow_pickle=False) as data:
            digests, vectors = data["digests"], data["vectors"]
    except Exception:  # a damaged or foreign file: any error of numpy's readers
        return None
    if (
        not isinstance(vectors, np.ndarray)
        or vectors.dtype != np.float32
        or vectors.ndim != 2
        or not 0 < vectors.shape[1] <= _MAX_DIMENSIONS
        or digests.dtype != np.uint8
        or digests.shape != (vectors.shape[0], _DIGEST)
    ):
        return None
    keys = [row.tobytes() for row in digests]
    vectors = np.where(np.isfinite(vectors), vectors, np.float32(0))
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return keys, (vectors / np.where(norms > 0, norms, 1)).astype("float32")


def _load_matrix(path: Path, rows: int) -> Any:
    """The matrix saved at ``path`` when it has ``rows`` rows, else ``None`` (its name
    holds the key of the catalog state, so its rows are that state's skills)."""
    read = _read(path)
    if read is None or len(read[0]) != rows:
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: kept by the pruning
    return read[1]


def _saved_rows(path: Path, wanted: set[bytes]) -> dict[bytes, Any]:
    """The rows of ``wanted`` texts in the other saved files of the same model (the
    files of earlier catalog states): only the skills that changed are embedded."""
    model = path.name.split(".")[-3]
    found: dict[bytes, Any] = {}
    try:
        others = sorted(
            (p for p in path.parent.glob(f"*.{model}{_SUFFIX}") if p != path),
            key=lambda p: p.stat().st_mtime_ns,
            reverse=True,
        )
    except OSError:
        return found
    for other in others[:MAX_SAVED]:
        read = _read(other)
        if read is None:
            continue
        for digest, row in zip(read[0], read[1], strict=True):
            if digest in wanted and digest not in found:
                found[digest] = row
        if len(found) == len(wanted):
            break
    return found


def _save_matrix(path: Path, digests: Iterable[bytes], matrix: Any) -> None:
    """Write ``matrix`` atomically; a failure only costs embedding again next time."""
    np = _numpy()
    if not cache_folder(path.parent, create=True):
        return
    try:
        with replacing(path, mode=0o600, durable=False) as fh:
            np.savez(
                fh,
                digests=np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(-1, _DIGEST),
                vectors=np.ascontiguousarray(matrix, dtype="float32"),
            )
    except (OSError, ValueError):
        return
    _prune(path.parent)


def _prune(folder: Path) -> None:
    keep_newest(folder, _SUFFIX, MAX_SAVED)
