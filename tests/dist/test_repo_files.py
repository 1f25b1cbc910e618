"""No source, test or doc file is hidden by .gitignore (a bare ``dist/`` once hid this folder)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("src", "tests", "docs", "bench", "examples")
CACHES = re.compile(
    r"(^|/)__pycache__/|\.py[co]$|(^|/)\.(pytest|mypy|ruff)_cache/|(^|/)\.hypothesis/|\.egg-info/"
)


def _ignored(*extra: str) -> list[str]:
    out: list[str] = []
    for which in ("--others", "--cached"):
        proc = subprocess.run(
            [
                "git",
                "-C",
                str(REPO),
                "ls-files",
                which,
                "--ignored",
                "--exclude-standard",
                *extra,
                "--",
                *FOLDERS,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        out += [line for line in proc.stdout.splitlines() if not CACHES.search(line)]
    return out


def _checkout() -> None:
    try:
        subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--git-dir"], capture_output=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an installed copy of the tests)")


def test_no_file_under_the_source_folders_is_ignored() -> None:
    _checkout()
    assert _ignored() == []


def test_the_check_catches_a_too_broad_pattern(tmp_path: Path) -> None:
    _checkout()
    patterns = tmp_path / "extra-ignore"
    patterns.write_text("dist/\n")
    assert "tests/dist/test_repo_files.py" in _ignored(f"--exclude-from={patterns}")


def test_this_folder_is_tracked() -> None:
    _checkout()
    proc = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "--", "tests/dist"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "tests/dist/test_repo_files.py" in proc.stdout.split()
