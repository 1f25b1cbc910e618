"""Hermetic test environment: every user/config/skills root points into tmp_path."""

from __future__ import annotations

import os
import subprocess
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


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared real-world corpus as its repositories have it: a copy made once per
    session with its links restored (``with-links``; the shared copy has them
    flattened into text files). Tests using it skip when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present (only beside a development checkout)")
    dest = tmp_path_factory.mktemp("corpus-with-links")
    tool = CORPUS / "with-links"
    if not tool.is_file():
        pytest.skip("../shared/corpus has no with-links script to restore its links")
    subprocess.run(["bash", str(tool), str(dest)], check=True, capture_output=True)
    return dest
