"""Security scan benchmark: detection and benign rates on three labelled sets, CPU beside wall.

    python bench/scan.py                  # skilldeck and the grep baseline, every set
    python bench/scan.py --by-technique   # and the held-out set technique by technique
    python bench/scan.py --peer           # also cisco-ai-skill-scanner (static analyzers)
    python bench/scan.py --corpus         # and CPU over ../shared/corpus

The sets (``tests/scan``): ``labelled.py`` and ``tuning.py`` are the sets the rules
were written against; ``heldout.py`` was written before the rules that generalise
the scan and never used to choose one. Every scanner runs in a fresh process; CPU
is the user + system time of that process.

A skill is *flagged* when a finding is a warning or an error (for the peer MEDIUM or
higher) and *at error* when one is an error (HIGH or CRITICAL). The baseline is
``grep -E`` with a strong keyword list: any match flags a skill, a match of its
strong half (pipe-to-shell, decode-to-shell, reverse shells, wiping home, "ignore
previous instructions") counts as an error.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scan.heldout import HELDOUT_BENIGN, HELDOUT_MALICIOUS  # noqa: E402
from tests.scan.labelled import BENIGN, MALICIOUS, Sample, write_set  # noqa: E402
from tests.scan.tuning import TUNING_BENIGN, TUNING_MALICIOUS  # noqa: E402

PEER = "cisco-ai-skill-scanner==2.3.2"
PEER_VENV = Path(tempfile.gettempdir()) / "skilldeck-bench-peer"

SETS: dict[str, tuple[list[Sample], list[Sample]]] = {
    "first tuning set": (MALICIOUS, BENIGN),
    "second tuning set": (TUNING_MALICIOUS, TUNING_BENIGN),
    "held-out set": (HELDOUT_MALICIOUS, HELDOUT_BENIGN),
}

#: the strongest reasonable keyword list for a grep: what a reviewer would search for
STRONG = [
    r"(curl|wget|iwr|irm)[^|]*\|\s*(sudo\s+)?(ba|z)?sh",
    r"(curl|wget|iwr|irm)[^|]*\|\s*(iex|python|node|perl)",
    r"base64\s+(-d|--decode)[^|]*\|\s*(ba|z)?sh",
    r"sh\s+-c\s+.\$\((curl|wget)",
    r"/dev/tcp/",
    r"nc\s.*-e\s*/bin/(ba)?sh",
    r"rm\s+-rf\s+(~|\$HOME|/)(\s|/?\*?$)",
    r"ignore (all )?previous instructions",
    r"Invoke-Expression|\biex\b",
]
WEAK = [
    r"eval\(|exec\(|new Function|FromBase64String|b64decode|atob\(",
    r"\.ssh/|id_rsa|id_ed25519|\.aws/credentials|\.netrc|\.git-credentials|\.npmrc|\.kube/config",
    r"os\.environ|process\.env|printenv|Get-ChildItem env:",
    r"169\.254\.169\.254|metadata\.google",
    r"crontab|\.bashrc|\.zshrc|LaunchAgents|systemd/user|authorized_keys|NOPASSWD",
    r"CLAUDE\.md|AGENTS\.md|\.claude/settings|\.github/workflows|runOn|\.pth\b",
    r"do not (tell|mention)|don't (tell|mention)|without telling|secretly|silently",
    r"bcc|wallet|clipboard|password|npm publish|git push",
    r"TCPClient|socket\.|DownloadString|Invoke-WebRequest|urlopen|requests\.(get|post)",
]

Result = dict[str, tuple[bool, bool]]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(run: Callable[[], Result]) -> tuple[Result, float, float]:
    cpu, wall = _children_cpu(), time.perf_counter()
    out = run()
    return out, _children_cpu() - cpu, time.perf_counter() - wall


def _skill_of(root: Path, path: str) -> str:
    return Path(path).resolve().relative_to(root.resolve()).parts[0]


def _skilldeck(root: Path) -> Result:
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "skilldeck"), "scan", "--format", "json", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    out: Result = {}
    report = json.loads(proc.stdout)
    report = report.get("data", report)  # the CLI's envelope: {"ok", "error", "data"}
    for entry in report["paths"]:
        for diag in entry["diagnostics"]:
            skill = _skill_of(root, diag["path"])
            flagged, strong = out.get(skill, (False, False))
            out[skill] = (
                flagged or diag["severity"] in ("warning", "error"),
                strong or diag["severity"] == "error",
            )
    return out


def _grep_files(root: Path, patterns: list[str]) -> set[str]:
    args = ["grep", "-rlIEi"]
    for pattern in patterns:
        args += ["-e", pattern]
    proc = subprocess.run([*args, str(root)], capture_output=True, text=True, check=False)
    return {_skill_of(root, line) for line in proc.stdout.splitlines() if line}


def _baseline(root: Path) -> Result:
    strong = _grep_files(root, STRONG)
    weak = _grep_files(root, STRONG + WEAK)
    return {s: (s in weak, s in strong) for s in weak | strong}


def _peer_binary() -> Path | None:
    exe = PEER_VENV / "bin" / "skill-scanner"
    if exe.exists():
        return exe
    print(f"installing {PEER} into {PEER_VENV} ...", flush=True)
    made = subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=False)
    pip = PEER_VENV / "bin" / "pip"
    if made.returncode or subprocess.run([str(pip), "install", "-q", PEER], check=False).returncode:
        print(f"peer: could not install {PEER}; its rows are left out")
        return None
    return exe if exe.exists() else None


def _peer(exe: Path, root: Path) -> Result:
    proc = subprocess.run(
        [str(exe), "scan-all", str(root), "--recursive", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tempfile.gettempdir(),
    )
    out: Result = {}
    start = proc.stdout.find("{")
    report = json.loads(proc.stdout[start:]) if start != -1 else {"results": []}
    for result in report.get("results", []):
        skill = _skill_of(root, result["skill_path"])
        sev = {f["severity"] for f in result.get("findings", [])}
        flagged = bool(sev & {"MEDIUM", "HIGH", "CRITICAL"})
        strong = bool(sev & {"HIGH", "CRITICAL"})
        held = out.get(skill, (False, False))
        out[skill] = (held[0] or flagged, held[1] or strong)
    return out


def _rates(result: Result, mal: list[Sample], ben: list[Sample]) -> tuple[float, ...]:
    m = [result.get(s.name, (False, False)) for s in mal]
    b = [result.get(s.name, (False, False)) for s in ben]
    return (
        sum(f for f, _ in m) / len(m),
        sum(e for _, e in m) / len(m),
        sum(f for f, _ in b) / len(b),
        sum(e for _, e in b) / len(b),
    )


def _by_technique(result: Result, mal: list[Sample]) -> None:
    groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for s in mal:
        groups[s.technique].append(result.get(s.name, (False, False)))
    print(f"\nheld-out set by technique (skilldeck): {len(mal)} samples, {len(groups)} techniques")
    print(f"{'technique':<22} {'n':>3} {'flagged':>8} {'at error':>9}")
    for technique in sorted(groups):
        hits = groups[technique]
        flagged = sum(f for f, _ in hits)
        errors = sum(e for _, e in hits)
        print(f"{technique:<22} {len(hits):>3} {flagged:>8} {errors:>9}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--peer", action="store_true", help="also run cisco-ai-skill-scanner")
    parser.add_argument("--corpus", action="store_true", help="also time the scan on the corpus")
    parser.add_argument("--by-technique", action="store_true", help="held-out set per technique")
    args = parser.parse_args()
    scanners: dict[str, Callable[[Path], Result]] = {
        "skilldeck": _skilldeck,
        "grep baseline": _baseline,
    }
    exe = _peer_binary() if args.peer else None
    if exe is not None:
        scanners["cisco-ai-skill-scanner"] = lambda root: _peer(exe, root)
    head = ("set", "scanner", "mal flagged", "mal at error", "ben flagged", "ben at error")
    print(
        f"{head[0]:<26} {head[1]:<23} {head[2]:>11} {head[3]:>12} {head[4]:>11} {head[5]:>12}"
        f" {'CPU':>7} {'wall':>7}"
    )
    heldout: Result = {}
    with tempfile.TemporaryDirectory() as tmp:
        for set_name, (mal, ben) in SETS.items():
            root = Path(tmp) / set_name.replace(" ", "-")
            write_set(root, [*mal, *ben])
            label = f"{set_name} ({len(mal)}/{len(ben)})"
            for name, scan in scanners.items():
                result, cpu, wall = _timed(lambda scan=scan, root=root: scan(root))
                if name == "skilldeck" and set_name == "held-out set":
                    heldout = result
                r = _rates(result, mal, ben)
                print(
                    f"{label:<26} {name:<23} {r[0]:>11.0%} {r[1]:>12.0%} {r[2]:>11.0%} "
                    f"{r[3]:>12.0%} {cpu:>6.2f}s {wall:>6.2f}s"
                )
    if args.by_technique:
        _by_technique(heldout, HELDOUT_MALICIOUS)
    if args.corpus:
        corpus = ROOT.parent / "shared" / "corpus"
        if not corpus.is_dir():
            corpus = Path("/work/shared/corpus")
        skills = sum(1 for _ in corpus.glob("*/**/SKILL.md"))
        for name, scan in scanners.items():
            found, cpu, wall = _timed(lambda scan=scan: scan(corpus))
            flagged = sum(f for f, _ in found.values())
            print(
                f"corpus ({skills} skills) {name:<23} CPU {cpu:6.2f} s ({1000 * cpu / skills:.2f} "
                f"ms a skill), wall {wall:6.2f} s, {flagged} top-level folders flagged"
            )
    if shutil.which("grep") is None:
        print("grep is missing: the baseline rows are empty")


if __name__ == "__main__":
    main()
