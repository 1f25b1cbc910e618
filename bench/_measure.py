"""Timing fresh processes from outside, interleaved, and printing them side by side.

``run_once`` spawns one command and takes its CPU (user + system, from ``wait4``),
its wall time and its peak RSS (``ru_maxrss``, taken by ``/usr/bin/time`` between
the driver and the command where it exists: a child's ``ru_maxrss`` counts what it
inherited at ``fork``, and the driver may hold the corpus). ``rounds`` runs every
contender once per round, in the same order, so load from other processes hits
every contender alike. ``table`` prints min and median of CPU and wall, the peak
RSS, and the ratios of the CPU min and median against a reference contender.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

_TIME = "/usr/bin/time"


@dataclass
class Contender:
    """One command to time; ``before`` runs ahead of each timed run (untimed)."""

    argv: Sequence[str]
    env: Mapping[str, str] | None = None
    stdin: bytes | None = None
    ok: tuple[int, ...] = (0,)
    before: Callable[[], None] | None = None
    results: list[dict[str, float]] = field(default_factory=list)


def run_once(c: Contender) -> dict[str, float]:
    """Spawn ``c.argv`` once; its CPU seconds, wall seconds and peak RSS (MiB)."""
    if c.before is not None:
        c.before()
    argv = list(c.argv)
    report = None
    if os.path.exists(_TIME):
        fd, report = tempfile.mkstemp(prefix="rss-")
        os.close(fd)
        argv = [_TIME, "-q", "-f", "%M", "-o", report, *argv]
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=dict(c.env) if c.env is not None else None,
        stdin=subprocess.PIPE if c.stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    if c.stdin is not None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(c.stdin)
            proc.stdin.close()
        except BrokenPipeError:
            pass
    assert proc.stderr is not None
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    rss = usage.ru_maxrss / 1024
    if report is not None:
        with open(report) as fh:
            lines = fh.read().split()
        os.unlink(report)
        if lines and lines[-1].isdigit():
            rss = int(lines[-1]) / 1024
    if code not in c.ok:
        raise SystemExit(f"{list(c.argv)} failed ({code}): {err.decode(errors='replace')[-2000:]}")
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "wall": wall,
        "rss": rss,
    }


def instructions(c: Contender) -> float | None:
    """Millions of instructions one run of ``c`` executes in its own process (callgrind;
    ``None``: no valgrind). Unlike CPU time, load barely moves them."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(
            [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", *c.argv],
            env=dict(c.env) if c.env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        with open(out, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(("totals:", "summary:")):
                    return int(line.split()[1]) / 1e6
    return None


def rounds(contenders: Mapping[str, Contender], count: int, *, warm: bool = True) -> None:
    """One untimed run of each (bytecode, caches), then ``count`` interleaved rounds."""
    if warm:
        for c in contenders.values():
            run_once(c)
    for _ in range(count):
        for c in contenders.values():
            c.results.append(run_once(c))


def summary(rs: list[dict[str, float]]) -> dict[str, float]:
    return {
        "cpu_min": min(r["cpu"] for r in rs),
        "cpu_median": statistics.median(r["cpu"] for r in rs),
        "wall_min": min(r["wall"] for r in rs),
        "wall_median": statistics.median(r["wall"] for r in rs),
        "rss_max": max(r["rss"] for r in rs),
    }


def table(
    title: str,
    contenders: Mapping[str, Contender],
    reference: str,
    *,
    rows: Sequence[str] | None = None,
    ref_of: Mapping[str, str] | None = None,
) -> tuple[str, dict[str, Any]]:
    """The figures as text and as data; each row's ratios are against ``reference``
    (or its own in ``ref_of``)."""
    sums = {name: summary(c.results) for name, c in contenders.items() if c.results}
    lines = [
        title,
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        "fresh processes, interleaved rounds; times in ms",
        f"{'':40}{'cpu min':>9}{'median':>9}{'wall min':>10}{'median':>9}"
        f"{'RSS MiB':>9}{'cpu/ref min':>13}{'median':>8}  reference",
    ]
    out: dict[str, Any] = {}
    for name in rows or list(sums):
        s = sums.get(name)
        if s is None:
            continue
        ref = (ref_of or {}).get(name, reference)
        r = sums.get(ref, {"cpu_min": float("nan"), "cpu_median": float("nan")})
        ratio_min, ratio_med = s["cpu_min"] / r["cpu_min"], s["cpu_median"] / r["cpu_median"]
        out[name] = {**s, "ref": ref, "ratio_min": ratio_min, "ratio_median": ratio_med}
        lines.append(
            f"{name[:40]:<40}{s['cpu_min'] * 1000:>9.1f}{s['cpu_median'] * 1000:>9.1f}"
            f"{s['wall_min'] * 1000:>10.1f}{s['wall_median'] * 1000:>9.1f}{s['rss_max']:>9.0f}"
            f"{ratio_min:>12.2f}x{ratio_med:>7.2f}x  {'' if name == ref else ref}"
        )
    return "\n".join(lines), out
