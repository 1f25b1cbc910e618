"""Start-up of ``skilldeck list`` and ``skilldeck show NAME`` against Python itself.

Usage::

    python bench/startup.py [--rounds 9] [--skills 0] [--before PYTHON] [--instructions] [--json]

Whole commands in fresh processes, timed from outside (CPU of the child from
``wait4``, wall, peak RSS), rounds interleaved; min and median, and the CPU ratio
against ``python -c pass`` (the floor of any Python command line) in the same run.
A private ``SKILLDECK_HOME`` and ``HOME`` hold no config, so the catalog is the
bundled skills (plus ``--skills N`` renamed corpus skills with their resources in
a user root); one untimed run of each fills the metadata cache, so the listings
run warm, as they do day to day. ``show`` parses its SKILL.md (it validates it).

Yardsticks: ``import click``, ``import yaml`` and both (the command line's
framework and the YAML parser); the libraries a warm listing imports before any
module of skilldeck (msgspec for the cache, dataclasses, pathlib, platformdirs,
tomllib, json, hashlib, threading), alone and with click. ``--before PYTHON``: the
same commands with another installation of skilldeck (a venv's interpreter),
interleaved with these. ``--instructions``: each command once more under
callgrind (valgrind), its instruction count beside ``python -c pass``'s: unlike CPU
time, the count does not move with the machine's load, so two versions compare
to a fraction of a percent on a busy host.

Goal: ``list`` and ``show`` within 6x ``python -c pass``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import _measure
import _trees

SHOW = "skill-authoring"  # a bundled skill
DEPS = "import msgspec, dataclasses, pathlib, platformdirs, tomllib, json, hashlib, threading"


def skilldeck_command(python: str) -> list[str]:
    """The console script beside ``python``, else ``python -m skilldeck``."""
    script = Path(python).with_name("skilldeck")
    return [str(script)] if script.exists() else [python, "-m", "skilldeck"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--skills", type=int, default=0, help="corpus skills in a user root")
    parser.add_argument("--before", help="another skilldeck's Python, run beside this one")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "sd-bench")
    parser.add_argument("--corpus", type=Path, default=_trees.CORPUS)
    parser.add_argument("--instructions", action="store_true", help="also count them (valgrind)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    counted: dict[str, float | None] = {}

    work = Path(tempfile.mkdtemp(prefix="skilldeck-startup-"))
    try:
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SKILLDECK_", "XDG_")) and k != "PYTHONDONTWRITEBYTECODE"
        }
        base |= {"HOME": str(work), "NO_COLOR": "1"}
        py = [sys.executable]
        contenders: dict[str, _measure.Contender] = {
            "python -c pass": _measure.Contender([*py, "-c", "pass"], base),
            "import click": _measure.Contender([*py, "-c", "import click"], base),
            "import yaml": _measure.Contender([*py, "-c", "import yaml"], base),
            "import click, yaml": _measure.Contender([*py, "-c", "import click, yaml"], base),
            "import what a listing needs": _measure.Contender([*py, "-c", DEPS], base),
            "import that + click": _measure.Contender([*py, "-c", DEPS + ", click"], base),
        }
        installs = [("", sys.executable)] + ([("before: ", args.before)] if args.before else [])
        for label, python in installs:
            home = work / f"home{len(label)}"
            (home / "skills").mkdir(parents=True)
            if args.skills:
                tree = _trees.tree(args.work, args.skills, args.corpus)
                (home / "config").mkdir()
                (home / "config" / "config.toml").write_text(
                    f"[catalog]\nroots = [{json.dumps(str(tree))}]\n", encoding="utf-8"
                )
            env = base | {"SKILLDECK_HOME": str(home)}
            cli = skilldeck_command(python)
            for words in (["list"], ["list", "--json"], ["show", SHOW]):
                contenders[label + "skilldeck " + " ".join(words)] = _measure.Contender(
                    [*cli, *words], env
                )
        os.chdir(work)  # no project config of the caller's folder
        _measure.rounds(contenders, args.rounds)
        if args.instructions:
            for name, c in contenders.items():
                if name == "python -c pass" or "skilldeck" in name:
                    counted[name] = _measure.instructions(c)
    finally:
        os.chdir(Path(__file__).parent)
        shutil.rmtree(work, ignore_errors=True)

    what = "bundled skills" + (f" + {args.skills} corpus skills" if args.skills else "")
    text, data = _measure.table(
        f"skilldeck start-up, {what}, warm cache; {args.rounds} rounds", contenders,
        "python -c pass",
    )  # fmt: skip
    if args.json:
        print(json.dumps({"rounds": args.rounds, "results": data, "instructions_m": counted}))
        return 0
    print(text)
    floor = counted.get("python -c pass")
    if counted and floor:
        print("instructions (callgrind, one run each; load does not change them)")
        for name, count in counted.items():
            shown = "no valgrind" if count is None else f"{count:8.1f} M  {count / floor:5.2f}x"
            print(f"  {name:40s} {shown}")
    print("goal: skilldeck list / show within 6x python -c pass (CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
