"""skilldeck's folders follow the environment: the answer ``dirs()`` keeps is the one
for the variables' current values, whichever of them changes, in place."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from skilldeck._paths import dirs

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the XDG folders are where Linux keeps them"
)


def test_dirs_follows_each_variable_it_depends_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SKILLDECK_HOME", raising=False)
    for name in ("SKILLDECK_CONFIG_DIR", "SKILLDECK_DATA_DIR", "SKILLDECK_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var, attr in (
        ("XDG_DATA_HOME", "data"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        for value in ("a", "b"):
            monkeypatch.setenv(var, str(tmp_path / var / value))
            assert getattr(dirs(), attr) == tmp_path / var / value / "skilldeck"
    monkeypatch.setenv("SKILLDECK_HOME", str(tmp_path / "sd"))
    assert dirs().data == tmp_path / "sd" / "data"
    monkeypatch.setenv("SKILLDECK_DATA_DIR", str(tmp_path / "own"))
    assert dirs().data == tmp_path / "own"
    os.environ["SKILLDECK_DATA_DIR"] = str(tmp_path / "own2")  # os.environ itself, not a copy
    assert dirs().data == tmp_path / "own2"
    monkeypatch.delenv("SKILLDECK_DATA_DIR")
    assert dirs().data == tmp_path / "sd" / "data"
