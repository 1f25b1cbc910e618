"""Which isolation layers this platform offers.

The Linux-only layers are ``prctl`` (subreaper, ``no_new_privs``, the capability
drop, the parent-death signal), ``/proc`` scans of the process tree, bubblewrap
and the compiled launch helper's supervision. Elsewhere a run keeps the portable
layers: environment scrub, resource limits, the privilege drop when root, a new
session whose process group is killed. Setting ``SKILLDECK_EXEC_PORTABLE=1``
switches the Linux-only layers off on Linux too, so that path can be tested.
"""

from __future__ import annotations

import os
import sys

__all__ = ["PORTABLE_ENV", "linux_layers", "platform_note"]

PORTABLE_ENV = "SKILLDECK_EXEC_PORTABLE"


def linux_layers() -> bool:
    """True when the Linux-only layers may be used (Linux, not switched off)."""
    if not sys.platform.startswith("linux"):
        return False
    return os.environ.get(PORTABLE_ENV, "").strip().lower() in ("", "0", "false", "no")


def platform_note() -> str | None:
    """Why the Linux-only layers are off, or ``None`` when they are on."""
    if not sys.platform.startswith("linux"):
        return f"{sys.platform}: the Linux-only layers (bubblewrap, prctl, /proc) do not exist here"
    if not linux_layers():
        return f"the Linux-only layers are switched off ({PORTABLE_ENV}=1)"
    return None
