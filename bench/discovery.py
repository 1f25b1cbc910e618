"""Discovery benchmark: listing 1,000 / 10,000 / 100,000 real skills, cold and warm.

Usage::

    python bench/discovery.py [--sizes 1000,10000,100000] [--rounds 5] [--json]

Each root holds N folders ``skill-000000`` ... whose SKILL.md is a whole SKILL.md
file sampled from ``../shared/corpus`` (frontmatter and body), its ``name:``
rewritten to match the folder. Trees are written once under ``--work`` and reused.

Every contender runs in a fresh process and times only its work (imports
excluded): wall time, CPU time (its own and its worker processes') and the
process's peak RSS. Rounds are interleaved (A B C ... A B C ...) so that load
from other processes hits every contender alike; min and median are printed,
with ratios against the plain loop and the ``os.stat`` floor.

- ``floor: stat``: list the root, ``os.stat`` each SKILL.md (what any cache
  that notices edits must do at least);
- ``floor: read``: list the root, read the first 16 KiB of each SKILL.md;
- ``plain loop``: read a 64 KiB prefix, split the frontmatter, libyaml's
  ``CSafeLoader`` (no validation: the strongest naive baseline);
- ``skills-ref`` / ``agentskills-fs``: the peers' own listing (``read_properties``
  per folder; ``discover`` + ``get_metadata``), each from a throwaway venv made
  once under ``--work`` (agentskills-fs needs Python 3.12+);
- ``skilldeck cold``: ``Catalog.from_roots([root]).list()`` with an empty cache
  (2 worker processes on a large root), and with ``SKILLDECK_WORKERS=0``;
- ``skilldeck warm``: the same with the cache in place;
- ``skilldeck refresh``: in one process, ``refresh()`` and ``list()`` of a
  catalog that listed the root already (nothing changed), min of 5;
- ``tier 1``: ``render_xml`` of every listed skill with a 50,000-character
  budget, in one process, min of 5.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve()
CORPUS = BENCH.parents[2] / "shared" / "corpus"
PEER_PYTHONS = (
    "python3.13",
    "python3.12",
    "~/.pyenv/versions/3.13*/bin/python",
    "~/.pyenv/versions/3.12*/bin/python",
)

# ------------------------------------------------------------------ the trees


def corpus_files(corpus: Path = CORPUS) -> list[str]:
    """Every corpus SKILL.md with a frontmatter holding ``name:``, as text."""
    out = []
    for md in sorted(corpus.rglob("SKILL.md")):
        text = md.read_bytes().decode("utf-8", "replace")
        if text.lstrip("\ufeff").startswith("---") and re.search(r"(?m)^name:", text):
            out.append(text)
    return out


def make_tree(root: Path, count: int, samples: list[str], seed: int = 7) -> None:
    rng = random.Random(seed)
    tmp = root.with_name(root.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for i in range(count):
        name = f"skill-{i:06d}"
        text = re.sub(r"(?m)^name:.*$", f"name: {name}", rng.choice(samples), count=1)
        os.mkdir(tmp / name)
        with open(tmp / name / "SKILL.md", "w", encoding="utf-8") as fh:
            fh.write(text)
    os.replace(tmp, root)


# ------------------------------------------------------------------ contenders
# Each runs in a fresh process (``--run NAME``); the peers' runs import only the
# standard library and their own package.


def _folders(root: str) -> list[str]:
    return sorted(e.path for e in os.scandir(root) if e.is_dir())


def run_floor_stat(root: str, cache: str) -> int:
    n = 0
    for e in os.scandir(root):
        os.stat(e.path + "/SKILL.md")
        n += 1
    return n


def run_floor_read(root: str, cache: str) -> int:
    n = 0
    for e in os.scandir(root):
        with open(e.path + "/SKILL.md", "rb") as fh:
            n += bool(fh.read(16384))
    return n


def run_plain_loop(root: str, cache: str) -> int:
    import yaml

    ok = 0
    for folder in _folders(root):
        with open(folder + "/SKILL.md", "rb") as fh:
            text = fh.read(65536).decode("utf-8", "replace")
        if not text.startswith("---"):
            continue
        end = text.find("\n---", 3)
        try:
            data = yaml.load(text[3:end], Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            continue
        ok += isinstance(data, dict)
    return ok


def run_skills_ref(root: str, cache: str) -> int:
    import skills_ref

    ok = 0
    for folder in _folders(root):
        try:
            skills_ref.read_properties(Path(folder))
            ok += 1
        except Exception:
            continue
    return ok


def run_agentskills_fs(root: str, cache: str) -> int:
    import asyncio

    from agentskills_fs import LocalFileSystemSkillProvider

    async def main() -> int:
        provider = LocalFileSystemSkillProvider(Path(root))
        ok = 0
        for skill_id in await provider.discover():
            try:
                await provider.get_metadata(skill_id)
                ok += 1
            except Exception:
                continue
        return ok

    return asyncio.run(main())


def _catalog(root: str, cache: str) -> Any:
    from skilldeck import Catalog

    return Catalog.from_roots([root], cache=cache)


def run_skilldeck(root: str, cache: str) -> int:
    return len(_catalog(root, cache).list())


def run_skilldeck_refresh(root: str, cache: str) -> dict[str, float]:
    cat = _catalog(root, cache)
    cat.list()
    best = float("inf"), float("inf")
    for _ in range(5):
        w, c = time.perf_counter(), time.process_time()
        cat.refresh()
        cat.list()
        best = min(best[0], time.perf_counter() - w), min(best[1], time.process_time() - c)
    return {"wall": best[0], "cpu": best[1], "count": len(cat.list())}


def run_tier1(root: str, cache: str) -> dict[str, float]:
    from skilldeck.disclosure import render_xml

    metas = _catalog(root, cache).list()
    best = float("inf"), float("inf")
    for _ in range(5):
        w, c = time.perf_counter(), time.process_time()
        render_xml(metas, budget=50_000)
        best = min(best[0], time.perf_counter() - w), min(best[1], time.process_time() - c)
    return {"wall": best[0], "cpu": best[1], "count": len(metas)}


RUNNERS = {
    "floor-stat": run_floor_stat,
    "floor-read": run_floor_read,
    "plain-loop": run_plain_loop,
    "skills-ref": run_skills_ref,
    "agentskills-fs": run_agentskills_fs,
    "skilldeck-cold": run_skilldeck,
    "skilldeck-cold-1": run_skilldeck,
    "skilldeck-warm": run_skilldeck,
    "skilldeck-refresh": run_skilldeck_refresh,
    "tier1-budget": run_tier1,
}

LABELS = {
    "floor-stat": "floor: stat",
    "floor-read": "floor: read 16 KiB",
    "plain-loop": "plain loop (CSafeLoader)",
    "skills-ref": "skills-ref 0.1.1",
    "agentskills-fs": "agentskills-fs 0.7.0",
    "skilldeck-cold": "skilldeck cold",
    "skilldeck-cold-1": "skilldeck cold, no workers",
    "skilldeck-warm": "skilldeck warm (new process)",
    "skilldeck-refresh": "skilldeck refresh (in process)",
    "tier1-budget": "tier 1, 50k-char budget",
}


def worker(name: str, root: str, cache: str) -> None:
    """Time one contender's work in this (fresh) process; print JSON."""
    import resource

    fn = RUNNERS[name]
    if name.startswith("skilldeck") or name == "tier1-budget":
        import skilldeck._catalog  # noqa: F401  (imports are not work)
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(root, cache)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += kids.ru_utime + kids.ru_stime
    if isinstance(out, dict):
        wall, cpu, count = out["wall"], out["cpu"], int(out["count"])
    else:
        count = out
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:  # ru_maxrss survives exec on Linux (the parent's peak): read this process's own
        with open("/proc/self/status") as fh:
            rss = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration, ValueError):
        pass
    print(json.dumps({"wall": wall, "cpu": cpu, "count": count, "rss": rss}))


# ------------------------------------------------------------------ driver


def _python_312() -> str | None:
    """An interpreter of Python 3.12 or later (agentskills-fs needs one)."""
    import glob

    for pattern in PEER_PYTHONS:
        for cand in sorted(glob.glob(os.path.expanduser(pattern))) or [shutil.which(pattern)]:
            if not cand:
                continue
            check = [cand, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"]
            if subprocess.run(check, capture_output=True).returncode == 0:
                return cand
    return None


def peer_python(work: Path, name: str) -> str | None:
    """The interpreter of a throwaway venv holding the peer (made once)."""
    venv = work / f"venv-{name}"
    py = venv / "bin" / "python"
    if py.exists():
        return str(py)
    base = sys.executable if name == "skills-ref" else _python_312()
    if base is None:
        return None
    package = {"skills-ref": "skills-ref==0.1.1", "agentskills-fs": "agentskills-fs==0.7.0"}[name]
    try:
        subprocess.run([base, "-m", "venv", str(venv)], check=True, capture_output=True)
        subprocess.run(
            [str(py), "-m", "pip", "install", "-q", package], check=True, capture_output=True
        )
    except (OSError, subprocess.CalledProcessError):
        shutil.rmtree(venv, ignore_errors=True)
        return None
    return str(py)


def run_one(
    python: str, name: str, root: Path, cache: Path, env: dict[str, str]
) -> dict[str, Any] | None:
    proc = subprocess.run(
        [python, str(BENCH), "--run", name, "--root", str(root), "--cache", str(cache)],
        capture_output=True,
        text=True,
        env=env,
        timeout=3600,
    )
    if proc.returncode != 0:
        sys.stderr.write(f"{name} failed:\n{proc.stderr[-2000:]}\n")
        return None
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def measure(
    root: Path, work: Path, rounds: int, peers: bool, contenders: list[str]
) -> dict[str, Any]:
    cache = work / "cache"
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("SKILLDECK_WORKERS", None)
    pythons = dict.fromkeys(contenders, sys.executable)
    for peer in ("skills-ref", "agentskills-fs"):
        if peer in pythons:
            py = peer_python(work, peer) if peers else None
            if py is None:
                del pythons[peer]
            else:
                pythons[peer] = py
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in pythons}
    for _ in range(rounds):
        for name, py in pythons.items():
            run_env = dict(env)
            if name.startswith("skilldeck-cold"):
                shutil.rmtree(cache, ignore_errors=True)
            if name == "skilldeck-cold-1":
                run_env["SKILLDECK_WORKERS"] = "0"
            if name in ("skilldeck-warm", "skilldeck-refresh", "tier1-budget"):
                run_one(sys.executable, "skilldeck-warm", root, cache, env)  # cache in place
            res = run_one(py, name, root, cache, run_env)
            if res is not None:
                runs[name].append(res)
    out: dict[str, Any] = {}
    for name, rs in runs.items():
        if not rs:
            continue
        out[name] = {
            "wall_min": min(r["wall"] for r in rs),
            "wall_median": statistics.median(r["wall"] for r in rs),
            "cpu_min": min(r["cpu"] for r in rs),
            "cpu_median": statistics.median(r["cpu"] for r in rs),
            "rss_max": max(r["rss"] for r in rs),
            "count": rs[-1]["count"],
            "rounds": len(rs),
        }
    return out


def report(size: int, res: dict[str, Any]) -> str:
    load = os.getloadavg()[0]
    lines = [
        f"\n{size:,} skills (whole corpus SKILL.md files); load average {load:.1f} "
        f"on {os.cpu_count()} cores; rounds interleaved, fresh processes, work time only",
        f"{'':32}{'wall min':>9}{'median':>9}{'cpu min':>9}{'median':>9}"
        f"{'/loop wall':>11}{'/loop cpu':>10}{'/stat cpu':>10}{'peak RSS':>10}{'listed':>8}",
    ]
    loop = res.get("plain-loop")
    floor = res.get("floor-stat")
    for name, label in LABELS.items():
        r = res.get(name)
        if r is None:
            continue
        vs_loop_w = f"{r['wall_median'] / loop['wall_median']:.2f}x" if loop else "n/a"
        vs_loop_c = f"{r['cpu_median'] / loop['cpu_median']:.2f}x" if loop else "n/a"
        vs_stat = f"{r['cpu_median'] / floor['cpu_median']:.2f}x" if floor else "n/a"
        lines.append(
            f"{label:<32}{r['wall_min'] * 1000:>8.1f} {r['wall_median'] * 1000:>8.1f}"
            f"{r['cpu_min'] * 1000:>9.1f}{r['cpu_median'] * 1000:>9.1f}"
            f"{vs_loop_w:>11}{vs_loop_c:>10}{vs_stat:>10}{r['rss_max']:>8.0f}Mi{r['count']:>8}"
        )
    lines.append("(times in ms; ratios of medians; peak RSS includes imports)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--work", type=Path, default=Path(tempfile.gettempdir()) / "skilldeck-bench"
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--contenders", default=",".join(RUNNERS))
    parser.add_argument("--peers-up-to", type=int, default=10_000, help="skip peers above this")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--run", help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        worker(args.run, args.root, args.cache)
        return 0
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus} is not a folder (the corpus of real skills)")
    samples = corpus_files(args.corpus)
    args.work.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"samples": len(samples), "sizes": {}}
    for size in (int(s) for s in args.sizes.split(",")):
        root = args.work / f"tree-{size}"
        if not root.is_dir():
            make_tree(root, size, samples)
        contenders = args.contenders.split(",")
        res = measure(
            root,
            args.work / f"run-{size}",
            max(1, args.rounds if size < 100_000 else min(args.rounds, 3)),
            size <= args.peers_up_to,
            contenders,
        )
        results["sizes"][size] = res
        if not args.json:
            print(report(size, res), flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
