"""``skilldeck serve`` from spawn to the full ``skills/list`` of 2,000 real skills.

Usage::

    python bench/serve_startup.py [--skills 2000] [--rounds 7] [--before PYTHON]
                                  [--after-list] [--instructions] [--json]

Each server is a fresh process spoken to over stdio by this script (plain
JSON-RPC lines, no SDK in the driver): ``initialize``, ``notifications/initialized``,
then ``skills/list`` page after page until no ``nextCursor`` is left; then stdin is
closed and the process's CPU (user + system, from ``wait4``, so its exit counts), its
wall time and its peak RSS are taken; the CPU it had used when the last page arrived
(``/proc``) is printed below the table. Rounds are interleaved; min and median; CPU
ratios against the reference in the same run:

- ``import MCP SDK server + client``: ``python -c "import mcp.server.mcpserver;
  from mcp import Client"`` (what a Python MCP server cannot avoid);
- ``skilldeck serve`` warm: the snapshot and metadata caches of a previous start
  (goal: <= 1.2x the reference's CPU); cold: empty caches (goal: <= 2x);
  with ``--after-list``, also after ``skilldeck list`` (untimed) filled the catalog's
  metadata cache of empty caches: the first ``serve`` after a listing, which has no
  kept snapshot and no kept frontmatter.

The skills are ``--skills`` renamed corpus skill folders with their resources and
links (``_trees``). ``--before PYTHON``: the same servers from another
installation's interpreter, interleaved with these. ``--instructions``: after the timed
rounds, each contender once more under callgrind (valgrind), the instructions of the
process and of every process it forked (the cold scan's parse workers) added up; unlike
CPU time they barely move with the machine's load. Run it with the interpreter of an
installation as users have it (``pip install 'skilldeck[all]'``): the dev extras also
install rich, which the SDK's server imports whenever it can.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import _measure
import _trees

SDK = "import mcp.server.mcpserver; from mcp import Client"
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"extensions": {"io.modelcontextprotocol/skills": {}}},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def list_all(argv: list[str], env: dict[str, str], wrap: Sequence[str] = ()) -> dict[str, float]:
    """Spawn a server (under ``wrap``), page through skills/list, stop it; CPU, wall,
    RSS, count."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*wrap, *argv], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"{argv} ended before answering {message['method']}")
            reply: dict[str, Any] = json.loads(line)
            if reply.get("id") == message["id"]:
                return reply

    ask(INIT)
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    count, cursor, n = 0, None, 0
    while True:
        n += 1
        params = {"cursor": cursor} if cursor else {}
        reply = ask({"jsonrpc": "2.0", "id": n, "method": "skills/list", "params": params})
        count += len(reply["result"]["skills"])
        cursor = reply["result"].get("nextCursor")
        if not cursor:
            break
    wall = time.perf_counter() - start
    listed = _cpu_so_far(proc.pid)
    proc.stdin.close()
    proc.stdout.read()
    _pid, _status, usage = os.wait4(proc.pid, 0)
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall,
            "rss": usage.ru_maxrss / 1024, "count": count, "listed": listed}  # fmt: skip


def instructions(run: Callable[[list[str]], object]) -> float | None:
    """Millions of instructions ``run(wrap)`` executes under callgrind, with those of
    every process it forks (``None``: no valgrind)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        # a forked child inherits the counts made before the fork: dumping them there
        # (and starting again from zero) counts each instruction once
        run(
            [valgrind, "--tool=callgrind", "--dump-before=*fork",
             f"--callgrind-out-file={tmp}/out.%p"]
        )  # fmt: skip
        total = 0
        for name in os.listdir(tmp):
            with open(os.path.join(tmp, name), encoding="utf-8") as fh:
                for line in fh:
                    if line.startswith(("totals:", "summary:")):
                        total += int(line.split()[1])
                        break
    return total / 1e6


def _empty(caches: Path | None, listing: list[str] | None, env: dict[str, str]) -> None:
    """Empty ``caches`` (if given), then run ``listing`` (if given) to fill the catalog's."""
    if caches is not None:
        shutil.rmtree(caches, ignore_errors=True)
    if listing is not None:
        subprocess.run(listing, env=env, stdout=subprocess.DEVNULL, check=True)


def _cpu_so_far(pid: int) -> float:
    """CPU (user + system) a running process used so far, with that of the children it
    has waited for, such as the catalog's parse workers (``/proc``; NaN without it)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--before", help="another skilldeck's Python, run beside this one")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "sd-bench")
    parser.add_argument("--corpus", type=Path, default=_trees.CORPUS)
    parser.add_argument("--instructions", action="store_true", help="also count them (valgrind)")
    parser.add_argument(
        "--after-list", action="store_true", help="also serve after `skilldeck list` (untimed)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    root = _trees.tree(args.work, args.skills, args.corpus)
    work = Path(tempfile.mkdtemp(prefix="skilldeck-serve-startup-"))
    try:
        # bytecode caches are written and used, as in a user's installation
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SKILLDECK_", "XDG_")) and k != "PYTHONDONTWRITEBYTECODE"
        }
        base |= {"HOME": str(work)}
        ref = "import MCP SDK server + client"
        cs: dict[str, _measure.Contender] = {
            ref: _measure.Contender([sys.executable, "-c", SDK], base)
        }
        # name -> (command, environment, the caches emptied before each run, the listing
        # run after emptying them)
        servers: dict[str, tuple[list[str], dict[str, str], Path | None, list[str] | None]] = {}
        installs = [("", sys.executable)] + ([("before: ", args.before)] if args.before else [])
        for label, python in installs:
            serve = [python, "-m", "skilldeck", "serve", "--no-watch", "--root", str(root)]
            warm, cold = work / f"warm{len(label)}", work / f"cold{len(label)}"
            servers[label + "skilldeck serve, warm"] = (
                serve,
                base | {"SKILLDECK_HOME": str(warm)},
                None,
                None,
            )
            cold_env = base | {"SKILLDECK_HOME": str(cold)}
            servers[label + "skilldeck serve, cold"] = (serve, cold_env, cold, None)
            if args.after_list:
                listed_home = work / f"listed{len(label)}"
                listing = [python, "-m", "skilldeck", "list", "--root", str(root)]
                servers[label + "skilldeck serve, after list"] = (
                    serve,
                    base | {"SKILLDECK_HOME": str(listed_home)},
                    listed_home,
                    listing,
                )
        os.chdir(work)  # no project config of the caller's folder
        for cmd, env, _, _ in servers.values():
            list_all(cmd, env)  # bytecode and the warm caches
        _measure.run_once(cs[ref])
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in servers}
        listed: dict[str, list[float]] = {name: [] for name in servers}
        counts: dict[str, float] = {}
        for _ in range(args.rounds):
            cs[ref].results.append(_measure.run_once(cs[ref]))
            for name, (cmd, env, empty, listing) in servers.items():
                _empty(empty, listing, env)
                r = list_all(cmd, env)
                counts[name] = r.pop("count")
                listed[name].append(r.pop("listed"))
                runs[name].append(r)
        for name, rs in runs.items():
            cs[name] = _measure.Contender([], results=rs)
        counted: dict[str, float | None] = {}
        if args.instructions:
            sdk = [sys.executable, "-c", SDK]
            counted[ref] = instructions(
                lambda wrap: subprocess.run(
                    [*wrap, *sdk], env=base, stderr=subprocess.DEVNULL, check=True
                )
            )
            for name, (cmd, env, empty, listing) in servers.items():
                _empty(empty, listing, env)
                counted[name] = instructions(partial(list_all, cmd, env))
    finally:
        os.chdir(Path(__file__).parent)
        shutil.rmtree(work, ignore_errors=True)
    shown = ", ".join(f"{int(v)}" for v in set(counts.values()))
    text, data = _measure.table(
        f"skilldeck serve, spawn to the full skills/list ({shown} skills listed) of "
        f"{args.skills} corpus skills with resources; {args.rounds} rounds", cs, ref,
    )  # fmt: skip
    # the CPU up to the last page (the table's includes the exit, as a client waits for it)
    ref_min, ref_med = data[ref]["cpu_min"], data[ref]["cpu_median"]
    notes = []
    for name, values in listed.items():
        low, mid = min(values), statistics.median(values)
        data[name]["listed_cpu_min"], data[name]["listed_cpu_median"] = low, mid
        notes.append(
            f"{name[:40]:<40}{low * 1000:>9.1f}{mid * 1000:>9.1f}"
            f"{low / ref_min:>12.2f}x{mid / ref_med:>7.2f}x"
        )
    if args.json:
        print(json.dumps(data | {"instructions_m": counted}, indent=2))
    else:
        print(text)
        print("CPU when the last page arrived (before stdin closes), ms min / median, / ref:")
        print("\n".join(notes))
        if counted:
            print("instructions (callgrind, one run each, forked processes included), M, / ref:")
            for name, m in counted.items():
                if m is None:
                    print(f"{name[:40]:<40}  (no valgrind)")
                    continue
                ratio = m / counted[ref] if counted[ref] else float("nan")
                print(f"{name[:40]:<40}{m:>10,.0f}{ratio:>9.2f}x")
        print("goals: warm <= 1.2x, cold <= 2x the reference's CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
