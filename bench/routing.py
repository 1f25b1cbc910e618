"""Routing benchmark: does the right skill come first for a realistic request?

Usage::

    python bench/routing.py [--corpus ../shared/corpus] [--set bench/data/routing.jsonl]
                            [--json] [--misses] [--embedder MODEL]

Indexes every skill of the real corpus the way the runtime does (name,
description, ``when_to_use``, tags, headings and body words) and runs the labelled
requests of ``bench/data/routing.jsonl``: requests that name the tool (``direct``),
requests that name the goal (``indirect``) and requests no skill fits (off-domain).
For each router it prints top-1 / top-3 per kind, and for off-domain requests how
often it abstains (recall) and how often its abstentions are right (precision):

- ``search``: ``skills_search`` as the model calls it, abstaining when the best
  hit's calibrated confidence is under the default threshold;
- ``suggest``: ``runtime.suggest`` (search, reordered by declared triggers and the
  example requests descriptions quote; the triggers are prepared once per catalog
  state, before the timing, and that preparation is printed apart);
- ``tfidf``: the naive baseline, cosine TF-IDF over name + description (no
  stemming, no stop words), abstaining only when no word matches;
- ``bm25-plain``: BM25 over name + description with the same plain tokens, as a
  second reference;
- ``hybrid`` (with ``--embedder MODEL``, a model2vec folder or id): the semantic
  backend as ``[search] embedder`` switches it on (``SemanticIndex`` over the same
  lexical index, its default fusion), abstaining like ``search``.

Targets (issue text): direct top-1 >= 90 %, indirect top-3 >= 60 %, off-domain
abstain >= 80 % at >= 90 % precision.
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
from skilldeck._routing import RoutingReport, evaluate_routing, load_routing_cases

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
        from skilldeck._search import _Builtin

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


def _hybrid(index: Any, model: str) -> Any:
    from skilldeck.search import SemanticIndex, static_embedder

    started = time.perf_counter()
    embedder = static_embedder(model)
    loaded = time.perf_counter() - started
    semantic = SemanticIndex(index, embedder)
    semantic.matrix()
    embedded = time.perf_counter() - started - loaded
    print(
        f"hybrid: model loaded in {loaded:.2f} s, {len(semantic)} skills embedded in "
        f"{embedded:.2f} s ({embedder.dimensions} dimensions)",
        file=sys.stderr,
    )

    def route(query: str) -> tuple[list[str], bool]:
        hits = semantic.search(query, limit=3)
        return [h.name for h in hits], not hits or not hits[0].confident

    return route


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--set", type=Path, default=REPO / "bench" / "data" / "routing.jsonl")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="print the requests missed")
    parser.add_argument("--embedder", metavar="MODEL", help="add the hybrid router (model2vec)")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: pass --corpus", file=sys.stderr)
        return 2
    cases = load_routing_cases(args.set)
    with tempfile.TemporaryDirectory() as tmp:
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

        tops = [(c, index.search(c.query, limit=1)) for c in cases]
        curve = []
        for threshold in (0.3, 0.4, 0.45, 0.5, 0.55, 0.6):
            off = [not h or h[0].confidence < threshold for c, h in tops if not c.expected]
            wrong = sum(1 for c, h in tops if c.expected and (not h or h[0].confidence < threshold))
            right = sum(off)
            curve.append((threshold, right / max(len(off), 1), right / max(right + wrong, 1)))
        tfidf, bm25 = TfIdf(metas), PlainBm25(metas)
        routers = [
            ("search", search),
            ("suggest", suggest),
            ("tfidf", tfidf.route),
            ("bm25-plain", bm25.route),
        ]
        if args.embedder:
            routers.append(("hybrid", _hybrid(index, args.embedder)))
        rows = []
        reports = {}
        for name, router in routers:
            t0 = time.perf_counter()
            report = evaluate_routing(cases, router)
            rows.append(row(name, report, (time.perf_counter() - t0) / max(len(cases), 1)))
            reports[name] = report
    kinds = Counter(c.kind or ("off" if not c.expected else "all") for c in cases)
    if args.json:
        doc = {
            "skills": len(metas),
            "requests": dict(kinds),
            "rows": rows,
            "curve": curve,
            "suggest_prepare_seconds": prepare,
        }
        print(json.dumps(doc, indent=2))
        return 0
    counted = ", ".join(f"{v} {k}" for k, v in kinds.items())
    print(
        f"{len(metas)} skills, {len(cases)} requests ({counted}); index built in {build:.2f} s, "
        f"suggest's triggers prepared in {prepare:.2f} s"
    )
    columns = ("dir@1", "dir@3", "ind@1", "ind@3", "abst", "prec", "ms/q")
    print(f"{'router':<11} " + " ".join(f"{c:>6}" for c in columns))
    for r in rows:
        prec = f"{r['abstain_precision']:6.1%}" if r["abstained"] else f"{'-':>6}"
        print(
            f"{r['router']:<11} {r['direct_top1']:6.1%} {r['direct_top3']:6.1%} "
            f"{r['indirect_top1']:6.1%} {r['indirect_top3']:6.1%} "
            f"{r['abstain_recall']:6.1%} {prec} {r['ms_per_query']:6.2f}"
        )
    print("targets:     90.0%          60.0% (ind@3)  80.0%  90.0%")
    print("abstention by confidence threshold (search): threshold, off-domain abstained, precision")
    for threshold, recall, precision in curve:
        print(f"  {threshold:.2f}  {recall:6.1%}  {precision:6.1%}")
    if args.misses:
        for q, expected, got in reports["search"].misses:
            print(f"  miss: {q!r}: expected {list(expected)}, got {list(got)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
