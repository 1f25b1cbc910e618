"""The ``skilldeck`` command line. Each command group lives in its own module."""

from __future__ import annotations

# Command modules register on ``main`` when imported (one line each).
from skilldeck.cli import (
    _author,  # noqa: F401  (validate, lint, show, new)
    _dist,  # noqa: F401  (install, update, remove, verify, export, manage)
    _serve,  # noqa: F401  (serve)
)
from skilldeck.cli._app import main

__all__ = ["main"]
