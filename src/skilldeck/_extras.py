"""The command that adds an optional extra to *this* installation of skilldeck.

A hint like ``pip install 'skilldeck[mcp]'`` fails when skilldeck came from a
checkout (there may be no such package on the index the user has), lands in
the wrong environment when ``pip`` is another interpreter's, and does nothing
for a ``pipx`` or ``uv tool`` install. ``install_hint`` looks at how this copy
was installed (PEP 610 ``direct_url.json``) and where it runs, and names the
command that works when pasted.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import sys
from urllib.parse import unquote, urlparse

__all__ = ["install_hint"]


def _origin() -> tuple[str, bool]:
    """(what to install: a checkout's folder or ``skilldeck``, installed editable?)"""
    try:
        from importlib.metadata import PackageNotFoundError, distribution

        raw = distribution("skilldeck").read_text("direct_url.json")
    except (PackageNotFoundError, OSError, ValueError):
        raw = None
    if raw:
        try:
            info = json.loads(raw)
            url = urlparse(str(info.get("url", "")))
            if url.scheme == "file" and isinstance(info.get("dir_info"), dict):
                return unquote(url.path), bool(info["dir_info"].get("editable"))
        except (ValueError, AttributeError):
            pass
    return "skilldeck", False


def install_hint(extra: str) -> str:
    """The command that installs skilldeck's ``extra`` where this skilldeck runs."""
    where, editable = _origin()
    spec = shlex.quote(f"{where}[{extra}]")
    prefix = sys.prefix.replace(os.sep, "/")
    if "/pipx/venvs/" in prefix:
        return f"pipx install --force {spec}"
    if "/uv/tools/" in prefix:
        return f"uv tool install --force {spec}"
    python = shlex.quote(sys.executable)
    pip = f"{python} -m pip install"
    if importlib.util.find_spec("pip") is None:  # a venv made by uv has no pip
        pip = f"uv pip install --python {python}"
    return f"{pip} {'-e ' if editable else ''}{spec}"
