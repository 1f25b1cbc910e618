"""Helpers for the distribution tests: skill folders, real git repositories, the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests._skills import write_files

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def skill_md(name: str, description: str | None = None, body: str = "Do the thing.\n") -> str:
    desc = description or f"Helps with {name}. Use when testing {name}."
    return f"---\nname: {name}\ndescription: {desc}\n---\n# {name}\n\n{body}"


def make_skill(
    folder: Path,
    name: str,
    *,
    description: str | None = None,
    body: str = "Do the thing.\n",
    files: Mapping[str, str | bytes] | None = None,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill_md(name, description, body), encoding="utf-8")
    write_files(folder, files)
    return folder


@dataclass
class GitRepo:
    """A real repository made with the system git."""

    path: Path

    def git(self, *args: str) -> str:
        env = {**os.environ, **GIT_ENV}
        out = subprocess.run(
            ["git", "-C", str(self.path), *args],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        )
        return out.stdout.strip()

    def commit(self, message: str = "change") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def tag(self, name: str) -> None:
        self.git("tag", name)

    @property
    def url(self) -> str:
        return self.path.as_uri()


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    path = tmp_path / "repo"
    path.mkdir()
    repo = GitRepo(path)
    repo.git("init", "-q", "-b", "main")
    return repo


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    timeout: float = 120,
) -> CliResult:
    """Run the real ``skilldeck`` CLI in a fresh process (HOME etc. from the test env)."""
    proc = subprocess.run(
        [sys.executable, "-m", "skilldeck", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def tree_files(folder: Path) -> dict[str, bytes]:
    """Every regular file under ``folder`` by relative path (links reported as such)."""
    out: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[rel] = b"<link>"
        elif path.is_file():
            out[rel] = path.read_bytes()
    return out


# runs skilldeck.dist.<call>(*args, **kwargs) and stops for good at one stage
_PAUSING = """
import json, os, sys, time
import skilldeck.dist

stage, marker, call, args, kwargs = sys.argv[1:6]

def pause(progress):
    if progress.stage == stage:
        with open(marker, "w", encoding="utf-8") as f:
            f.write(str(os.getpid()))
        time.sleep(120)

getattr(skilldeck.dist, call)(*json.loads(args), on_progress=pause, **json.loads(kwargs))
"""


def kill_at(
    stage: str,
    call: str,
    args: list[Any],
    tmp_path: Path,
    *,
    kwargs: dict[str, Any] | None = None,
    cwd: Path | None = None,
) -> None:
    """Run ``skilldeck.dist.<call>`` in a fresh process and SIGKILL it at ``stage``."""
    marker = tmp_path / f"paused-{stage}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _PAUSING,
            stage,
            str(marker),
            call,
            json.dumps(args),
            json.dumps(kwargs or {}),
        ],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        # the marker is written (not atomically) with the paused process's pid
        while not (marker.exists() and marker.read_text().strip()):
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"skilldeck exited ({proc.returncode}) before {stage}: {err}")
            if time.monotonic() > deadline:
                pytest.fail(f"skilldeck never reached {stage}")
            time.sleep(0.02)
        assert int(marker.read_text()) == proc.pid
        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()
