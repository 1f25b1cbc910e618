"""The ``skilldeck`` command line. Each command group lives in its own module.

Command modules register on ``main`` when imported; ``main`` imports the one a
command needs when it runs (see ``_lazy``), so start-up stays small.
``entry`` is the console script: ``skilldeck --version`` answers without
importing the command line at all.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.cli._app import main

__all__ = ["entry", "main"]


def entry() -> None:
    """Run the command line (the ``skilldeck`` console script)."""
    if sys.argv[1:] in (["--version"], ["version"]):
        from skilldeck import __version__

        sys.stdout.write(f"skilldeck, version {__version__}\n")  # what click prints
        return
    from skilldeck.cli._app import main

    main(prog_name="skilldeck")


def __getattr__(name: str) -> object:
    if name == "main":
        from skilldeck.cli._app import main

        return main
    raise AttributeError(f"module 'skilldeck.cli' has no attribute {name!r}")
