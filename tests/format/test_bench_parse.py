"""bench/parse.py runs and reports skilldeck's loader against libyaml (a smoke test)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "parse.py"


def test_bench_parse_smoke(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shapes = [
        "name: a\ndescription: Plain text.\n",
        "name: b\ndescription: >\n  Folded\n  text.\nmetadata:\n  version: 1.0\n",
        "name: c\ndescription: [unclosed\n",
    ]
    for i, fm in enumerate(shapes):
        (corpus / f"s{i}").mkdir(parents=True)
        (corpus / f"s{i}" / "SKILL.md").write_text(f"---\n{fm}---\nBody\n")
    args = ["--corpus", str(corpus), "--repeat", "1", "--json", "--only-ours"]
    result = subprocess.run(
        [sys.executable, str(BENCH), *args, "--work", str(tmp_path / "work")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    data = json.loads(result.stdout)
    assert data["frontmatters"] == 3
    rows = {row["contender"]: row for row in data["results"]}
    assert set(rows) == {"libyaml CSafeLoader", "skilldeck load_yaml", "skilldeck fast path"}
    assert rows["skilldeck fast path"]["note"] == "takes 2 of 3"
    # skilldeck keeps "1.0" as text where libyaml builds a float, and reports the
    # unclosed list as a diagnostic where libyaml raises
    assert rows["skilldeck load_yaml"]["differs_libyaml"] == 2
