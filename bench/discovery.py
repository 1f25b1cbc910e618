"""Discovery benchmark: listing N skills cold and warm, against two baselines.

Usage::

    python bench/discovery.py [--skills 10000] [--render 1000] [--repeat 3] [--json]

Generates N skill folders (``skill-00000`` ...) whose frontmatter is sampled from
``../shared/corpus`` (the name rewritten to match the folder; synthetic
frontmatter when the corpus is absent), then times, in this process:

- ``cold``: a new ``Catalog`` with an empty metadata cache lists every skill
  (scan, bounded read and parse of each SKILL.md, status);
- ``warm (new catalog)``: a new ``Catalog`` over the same unchanged files, served
  from the persisted cache (what a fresh process pays after its imports);
- ``warm (refresh)``: ``refresh()`` of a catalog that already listed them;
- ``plain loop``: for each folder, read a 64 KiB prefix of SKILL.md, split the
  frontmatter and ``yaml.load`` it with libyaml's ``CSafeLoader``;
- ``skills-ref``: the reference library's ``read_properties`` on each folder;
- tier 1: ``render_xml`` of the first ``--render`` skills, without and with a
  budget.

The figures are the minimum of ``--repeat`` runs (the OS page cache is warm in
every case: only skilldeck's own cache differs between cold and warm).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from skilldeck import Catalog, render_xml

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"

TARGETS = {"cold": 0.4, "warm_new": 0.05, "warm_refresh": 0.05, "tier1": 0.010}

_SYNTHETIC = [
    "description: {desc}\nlicense: MIT\n",
    'description: "{desc}"\nmetadata:\n  version: 1.0.0\n  author: bench\n',
    "description: >\n  {desc}\n  Use it when asked.\nallowed-tools: Read Grep Bash(git:*)\n",
]


def _corpus_frontmatters(limit: int = 5000) -> list[str]:
    out: list[str] = []
    if not CORPUS.is_dir():
        return out
    for md in sorted(CORPUS.rglob("SKILL.md"))[:limit]:
        text = md.read_text("utf-8", "replace").lstrip("\ufeff").replace("\r\n", "\n")
        if not text.startswith("---\n"):
            continue
        end = text.find("\n---", 4)
        if end < 0:
            continue
        fm = text[4 : end + 1]
        # keep every field but the name, which must match the generated folder
        fm = re.sub(r"(?m)^name:.*\n(?:[ \t]+.*\n)*", "", fm)
        if "description" in fm:
            out.append(fm)
    return out


def generate(root: Path, count: int, seed: int = 7) -> str:
    """Write ``count`` skills under ``root``; returns where the frontmatter came from."""
    rng = random.Random(seed)
    samples = _corpus_frontmatters()
    origin = f"sampled from {len(samples)} corpus frontmatters" if samples else "synthetic"
    words = "parse render check convert summarise profile deploy review test plan".split()
    for i in range(count):
        name = f"skill-{i:05d}"
        if samples:
            fm = rng.choice(samples)
        else:
            desc = " ".join(rng.choice(words) for _ in range(rng.randint(8, 40)))
            fm = rng.choice(_SYNTHETIC).format(desc=desc.capitalize())
        folder = root / name
        folder.mkdir(parents=True)
        body = f"# {name}\n\n" + "Step one. Step two.\n" * rng.randint(5, 60)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\n{fm}---\n{body}", "utf-8")
    return origin


def _cpu() -> float:
    """CPU seconds of this process and of its finished (waited-for) children."""
    t = os.times()
    return time.process_time() + t.children_user + t.children_system


def best(
    fn: Callable[[], Any], repeat: int, setup: Callable[[], Any] | None = None
) -> dict[str, float]:
    """The fastest of ``repeat`` runs: wall time and this process's CPU time.

    On a loaded machine the CPU time is the figure to compare (wall time then
    includes waiting for a core). It includes the CPU time of child processes
    (a cold scan of a large root parses in worker processes), so with workers
    it can exceed the wall time.
    """
    runs = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        c0 = _cpu()
        t0 = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t0, _cpu() - c0))
    return {"wall": min(r[0] for r in runs), "cpu": min(r[1] for r in runs)}


def plain_loop(root: Path) -> int:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    ok = 0
    for entry in os.scandir(root):
        try:
            with open(os.path.join(entry.path, "SKILL.md"), "rb") as fh:
                text = fh.read(65536).decode("utf-8", "replace")
        except OSError:
            continue
        if not text.startswith("---"):
            continue
        end = text.find("\n---", 3)
        try:
            data = yaml.load(text[3:end], Loader=loader)
        except yaml.YAMLError:
            continue
        ok += isinstance(data, dict)
    return ok


def skills_ref_loop(root: Path) -> int:
    import skills_ref

    ok = 0
    for entry in os.scandir(root):
        try:
            skills_ref.read_properties(Path(entry.path))
            ok += 1
        except Exception:
            continue
    return ok


def run(count: int, render: int, repeat: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="skilldeck-bench-"))
    try:
        root = work / "skills"
        origin = generate(root, count)
        cache = work / "cache"

        def fresh_cache() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        def listing() -> int:
            return len(Catalog.from_roots([root], cache=cache).list())

        visible = listing()
        res: dict[str, Any] = {"skills": count, "frontmatter": origin, "visible": visible}
        res["cold"] = best(listing, repeat, setup=fresh_cache)
        listing()  # fill the persisted cache
        res["warm_new"] = best(listing, repeat)
        cat = Catalog.from_roots([root], cache=cache)
        cat.list()
        res["warm_refresh"] = best(cat.refresh, repeat)
        res["plain_loop"] = best(lambda: plain_loop(root), repeat)
        try:
            res["skills_ref"] = best(lambda: skills_ref_loop(root), max(1, repeat - 1))
        except ImportError:
            res["skills_ref"] = None
        metas = cat.list()[:render]
        res["render_n"] = len(metas)
        res["tier1"] = best(lambda: render_xml(metas), repeat * 3)
        res["tier1_budget"] = best(lambda: render_xml(metas, budget=50_000), repeat * 3)
        return res
    finally:
        shutil.rmtree(work, ignore_errors=True)


def corpus_run(repeat: int) -> dict[str, Any] | None:
    """The real corpus as one recursive root: cold and warm listing, counts per status."""
    if not CORPUS.is_dir():
        return None
    work = Path(tempfile.mkdtemp(prefix="skilldeck-bench-corpus-"))
    cache = work / "cache"
    try:

        def listing() -> Catalog:
            cat = Catalog.from_roots([CORPUS], recursive=True, cache=cache)
            cat.entries()
            return cat

        out: dict[str, Any] = {}
        out["cold"] = best(listing, repeat, setup=lambda: shutil.rmtree(cache, True))
        listing()
        out["warm_new"] = best(listing, repeat)
        cat = listing()
        out["warm_refresh"] = best(cat.refresh, repeat)
        counts: dict[str, int] = {}
        for entry in cat.entries():
            counts[entry.status.value] = counts.get(entry.status.value, 0) + 1
        out["counts"] = counts
        out["diagnostics"] = len(cat.diagnostics)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report(res: dict[str, Any]) -> str:
    def ms(x: dict[str, float] | None, kind: str) -> str:
        return "n/a" if x is None else f"{x[kind] * 1000:8.1f}"

    def ratio(base: dict[str, float] | None, ours: dict[str, float]) -> str:
        return "n/a" if base is None else f"{base['cpu'] / ours['cpu']:.1f}x"

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        f"{res['skills']} skills ({res['frontmatter']}), {res['visible']} visible; "
        f"load average {load:.1f} on {os.cpu_count()} cores",
        "",
        f"{'':28}{'wall ms':>8} {'cpu ms':>8}  loop/ours  ref/ours  target (cpu)",
    ]
    for key, label in (
        ("cold", "cold (empty cache)"),
        ("warm_new", "warm (new catalog)"),
        ("warm_refresh", "warm (refresh)"),
    ):
        ours = res[key]
        target = TARGETS[key]
        flag = (
            "ok" if ours["cpu"] <= target else f"MISSED by {(ours['cpu'] - target) * 1000:.0f} ms"
        )
        lines.append(
            f"{label:<28}{ms(ours, 'wall')} {ms(ours, 'cpu')}  "
            f"{ratio(res['plain_loop'], ours):>9} {ratio(res['skills_ref'], ours):>9}"
            f"  {target * 1000:.0f} ms: {flag}"
        )
    lines.append(
        f"{'plain loop (CSafeLoader)':<28}{ms(res['plain_loop'], 'wall')} "
        f"{ms(res['plain_loop'], 'cpu')}"
    )
    lines.append(
        f"{'skills-ref read_properties':<28}{ms(res['skills_ref'], 'wall')} "
        f"{ms(res['skills_ref'], 'cpu')}"
    )
    t1 = res["tier1"]
    flag = "ok" if t1["cpu"] <= TARGETS["tier1"] else "MISSED"
    lines.append("")
    lines.append(
        f"tier 1 (XML) of {res['render_n']} skills: {ms(t1, 'cpu').strip()} ms cpu; with a "
        f"50,000-char budget: {ms(res['tier1_budget'], 'cpu').strip()} ms cpu; "
        f"target 10 ms: {flag}"
    )
    corpus = res.get("corpus")
    if corpus:
        counts = ", ".join(f"{n} {k}" for k, n in sorted(corpus["counts"].items()))
        lines.append("")
        lines.append(
            f"corpus as one recursive root: {counts}; {corpus['diagnostics']} root diagnostics"
        )
        for key in ("cold", "warm_new", "warm_refresh"):
            lines.append(
                f"  {key:<14}{ms(corpus[key], 'wall')} ms wall {ms(corpus[key], 'cpu')} ms cpu"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--render", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    res = run(args.skills, args.render, args.repeat)
    res["corpus"] = corpus_run(args.repeat)
    print(json.dumps(res, indent=2) if args.json else report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
