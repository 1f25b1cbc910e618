"""``skilldeck.CODES`` lists every diagnostic code, whatever was imported before."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import skilldeck

SRC = Path(skilldeck.__file__).parent


def test_every_module_that_registers_codes_is_named() -> None:
    registering = set()
    for path in SRC.rglob("*.py"):
        if path.name == "_diagnostics.py":
            continue
        if re.search(r"\bregister_code\(", path.read_text("utf-8")):
            rel = path.relative_to(SRC.parent).with_suffix("")
            registering.add(".".join(rel.parts).removesuffix(".__init__"))
    assert registering == set(skilldeck._CODE_MODULES)


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
