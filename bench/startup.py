"""Start-up benchmark: whole ``skilldeck`` commands in fresh processes, against Python itself.

Usage::

    python bench/startup.py [--skills 50] [--rounds 15] [--json]

A private ``SKILLDECK_HOME`` names one root of ``--skills`` real SKILL.md files
sampled from ``../shared/corpus`` (plus the bundled skills) in its user config
file; one listing fills the metadata cache first, so the commands run warm, as
they do day to day. Each contender is a whole process started by this script,
timed from outside: CPU (user + system of the child, from ``wait4``) and wall
time. Rounds are interleaved (A B C ... A B C ...), so load from other
processes hits every contender alike; medians are printed with ratios against
``python -c pass`` (the floor of any Python command line).

Yardsticks: ``import click`` and ``import click, msgspec`` (the command line's
framework and the cache decoder: what any command that lists skills imports),
and the standard-library modules a warm listing needs (``dataclasses``,
``pathlib``, ``json``, ``hashlib``, ``tomllib``, ``threading``) plus
``platformdirs``.
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

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
STDLIB = "import dataclasses, pathlib, json, hashlib, tomllib, threading, platformdirs"


def skilldeck_command() -> list[str]:
    """The console script beside this interpreter, else ``python -m skilldeck``."""
    script = Path(sys.executable).with_name("skilldeck")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skilldeck"]


def write_root(root: Path, count: int, corpus: Path, seed: int = 7) -> str:
    """``count`` corpus SKILL.md files as ``skill-NNNN`` folders; returns one skill's name."""
    samples = []
    for md in sorted(corpus.rglob("SKILL.md")):
        text = md.read_bytes().decode("utf-8", "replace")
        if text.startswith("---") and re.search(r"(?m)^name:", text):
            samples.append(text)
    rng = random.Random(seed)
    for i in range(count):
        name = f"skill-{i:04d}"
        text = re.sub(r"(?m)^name:.*$", f"name: {name}", rng.choice(samples), count=1)
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text, encoding="utf-8")
    return "skill-0000"


def run_once(argv: list[str], env: dict[str, str]) -> dict[str, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} failed ({proc.returncode}): {err.decode(errors='replace')}")
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        parser.error(f"{args.corpus} is not a folder (the corpus of real skills)")

    work = Path(tempfile.mkdtemp(prefix="skilldeck-startup-"))
    try:
        home = work / "home"
        root = work / "skills"
        one = write_root(root, args.skills, args.corpus)
        (home / "config").mkdir(parents=True)
        (home / "config" / "config.toml").write_text(
            f"[catalog]\nroots = [{json.dumps(str(root))}]\n", encoding="utf-8"
        )
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SKILLDECK_", "XDG_")) and k != "PYTHONDONTWRITEBYTECODE"
        }
        env |= {"SKILLDECK_HOME": str(home), "HOME": str(work), "NO_COLOR": "1"}
        cli = skilldeck_command()
        py = [sys.executable]
        contenders: dict[str, list[str]] = {
            "python -c pass": [*py, "-c", "pass"],
            "import click": [*py, "-c", "import click"],
            "import click, msgspec": [*py, "-c", "import click, msgspec"],
            "stdlib a listing needs": [*py, "-c", STDLIB],
            "skilldeck --version": [*cli, "--version"],
            "skilldeck list": [*cli, "list"],
            "skilldeck list --json": [*cli, "list", "--json"],
            f"skilldeck show {one}": [*cli, "show", one],
        }
        os.chdir(work)  # no project config of the caller's folder
        time.sleep(1.1)  # files changed within a second of a scan are not cached
        for warm in (contenders["skilldeck list"], contenders[f"skilldeck show {one}"]):
            run_once(warm, env)  # fills the metadata cache (and writes bytecode)
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in contenders}
        for _ in range(args.rounds):
            for name, cmd in contenders.items():
                runs[name].append(run_once(cmd, env))
    finally:
        os.chdir(Path(__file__).parent)
        shutil.rmtree(work, ignore_errors=True)

    base = statistics.median(r["cpu"] for r in runs["python -c pass"])
    results: dict[str, Any] = {}
    for name, rs in runs.items():
        cpu = statistics.median(r["cpu"] for r in rs)
        results[name] = {
            "cpu_median": cpu,
            "cpu_min": min(r["cpu"] for r in rs),
            "wall_median": statistics.median(r["wall"] for r in rs),
            "vs_python": cpu / base if base else float("nan"),
        }
    if args.json:
        print(json.dumps({"skills": args.skills, "rounds": args.rounds, "results": results}))
        return 0
    print(
        f"{args.skills} corpus skills + the bundled ones, warm cache; {args.rounds} rounds "
        f"interleaved; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(f"{'':34}{'cpu min':>9}{'median':>9}{'wall med':>10}{'/python':>9}")
    for name, r in results.items():
        print(
            f"{name:<34}{r['cpu_min'] * 1000:>9.1f}{r['cpu_median'] * 1000:>9.1f}"
            f"{r['wall_median'] * 1000:>10.1f}{r['vs_python']:>8.1f}x"
        )
    print("(times in ms; ratios of CPU medians against python -c pass)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
