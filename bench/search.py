"""Search benchmark: the first search of a new process, and the builtin BM25 index
against the ``bm25s`` library.

Usage::

    python bench/search.py [--skills 10000] [--queries 200] [--runtime] [--json]
    python bench/search.py --first 10000 [--rounds 3] [--before PYTHON]
    python bench/search.py --same PYTHON [--first 10000]

Reports, for each backend, the time to index N synthetic skills, the median and
95th-percentile query latency, and recall@5 / recall@1 on the labelled query set
of ``tests/runtime/searchdata.py`` (generated plus bundled skills), then the
ratios bm25s / builtin. With ``../shared/corpus`` present it also times the real
corpus (frontmatter descriptions only). ``--runtime`` also writes the synthetic
skills as folders and times ``runtime.call(session, "skills_search", ...)`` end to end
(catalog listing, index reuse, envelope), after a first call has built the index.

``--first N`` times, in fresh processes and interleaved rounds, over N real
skills with their resources (``bench/_trees.py``: corpus skill folders copied
with the corpus's links restored, renamed; resource files are hard links), the
work after the imports, CPU (the catalog's parse workers included)
and wall, min and median, and peak RSS (imports included):

- ``plain loop``: read a 64 KiB prefix of every SKILL.md and parse its
  frontmatter with libyaml's ``CSafeLoader`` (the reference);
- ``first search, nothing saved``: ``skills_search`` through a new
  ``SkillRuntime`` with an empty cache folder (listing and index built);
- ``search, saved index``: the same with the catalog cache and the saved index;
- ``search, one skill changed``: one SKILL.md edited since the index was saved.

``--same PYTHON`` checks that another installation ranks exactly alike over the
``--first`` tree (default 10,000 skills): each builds its index with nothing saved,
then loads it saved, and answers every request of the routing sets
(``bench/data/routing*.jsonl``) and of ``tests/runtime/searchdata.py``; every hit's
name, score (to the bit), confidence and matched words must be equal.

The tree and a copy of the corpus with its links are made once under ``--work``.
``--before PYTHON`` runs the skilldeck rows again, interleaved, with another
installation's Python (its own cache folder), printed below as ``before:``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
sys.path.insert(0, str(REPO / "tests" / "runtime"))
sys.path.insert(0, str(REPO / "bench"))

if TYPE_CHECKING:
    from skilldeck.search._bm25 import SearchDocument

BACKENDS = ("builtin", "bm25s")


def _bundled_docs() -> list[SearchDocument]:
    import searchdata as sd
    import yaml

    from skilldeck.search._bm25 import SearchDocument, extract_headings

    docs = []
    for name in sd.BUNDLED:
        text = (REPO / "src" / "skilldeck" / "_bundled" / name / "SKILL.md").read_text("utf-8")
        _, fm, body = text.split("---", 2)
        meta = yaml.safe_load(fm)
        docs.append(SearchDocument(meta["name"], meta["description"], (), extract_headings(body)))
    return docs


def quality(backend: str) -> dict[str, float]:
    import searchdata as sd

    from skilldeck.search._bm25 import SearchDocument, SearchIndex

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
    from skilldeck.search._bm25 import SearchIndex

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
    import searchdata as sd

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
    import yaml

    from skilldeck.search._bm25 import SearchDocument, extract_headings

    corpus = CORPUS
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


# ------------------------------------------------------------------ --first: fresh processes

FIRST = ("plain-loop", "search-cold", "plain-loop ", "search-saved", "search-one-changed")
LABELS = {
    "plain-loop": "plain loop (CSafeLoader)",
    "search-cold": "first search, nothing saved",
    "search-saved": "search, saved index",
    "search-one-changed": "search, one skill changed",
}
QUERY = "extract the tables from a PDF"


def run_first(name: str, root: str, cache: str) -> dict[str, float]:
    """One contender in this (fresh) process; work time after the imports."""
    name = name.strip()
    if name == "plain-loop":
        import yaml  # noqa: F401 - the loop's import, outside the timing
        from discovery import PLAIN_LOOP

        sys.argv[1:] = [root]
        loop = compile(PLAIN_LOOP, "plain-loop", "exec")
    else:
        import skilldeck
    t0, c0 = time.perf_counter(), time.process_time()
    if name == "plain-loop":
        scope: dict[str, object] = {"__name__": "plain_loop"}
        exec(loop, scope)
        count = int(scope["ok"])  # type: ignore[call-overload]
    else:
        runtime = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=cache))
        env = runtime.call(runtime.session(), "skills_search", {"query": QUERY})
        count = len(env["data"]["results"])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    import resource

    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the catalog's parse workers
    cpu += kids.ru_utime + kids.ru_stime
    with open("/proc/self/status") as fh:  # ru_maxrss would count the parent's peak
        rss = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM:")) / 1024
    return {"wall": wall, "cpu": cpu, "count": count, "rss": rss}


def _requests() -> list[str]:
    """The requests ``--same`` asks: the routing sets', the labelled set's, and some
    that expand a prefix or name a skill."""
    import searchdata as sd

    out = []
    for path in sorted((REPO / "bench" / "data").glob("routing*.jsonl")):
        with open(path, encoding="utf-8") as fh:
            out.extend(json.loads(line)["query"] for line in fh if line.strip())
    out += [q for q, _ in sd.QUERIES]
    return [*out, "spreadsh", "kubernet", "skill-000001", "pdf", "présentation ıstanbul"]


def rankings(root: str, cache: str) -> list[list[list[object]]]:
    """Every request's hits (name, score as hex, confidence, matched words), with the
    index built when nothing is saved under ``cache`` and loaded when it is."""
    import skilldeck

    runtime = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=cache))
    index = runtime.search_index()
    return [
        [[h.name, h.score.hex(), h.confidence, list(h.matched)] for h in index.search(q, limit=10)]
        for q in _requests()
    ]


def same(n: int, work: Path, corpus: Path, other: str) -> int:
    """Compare this installation's rankings with ``other``'s (see the docstring)."""
    import subprocess

    import _trees

    root = _trees.tree(work, n, corpus)
    got: dict[str, list[object]] = {}
    for label, python in (("this", sys.executable), ("other", other)):
        cache = work / f"cache-same-{label}"
        shutil.rmtree(cache, ignore_errors=True)
        for state in ("built", "saved"):
            proc = subprocess.run(
                [python, __file__, "--run", "rankings", "--root", str(root), "--cache", str(cache)],
                capture_output=True,
                text=True,
                check=True,
                timeout=3600,
            )
            got[f"{label} {state}"] = json.loads(proc.stdout.strip().splitlines()[-1])
    requests = _requests()
    base = got["other built"]
    bad = 0
    for key, results in got.items():
        for query, mine, theirs in zip(requests, results, base, strict=True):
            if mine != theirs:
                bad += 1
                if bad <= 5:
                    print(f"{key} differs for {query!r}:\n  {mine}\n  {theirs}")
    hits = sum(len(r) for r in base)
    print(
        f"{len(requests)} requests over {n:,} skills, {hits} hits each: "
        + ("identical (built and saved, both installations)" if not bad else f"{bad} differ")
    )
    return 1 if bad else 0


def _touch_one(root: Path) -> None:
    """Append a line to one skill's body (a changed skill, the rest as saved)."""
    md = next(p for p in sorted(root.iterdir()) if p.is_dir()) / "SKILL.md"
    with open(md, "a", encoding="utf-8") as fh:
        fh.write("\nOne more line about extracting tables.\n")


def first_search(
    n: int, rounds: int, work: Path, corpus: Path, before: str | None = None
) -> dict[str, dict[str, float]]:
    import subprocess

    import _trees

    root = _trees.tree(work, n, corpus)  # renamed corpus folders, resources and links
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    installs = [("", sys.executable)] + ([("before: ", before)] if before else [])

    def child(python: str, name: str, cache: Path) -> dict[str, float]:
        proc = subprocess.run(
            [python, __file__, "--run", name, "--root", str(root), "--cache", str(cache)],
            capture_output=True,
            text=True,
            check=True,
            timeout=3600,
            env=env,
        )
        result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
        return result

    runs: dict[str, list[dict[str, float]]] = {}
    for _ in range(rounds):
        for name in FIRST:
            for label, python in installs if name.strip() != "plain-loop" else [("", "")]:
                key = label + name.strip()
                cache = work / f"cache-{n}{'-before' if label else ''}"
                if name == "search-cold":
                    shutil.rmtree(cache, ignore_errors=True)
                elif name == "search-saved":
                    child(python, "search-saved", cache)  # everything saved for this state
                elif name == "search-one-changed" and not label:
                    _touch_one(root)  # (the installation before sees the same change)
                runs.setdefault(key, []).append(child(python or sys.executable, name, cache))
    out = {}
    for name, rs in runs.items():
        out[name] = {
            "wall_min": min(r["wall"] for r in rs),
            "wall_median": statistics.median(r["wall"] for r in rs),
            "cpu_min": min(r["cpu"] for r in rs),
            "cpu_median": statistics.median(r["cpu"] for r in rs),
            "rss_max": max(r["rss"] for r in rs),
            "count": rs[-1]["count"],
        }
    return out


def first_report(n: int, res: dict[str, dict[str, float]]) -> str:
    loop = res["plain-loop"]
    lines = [
        f"{n:,} real skills with their resources; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores; fresh processes, interleaved rounds, work time (imports "
        "excluded), peak RSS with imports",
        f"{'':32}{'wall min':>9}{'median':>9}{'cpu min':>9}{'median':>9}"
        f"{'/loop wall':>11}{'/loop cpu':>10}{'peak RSS':>10}",
    ]
    rows = list(LABELS.items())
    rows += [(f"before: {n}", f"before: {label}") for n, label in LABELS.items()]
    for name, label in rows:
        r = res.get(name)
        if r is None:
            continue
        lines.append(
            f"{label:<32}{r['wall_min'] * 1000:>8.0f} {r['wall_median'] * 1000:>8.0f}"
            f"{r['cpu_min'] * 1000:>9.0f}{r['cpu_median'] * 1000:>9.0f}"
            f"{r['wall_median'] / loop['wall_median']:>10.2f}x"
            f"{r['cpu_median'] / loop['cpu_median']:>9.2f}x{r['rss_max']:>8.0f}Mi"
        )
    lines.append("(times in ms; ratios of medians)")
    return "\n".join(lines)


def main() -> None:
    if "--run" in sys.argv:  # a child process of --first
        child = argparse.ArgumentParser()
        child.add_argument("--run")
        child.add_argument("--root")
        child.add_argument("--cache")
        a = child.parse_args()
        if a.run == "rankings":
            print(json.dumps(rankings(a.root, a.cache)))
            return
        print(json.dumps(run_first(a.run, a.root, a.cache)))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--runtime", action="store_true", help="also time skills_search end to end")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--first", type=int, metavar="N", help="time the first search over N skills")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "skilldeck-bench-search"
    )
    ap.add_argument("--corpus", type=Path, help="the corpus (its links are restored in a copy)")
    ap.add_argument("--before", help="with --first: another skilldeck's Python, interleaved")
    ap.add_argument("--same", metavar="PYTHON", help="check another installation ranks alike")
    args = ap.parse_args()
    if args.same:
        corpus = args.corpus or CORPUS
        raise SystemExit(same(args.first or 10_000, args.work, corpus, args.same))
    if args.first:
        figures = first_search(
            args.first, args.rounds, args.work, args.corpus or CORPUS, args.before
        )
        if args.json:
            print(json.dumps(figures, indent=2))
            return
        print(first_report(args.first, figures))
        return

    import searchdata as sd

    from skilldeck.search._bm25 import SearchDocument

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
    cdocs = corpus_docs() if CORPUS.is_dir() else []
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
