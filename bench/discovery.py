"""Listing 10,000 and 100,000 real skills, cold and warm, in fresh processes.

Usage::

    python bench/discovery.py [--sizes 10000,100000] [--rounds 7] [--before PYTHON] [--json]

Trees: N folders ``skill-NNNNNN``, each a whole corpus skill folder (SKILL.md and
its scripts, references, assets and links, restored with ``with-links``), its
``name:`` rewritten to the folder's name (``_trees``); made once under ``--work``.

Every contender is a whole process timed from outside, imports counted: CPU (from
``wait4``), wall, peak RSS; rounds interleaved; min and median; ratios of CPU
against the reference of its row in the same run:

- ``floor: stat``: list the root, ``os.stat`` each SKILL.md (what any cache that
  notices edits must do at least) — the reference of the warm listing;
- ``plain loop``: read a 64 KiB prefix of each SKILL.md, split the frontmatter,
  libyaml's ``CSafeLoader`` (no validation) — the reference of the cold listing;
- ``skilldeck warm``: ``Catalog.from_roots([root], cache=...).list()`` with the
  cache in place (goal: <= 2.5x the stat floor at 10,000);
- ``skilldeck cold``: the same with an empty cache (goal: <= 1.2x the plain loop);
- ``skilldeck list`` / ``list --json --root``: the command line, warm, output to
  /dev/null (goal at 100,000: peak RSS <= 150 MiB both).

``--before PYTHON``: the skilldeck rows again with another installation's
interpreter, interleaved with these.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import _measure
import _trees

BENCH = Path(__file__).resolve()

FLOOR_STAT = """
import os, sys
for e in os.scandir(sys.argv[1]):
    if not e.name.startswith("."):
        os.stat(e.path + "/SKILL.md")
"""

PLAIN_LOOP = """
import os, sys, yaml
ok = 0
for folder in sorted(e.path for e in os.scandir(sys.argv[1]) if e.is_dir()):
    with open(folder + "/SKILL.md", "rb") as fh:
        text = fh.read(65536).decode("utf-8", "replace")
    if not text.startswith("---"):
        continue
    end = text.find("\\n---", 3)
    try:
        data = yaml.load(text[3:end], Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        continue
    ok += isinstance(data, dict)
"""

SKILLDECK = """
import sys
from skilldeck import Catalog
Catalog.from_roots([sys.argv[1]], cache=sys.argv[2]).list()
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--before", help="another skilldeck's Python, run beside this one")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "sd-bench")
    parser.add_argument("--corpus", type=Path, default=_trees.CORPUS)
    parser.add_argument(
        "--only", default="", help="comma-separated words: keep the rows naming one of them"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    scratch = Path(tempfile.mkdtemp(prefix="skilldeck-discovery-"))
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            root = _trees.tree(args.work, size, args.corpus)
            # bytecode is written and kept, as an installation has it
            env = {
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("SKILLDECK_", "XDG_")) and k != "PYTHONDONTWRITEBYTECODE"
            }
            env |= {"HOME": str(scratch), "NO_COLOR": "1"}
            py = sys.executable
            loop = "plain loop (CSafeLoader)"
            cs: dict[str, _measure.Contender] = {
                "floor: stat": _measure.Contender([py, "-c", FLOOR_STAT, str(root)], env),
                loop: _measure.Contender([py, "-c", PLAIN_LOOP, str(root)], env),
            }
            ref_of: dict[str, str] = {}
            installs = [("", py)] + ([("before: ", args.before)] if args.before else [])
            for label, python in installs:
                tag = "b" if label else "a"
                cold, warm = scratch / f"cold-{tag}", scratch / f"warm-{tag}"
                home = scratch / f"home-{tag}"
                cs[label + "skilldeck warm"] = _measure.Contender(
                    [python, "-c", SKILLDECK, str(root), str(warm)], env
                )
                cs[label + "skilldeck cold"] = _measure.Contender(
                    [python, "-c", SKILLDECK, str(root), str(cold)],
                    env,
                    before=lambda cold=cold: shutil.rmtree(cold, ignore_errors=True),
                )
                ref_of[label + "skilldeck cold"] = loop
                cli = [python, "-m", "skilldeck", "list", "--root", str(root)]
                cli_env = env | {"SKILLDECK_HOME": str(home)}
                cs[label + "skilldeck list --root"] = _measure.Contender(cli, cli_env)
                cs[label + "skilldeck list --json --root"] = _measure.Contender(
                    [*cli, "--json"], cli_env
                )
            words = [w for w in args.only.split(",") if w]
            if words:
                cs = {k: c for k, c in cs.items() if any(w in k for w in words)}
            rounds = args.rounds if size < 100_000 else max(1, min(args.rounds, 3))
            _measure.rounds(cs, rounds)
            text, data = _measure.table(
                f"\n{size:,} corpus skills with their resources; {rounds} rounds",
                cs, "floor: stat", ref_of=ref_of,
            )  # fmt: skip
            results[str(size)] = data
            if not args.json:
                print(text, flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(
            "goals: warm <= 2.5x floor: stat at 10,000; cold <= 1.2x the plain loop; "
            "list and list --json at 100,000 <= 150 MiB peak RSS"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
