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
        write_skill(
            corpus, f"sample-{i}", f"Sample {i}.", frontmatter="license: MIT\n",
            files={"references/guide.md": "# Guide\n"},
        )  # fmt: skip
    result = subprocess.run(
        [
            sys.executable, str(BENCH), "--sizes", "25", "--rounds", "1", "--json",
            "--corpus", str(corpus), "--work", str(tmp_path / "work"),
        ],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    res = json.loads(result.stdout)["25"]
    assert {"floor: stat", "plain loop (CSafeLoader)", "skilldeck warm", "skilldeck cold"} <= set(
        res
    )
    assert res["skilldeck cold"]["ref"] == "plain loop (CSafeLoader)"
    assert all(row["cpu_min"] > 0 and row["rss_max"] > 0 for row in res.values())
    names = sorted(p.name for p in (tmp_path / "work" / "tree-25").iterdir() if p.name[0] != ".")
    assert names[0] == "skill-000000" and len(names) == 25
    text = (tmp_path / "work" / "tree-25" / names[0] / "SKILL.md").read_text()
    assert "name: skill-000000\n" in text and "license: MIT" in text
    assert (tmp_path / "work" / "tree-25" / names[0] / "references" / "guide.md").is_file()
