"""The CLI's one place for errors: broken pipes stop quietly, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_a_closed_pipe_stops_the_listing_quietly(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for i in range(1200):  # about 100 KB of listing: more than a pipe buffer
        folder = root / f"skill-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:04d}\ndescription: Skill number {i}. Use when testing pipes.\n"
            "---\nBody\n"
        )
    proc = subprocess.Popen(
        [sys.executable, "-m", "skilldeck", "list", "--root", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, like `| head -1`
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 1
    assert first.startswith("✓ skill-0000".encode())
    assert "Traceback" not in err and "Broken pipe" not in err, err
