"""``skilldeck.CODES`` is the one table of diagnostic codes: complete whatever was
imported before, and exactly the codes the sources use."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import skilldeck

SRC = Path(skilldeck.__file__).parent


def test_the_codes_the_sources_use_are_the_table() -> None:
    """Every ``SKnnn`` a module names is in ``CODES``, and every code there is used."""
    used = set()
    for path in SRC.rglob("*.py"):
        if path.name != "_diagnostics.py" and "_bundled" not in path.parts:
            used |= set(re.findall(r"[\"'](SK\d{3})[\"']", path.read_text("utf-8")))
    assert used == set(skilldeck.CODES)


def test_codes_in_a_fresh_process_are_all_of_them() -> None:
    code = (
        "import pkgutil, importlib, skilldeck\n"
        "first = len(skilldeck.CODES)\n"
        "for m in pkgutil.walk_packages(skilldeck.__path__, 'skilldeck.'):\n"
        "    if not m.name.startswith(('skilldeck.mcp', 'skilldeck.integrations',"
        " 'skilldeck.postgres', 'skilldeck._bundled')):\n"
        "        importlib.import_module(m.name)\n"
        "print(first, len(skilldeck.CODES))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    first, everything = map(int, out.stdout.split())
    assert first == everything > 100
