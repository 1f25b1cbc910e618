"""docs/runtime.md names every event, code and option the runtime has."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from skilldeck import RuntimeOptions
from skilldeck.events import event_types
from skilldeck.tools import ERROR_CODES, WARNING_CODES

DOC = Path(__file__).resolve().parents[2] / "docs" / "runtime.md"
TEXT = DOC.read_text("utf-8")


@pytest.mark.parametrize("code", ERROR_CODES + WARNING_CODES)
def test_every_code_is_documented(code: str) -> None:
    assert f"`{code}`" in TEXT


@pytest.mark.parametrize("kind", sorted(event_types()))
def test_every_event_kind_is_documented(kind: str) -> None:
    short = kind.rsplit("_", 1)[-1]
    assert f"`{kind}`" in TEXT or f"_{short}`" in TEXT, kind


@pytest.mark.parametrize("name", [f.name for f in dataclasses.fields(RuntimeOptions)])
def test_every_option_is_documented(name: str) -> None:
    assert f"`{name}`" in TEXT
