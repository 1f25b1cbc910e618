"""What one file read costs in a small and in a large skill.

Usage: ``python bench/read_cost.py [--reads N] [--files N] [--json]``

Builds two skill folders: ``small`` (5 files) and ``large`` (``--files``, default 3,000,
in ``scripts/``, ``references/`` and deeper folders), each holding the same 6-byte
``references/note.md``. For each skill, in a fresh process (the warm catalog a host
keeps), it times ``Catalog.read_file(skill, "references/note.md")`` N times and reports
the median wall time and the mean CPU time per read, next to the strongest naive
baseline: ``open(path).read()`` of the same file (no checks). The target is that a read
in the large skill costs within 2x of the same read in the small one: a read is decided
from its path and SKILL.md's links, never by walking the skill.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

_CHILD = textwrap.dedent(
    """
    import json, os, resource, statistics, sys, time
    from skilldeck import Catalog

    root, name, reads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cat = Catalog.from_roots([root])
    path = os.path.join(root, name, "references", "note.md")

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def measure(fn):
        fn()
        times = []
        c0 = cpu()
        for _ in range(reads):
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1000)
        return statistics.median(times), (cpu() - c0) * 1000 / reads

    def ours():
        assert cat.read_file(name, "references/note.md") == b"note!\\n"

    def naive():
        with open(path, "rb") as fh:
            assert fh.read() == b"note!\\n"

    print(json.dumps({"skilldeck": measure(ours), "naive": measure(naive)}))
    """
)


def _skill(root: Path, name: str, files: int) -> None:
    folder = root / name
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: A {name} skill for the read benchmark.\n---\n\n"
        "See [the note](references/note.md).\n"
    )
    (folder / "references" / "note.md").write_text("note!\n")
    made = 2
    n = 0
    while made < files:
        sub = folder / ("scripts" if n % 3 == 0 else f"data/part{n % 40}")
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{n}.txt").write_text("x\n")
        made += 1
        n += 1


def _run(root: Path, name: str, reads: int) -> dict[str, list[float]]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), name, str(reads)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    data: dict[str, list[float]] = json.loads(out)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--files", type=int, default=3_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skilldeck-bench-read-") as tmp:
        root = Path(tmp)
        _skill(root, "small", 5)
        _skill(root, "large", args.files)
        got: dict[str, list[dict[str, list[float]]]] = {"small": [], "large": []}
        for _ in range(args.rounds):  # interleaved fresh processes
            for name in got:
                got[name].append(_run(root, name, args.reads))
    result = {
        name: {
            way: {
                "wall_ms": statistics.median(r[way][0] for r in rounds),
                "cpu_ms": statistics.median(r[way][1] for r in rounds),
            }
            for way in ("skilldeck", "naive")
        }
        for name, rounds in got.items()
    }
    small, large = result["small"]["skilldeck"], result["large"]["skilldeck"]
    ratio = {k: large[k] / small[k] for k in ("wall_ms", "cpu_ms")}
    if args.json:
        print(json.dumps({"files": args.files, "result": result, "large_over_small": ratio}))
        return
    print(f"one 6-byte read, median of {args.rounds} fresh processes x {args.reads} reads")
    print(f"{'skill':<22}{'wall ms':>10}{'cpu ms':>10}{'naive wall':>12}{'x naive':>9}")
    for name, files in (("small", 5), ("large", args.files)):
        ours, naive = result[name]["skilldeck"], result[name]["naive"]
        print(
            f"{name + f' ({files} files)':<22}{ours['wall_ms']:>10.3f}{ours['cpu_ms']:>10.3f}"
            f"{naive['wall_ms']:>12.4f}{ours['wall_ms'] / naive['wall_ms']:>9.1f}"
        )
    print(f"large / small: wall {ratio['wall_ms']:.2f}x, cpu {ratio['cpu_ms']:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
