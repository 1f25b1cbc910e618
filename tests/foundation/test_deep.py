"""A skill nested 1,200 folders deep: every command gives a coded error, no traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.foundation._trees import build_deep, remove_deep

SKILL_MD = "---\nname: deep\ndescription: Nested far too deep. Use in tests.\n---\nBody.\n"


@pytest.fixture(scope="module")
def deep_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("deep") / "skills"
    skill = root / "deep"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "references").mkdir()
    build_deep(skill / "references", 1200)
    yield root
    remove_deep(skill / "references")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skilldeck", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("approve", "deep", "--root", "{root}"), "PATH_NOT_ALLOWED"),
        (("install", "{root}/deep"), "INSTALL_FAILED"),
        (("scan", "{root}/deep"), "PATH_NOT_ALLOWED"),
        (("lint", "{root}/deep"), "SK507"),
        (("export", "{root}/deep", "--to", "{root}/../out"), "INSTALL_FAILED"),
    ],
)
def test_every_command_gives_a_coded_error(
    deep_root: Path, tmp_path: Path, args: tuple[str, ...], code: str
) -> None:
    argv = [a.replace("{root}", str(deep_root)) for a in args]
    proc = _run(*argv, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "Traceback" not in out and "RecursionError" not in out, out
    assert code in out, out
    assert "deeper than 64" in out, out
