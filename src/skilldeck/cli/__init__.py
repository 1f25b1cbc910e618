"""The ``skilldeck`` command line. Each command group lives in its own module.

Command modules register on ``main`` when imported; ``main`` imports the one a
command needs when it runs (see ``_lazy``), so start-up stays small.
``entry`` is the console script: ``skilldeck --version`` answers without
importing the command line at all, and a bare ``skilldeck list`` (or ``list --json``)
runs without click (``_plain``).

The cycle collector waits while a command starts (``entry`` pauses it until the
command group's callback runs, ``_start_up_done``, which moves what start-up made
to the oldest generation): start-up builds long-lived objects only (modules,
classes, the command tree) and collections then find nothing. Once the command is
done, what is left is frozen (``gc.freeze``) so the interpreter's last collection
at exit does not traverse it all again. Together about an eleventh of the
instructions of a warm ``skilldeck list``.
"""

from __future__ import annotations

import gc
import os
import sys

from skilldeck._gc import pause as pause_collector, resume as resume_collector

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.cli._app import main

__all__ = ["entry", "main"]

_paused = False


def entry() -> None:
    """Run the command line (the ``skilldeck`` console script)."""
    if sys.argv[1:] in (["--version"], ["version"]):
        from skilldeck import __version__

        sys.stdout.write(f"skilldeck, version {__version__}\n")  # what click prints
        return
    global _paused
    _paused = pause_collector()
    try:
        from skilldeck.cli._plain import run

        if run(sys.argv[1:]):  # a bare `skilldeck list` needs no parser (see _plain)
            return
        from skilldeck.cli._app import main

        if "_SKILLDECK_COMPLETE" in os.environ:  # a shell asks for completions
            import skilldeck.cli._meta  # noqa: F401  (registers bash's, values quoted)
        main(prog_name="skilldeck")
    finally:
        _start_up_done()
        gc.freeze()


def _start_up_done() -> None:
    """The command itself starts: the cycle collector that ``entry`` paused runs again."""
    global _paused
    if _paused:
        _paused = False
        # start-up's objects go to the oldest generation untraversed, as a scan's do
        resume_collector(True, promote_after=0)


def __getattr__(name: str) -> object:
    if name == "main":
        from skilldeck.cli._app import main

        return main
    raise AttributeError(f"module 'skilldeck.cli' has no attribute {name!r}")
