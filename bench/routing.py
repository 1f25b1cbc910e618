"""Routing benchmark: does the right skill come first for a realistic request?

Usage::

    python bench/routing.py [--corpus ../shared/corpus] [--set FILE ...] [--tuning N]
                            [--embedder MODEL ...] [--fit] [--weight W] [--depth N]
                            [--cache DIR] [--json] [--misses]

Indexes every skill of the real corpus the way the runtime does (name,
description, ``when_to_use``, tags, headings and body words) and runs the labelled
requests of each set (by default the four of ``bench/data``: the tuning sets
``routing.jsonl`` and ``routing_tuning2.jsonl``, where every parameter was
chosen, then the held-out and unseen sets, run with the same parameters; with
``--set``, the first ``--tuning`` sets, default 1, are the tuning sets): requests that name the tool
(``direct``), requests that name the goal (``indirect``) and requests no skill
fits (off-domain). For each router it prints top-1 / top-3 per kind, for
off-domain requests how often it abstains (recall) and how often its abstentions
are right (precision), and the CPU milliseconds per request:

- ``search``: ``skills_search`` as the model calls it (BM25F), abstaining when
  the best hit's calibrated confidence is under the default threshold;
- ``suggest``: ``runtime.suggest`` (search, reordered by declared triggers and the
  example requests descriptions quote; prepared once per catalog state);
- ``tfidf``: the naive baseline, cosine TF-IDF over name + description (no
  stemming, no stop words), abstaining only when no word matches;
- ``bm25-plain``: BM25 over name + description with the same plain tokens.

With ``--embedder MODEL`` (what ``load_embedder`` takes: ``path:DIR``, or the id of
an installed model; repeat it to compare models), per model:

- ``dense``: the model alone, skills by cosine similarity, abstaining by a
  logistic model of the best cosine fitted on the tuning sets;
- ``rrf``: the earlier fusion, reciprocal-rank fusion of BM25F and the model
  (``k`` 10, depth 100, equal weights), with lexical abstention: the baseline
  the score fusion replaced;
- ``fused-lex``: ``SemanticIndex`` (the score fusion of BM25F and the model)
  with lexical abstention (no fitted abstention);
- ``fused``: ``SemanticIndex`` as ``[search] embedder`` switches it on: the
  same fusion, abstaining by the model's abstention (``FITTED_ABSTENTION``, or,
  for a model not listed there, fitted here on the tuning sets).

and the model's costs: loading, embedding the corpus's skills (CPU and wall),
and embedding one request (CPU ms, one thread). ``--fit`` also prints the
abstentions fitted on the tuning sets with their leave-one-out log-loss (the
feature choice), and scores every fusion (weight, depth) of a grid on the tuning
sets, summed over the models given, with its five-fold cross-validated score
(the weight chosen on four fifths, scored on the fifth). ``--weight`` and
``--depth`` set the fusion of ``fused`` and ``fused-lex`` (default the shipped
0.55 and 100): for a model whose ``--fit`` on the tuning sets alone (``--set``
the two tuning sets, ``--tuning 2``) chose another fusion, before its one run on
the held-out and unseen sets.

Targets (issue text): direct top-1 >= 90 %, indirect top-3 >= 60 %, off-domain
abstain >= 80 % at >= 90 % precision; with a model, direct top-1 >= 92 %,
indirect top-3 >= 75 %, abstention >= 83 % at >= 92 %.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import skilldeck
from skilldeck.search._routing import RoutingReport, evaluate_routing, load_routing_cases

REPO = Path(__file__).resolve().parents[1]
_PLAIN = re.compile(r"[^\W_]+")


def plain_tokens(text: str) -> list[str]:
    return _PLAIN.findall(text.lower())


class TfIdf:
    """Cosine TF-IDF over name + description: the strongest naive baseline."""

    def __init__(self, metas: Sequence[Any]) -> None:
        self.names = [m.name for m in metas]
        docs = [Counter(plain_tokens(f"{m.name} {m.name} {m.description}")) for m in metas]
        df: Counter[str] = Counter()
        for d in docs:
            df.update(d.keys())
        n = len(docs)
        self.idf = {t: math.log((1 + n) / (1 + c)) + 1 for t, c in df.items()}
        self.vectors: list[dict[str, float]] = []
        self.postings: dict[str, list[int]] = {}
        for i, d in enumerate(docs):
            vec = {t: (1 + math.log(c)) * self.idf[t] for t, c in d.items()}
            norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
            self.vectors.append({t: v / norm for t, v in vec.items()})
            for t in vec:
                self.postings.setdefault(t, []).append(i)

    def route(self, query: str) -> tuple[list[str], bool]:
        q = Counter(t for t in plain_tokens(query) if t in self.idf)
        if not q:
            return [], True
        qv = {t: (1 + math.log(c)) * self.idf[t] for t, c in q.items()}
        scores: dict[int, float] = {}
        for t, w in qv.items():
            for i in self.postings[t]:
                scores[i] = scores.get(i, 0.0) + w * self.vectors[i][t]
        best = sorted(scores, key=lambda i: -scores[i])[:3]
        return [self.names[i] for i in best], False


class PlainBm25:
    """BM25 over name + description with plain tokens (no stemming, no stop words)."""

    def __init__(self, metas: Sequence[Any]) -> None:
        from skilldeck.search._bm25 import _Builtin

        self.names = [m.name for m in metas]
        corpus = [plain_tokens(f"{m.name} {m.name} {m.name} {m.description}") for m in metas]
        self.index = _Builtin.build([[(t, 1.0) for t in toks] for toks in corpus])

    def route(self, query: str) -> tuple[list[str], bool]:
        scores = self.index.scores([(t, 1.0) for t in set(plain_tokens(query))])
        best = sorted(scores, key=lambda i: -scores[i])[:3]
        return [self.names[i] for i in best], not best


def row(name: str, report: RoutingReport, seconds: float) -> dict[str, Any]:
    kinds = report.by_kind
    out: dict[str, Any] = {"router": name}
    for kind in ("direct", "indirect"):
        tally = kinds.get(kind)
        out[f"{kind}_top1"] = tally.rate(tally.top1) if tally else 0.0
        out[f"{kind}_top3"] = tally.rate(tally.top3) if tally else 0.0
    out["abstain_recall"] = report.abstain_recall
    out["abstain_precision"] = report.abstain_precision
    out["abstained_on_answerable"] = report.abstained_wrong
    out["abstained"] = report.abstained_right + report.abstained_wrong
    out["ms_per_query"] = seconds * 1000
    return out


def _logistic(x: Any, y: Any, l2: float = 1e-3) -> Any:
    """Logistic regression by Newton's method (a little L2 keeps it finite)."""
    import numpy as np

    w = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-(x @ w)))
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + l2 * np.eye(len(w))
        w -= np.linalg.solve(hessian, x.T @ (p - y) + l2 * w)
    return w


class Model:
    """One embedding model over the corpus: its skill matrix and costs."""

    def __init__(self, catalog: Any, spec: str) -> None:
        from skilldeck.search import load_embedder
        from skilldeck.search._semantic import SemanticIndex

        started, cpu = time.perf_counter(), time.process_time()
        self.embedder = load_embedder(spec)
        self.load = (time.perf_counter() - started, time.process_time() - cpu)
        self.spec = spec
        self.name = Path(getattr(self.embedder, "source", spec)).stem
        # the runtime's index: its documents for the model carry the usage sections
        self.semantic = skilldeck.SkillRuntime(catalog, embedder=self.embedder).search_index()
        assert isinstance(self.semantic, SemanticIndex)
        started, cpu = time.perf_counter(), time.process_time()
        self.matrix = self.semantic.matrix()
        self.embed = (time.perf_counter() - started, time.process_time() - cpu)
        self.fitted = getattr(self.embedder, "abstention", None)
        self.dense_fit = getattr(self.embedder, "dense_abstention", None)
        self.request_ms: list[float] = []
        self.seen: dict[str, Any] = {}

    def similarities(self, query: str) -> Any:
        """The request's similarities (embedded once: each router and set reuses them)."""
        if query not in self.seen:
            cpu = time.process_time()
            self.seen[query] = self.semantic.similarities(query)
            self.request_ms.append((time.process_time() - cpu) * 1000)
        return self.seen[query]


def _features(cases: Sequence[Any], index: Any, model: Model) -> Any:
    """Per request: the abstention's features (1, logit of the lexical confidence,
    best cosine, cosine of lexical search's first hit)."""
    import numpy as np

    from skilldeck.search._semantic import lexical_logit

    positions = {d.name: i for i, d in reversed(list(enumerate(index.documents)))}
    rows = []
    for case in cases:
        lexical = index.search(case.query, limit=1)
        sims = model.similarities(case.query)
        first = float(sims[positions[lexical[0].name]]) if lexical else 0.0
        confidence = lexical[0].confidence if lexical else 0.0
        rows.append([1.0, lexical_logit(confidence), float(sims.max()), first])
    return np.array(rows)


def _loo_logloss(x: Any, y: Any) -> float:
    """Leave-one-out log-loss of a logistic regression on ``x`` (how the features
    were chosen: the lowest on the tuning set)."""
    import numpy as np

    p = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        w = _logistic(x[keep], y[keep])
        p.append(1 / (1 + np.exp(-np.clip(x[i] @ w, -50, 50))))
    q = np.clip(np.array(p), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


def _hits(cases: Sequence[Any], fused: Any) -> list[int]:
    """Per request: direct top-1, or goal-phrased top-1 + top-3 (what the fusion is
    chosen by); off-domain requests score nothing."""
    out = []
    for case in cases:
        names = [h.name for h in fused.search(case.query, limit=3)]
        wanted = set(case.expected)
        top1 = int(bool(names) and names[0] in wanted)
        top3 = int(any(n in wanted for n in names))
        out.append(top1 if case.kind == "direct" else (top1 + top3) if case.expected else 0)
    return out


GRID_WEIGHTS = (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8)
GRID_DEPTHS = (50, 100)


def _grid(cases: Sequence[Any], index: Any, model: Model) -> dict[tuple[float, int], list[int]]:
    """Each fusion (weight, depth) of the grid: its hits per tuning request."""
    from skilldeck.search._semantic import SemanticIndex

    out = {}
    for weight in GRID_WEIGHTS:
        for depth in GRID_DEPTHS:
            fused = SemanticIndex(index, model.embedder, weight=weight, depth=depth)
            fused._matrix = model.matrix
            fused.similarities = model.similarities  # type: ignore[method-assign]
            out[(weight, depth)] = _hits(cases, fused)
    return out


def _cross_validated(grid: dict[tuple[float, int], list[int]], folds: int = 5) -> int:
    """Hits of the grid's choice made on the other folds, summed over the folds
    (requests dealt to folds in turn)."""
    n = len(next(iter(grid.values())))
    total = 0
    for fold in range(folds):

        def score(key: tuple[float, int], fold: int = fold) -> int:
            return sum(h for i, h in enumerate(grid[key]) if i % folds != fold)

        chosen = max(sorted(grid), key=score)
        total += sum(h for i, h in enumerate(grid[chosen]) if i % folds == fold)
    assert n
    return total


def _rrf(index: Any, model: Model, names: list[str]) -> Any:
    """The earlier fusion: reciprocal-rank fusion (k 10, depth 100, equal weights)."""
    import numpy as np

    positions = {n: i for i, n in reversed(list(enumerate(names)))}

    def route(query: str) -> tuple[list[str], bool]:
        lexical = index.search(query, limit=100)
        sims = model.similarities(query)
        fused: dict[int, float] = {}
        for rank, hit in enumerate(lexical, start=1):
            fused[positions[hit.name]] = 1 / (10 + rank)
        order = np.argsort(-sims, kind="stable")[:100]
        for rank, pos in enumerate(p for p in order.tolist() if sims[p] > 0):
            fused[pos] = fused.get(pos, 0.0) + 1 / (10 + rank + 1)
        ranked = sorted(fused, key=lambda p: (-fused[p], p))
        if lexical and lexical[0].confidence >= 1.0:
            named = positions[lexical[0].name]
            ranked = [named, *(p for p in ranked if p != named)]
        return [names[p] for p in ranked[:3]], not lexical or not lexical[0].confident

    return route


def _fit(cases: Sequence[Any], index: Any, model: Model) -> dict[str, Any]:
    """On the tuning sets only: the abstentions (logistic regressions of the lexical
    logit, the best cosine and the cosine of lexical search's first hit; of the
    first two; of the best cosine alone for the dense ranking), each with its
    leave-one-out log-loss; ``abstention`` is the fused one with the lower."""
    import numpy as np

    x = _features(cases, index, model)
    y = np.array([1.0 if c.expected else 0.0 for c in cases])
    out: dict[str, Any] = {}
    for name, columns in (
        ("three_feature", [0, 1, 2, 3]),
        ("two_feature", [0, 1, 2]),
        ("dense_abstention", [0, 2]),
    ):
        out[name] = [round(float(v), 3) for v in _logistic(x[:, columns], y)]
        out[f"{name}_loo_logloss"] = round(_loo_logloss(x[:, columns], y), 4)
    better = min(("three_feature", "two_feature"), key=lambda n: out[f"{n}_loo_logloss"])
    out["abstention"] = out[better]
    return out


def _routers(
    index: Any,
    model: Model,
    abstention: Any,
    dense_fit: Any,
    fusion: tuple[float, int],
) -> list[tuple[str, Any]]:
    import numpy as np

    from skilldeck.search._semantic import SemanticIndex

    names = [d.name for d in index.documents]
    weight, depth = fusion
    fused_lex = SemanticIndex(index, model.embedder, abstention=None, weight=weight, depth=depth)
    fused_lex.abstention = None  # the embedder's own: not here
    fused = SemanticIndex(
        index, model.embedder, abstention=tuple(abstention), weight=weight, depth=depth
    )
    for f in (fused_lex, fused):
        f._matrix = model.matrix
        f.similarities = model.similarities  # type: ignore[method-assign]

    def dense(query: str) -> tuple[list[str], bool]:
        sims = model.similarities(query)
        order = np.argsort(-sims, kind="stable")[:3]
        z = dense_fit[0] + dense_fit[1] * float(sims.max())
        return [names[i] for i in order], z < 0

    def route(f: Any) -> Any:
        def run(query: str) -> tuple[list[str], bool]:
            hits = f.search(query, limit=3)
            return [h.name for h in hits], not hits or not hits[0].confident

        return run

    return [
        (f"dense:{model.name}", dense),
        (f"fused-lex:{model.name}", route(fused_lex)),
        (f"fused:{model.name}", route(fused)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument(
        "--set",
        type=Path,
        action="append",
        help="a routing set (repeatable; the first --tuning tune). Default: all four",
    )
    parser.add_argument(
        "--tuning",
        type=int,
        help="how many of the first sets are tuning sets (default 2, or 1 with --set)",
    )
    parser.add_argument(
        "--cache",
        type=Path,
        help="the catalog cache (default: a new one): a second run loads the saved vectors",
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="print the requests missed")
    parser.add_argument(
        "--embedder", metavar="MODEL", action="append", default=[], help="add the model's routers"
    )
    parser.add_argument("--fit", action="store_true", help="fit the parameters on the tuning sets")
    parser.add_argument(
        "--weight", type=float, default=None, help="the fusion's weight (default: the shipped)"
    )
    parser.add_argument(
        "--depth", type=int, default=None, help="the fusion's depth (default: the shipped)"
    )
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: pass --corpus", file=sys.stderr)
        return 2
    data = REPO / "bench" / "data"
    paths = args.set or [
        data / n
        for n in (
            "routing.jsonl",
            "routing_tuning2.jsonl",
            "routing_heldout.jsonl",
            "routing_unseen.jsonl",
        )
    ]
    from skilldeck.search._semantic import FUSION_DEPTH, FUSION_WEIGHT

    fusion = (
        FUSION_WEIGHT if args.weight is None else args.weight,
        FUSION_DEPTH if args.depth is None else args.depth,
    )
    tuning_sets = args.tuning if args.tuning is not None else (1 if args.set else 2)
    sets = [(p.stem, load_routing_cases(p)) for p in paths]
    tuned_on = " + ".join(name for name, _ in sets[:tuning_sets])
    with tempfile.TemporaryDirectory() as scratch:
        tmp = str(args.cache) if args.cache else scratch
        catalog = skilldeck.Catalog.from_roots([args.corpus], recursive=True, cache=tmp)
        runtime = skilldeck.SkillRuntime(catalog)
        metas = runtime.visible_skills()
        started = time.perf_counter()
        index = runtime.search_index()
        build = time.perf_counter() - started
        started = time.perf_counter()
        runtime.suggest("")  # suggest prepares the skills' triggers once per catalog state
        prepare = time.perf_counter() - started

        def search(query: str) -> tuple[list[str], bool]:
            hits = index.search(query, limit=3)
            return [h.name for h in hits], not hits or not hits[0].confident

        def suggest(query: str) -> tuple[list[str], bool]:
            picked = runtime.suggest(query, limit=3)
            return [s.name for s in picked], not picked or not picked[0].confident

        tfidf, bm25 = TfIdf(metas), PlainBm25(metas)
        routers: list[tuple[str, Any]] = [
            ("search", search),
            ("suggest", suggest),
            ("tfidf", tfidf.route),
            ("bm25-plain", bm25.route),
        ]
        models = []
        fits = {}
        grids = {}
        tuning = [case for _, cases in sets[:tuning_sets] for case in cases]
        for spec in args.embedder:
            model = Model(catalog, spec)
            models.append(model)
            fit = _fit(tuning, index, model)
            fit["shipped_abstention"] = list(model.fitted) if model.fitted else None
            fit["shipped_dense_abstention"] = list(model.dense_fit) if model.dense_fit else None
            fits[model.name] = fit
            if args.fit:
                grids[model.name] = _grid(tuning, index, model)
            abstention = model.fitted if model.fitted is not None else fit["abstention"]
            dense_fit = model.dense_fit or fit["dense_abstention"]
            routers.extend(_routers(index, model, abstention, dense_fit, fusion))
            routers.append(
                (f"rrf:{model.name}", _rrf(index, model, [d.name for d in index.documents]))
            )
        for model in models:  # each request embedded once, before the routers are timed
            for _, cases in sets:
                for case in cases:
                    model.similarities(case.query)
        results = []
        for set_name, cases in sets:
            rows = []
            for name, router in routers:
                c0 = time.process_time()
                report = evaluate_routing(cases, router)
                ms = (time.process_time() - c0) * 1000 / max(len(cases), 1)
                out = row(name, report, ms / 1000)
                rows.append(out)
                if args.misses and name in ("search", *(f"fused:{m.name}" for m in models)):
                    for q, expected, got in report.misses:
                        print(
                            f"  {set_name} {name} miss: {q!r}: expected {list(expected)}, "
                            f"got {list(got)}",
                            file=sys.stderr,
                        )
            results.append((set_name, cases, rows))
    costs = {
        m.name: {
            "load_seconds": round(m.load[0], 3),
            "skills": len(m.matrix),
            "embed_skills_cpu_seconds": round(m.embed[1], 2),
            "embed_skills_wall_seconds": round(m.embed[0], 2),
            "embedded_skills": m.semantic.embedded,
            "request_cpu_ms_median": round(sorted(m.request_ms)[len(m.request_ms) // 2], 2),
            "dimensions": int(m.matrix.shape[1]),
        }
        for m in models
    }
    if args.json:
        doc = {
            "skills": len(metas),
            "sets": {n: {"requests": len(c), "rows": r} for n, c, r in results},
            "models": costs,
            "fit": fits,
            "fusion_grid": {m: {str(k): sum(v) for k, v in g.items()} for m, g in grids.items()},
            "suggest_prepare_seconds": prepare,
        }
        print(json.dumps(doc, indent=2))
        return 0
    print(
        f"{len(metas)} skills; index built in {build:.2f} s, "
        f"suggest's triggers prepared in {prepare:.2f} s"
    )
    for name, cost in costs.items():
        print(
            f"model {name}: loaded in {cost['load_seconds']:.2f} s, {cost['skills']} skills "
            f"({cost['embedded_skills']} embedded, the rest saved) "
            f"in {cost['embed_skills_cpu_seconds']:.1f} s CPU "
            f"({cost['embed_skills_wall_seconds']:.1f} s wall), one request "
            f"{cost['request_cpu_ms_median']:.2f} ms CPU (median), {cost['dimensions']} dims"
        )
        if args.fit:
            f = fits[name]
            print(
                f"  fitted on {tuned_on}: abstention {f['abstention']} (shipped: "
                f"{f['shipped_abstention']}); leave-one-out log-loss of lexical logit + best "
                f"cosine + the lexical first hit's cosine {f['three_feature']} "
                f"{f['three_feature_loo_logloss']}, without the third {f['two_feature']} "
                f"{f['two_feature_loo_logloss']}; dense abstention {f['dense_abstention']} "
                f"(shipped: {f['shipped_dense_abstention']})"
            )
    if grids:
        summed = {
            key: [sum(h) for h in zip(*(g[key] for g in grids.values()), strict=True)]
            for key in next(iter(grids.values()))
        }
        ranked = sorted(summed, key=lambda key: (-sum(summed[key]), key))
        shown = ", ".join(f"{key} {sum(summed[key])}" for key in ranked[:5])
        print(
            f"fusion (weight, depth) by direct top-1 + goal top-1 + goal top-3 hits on "
            f"{tuned_on}, summed over the models: {shown}; five-fold cross-validated: "
            f"{_cross_validated(summed)}"
        )
        for name, grid in grids.items():
            best = max(sorted(grid), key=lambda key: sum(grid[key]))
            print(
                f"  {name}: best {best} {sum(grid[best])}, cross-validated {_cross_validated(grid)}"
            )
    columns = ("dir@1", "dir@3", "ind@1", "ind@3", "abst", "prec", "cpu ms")
    if models:
        print("(a model's routers: cpu ms without embedding the request, given per model above)")
    for set_name, cases, rows in results:
        kinds = Counter(c.kind or ("off" if not c.expected else "all") for c in cases)
        counted = ", ".join(f"{v} {k}" for k, v in kinds.items())
        print(f"\n{set_name}: {len(cases)} requests ({counted})")
        print(f"{'router':<24} " + " ".join(f"{c:>6}" for c in columns))
        for r in rows:
            prec = f"{r['abstain_precision']:6.1%}" if r["abstained"] else f"{'-':>6}"
            print(
                f"{r['router']:<24} {r['direct_top1']:6.1%} {r['direct_top3']:6.1%} "
                f"{r['indirect_top1']:6.1%} {r['indirect_top3']:6.1%} "
                f"{r['abstain_recall']:6.1%} {prec} {r['ms_per_query']:6.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
