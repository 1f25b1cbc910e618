"""What running a script through skilldeck costs over running it directly.

Usage::

    python bench/run_overhead.py [--rounds 9] [--runs 20] [--host-processes 2000]
        [--before PYTHON] [--helper] [--instructions] [--json]

One trivial Python script (``print("hello")``) in one skill, run each way, CPU
(user + system of every process involved, from ``getrusage``/``wait4``) beside wall
time:

- ``python hello.py``: a fresh interpreter running the script (the floor of the CLI);
- ``skilldeck run``: the command line, ``skilldeck run --root R hello scripts/hello.py
  --yes`` in a fresh process (config, catalog, approval, copy of the skill, launch);
- ``bare``: ``subprocess.run([python, "-E", "-s", hello.py])`` from a warm process (the
  interpreter and flags the library uses), the floor of a library run;
- ``library none`` / ``library bubblewrap``: ``Executor.run`` of the skill as
  ``Catalog.runnable`` gives it (as ``skilldeck run`` and the MCP runtime do), from a warm
  process (one ``Executor``), without a sandbox and under bubblewrap (approval, the run's
  copy of the skill, plan, launch helper, capture);
- the three warm ways again while ``--host-processes`` extra sleeping processes
  (started by this script) exist, to show what a run costs on a busy host;
- ``--before PYTHON``: ``skilldeck run`` and the library ways again from another
  installation (``before: skilldeck run``, ``before: library none``, ...; its own
  config, data and cache folders), interleaved with these;
- ``--helper``: the compiled launch helper supervising ``/bin/true`` (as a run starts
  it, from its sealed copy) beside ``/bin/true`` alone, warm workers of ``--runs`` x 10
  runs (and the ``--before`` installation's helper);
- ``--instructions``: ``python hello.py`` and each ``skilldeck run`` once more under
  callgrind (valgrind), the instructions of the command's own process (its children,
  the launch helper and the script, are not counted): unlike CPU time, load barely
  moves them. Each library way too: a warm worker timing ``--runs`` runs less one
  timing none, per run (the worker's own threads; not the helper, bwrap or program).

Every sample is a fresh process started by this script: the command-line ways are
one run each; a warm way is a worker process that warms up, then times ``--runs``
runs and reports the mean per run, its own CPU (skilldeck's part) and its children's
(the launch helper, ``bwrap`` and the program) apart as well. Rounds are interleaved
(A B C ... A B C ...), so load from other processes hits every way alike; min and
median over the rounds are printed, and differences against the floor of each group
side by side.
Bytecode caches are written first and used (a user's installation has them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _measure

HELLO = 'print("hello")\n'
#: CPU (ms) a way may add to its floor (``python hello.py``, or ``bare``)
TARGETS = {"skilldeck run": 80.0, "library none": 3.0, "library bubblewrap": 8.0}
SKILL_MD = """---
name: hello
description: Prints hello; the skill the run benchmark runs.
---
Run scripts/hello.py.
"""

WORKER = r"""
import json, os, resource, subprocess, sys, time
way, folder, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
hello = os.path.join(folder, "hello.py")

def cpu():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime

if way == "bare":
    def once():
        subprocess.run([sys.executable, "-E", "-s", hello], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True)
elif way in ("true", "helper"):
    argv, fds = ["/bin/true"], ()
    if way == "helper":  # the launch helper supervising it, as a run starts it
        from skilldeck.execution._native import find_helper
        helper = find_helper()
        assert helper.kind == "native", helper.kind
        limits = ["0", "-1", "-1", "-1", "-1", "-1", "0"]
        argv = [*helper.argv, "3", "supervise", "-1", "-1", *limits, "-1", "0", "--", *argv]
        fds = helper.pass_fds
    def once():
        subprocess.run(argv, stdin=subprocess.DEVNULL, pass_fds=fds, check=True)
else:
    import skilldeck
    from skilldeck import execution
    catalog = skilldeck.Catalog.from_roots([os.path.join(folder, "skills")])
    executor = execution.Executor(
        execution.ExecConfig(sandbox="strict" if way == "bubblewrap" else "none"),
        approvals=execution.MemoryApprovalStore(),
    )
    def once():
        result = executor.run(catalog.runnable("hello"), "scripts/hello.py",
                              trust=catalog.trust("hello"), approver=lambda request: True)
        assert result.output == "hello\n", result.to_dict()

for _ in range(3):
    once()
time.sleep(0.2)  # folders of the warm-up runs are removed off the run's path
(h0, k0), t0 = cpu(), time.perf_counter()
for _ in range(runs):
    once()
wall = time.perf_counter() - t0
time.sleep(0.2)  # the removal of the last run's folders is the host's CPU too
h1, k1 = cpu()
per = max(runs, 1)  # no runs: what callgrind counts without them (--instructions)
print(json.dumps({"cpu_ms": (h1 - h0 + k1 - k0) * 1000 / per, "wall_ms": wall * 1000 / per,
                  "host_ms": (h1 - h0) * 1000 / per}))
"""


def _child_env(base: Path, state: str = "") -> dict[str, str]:
    """The environment of a timed process; ``state`` names its own state folders (an
    installation that keeps another cache format must not rewrite this one's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLDECK_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        SKILLDECK_CONFIG_DIR=str(base / state / "config"),
        SKILLDECK_DATA_DIR=str(base / state / "data"),
        SKILLDECK_CACHE_DIR=str(base / state / "cache"),
    )
    return env


def _skilldeck(python: str = sys.executable) -> list[str]:
    script = Path(python).with_name("skilldeck")
    return [str(script)] if script.exists() else [python, "-m", "skilldeck"]


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    """Wall time (ms) and output of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    out, err = proc.communicate()
    wall = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return wall, out


def _fresh(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """CPU and wall (ms) of one fresh process and what it reaped (``_measure``, from wait4)."""
    here = os.getcwd()
    os.chdir(cwd)
    try:
        got = _measure.run_once(_measure.Contender(argv, env))
    finally:
        os.chdir(here)
    return got["cpu"] * 1000, got["wall"] * 1000


def _worker(
    way: str, folder: Path, runs: int, env: dict[str, str], python: str = sys.executable
) -> tuple[float, float, float]:
    """CPU, wall and the worker's own CPU (without its children's) per run, in ms."""
    _, out = _timed([python, "-c", WORKER, way, str(folder), str(runs)], env, folder)
    data = json.loads(out.decode().strip().splitlines()[-1])
    return float(data["cpu_ms"]), float(data["wall_ms"]), float(data["host_ms"])


def _library_instructions(
    way: str, python: str, folder: Path, runs: int, env: dict[str, str]
) -> float | None:
    """Millions of instructions a warm worker's own process (every thread of it; not
    its children) executes per run: a worker timing ``runs`` runs less one timing none."""
    counts = [
        _measure.instructions(
            _measure.Contender([python, "-c", WORKER, way, str(folder), str(n)], env)
        )
        for n in (runs, 0)
    ]
    if counts[0] is None or counts[1] is None or runs < 1:
        return None
    return (counts[0] - counts[1]) / runs


def _sleepers(count: int) -> list[subprocess.Popen[bytes]]:
    return [
        subprocess.Popen(["sleep", "3600"], stdin=subprocess.DEVNULL, start_new_session=True)
        for _ in range(count)
    ]


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.send_signal(signal.SIGKILL)
    for proc in procs:
        proc.wait()


def _rounds(ways: dict[str, Any], rounds: int) -> dict[str, dict[str, list[float]]]:
    samples: dict[str, dict[str, list[float]]] = {w: {"cpu": [], "wall": []} for w in ways}
    for _ in range(rounds):
        for name, fn in ways.items():
            cpu, wall, *host = fn()
            samples[name]["cpu"].append(cpu)
            samples[name]["wall"].append(wall)
            if host:  # a warm worker: its own CPU and its children's apart
                samples[name].setdefault("host", []).append(host[0])
                samples[name].setdefault("children", []).append(cpu - host[0])
    return samples


def _summary(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values)}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--runs", type=int, default=20, help="runs per warm worker")
    parser.add_argument("--host-processes", type=int, default=2000)
    parser.add_argument("--before", help="another skilldeck's Python, run beside this one")
    parser.add_argument("--helper", action="store_true", help="also the launch helper alone")
    parser.add_argument("--instructions", action="store_true", help="also count them (valgrind)")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()

    import skilldeck
    from skilldeck.execution import probe_sandbox

    subprocess.run(
        # skilldeck's modules, not the bundled skills' scripts (no caches in a skill)
        [
            sys.executable,
            "-m",
            "compileall",
            "-q",
            "-x",
            "_bundled",
            str(Path(skilldeck.__file__).parent),
        ],
        check=False,
        stdout=subprocess.DEVNULL,
    )
    bwrap = probe_sandbox().available
    base = Path(tempfile.mkdtemp(prefix="skilldeck-bench-run-"))
    try:
        base.chmod(0o755)  # a run as an unprivileged user must reach the skill
        skill = base / "skills" / "hello"
        (skill / "scripts").mkdir(parents=True)
        (skill / "SKILL.md").write_text(SKILL_MD)
        (skill / "scripts" / "hello.py").write_text(HELLO)
        (base / "hello.py").write_text(HELLO)
        for path in (base / "skills", skill, skill / "scripts"):
            path.chmod(0o755)
        env = _child_env(base)
        run_args = ["run", "--root", str(base / "skills"), "hello", "scripts/hello.py"]
        cli = [*_skilldeck(), *run_args]
        clis = [(cli, env)]
        if opts.before:
            before_cli, before_env = [*_skilldeck(opts.before), *run_args], _child_env(base, "b")
            clis.append((before_cli, before_env))
        for argv, argv_env in clis:
            _fresh([*argv, "--yes"], argv_env, base)  # approves once, fills the catalog cache
            if b"hello" not in _timed(argv, argv_env, base)[1]:
                raise SystemExit(f"{argv} did not print hello")
        python = [sys.executable, str(base / "hello.py")]

        def warm(way: str, python: str = sys.executable) -> Any:
            return lambda: _worker(way, base, opts.runs, env, python)

        fresh_ways = {
            "python hello.py": lambda: _fresh(python, env, base),
            "skilldeck run": lambda: _fresh(cli, env, base),
        }
        if opts.before:
            fresh_ways["before: skilldeck run"] = lambda: _fresh(before_cli, before_env, base)
        warm_ways = {"bare": warm("bare"), "library none": warm("none")}
        if bwrap:
            warm_ways["library bubblewrap"] = warm("bubblewrap")
        if opts.before:
            warm_ways["before: library none"] = warm("none", opts.before)
            if bwrap:
                warm_ways["before: library bubblewrap"] = warm("bubblewrap", opts.before)
        helper_ways: dict[str, Any] = {}
        if opts.helper:
            many = opts.runs * 10
            helper_ways["/bin/true"] = lambda: _worker("true", base, many, env)
            helper_ways["helper /bin/true"] = lambda: _worker("helper", base, many, env)
            if opts.before:
                helper_ways["before: helper /bin/true"] = lambda: _worker(
                    "helper", base, many, env, str(opts.before)
                )
        library = [
            (name, "bubblewrap" if "bubblewrap" in name else "none", sys.executable)
            for name in warm_ways
            if name.startswith("library")
        ]
        library += [
            (f"before: {name}", way, str(opts.before)) for name, way, _ in library if opts.before
        ]
        samples = _rounds({**fresh_ways, **warm_ways, **helper_ways}, opts.rounds)
        counted: dict[str, float | None] = {}
        if opts.instructions:
            here = os.getcwd()
            os.chdir(base)
            try:
                counted["python hello.py"] = _measure.instructions(_measure.Contender(python, env))
                counted["skilldeck run"] = _measure.instructions(_measure.Contender(cli, env))
                if opts.before:
                    counted["before: skilldeck run"] = _measure.instructions(
                        _measure.Contender(before_cli, before_env)
                    )
                for name, way, py in library:
                    counted[name + ", per run"] = _library_instructions(
                        way, py, base, opts.runs, env
                    )
            finally:
                os.chdir(here)
        busy: dict[str, dict[str, list[float]]] = {}
        if opts.host_processes:
            procs = _sleepers(opts.host_processes)
            try:
                busy = _rounds(warm_ways, opts.rounds)
            finally:
                _stop(procs)
    finally:
        shutil.rmtree(base, ignore_errors=True)

    report = {
        "rounds": opts.rounds,
        "runs_per_worker": opts.runs,
        "host_processes": opts.host_processes,
        "load_average": os.getloadavg()[0],
        "python": sys.version.split()[0],
        "bubblewrap": bwrap,
        "idle_host": {w: {k: _summary(v) for k, v in s.items()} for w, s in samples.items()},
        "busy_host": {w: {k: _summary(v) for k, v in s.items()} for w, s in busy.items()},
        "targets_ms_cpu_over_floor": TARGETS,
        "instructions_m": counted,
    }
    if opts.json:
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"run overhead: {opts.rounds} interleaved rounds, fresh processes, warm workers "
        f"time {opts.runs} runs each; load {report['load_average']:.1f} on "
        f"{os.cpu_count()} CPUs; figures in ms (min / median)"
    )
    header = f"{'way':34s} {'CPU':>15s} {'wall':>15s} {'CPU over floor':>16s} {'target':>7s}"
    groups = [
        ("python hello.py", list(fresh_ways), samples, ""),
        ("bare", list(warm_ways), samples, ""),
        ("bare", list(warm_ways), busy, f" +{opts.host_processes} procs"),
        ("/bin/true", list(helper_ways), samples if helper_ways else {}, ""),
    ]
    print(header)
    for floor, names, table, suffix in groups:
        if not table:
            continue
        base_cpu = statistics.median(table[floor]["cpu"])
        for name in names:
            cpu, wall = table[name]["cpu"], table[name]["wall"]
            over = statistics.median(cpu) - base_cpu
            target = TARGETS.get(name)
            shown = "" if name == floor else f"{over:+8.2f}"
            print(
                f"{name + suffix:34s} {min(cpu):6.2f} / {statistics.median(cpu):6.2f} "
                f"{min(wall):6.2f} / {statistics.median(wall):6.2f} {shown:>16s} "
                f"{'' if target is None else f'{target:g}':>7s}"
            )
    print("per run, the warm process itself / its children (launch helper, bwrap, program):")
    for name in warm_ways:
        host, kids = samples[name]["host"], samples[name]["children"]
        print(
            f"  {name:32s} {min(host):6.2f} / {statistics.median(host):6.2f} "
            f"+ {min(kids):6.2f} / {statistics.median(kids):6.2f}"
        )
    if counted:
        print(
            "instructions (callgrind, the command's own process, one run each; a library "
            "way's warm process per run, its children not counted)"
        )
        for name, count in counted.items():
            print(f"  {name:32s} " + ("no valgrind" if count is None else f"{count:8.2f} M"))
    if busy:
        for name in warm_ways:
            if name == "bare":
                continue
            idle = statistics.median(samples[name]["cpu"]) - statistics.median(
                samples["bare"]["cpu"]
            )
            loaded = statistics.median(busy[name]["cpu"]) - statistics.median(busy["bare"]["cpu"])
            print(
                f"{name}: CPU over bare {idle:+.2f} ms idle, {loaded:+.2f} ms with "
                f"{opts.host_processes} more host processes"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
