"""Launch overhead of skilldeck's executor over a bare ``subprocess.run`` of the same script.

Usage: ``python bench/exec.py [--runs N] [--json]``

Runs a trivial shell script (``exit 0``) N times each way, the ways taking turns (so a
busy machine slows them alike), and reports medians:

- ``bare``: ``subprocess.run(["/bin/sh", script], stdin=DEVNULL, stdout=PIPE, stderr=STDOUT)``;
- ``none``: ``Executor(sandbox="none").run_script`` (launch helper with rlimits, privilege
  drop when root, subreaper supervision, clean environment, capped capture);
- ``bubblewrap``: the same under the bubblewrap sandbox (skipped when unavailable);
- ``python-helper``: ``none`` with the portable Python helper instead of the compiled one.

Targets (DESIGN.md): overhead <= 5 ms without the sandbox, <= 15 ms with it. Each way
also reports its mean CPU time (this process and its reaped descendants): on a machine
busy with other work, wall times of multi-process launches inflate far more than a
bare ``subprocess.run``, while CPU time stays what the launch costs.
The skill digest is passed in (the runtime gets it from the catalog); approvals are
not involved (a bundled read-only skill).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from skilldeck._exec import ExecConfig, Executor, MemoryApprovalStore, probe_sandbox


def _cpu_ms() -> float:
    """CPU time (user + system) of this process and its reaped descendants, in ms."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime) * 1000


def _medians_ms(
    ways: dict[str, Callable[[], None]], runs: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall time and mean CPU time of each way; the ways take turns, so load
    changes hit all alike. CPU time is what a busy machine does not inflate."""
    for fn in ways.values():
        fn()  # warm up (compiles the helper, probes bubblewrap)
    times: dict[str, list[float]] = {name: [] for name in ways}
    cpu: dict[str, float] = dict.fromkeys(ways, 0.0)
    for _ in range(runs):
        for name, fn in ways.items():
            start, cpu0 = time.perf_counter(), _cpu_ms()
            fn()
            times[name].append((time.perf_counter() - start) * 1000)
            cpu[name] += _cpu_ms() - cpu0
    medians = {name: statistics.median(values) for name, values in times.items()}
    return medians, {name: total / runs for name, total in cpu.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="skilldeck-bench-") as tmp:
        os.chmod(tmp, 0o755)
        skill_dir = Path(tmp) / "bench"
        (skill_dir / "scripts").mkdir(parents=True)
        script = skill_dir / "scripts" / "noop.sh"
        script.write_text("exit 0\n")
        for p in (skill_dir, skill_dir / "scripts", script):
            os.chmod(p, 0o755)
        manifest = SimpleNamespace(
            timeout=None, network=False, read_only=True, always_ask=False, modes=None
        )
        skill = SimpleNamespace(name="bench", path=skill_dir, manifest=manifest)
        digest = "sha256:" + "0" * 64

        def bare() -> None:
            subprocess.run(
                ["/bin/sh", str(script)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                check=True,
            )

        def executor(**cfg: object):
            ex = Executor(ExecConfig(**cfg), approvals=MemoryApprovalStore())  # type: ignore[arg-type]

            def run() -> None:
                result = ex.run_script(skill, "noop.sh", trust="bundled", digest=digest)
                assert result.success, result.to_dict()

            return run

        status = probe_sandbox()
        ways: dict[str, Callable[[], None]] = {
            "bare": bare,
            "none": executor(sandbox="none"),
            "python-helper": executor(sandbox="none", native_helper=False),
        }
        if status.available:
            ways["bubblewrap"] = executor(sandbox="strict")
        measured, cpu = _medians_ms(ways, opts.runs)
        rows: dict[str, float | None] = {
            "bare": measured["bare"],
            "none": measured["none"],
            "python-helper": measured["python-helper"],
            "bubblewrap": measured.get("bubblewrap"),
        }

    base = rows["bare"] or 0.0
    report = {
        "runs": opts.runs,
        "load_average": os.getloadavg()[0],
        "python": sys.version.split()[0],
        "bubblewrap": status.to_dict(),
        "median_ms": rows,
        "overhead_ms": {k: (v - base if v is not None else None) for k, v in rows.items()},
        "ratio": {k: (v / base if v is not None and base else None) for k, v in rows.items()},
        "cpu_ms": cpu,
        "targets_ms": {"none": 5.0, "bubblewrap": 15.0},
    }
    if opts.json:
        print(json.dumps(report, indent=2))
        return 0
    load = os.getloadavg()[0]
    print(
        f"launch overhead over bare subprocess.run ({opts.runs} runs each, medians, "
        f"load average {load:.1f} on {os.cpu_count()} CPUs)"
    )
    for key, value in rows.items():
        if value is None:
            print(f"  {key:14s}  unavailable ({status.reason})")
            continue
        over = value - base
        target = report["targets_ms"].get(key)  # type: ignore[attr-defined]
        mark = "" if target is None else (" ok" if over <= target else f" MISSES {target} ms")
        print(
            f"  {key:14s} {value:7.2f} ms  overhead {over:6.2f} ms  "
            f"ratio {value / base:5.2f}x  cpu {cpu[key]:6.2f} ms{mark}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
