"""The ``skilldeck`` command line. Each command group lives in its own module."""

from __future__ import annotations

# Command modules register on ``main`` when imported (one line each).
from skilldeck.cli import (
    _author,  # noqa: F401  (validate, lint, show, new)
    _catalog,  # noqa: F401  (list, why, prompt, load, read, enable, disable, doctor)
    _dist,  # noqa: F401  (install, update, remove, verify, export, manage)
    _run,  # noqa: F401  (run, approve, revoke, approvals, sandbox status)
    _scan,  # noqa: F401  (scan)
    _serve,  # noqa: F401  (serve)
)
from skilldeck.cli._app import main

__all__ = ["main"]
