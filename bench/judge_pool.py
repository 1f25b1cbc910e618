"""Pooled blind relevance judging: the candidates a judge reads for each request.

Usage::

    python bench/judge_pool.py [--corpus ../shared/corpus] [--set bench/data/routing.jsonl]
                               [--depth 5] [--seed 21] [--out POOL.md] [--json]
    python bench/judge_pool.py --set bench/data/routing.jsonl \
                               --apply bench/data/judgements/routing.jsonl

For each request of a routing set, pools the first ``--depth`` skills of every
router ``bench/routing.py`` measures (``search``, ``suggest``, ``tfidf``,
``bm25-plain``) with the names the set currently expects, shuffles the pool with a
fixed seed (per request, so a run is reproducible) and prints it *blind*: each
candidate's name and description (with ``when_to_use``) cut to about 300
characters, never which router proposed it nor whether the set expects it. A judge
reads the pools and records, per request, which candidates are relevant (see
``bench/data/README.md``).

``--apply JUDGEMENTS`` rebuilds the set's labels from those judgements (JSON Lines,
one ``{"query", "relevant", "judged"}`` a request, optionally ``"dropped": {name:
reason}`` for a previous label found clearly wrong and ``"kind"`` for an off-domain
request that a skill turned out to fit): ``expected`` becomes the previous names
minus the dropped ones plus the relevant ones. Applying twice changes nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import skilldeck
from skilldeck.search._routing import load_routing_cases

sys.path.insert(0, str(Path(__file__).resolve().parent))
from routing import PlainBm25, TfIdf, plain_tokens

REPO = Path(__file__).resolve().parents[1]
CUT = 300


def tfidf_top(model: TfIdf, query: str, depth: int) -> list[str]:
    """TF-IDF's ranking cut at ``depth`` (``TfIdf.route`` stops at three)."""
    q = Counter(t for t in plain_tokens(query) if t in model.idf)
    qv = {t: (1 + math.log(c)) * model.idf[t] for t, c in q.items()}
    scores: dict[int, float] = {}
    for t, w in qv.items():
        for i in model.postings[t]:
            scores[i] = scores.get(i, 0.0) + w * model.vectors[i][t]
    return [model.names[i] for i in sorted(scores, key=lambda i: -scores[i])[:depth]]


def bm25_top(model: PlainBm25, query: str, depth: int) -> list[str]:
    """Plain BM25's ranking cut at ``depth``."""
    scores = model.index.scores([(t, 1.0) for t in set(plain_tokens(query))])
    return [model.names[i] for i in sorted(scores, key=lambda i: -scores[i])[:depth]]


def blurb(meta: Any) -> str:
    text = " ".join(meta.description.split())
    if meta.when_to_use:
        text += " | when to use: " + " ".join(meta.when_to_use.split())
    return text if len(text) <= CUT else text[: CUT - 1].rstrip() + "…"


def pools(
    cases: Sequence[Any],
    routers: Sequence[Callable[[str], list[str]]],
    seed: int,
) -> list[dict[str, Any]]:
    out = []
    for number, case in enumerate(cases, start=1):
        names = set(case.expected)
        for route in routers:
            names.update(route(case.query))
        pool = sorted(names)
        random.Random(f"{seed}:{case.query}").shuffle(pool)
        out.append({"n": number, "query": case.query, "candidates": pool})
    return out


def apply(set_path: Path, judgements_path: Path) -> int:
    """Rebuild ``set_path``'s labels from the judgements (see the module docstring)."""
    rows = [json.loads(line) for line in set_path.read_text("utf-8").splitlines() if line]
    verdicts = {}
    for line in judgements_path.read_text("utf-8").splitlines():
        if line:
            verdict = json.loads(line)
            verdicts[verdict["query"]] = verdict
    added = dropped = 0
    changed_kind = []
    for row in rows:
        verdict = verdicts.get(row["query"])
        if verdict is None:
            print(f"no judgement for {row['query']!r}", file=sys.stderr)
            return 1
        judged = set(verdict["judged"])
        gone = verdict.get("dropped", {})
        wrong = [n for n in verdict["relevant"] if n not in judged]
        wrong += [n for n in gone if n not in row["expected"] and n not in judged]
        if wrong:
            print(f"{row['query']!r}: {wrong} were not judged", file=sys.stderr)
            return 1
        before = list(row["expected"])
        after = [n for n in before if n not in gone]
        after += [n for n in verdict["relevant"] if n not in after and n not in gone]
        added += len(set(after) - set(before))
        dropped += len(set(before) - set(after))
        if after and not before:
            if verdict.get("kind") not in ("direct", "indirect"):
                print(f"{row['query']!r} became answerable: give its 'kind'", file=sys.stderr)
                return 1
            row["kind"] = verdict["kind"]
            changed_kind.append(row["query"])
        if before and not after:
            print(f"{row['query']!r} lost every label", file=sys.stderr)
            return 1
        row["expected"] = after
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    set_path.write_text(text, encoding="utf-8")
    print(f"{set_path.name}: {added} labels added, {dropped} dropped")
    for query in changed_kind:
        print(f"  now answerable: {query!r}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--set", type=Path, default=REPO / "bench" / "data" / "routing.jsonl")
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--out", type=Path, help="write here instead of standard output")
    parser.add_argument("--json", action="store_true", help="JSON instead of markdown")
    parser.add_argument("--apply", type=Path, help="rebuild the set's labels from judgements")
    args = parser.parse_args()
    if args.apply:
        return apply(args.set, args.apply)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: pass --corpus", file=sys.stderr)
        return 2
    cases = load_routing_cases(args.set)
    depth = args.depth
    with tempfile.TemporaryDirectory() as tmp:
        catalog = skilldeck.Catalog.from_roots([args.corpus], recursive=True, cache=tmp)
        runtime = skilldeck.SkillRuntime(catalog)
        metas = runtime.visible_skills()
        index = runtime.search_index()
        tfidf, bm25 = TfIdf(metas), PlainBm25(metas)
        routers: list[Callable[[str], list[str]]] = [
            lambda q: [h.name for h in index.search(q, limit=depth)],
            lambda q: [s.name for s in runtime.suggest(q, limit=depth)],
            lambda q: tfidf_top(tfidf, q, depth),
            lambda q: bm25_top(bm25, q, depth),
        ]
        pooled = pools(cases, routers, args.seed)
    by_name = {m.name: m for m in metas}

    def describe(name: str) -> str:
        meta = by_name.get(name)
        return blurb(meta) if meta else "(no visible skill of this name in the corpus)"

    if args.json:
        doc = [
            {**p, "candidates": [{"name": n, "text": describe(n)} for n in p["candidates"]]}
            for p in pooled
        ]
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    else:
        lines = []
        for p in pooled:
            lines.append(f"## {p['n']}. {p['query']}")
            lines.extend(f"- {n}: {describe(n)}" for n in p["candidates"])
            lines.append("")
        text = "\n".join(lines)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
        sizes = [len(p["candidates"]) for p in pooled]
        print(f"{len(pooled)} requests, {sum(sizes)} candidates (max {max(sizes)}) -> {args.out}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
