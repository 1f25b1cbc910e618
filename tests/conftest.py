"""Hermetic test environment: every user/config/skills root points into tmp_path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"

_STRIP_PREFIXES = (
    "SKILLDECK_",
    "SKILLS_DIR",
    "CUSTOM_SKILLS_DIR",
    "XDG_",
    "CODEX_HOME",
    "CLAUDE_CONFIG_DIR",
)


@pytest.fixture(autouse=True)
def hermetic_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME and SKILLDECK_HOME per test; variables that change behaviour removed."""
    home = tmp_path_factory.mktemp("home")
    for key in list(os.environ):
        if key.startswith(_STRIP_PREFIXES):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SKILLDECK_HOME", str(home / ".skilldeck-home"))
    monkeypatch.setenv("NO_COLOR", "1")
    work = tmp_path_factory.mktemp("cwd")
    monkeypatch.chdir(work)
    return home


@pytest.fixture
def corpus() -> Path:
    """The shared real-world corpus; tests using it skip when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present (only beside a development checkout)")
    return CORPUS
