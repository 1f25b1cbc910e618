"""bench/parse.py runs and reports every contender (a smoke test; figures are not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "parse.py"


def test_bench_parse_smoke() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH), "--generate", "25", "--repeat", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    data = json.loads(result.stdout)
    assert data["input"] == "25 generated skills"
    rows = {row["contender"]: row for row in data["results"]}
    assert set(rows) == {
        "skilldeck validate",
        "skilldeck validate --strict",
        "skilldeck metadata-only",
        "skills-ref validate",
        "yaml.safe_load loop",
    }
    assert rows["skilldeck validate"]["ratio"] == 1.0
    assert all(row["accepted"] == 25 for row in rows.values())
