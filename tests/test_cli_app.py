"""The CLI's one place for errors: broken pipes stop quietly, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_closed_pipe_stops_the_listing_quietly(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    # about 180 KB of listing: far more than a pipe's buffer (64 KB) and the reader's
    # (8 KB) together, so the writer must meet the closed pipe whatever the timing
    for i in range(1200):
        folder = root / f"skill-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:04d}\ndescription: Skill number {i}. Use when testing what a "
            "listing does when its reader goes away early, as head -1 does.\n---\nBody\n"
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


def test_a_state_folder_that_cannot_be_made_is_an_error_with_a_hint(tmp_path: Path) -> None:
    skill = tmp_path / "demo"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: Demo. Use when testing.\n---\n")
    (tmp_path / "a-file").write_text("")
    env = {**os.environ, "SKILLDECK_HOME": str(tmp_path / "home")}
    env["SKILLDECK_DATA_DIR"] = str(tmp_path / "a-file" / "data")  # like HOME=/nonexistent
    done = subprocess.run(
        [sys.executable, "-m", "skilldeck", "install", str(skill), "--yes"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"error: {tmp_path / 'a-file' / 'data'}: Not a directory\n")
    assert "hint: skilldeck keeps its state under your home folder" in done.stderr
    assert "Traceback" not in done.stderr and "[Errno" not in done.stderr
