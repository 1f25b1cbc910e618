"""The local orchestration example: replicas admitted and replaced by their ``/readyz``."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from skilldeck.postgres import PostgresStore, create_tenant

from ._util import make_skill
from .test_replicas import _free_port


def _two_free_ports() -> int:
    """A port whose next one is free too (the example numbers its replicas in a row):
    with other tests binding ports in parallel, port + 1 is checked, not assumed."""
    for _ in range(50):
        port = _free_port()
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port
    raise AssertionError("no two free ports in a row")


EXAMPLE = Path(__file__).parents[2] / "examples" / "store_fleet.py"


def test_the_fleet_example_starts_and_rolls_replicas(empty_url: str, tmp_path: Path) -> None:
    port = _two_free_ports()
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
