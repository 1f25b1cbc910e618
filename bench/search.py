"""Search benchmark: the builtin BM25 index against the ``bm25s`` library.

Usage::

    python bench/search.py [--skills 10000] [--queries 200] [--runtime] [--json]

Reports, for each backend, the time to index N synthetic skills, the median and
95th-percentile query latency, and recall@5 / recall@1 on the labelled query set
of ``tests/runtime/searchdata.py`` (generated plus bundled skills), then the
ratios bm25s / builtin. With ``../shared/corpus`` present it also times the real
corpus (frontmatter descriptions only). ``--runtime`` also writes the synthetic
skills as folders and times ``runtime.call(session, "skills_search", ...)`` end to end
(catalog listing, index reuse, envelope), after a first call has built the index.

``--first N`` times the first ``skills_search`` of a fresh process over N real
skills (whole corpus SKILL.md files, names rewritten, as ``bench/discovery.py``
makes them), with the catalog cache and the saved search index in place, against
the plain loop (prefix read + libyaml ``CSafeLoader`` of every frontmatter), and
the same first search when the index must be built. Fresh processes,
interleaved rounds, work time (imports excluded), min and median.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import yaml

from skilldeck.search._bm25 import SearchDocument, SearchIndex, extract_headings

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "runtime"))

import searchdata as sd  # noqa: E402

BACKENDS = ("builtin", "bm25s")


def _bundled_docs() -> list[SearchDocument]:
    docs = []
    for name in sd.BUNDLED:
        text = (REPO / "src" / "skilldeck" / "_bundled" / name / "SKILL.md").read_text("utf-8")
        _, fm, body = text.split("---", 2)
        meta = yaml.safe_load(fm)
        docs.append(SearchDocument(meta["name"], meta["description"], (), extract_headings(body)))
    return docs


def quality(backend: str) -> dict[str, float]:
    docs = [SearchDocument(n, d, t, h) for n, d, t, h in sd.GENERATED] + _bundled_docs()
    index = SearchIndex(docs, backend=backend)  # type: ignore[arg-type]
    at5 = at1 = 0
    for query, answers in sd.QUERIES:
        names = [h.name for h in index.search(query, limit=5)]
        at5 += bool(set(names) & set(answers))
        at1 += bool(names and names[0] in answers)
    n = len(sd.QUERIES)
    return {"queries": n, "recall_at_5": at5 / n, "recall_at_1": at1 / n}


def speed(backend: str, docs: list[SearchDocument], queries: list[str]) -> dict[str, float]:
    t0 = time.perf_counter()
    index = SearchIndex(docs, backend=backend)  # type: ignore[arg-type]
    build = time.perf_counter() - t0
    index.search(queries[0], limit=10)  # warm up
    lat = []
    for q in queries:
        t = time.perf_counter()
        index.search(q, limit=10)
        lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    return {
        "index_s": round(build, 3),
        "query_median_ms": round(statistics.median(lat), 3),
        "query_p95_ms": round(lat[int(len(lat) * 0.95) - 1], 3),
        "query_max_ms": round(lat[-1], 3),
    }


def runtime_speed(n: int, queries: list[str]) -> dict[str, float]:
    import tempfile

    from skilldeck import SkillRuntime

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "skills"
        root.mkdir()
        for name, desc, tags, heads in sd.make_synthetic(n):
            folder = root / name
            folder.mkdir()
            (folder / "SKILL.md").write_text(sd.skill_md(name, desc, tags, heads), "utf-8")
        runtime = SkillRuntime.from_roots([root])
        session = runtime.session()
        t0 = time.perf_counter()
        runtime.call(session, "skills_search", {"query": queries[0]})
        first = time.perf_counter() - t0
        lat = []
        for q in queries:
            t = time.perf_counter()
            env = runtime.call(session, "skills_search", {"query": q, "limit": 10})
            lat.append((time.perf_counter() - t) * 1000)
            assert env["ok"]
        lat.sort()
        return {
            "first_call_s": round(first, 3),
            "call_median_ms": round(statistics.median(lat), 3),
            "call_p95_ms": round(lat[int(len(lat) * 0.95) - 1], 3),
        }


def corpus_docs() -> list[SearchDocument]:
    corpus = REPO.parent / "shared" / "corpus"
    docs = []
    for md in sorted(corpus.rglob("SKILL.md")):
        try:
            text = md.read_text("utf-8", errors="replace")
            _, fm, body = text.split("---", 2)
            meta = yaml.safe_load(fm)
        except Exception:  # real-world files: skip what does not parse
            continue
        if isinstance(meta, dict) and isinstance(meta.get("description"), str):
            name = str(meta.get("name") or md.parent.name)
            docs.append(SearchDocument(name, meta["description"], (), extract_headings(body)))
    return docs


FIRST = ("plain-loop", "first-search-warm", "first-search-build")


def run_first(name: str, root: str, cache: str) -> dict[str, float]:
    """One contender in this (fresh) process; work time after the imports."""
    import resource

    if name == "plain-loop":
        import yaml  # noqa: F401 - the loop's import, outside the timing
        from discovery import run_plain_loop
    else:
        import skilldeck
    t0, c0 = time.perf_counter(), time.process_time()
    if name == "plain-loop":
        count = run_plain_loop(root, cache)
    else:
        if name == "first-search-build":
            import shutil

            shutil.rmtree(Path(cache) / "search", ignore_errors=True)
            t0, c0 = time.perf_counter(), time.process_time()
        runtime = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=cache))
        env = runtime.call(runtime.session(), "skills_search", {"query": "extract pdf tables"})
        count = len(env["data"]["results"])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"wall": wall, "cpu": cpu, "count": count, "rss_mib": rss}


def first_search(n: int, rounds: int) -> dict[str, dict[str, float]]:
    import subprocess
    import tempfile

    from discovery import corpus_files, make_tree

    with tempfile.TemporaryDirectory() as tmp:
        root, cache = Path(tmp) / "skills", Path(tmp) / "cache"
        make_tree(root, n, corpus_files())

        def child(name: str) -> dict[str, float]:
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--run",
                    name,
                    "--root",
                    str(root),
                    "--cache",
                    str(cache),
                ],
                capture_output=True,
                text=True,
                check=True,
                timeout=3600,
            )
            result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
            return result

        child("first-search-build")  # the catalog cache and the index in place
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in FIRST}
        for _ in range(rounds):
            for name in FIRST:
                runs[name].append(child(name))
                if name == "first-search-build":
                    child("first-search-warm")  # the index saved again
    out = {}
    for name, rs in runs.items():
        out[name] = {
            "wall_min": round(min(r["wall"] for r in rs), 4),
            "wall_median": round(statistics.median(r["wall"] for r in rs), 4),
            "cpu_min": round(min(r["cpu"] for r in rs), 4),
            "rss_mib": round(max(r["rss_mib"] for r in rs), 1),
        }
    base = out["plain-loop"]["wall_min"]
    for figures in out.values():
        figures["vs_plain_loop"] = round(figures["wall_min"] / base, 3) if base else 0.0
    return out


def main() -> None:
    if "--run" in sys.argv:  # a child process of --first
        sys.path.insert(0, str(REPO / "bench"))
        child = argparse.ArgumentParser()
        child.add_argument("--run")
        child.add_argument("--root")
        child.add_argument("--cache")
        a = child.parse_args()
        print(json.dumps(run_first(a.run, a.root, a.cache)))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--runtime", action="store_true", help="also time skills_search end to end")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--first", type=int, metavar="N", help="time the first search over N skills")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    if args.first:
        sys.path.insert(0, str(REPO / "bench"))
        figures = first_search(args.first, args.rounds)
        if args.json:
            print(json.dumps(figures, indent=2))
            return
        print(f"== first skills_search over {args.first} skills, fresh processes, work time")
        for name, f in figures.items():
            print(f"  {name:<20} " + ", ".join(f"{k}={v}" for k, v in f.items()))
        return

    synthetic = sd.make_synthetic(args.skills)
    docs = [SearchDocument(n, d, t, h) for n, d, t, h in synthetic]
    base_queries = [q for q, _ in sd.QUERIES] + [
        "compress archive backup",
        "deploy pipeline rollback",
        "dashboard metrics alert",
        "translate template",
        "encrypt sign verify token",
    ]
    queries = (base_queries * (args.queries // len(base_queries) + 1))[: args.queries]

    report: dict[str, dict[str, dict[str, float]]] = {}
    for backend in BACKENDS:
        report[backend] = {
            "quality": quality(backend),
            f"synthetic_{args.skills}": speed(backend, docs, queries),
        }
    cdocs = corpus_docs() if (REPO.parent / "shared" / "corpus").is_dir() else []
    if cdocs:
        for backend in BACKENDS:
            report[backend][f"corpus_{len(cdocs)}"] = speed(backend, cdocs, queries)

    ratios = {}
    for section, figures in report["builtin"].items():
        if section == "quality":
            continue
        ratios[section] = {
            k: round(report["bm25s"][section][k] / v, 2) if v else None for k, v in figures.items()
        }
    out: dict[str, object] = {"backends": report, "ratio_bm25s_over_builtin": ratios}
    if args.runtime:
        out["runtime_skills_search"] = runtime_speed(args.skills, queries)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for backend, sections in report.items():
        print(f"== {backend}")
        for section, figures in sections.items():
            print(f"  {section}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))
    print("== ratio bm25s / builtin (above 1: builtin is faster)")
    for section, figures in ratios.items():
        print(f"  {section}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))
    if args.runtime:
        figures = out["runtime_skills_search"]
        assert isinstance(figures, dict)
        print(f"== runtime skills_search over {args.skills} skill folders")
        print("  " + ", ".join(f"{k}={v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
