"""Hostile repositories built for real: ``git init``, real symlinks, the real CLI."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

SKILL = "---\nname: {name}\ndescription: {name} does one small thing for tests\n---\nBody.\n"


def write_skill(folder: Path, name: str, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name) + extra, encoding="utf-8")
    return folder


def snapshot(root: Path) -> dict[str, str]:
    """Every entry below ``root`` (not following links): kind, mode and content digest."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            full = Path(dirpath, name)
            rel = str(full.relative_to(root))
            st = full.lstat()
            if full.is_symlink():
                out[rel] = "link:" + os.readlink(full)
            elif full.is_file():
                out[rel] = f"file:{st.st_mode:o}:" + hashlib.sha256(full.read_bytes()).hexdigest()
            else:
                out[rel] = f"dir:{st.st_mode:o}"
    return out


@dataclass
class Result:
    code: int
    out: str
    err: str


@dataclass
class World:
    """The user's home (with precious folders), a hostile upstream and its clone.

    Tests build the hostile content in ``upstream`` (``World.tool`` and friends
    write there), then ``clone()`` commits it and makes ``repo`` with a real
    ``git clone``, so every link is one git stored and checked out.
    """

    home: Path
    upstream: Path
    repo: Path
    outside: Path
    marker: Path

    def run(self, *args: str, cwd: Path | None = None, stdin: str = "") -> Result:
        proc = subprocess.run(
            [sys.executable, "-m", "skilldeck", *args],
            cwd=cwd or self.repo,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    def git(self, *args: str, cwd: Path | None = None) -> None:
        subprocess.run(["git", *args], cwd=cwd or self.upstream, check=True, capture_output=True)

    def clone(self) -> Path:
        """Commit the upstream and clone it to ``repo`` (what a user does)."""
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", "hostile")
        subprocess.run(
            ["git", "clone", "-q", str(self.upstream), str(self.repo)],
            check=True,
            capture_output=True,
        )
        return self.repo

    def tool(self, name: str = "tool.sh") -> Path:
        """A repository program that, if ever run, leaves ``marker`` behind."""
        path = self.upstream / name
        path.write_text(f"#!/bin/sh\ntouch '{self.marker}'\necho bwrap 0.0\n", encoding="utf-8")
        path.chmod(0o755)
        return path


@pytest.fixture
def world(tmp_path: Path, hermetic_env: Path) -> World:
    if subprocess.run(["git", "--version"], capture_output=True, check=False).returncode:
        pytest.skip("git is not installed")
    home = hermetic_env
    outside = tmp_path / "other-projects"
    for name in ("alpha", "beta"):
        (outside / name).mkdir(parents=True)
        (outside / name / "notes.txt").write_text(f"{name} notes\n", encoding="utf-8")
        old = 1_000_000_000  # far older than any clean-up age
        os.utime(outside / name, (old, old))
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY\n", encoding="utf-8")
    write_skill(home / ".claude" / "skills" / "mine", "mine")
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    subprocess.run(["git", "init", "-q", str(upstream)], check=True)
    w = World(home, upstream, tmp_path / "clone", outside, tmp_path / "MARKER-program-ran")
    w.git("config", "user.email", "t@example.invalid")
    w.git("config", "user.name", "t")
    return w
