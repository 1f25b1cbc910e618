"""The local orchestration example: replicas admitted and replaced by their ``/readyz``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from skilldeck.postgres import PostgresStore, create_tenant

from ._util import make_skill
from .test_replicas import _free_port

EXAMPLE = Path(__file__).parents[2] / "examples" / "store_fleet.py"


def test_the_fleet_example_starts_and_rolls_replicas(empty_url: str, tmp_path: Path) -> None:
    port = _free_port()  # and the next one, most likely free too
    steps = ["--replicas", "2", "--port", str(port), "--rolling-restart", "--exit"]
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "--store", empty_url, *steps],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("replica")]
    assert [line.split(" ready")[0] for line in lines] == [
        f"replica :{port}",
        f"replica :{port + 1}",
        f"replica :{port} replaced,",
        f"replica :{port + 1} replaced,",
    ]
    # the store it migrated serves
    create_tenant(empty_url, "acme")
    assert PostgresStore(empty_url, "acme").publish(make_skill(tmp_path, "pdf-tools")).created
