"""The naming rules: a parameter's name and a tool's name.

A parameter: a letter or ``_``, then up to 63 letters, digits or ``_``: the names
of a skill's arguments, of a declared tool's parameters (and what a placeholder may
name), and of a tool parameter renamed by the runtime config.

A tool, in one of three forms:

- ``"model"``: what a model may call a tool by, 1-64 letters, digits, ``_`` or
  ``-`` (what OpenAI's and Anthropic's APIs accept): skilldeck's tools renamed or
  prefixed by the runtime config, and the names the provider adapters send;
- ``"python"``: a tool of an inline skill, the same but not starting with a digit
  or ``-``;
- ``"declared"``: a tool a SKILL.md declares in Markdown, 1-32 lower-case letters,
  digits or ``_``.

Each pattern is compiled on first use, so a command that checks no name pays
nothing for it.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

__all__ = ["ToolNameForm", "is_parameter_name", "is_tool_name", "model_tool_name"]

if TYPE_CHECKING:
    ToolNameForm = Literal["model", "python", "declared"]

_TOOL_CHARS = "A-Za-z0-9_-"
_PATTERNS: dict[str, str] = {
    "parameter": r"[A-Za-z_][A-Za-z0-9_]{0,63}",
    "model": f"[{_TOOL_CHARS}]{{1,64}}",
    "python": f"[A-Za-z_][{_TOOL_CHARS}]{{0,63}}",
    "declared": r"[a-z0-9_]{1,32}",
}


@functools.cache
def _pattern(form: str) -> re.Pattern[str]:
    return re.compile(_PATTERNS[form])


def is_parameter_name(name: object) -> bool:
    """Whether ``name`` is a string that names a parameter."""
    return isinstance(name, str) and _pattern("parameter").fullmatch(name) is not None


def is_tool_name(name: object, form: ToolNameForm = "model") -> bool:
    """Whether ``name`` is a string that names a tool in ``form`` (see the module)."""
    return isinstance(name, str) and _pattern(form).fullmatch(name) is not None


def model_tool_name(name: str) -> str:
    """``name`` with every character a model's tool name may not hold made ``_``
    (not shortened: at most 64 characters is the caller's to ensure)."""
    return re.sub(f"[^{_TOOL_CHARS}]", "_", name)
