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
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import yaml

from skilldeck._search import SearchDocument, SearchIndex, extract_headings

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--runtime", action="store_true", help="also time skills_search end to end")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

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
