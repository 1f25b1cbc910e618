"""``skilldeck serve`` start-up against a minimal server on the same MCP SDK.

Usage::

    python bench/serve_startup.py [--skills 200] [--rounds 10] [--json]

Each contender is a fresh process spoken to over stdio by this script: it writes
``initialize``, ``notifications/initialized`` and ``tools/list`` at once, and times
(wall) the arrival of the ``initialize`` reply and of the ``tools/list`` reply from
the spawn; then it closes stdin and takes the child's CPU (user + system, from
``wait4``). Rounds are interleaved (A B C A B C ...), so load from other processes
hits every contender alike; medians are printed with ratios against the minimal
server.

Contenders:

- ``python -c pass``: the interpreter alone (the floor of any command);
- ``minimal MCPServer``: ``mcp.server.mcpserver.MCPServer`` with one tool over stdio,
  the least any Python server on this SDK does;
- ``skilldeck serve --root``: ``--skills`` real SKILL.md files sampled from
  ``../shared/corpus`` (generated ones without it), warm (the snapshot and metadata
  caches of a previous start), ``--no-watch``;
- ``skilldeck serve --root (cold)``: the same with empty caches.

Target (a headless host's first turn sees the tools): warm ``serve`` answers
``initialize`` and ``tools/list`` within 1.2x the minimal server's wall time.
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

MINIMAL = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("minimal")


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


server.run("stdio")
'''

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
REQUESTS = "".join(
    json.dumps(m) + "\n"
    for m in (
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    )
)


def write_root(root: Path, count: int, corpus: Path, seed: int = 7) -> str:
    """``count`` SKILL.md files (corpus samples when present) as ``skill-NNNN`` folders."""
    samples = []
    if corpus.is_dir():
        for md in sorted(corpus.rglob("SKILL.md")):
            text = md.read_bytes().decode("utf-8", "replace")
            if text.startswith("---") and re.search(r"(?m)^name:", text):
                samples.append(text)
    origin = f"{count} corpus skills" if samples else f"{count} generated skills (no corpus)"
    if not samples:
        samples = ["---\nname: x\ndescription: A generated skill for the benchmark\n---\n\nBody\n"]
    rng = random.Random(seed)
    for i in range(count):
        name = f"skill-{i:04d}"
        text = re.sub(r"(?m)^name:.*$", f"name: {name}", rng.choice(samples), count=1)
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text, encoding="utf-8")
    return origin


def run_once(argv: list[str], env: dict[str, str], speak: bool) -> dict[str, float]:
    """Spawn ``argv``; with ``speak``, time the two replies; CPU of the whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    out: dict[str, float] = {}
    if speak:
        proc.stdin.write(REQUESTS)
        proc.stdin.flush()
        for key, wanted in (("initialize", 1), ("tools/list", 2)):
            while True:
                line = proc.stdout.readline()
                if not line:
                    raise SystemExit(f"{argv} ended before answering {key}")
                if json.loads(line).get("id") == wanted:
                    out[key] = time.perf_counter() - start
                    break
    proc.stdin.close()
    proc.stdout.read()
    _pid, _status, usage = os.wait4(proc.pid, 0)
    out["cpu"] = usage.ru_utime + usage.ru_stime
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="skilldeck-serve-startup-"))
    try:
        root = work / "skills"
        origin = write_root(root, args.skills, args.corpus)
        minimal = work / "minimal.py"
        minimal.write_text(MINIMAL, encoding="utf-8")
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SKILLDECK_", "XDG_")) and k != "PYTHONDONTWRITEBYTECODE"
        }
        warm_env = base | {"SKILLDECK_HOME": str(work / "warm"), "HOME": str(work)}
        cold_home = work / "cold"
        cold_env = base | {"SKILLDECK_HOME": str(cold_home), "HOME": str(work)}
        py = sys.executable
        serve = [py, "-m", "skilldeck", "serve", "--no-watch", "--root", str(root)]
        contenders: dict[str, tuple[list[str], dict[str, str], bool]] = {
            "python -c pass": ([py, "-c", "pass"], base, False),
            "minimal MCPServer": ([py, str(minimal)], base, True),
            "skilldeck serve --root": (serve, warm_env, True),
            "skilldeck serve --root (cold)": (serve, cold_env, True),
        }
        os.chdir(work)  # no project config of the caller's folder
        time.sleep(1.1)  # files changed within a second of a scan are not cached
        for cmd, env, speak in contenders.values():
            run_once(cmd, env, speak)  # bytecode, and the warm caches
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in contenders}
        for _ in range(args.rounds):
            for name, (cmd, env, speak) in contenders.items():
                if env is cold_env:
                    shutil.rmtree(cold_home, ignore_errors=True)
                runs[name].append(run_once(cmd, env, speak))
    finally:
        os.chdir(Path(__file__).parent)
        shutil.rmtree(work, ignore_errors=True)

    ref = runs["minimal MCPServer"]
    ref_med = {k: statistics.median(r[k] for r in ref) for k in ref[0]}
    results: dict[str, Any] = {"skills": origin, "rounds": args.rounds, "contenders": {}}
    for name, rows in runs.items():
        row: dict[str, Any] = {}
        for key in rows[0]:
            value = statistics.median(r[key] for r in rows)
            row[f"{key}_ms"] = round(value * 1000, 1)
            row[f"{key}_ratio"] = round(value / ref_med[key], 2) if key in ref_med else None
        results["contenders"][name] = row
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{origin}, {args.rounds} interleaved rounds, medians; ratios to the minimal server")
    print(f"{'contender':32} {'initialize':>16} {'tools/list':>16} {'CPU':>16}")
    for name, row in results["contenders"].items():
        cells = []
        for key in ("initialize", "tools/list", "cpu"):
            if f"{key}_ms" in row:
                ratio = row[f"{key}_ratio"]
                cells.append(f"{row[f'{key}_ms']:8.0f} ms {ratio:4.2f}x")
            else:
                cells.append(f"{'-':>16}")
        print(f"{name:32} " + " ".join(f"{c:>16}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
