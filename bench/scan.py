"""Security scan benchmark: recall and benign rates on the labelled set, time on the corpus.

    python bench/scan.py                  # skilldeck only
    python bench/scan.py --peer           # also cisco-ai-skill-scanner (static analyzers)
    python bench/scan.py --peer --corpus  # and both over ../shared/corpus, timed

The peer is installed by this script into a throwaway venv under /tmp when asked
(``--peer``); if it cannot be installed the script says so and goes on. Every run is
a fresh process. A skill counts as flagged by skilldeck with a warning or error, by
the peer with a MEDIUM or higher finding; "strong" is an error for skilldeck and
HIGH/CRITICAL for the peer.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.scan.labelled import BENIGN, MALICIOUS, write_set  # noqa: E402

PEER = "cisco-ai-skill-scanner==2.3.2"
PEER_VENV = Path(tempfile.gettempdir()) / "skilldeck-bench-peer"


def _skilldeck(root: Path) -> tuple[dict[str, tuple[bool, bool]], float]:
    started = time.perf_counter()
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "skilldeck"), "scan", "--format", "json", str(root)],
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    out: dict[str, tuple[bool, bool]] = {}
    for entry in json.loads(proc.stdout)["paths"]:
        for diag in entry["diagnostics"]:
            rel = Path(diag["path"]).resolve().relative_to(root.resolve())
            skill = rel.parts[0]
            flagged, strong = out.get(skill, (False, False))
            out[skill] = (
                flagged or diag["severity"] in ("warning", "error"),
                strong or diag["severity"] == "error",
            )
    return out, elapsed


def _peer_binary() -> Path | None:
    exe = PEER_VENV / "bin" / "skill-scanner"
    if exe.exists():
        return exe
    print(f"installing {PEER} into {PEER_VENV} ...", flush=True)
    made = subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=False)
    pip = PEER_VENV / "bin" / "pip"
    if made.returncode or subprocess.run([str(pip), "install", "-q", PEER], check=False).returncode:
        print(f"peer: could not install {PEER}; its columns are left out")
        return None
    return exe if exe.exists() else None


def _peer(exe: Path, root: Path) -> tuple[dict[str, tuple[bool, bool]], float]:
    started = time.perf_counter()
    proc = subprocess.run(
        [str(exe), "scan-all", str(root), "--recursive", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tempfile.gettempdir(),
    )
    elapsed = time.perf_counter() - started
    out: dict[str, tuple[bool, bool]] = {}
    start = proc.stdout.find("{")
    report = json.loads(proc.stdout[start:]) if start != -1 else {"results": []}
    for result in report.get("results", []):
        skill = Path(result["skill_path"]).resolve().relative_to(root.resolve()).parts[0]
        sev = {f["severity"] for f in result.get("findings", [])}
        flagged = bool(sev & {"MEDIUM", "HIGH", "CRITICAL"})
        strong = bool(sev & {"HIGH", "CRITICAL"})
        held = out.get(skill, (False, False))
        out[skill] = (held[0] or flagged, held[1] or strong)
    return out, elapsed


def _rates(results: dict[str, tuple[bool, bool]]) -> tuple[float, float, float]:
    mal = [results.get(s.name, (False, False)) for s in MALICIOUS]
    ben = [results.get(s.name, (False, False)) for s in BENIGN]
    recall = sum(f for f, _ in mal) / len(mal)
    benign_flagged = sum(f for f, _ in ben) / len(ben)
    benign_strong = sum(s for _, s in ben) / len(ben)
    return recall, benign_flagged, benign_strong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", action="store_true", help="also run cisco-ai-skill-scanner")
    parser.add_argument("--corpus", action="store_true", help="also time both on the corpus")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "labelled"
        write_set(root, [*MALICIOUS, *BENIGN])
        print(f"labelled set: {len(MALICIOUS)} malicious, {len(BENIGN)} benign skills")
        head = ("scanner", "recall", "benign flagged", "benign strong", "time")
        print(f"{head[0]:<26} {head[1]:>7} {head[2]:>15} {head[3]:>14} {head[4]:>8}")
        ours, ours_t = _skilldeck(root)
        r, f, s = _rates(ours)
        print(f"{'skilldeck':<26} {r:>7.0%} {f:>15.0%} {s:>14.0%} {ours_t:>7.1f}s")
        exe = _peer_binary() if args.peer else None
        if exe is not None:
            theirs, theirs_t = _peer(exe, root)
            r, f, s = _rates(theirs)
            name = "cisco-ai-skill-scanner"
            print(f"{name:<26} {r:>7.0%} {f:>15.0%} {s:>14.0%} {theirs_t:>7.1f}s")
    if args.corpus:
        corpus = ROOT.parent / "shared" / "corpus"
        if not corpus.is_dir():
            corpus = Path("/work/shared/corpus")
        found, ours_t = _skilldeck(corpus)
        print(
            f"corpus {corpus}: skilldeck {ours_t:.1f} s, {sum(f for f, _ in found.values())} "
            f"top-level folders with a warning or error"
        )
        if exe is not None:
            _, theirs_t = _peer(exe, corpus)
            print(
                f"corpus: cisco-ai-skill-scanner {theirs_t:.1f} s "
                f"(skilldeck {theirs_t / ours_t:.0f}x faster)"
            )


if __name__ == "__main__":
    main()
