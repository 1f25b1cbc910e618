"""The ``skilldeck`` command line. Each command group lives in its own module."""

from __future__ import annotations

from skilldeck.cli._app import main

# Command modules register on ``main`` when imported (one line each).
from skilldeck.cli import _author  # noqa: F401, E402  (validate, lint, show, new)

__all__ = ["main"]
