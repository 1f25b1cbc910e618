"""Find the launch helper: the compiled one (built once into the cache) or the Python one.

The C helper is compiled from ``_helper.c`` with the system's C compiler the first
time it is needed and kept in ``dirs().cache / "exec"`` under a name carrying the
source's digest, so an upgrade rebuilds it. Compilation failures are remembered
for the process and the Python helper (same protocol) is used instead.
"""

from __future__ import annotations

import contextlib
import functools
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
_MISSING = object()
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
    try:  # a cache folder that cannot be written means no native helper, not a failed run
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".helper-", suffix=".tmp")
    except OSError:
        return False
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
        os.chmod(tmp, 0o755)  # noqa: S103  (a program other users may run)
        os.replace(tmp, target)
        return True
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


@functools.cache
def _tag() -> str | None:
    """Digest of the C source and machine: a new version gets a new binary."""
    try:
        source = _C_SOURCE.read_bytes()
    except OSError:
        return None
    return bytes_digest(source + platform.machine().encode())[7:23]


def _works(binary: Path) -> bool:
    """Smoke test: the binary runs here (a ``noexec`` cache folder would stop it)."""
    probe = [str(binary), "2", "exec", *(["-1"] * 10), "--", "/bin/sh", "-c", "exit 0"]
    try:
        done = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _native_helper() -> Helper | None:
    tag = _tag()
    if tag is None:
        return None
    target = dirs().cache / "exec" / f"helper-{tag}"
    with _lock:
        # A binary built earlier in this process (maybe under another cache folder)
        # is reused while it exists; a failed build is not retried.
        known = _cache.get(tag, _MISSING)
        if known is None:
            return None
        if isinstance(known, Helper) and os.access(known.path, os.X_OK):
            return known
        ok = target.is_file() and os.access(target, os.X_OK)
        if not ok:
            ok = _compile(target)
        ok = ok and _works(target)
        helper = Helper((str(target),), "native", str(target)) if ok else None
        _cache[tag] = helper
        return helper


def find_helper(*, native: bool = True) -> Helper:
    """The launch helper to use (compiled when allowed and possible)."""
    if native:
        helper = _native_helper()
        if helper is not None:
            return helper
    return _python_helper()
