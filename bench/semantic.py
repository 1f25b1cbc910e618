"""Semantic backend benchmark: the first search of a fresh process, with and without
the skill embeddings saved beside the search index.

Usage::

    python bench/semantic.py --embedder MODEL [--skills 10000] [--rounds 3] [--json]

``MODEL`` is what ``load_embedder`` takes (``path:DIR`` or an installed id). N real skills (whole
corpus skill folders, names rewritten, as ``bench/_trees.py`` makes them) are
listed once so the catalog cache and the saved search index are in place. Then,
in fresh processes, interleaved rounds, work time after the imports:

- ``lexical``: the first ``skills_search`` without a model (the reference);
- ``model-load``: ``load_embedder(MODEL)`` alone;
- ``hybrid-saved``: model load + the first ``skills_search`` with the skill
  embeddings saved by an earlier process;
- ``hybrid-embed``: the same when they are not saved (every skill embedded, then
  saved): the cost a second process avoids (run first, which also saves the
  embeddings the other contenders load, then again in each round after the first).

Prints min and median wall and CPU seconds, peak RSS, and the size of the saved
embeddings; ratios against ``lexical``; and for ``lexical`` and ``hybrid-saved`` the
CPU of each later request in the same process (the median of the ``REQUESTS``
below, each searched once after the first search).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

CONTENDERS = ("lexical", "model-load", "hybrid-saved", "hybrid-embed")
QUERY = {"query": "someone plugged a thumb drive into the finance PC"}
#: later requests, timed one by one after the first search
REQUESTS = (
    "merge two PDFs into one",
    "the budget file has broken cell references",
    "make an animated picture for our team chat",
    "why does my site not show up in Google results",
    "what's the weather in Paris",
    "review everything on my branch before I merge it",
    "rotate the database credentials every month",
    "write release notes from the merged pull requests",
    "tell me a joke",
    "find secrets committed to our repositories",
    "set up a Kafka consumer group",
    "translate this chapter into French",
)


def run_one(name: str, root: str, cache: str, model: str) -> dict[str, float]:
    """One contender in this (fresh) process."""
    import resource

    import skilldeck
    from skilldeck.search import load_embedder

    if name == "hybrid-embed":
        for saved in (Path(cache) / "search").glob("*.embeddings.npz"):
            saved.unlink()
    t0, c0 = time.perf_counter(), time.process_time()
    embedder = load_embedder(model) if name != "lexical" else None
    count = 0
    if name != "model-load":
        catalog = skilldeck.Catalog.from_roots([root], cache=cache)
        runtime = skilldeck.SkillRuntime(catalog, embedder=embedder)
        session = runtime.session()
        env = runtime.call(session, "skills_search", QUERY)
        count = len(env["data"]["results"])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = {"wall": wall, "cpu": cpu, "count": count, "rss_mib": rss}
    if name in ("lexical", "hybrid-saved"):
        each = []
        for query in REQUESTS:
            c1 = time.process_time()
            runtime.call(session, "skills_search", {"query": query})
            each.append((time.process_time() - c1) * 1000)
        out["request_cpu_ms"] = statistics.median(each)
    return out


def measure(n: int, rounds: int, model: str) -> dict[str, dict[str, float]]:
    import _trees

    with tempfile.TemporaryDirectory() as tmp:
        root, cache = _trees.tree(Path(tmp), n), Path(tmp) / "cache"

        def child(name: str) -> dict[str, float]:
            args = ["--run", name, "--root", str(root), "--cache", str(cache)]
            proc = subprocess.run(
                [sys.executable, __file__, *args, "--embedder", model],
                capture_output=True,
                text=True,
                check=True,
                timeout=3600,
            )
            result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
            return result

        child("lexical")  # the catalog cache and the saved index in place
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in CONTENDERS}
        # every skill embedded (and saved): its first sample puts the embeddings in place
        runs["hybrid-embed"].append(child("hybrid-embed"))
        for round_ in range(rounds):
            for name in CONTENDERS:
                if name != "hybrid-embed" or round_ > 0:  # embedding is minutes of CPU
                    runs[name].append(child(name))
        saved = sum(f.stat().st_size for f in (cache / "search").glob("*.embeddings.npz"))
    out: dict[str, dict[str, float]] = {}
    for name, rs in runs.items():
        out[name] = {
            "wall_min": round(min(r["wall"] for r in rs), 4),
            "wall_median": round(statistics.median(r["wall"] for r in rs), 4),
            "cpu_min": round(min(r["cpu"] for r in rs), 4),
            "rss_mib": round(max(r["rss_mib"] for r in rs), 1),
        }
        later = [r["request_cpu_ms"] for r in rs if "request_cpu_ms" in r]
        if later:
            out[name]["request_cpu_ms"] = round(statistics.median(later), 2)
    base = out["lexical"]["wall_min"]
    for figures in out.values():
        figures["vs_lexical"] = round(figures["wall_min"] / base, 2) if base else 0.0
    out["saved_embeddings"] = {"bytes": saved}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--embedder", required=True, metavar="MODEL")
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--run", choices=CONTENDERS, help=argparse.SUPPRESS)
    ap.add_argument("--root", help=argparse.SUPPRESS)
    ap.add_argument("--cache", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        print(json.dumps(run_one(args.run, args.root, args.cache, args.embedder)))
        return 0
    figures = measure(args.skills, args.rounds, args.embedder)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"== first skills_search over {args.skills} skills, fresh processes, work time")
    heads = ("wall min", "median", "cpu min", "rss MiB", "x lex")
    print(f"{'contender':<14} " + " ".join(f"{h:>8}" for h in heads))
    for name in CONTENDERS:
        f = figures[name]
        print(
            f"{name:<14} {f['wall_min']:8.3f} {f['wall_median']:8.3f} {f['cpu_min']:8.3f} "
            f"{f['rss_mib']:8.1f} {f['vs_lexical']:8.2f}"
        )
    for name in CONTENDERS:
        if "request_cpu_ms" in figures[name]:
            ms = figures[name]["request_cpu_ms"]
            print(f"{name}: a later request {ms:.2f} ms of CPU (median of {len(REQUESTS)})")
    print(f"saved embeddings: {figures['saved_embeddings']['bytes'] / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
