"""Fixtures for execution tests: skill folders every user can read, a shared helper cache."""

from __future__ import annotations

import os
import shutil
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import skilldeck


@pytest.fixture(scope="session")
def helper_cache() -> Iterator[Path]:
    """One cache folder per test session, so the C launch helper is compiled once."""
    path = Path(tempfile.mkdtemp(prefix="skilldeck-test-cache-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def _shared_helper_cache(helper_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLDECK_CACHE_DIR", str(helper_cache))


@pytest.fixture(autouse=True)
def _reachable_cwd(hermetic_env: Path) -> None:
    """The current folder (the ``project`` working folder) is one the unprivileged
    run-as user can enter, as a user's project usually is: with ``sandbox = "strict"``
    a run that ``nobody`` cannot reach is refused rather than run as root."""
    Path.cwd().chmod(0o755)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[Path]:
    """A folder the unprivileged run-as user can traverse (pytest's tmp_path is 0700)."""
    path = Path(tempfile.mkdtemp(prefix="skilldeck-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@dataclass(frozen=True)
class Manifest:
    timeout: int | None = None
    network: bool = False
    read_only: bool = True
    always_ask: bool = False
    modes: tuple[str, ...] | None = None
    description: str = "a test skill"


@dataclass(frozen=True)
class FakeSkill:
    name: str
    path: Path
    manifest: Any = field(default_factory=Manifest)


MakeSkill = Callable[..., FakeSkill]


@pytest.fixture
def make_skill(world: Path) -> MakeSkill:
    """Write a skill folder with ``scripts`` (name -> text) readable by everyone."""

    def make(
        name: str = "demo",
        scripts: dict[str, str] | None = None,
        skill_md: str | None = None,
        **manifest: Any,
    ) -> FakeSkill:
        folder = world / name
        (folder / "scripts").mkdir(parents=True, exist_ok=True)
        text = skill_md or f"---\nname: {name}\ndescription: test skill {name}\n---\n\nBody.\n"
        (folder / "SKILL.md").write_text(textwrap.dedent(text))
        for rel, body in (scripts or {}).items():
            target = folder / "scripts" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(body))
        for dirpath, _, filenames in os.walk(folder):
            os.chmod(dirpath, 0o755)
            for fname in filenames:
                os.chmod(os.path.join(dirpath, fname), 0o755)
        return FakeSkill(name, folder, Manifest(**manifest))

    return make


def bwrap_available() -> bool:
    return skilldeck.probe_sandbox().available


needs_bwrap = pytest.mark.skipif(
    not bwrap_available(), reason="bubblewrap is not installed or not usable here"
)


def executor(**config: Any) -> skilldeck.Executor:
    """An executor with in-memory approvals and short timeouts."""
    config.setdefault("kill_grace", 0.5)
    config.setdefault("workdir", "skill")
    return skilldeck.Executor(
        skilldeck.ExecConfig(**config), approvals=skilldeck.execution.MemoryApprovalStore()
    )


#: sandbox modes every behaviour test runs under
MODES = [
    pytest.param("none", id="none"),
    pytest.param("strict", id="bwrap", marks=needs_bwrap),
]


def gone(path: Path, within: float = 10.0) -> bool:
    """True once ``path`` no longer exists (a run's folders are deleted just after it)."""
    import time

    deadline = time.monotonic() + within
    while path.exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
