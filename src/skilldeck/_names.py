"""The one rule for a parameter's name.

A letter or ``_``, then up to 63 letters, digits or ``_``: the names of a skill's
arguments, of a declared tool's parameters (and what a placeholder may name), and
of a tool parameter renamed by the runtime config. Compiled on first use, so a
command that checks no name pays nothing for it.
"""

from __future__ import annotations

import functools
import re

__all__ = ["is_parameter_name"]


@functools.cache
def _pattern() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def is_parameter_name(name: object) -> bool:
    """Whether ``name`` is a string that names a parameter."""
    return isinstance(name, str) and _pattern().fullmatch(name) is not None
