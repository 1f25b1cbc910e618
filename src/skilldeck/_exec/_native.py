"""Find the launch helper: the compiled one (built once into the cache) or the Python one.

The C helper is compiled from ``_helper.c`` with the system's C compiler the first
time it is needed and kept in ``dirs().cache / "exec"`` under a name carrying the
source's digest, so an upgrade rebuilds it. Compilation failures are remembered
for the process and the Python helper (same protocol) is used instead.
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from skilldeck._digest import bytes_digest
from skilldeck._paths import dirs

__all__ = ["Helper", "find_helper"]

_HERE = Path(__file__).resolve().parent
_C_SOURCE = _HERE / "_helper.c"
_PY_SOURCE = _HERE / "_helper.py"
_lock = threading.Lock()
_cache: dict[str, Helper | None] = {}


@dataclass(frozen=True, slots=True)
class Helper:
    """How to start the helper: ``argv`` prefix and its kind (``native`` or ``python``)."""

    argv: tuple[str, ...]
    kind: str
    path: str


def _python_helper() -> Helper:
    return Helper((sys.executable, "-I", "-S", str(_PY_SOURCE)), "python", str(_PY_SOURCE))


def _compile(target: Path) -> bool:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return False
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".helper-", suffix=".tmp")
    os.close(fd)
    try:
        proc = subprocess.run(
            [cc, "-O2", "-o", tmp, str(_C_SOURCE)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )
        if proc.returncode != 0:
            return False
        os.chmod(tmp, 0o755)
        os.replace(tmp, target)
        return True
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _native_helper() -> Helper | None:
    try:
        source = _C_SOURCE.read_bytes()
    except OSError:
        return None
    tag = bytes_digest(source + platform.machine().encode())[7:23]
    target = dirs().cache / "exec" / f"helper-{tag}"
    key = str(target)
    with _lock:
        if key in _cache:
            return _cache[key]
        ok = target.is_file() and os.access(target, os.X_OK)
        if not ok:
            ok = _compile(target)
        helper = Helper((str(target),), "native", str(target)) if ok else None
        _cache[key] = helper
        return helper


def find_helper(*, native: bool = True) -> Helper:
    """The launch helper to use (compiled when allowed and possible)."""
    if native:
        helper = _native_helper()
        if helper is not None:
            return helper
    return _python_helper()
