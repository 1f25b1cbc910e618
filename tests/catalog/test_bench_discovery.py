"""bench/discovery.py runs end to end on a tiny tree (a smoke test; figures are not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.catalog.conftest import write_skill

BENCH = Path(__file__).resolve().parents[2] / "bench" / "discovery.py"


def test_bench_discovery_smoke(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    for i in range(3):
        write_skill(corpus, f"sample-{i}", f"Sample {i}.", frontmatter="license: MIT\n")
    contenders = (
        "floor-stat,floor-read,plain-loop,skilldeck-cold,skilldeck-warm,"
        "skilldeck-refresh,tier1-budget"
    )
    result = subprocess.run(
        [
            sys.executable, str(BENCH), "--sizes", "25", "--rounds", "1", "--json",
            "--corpus", str(corpus), "--work", str(tmp_path / "work"), "--contenders", contenders,
        ],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    data = json.loads(result.stdout)
    assert data["samples"] == 3
    res = data["sizes"]["25"]
    assert set(res) == set(contenders.split(","))
    assert all(row["count"] == 25 for row in res.values())
    names = sorted(p.name for p in (tmp_path / "work" / "tree-25").iterdir())
    assert names[0] == "skill-000000"
    text = (tmp_path / "work" / "tree-25" / names[0] / "SKILL.md").read_text()
    assert "name: skill-000000\n" in text and "license: MIT" in text
