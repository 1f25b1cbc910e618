"""Find the real program behind a name: ``PATH`` lookup, version-manager shims, prefixes.

A program named without a slash is looked up on the absolute entries of ``PATH``.
Shims of version managers (pyenv, rbenv, nodenv, asdf: small scripts that pick a
version and ``exec`` it) are resolved to the program they would run, by asking
the manager (``pyenv which python3``) in the run's working folder, so the choice
of version is the same. A sandbox then mounts what that program needs: its
install prefix (``<prefix>/bin/x``), and for a Python virtual environment also
the base installation named by ``pyvenv.cfg``.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from skilldeck._paths import real_path

__all__ = ["Program", "find_program", "program_roots"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")

#: patterns of a version manager's shim (compiled by ``re`` when a shim is first read)
_SHIM_EXEC = rb'exec\s+"?([^"\s]+?)"?\s+exec\s+"?(?:\$program|\$\{0##\*/\}|[\w.+-]+)"?'
_SHIM_ROOT = rb'export\s+([A-Z]+_ROOT|ASDF_DIR|ASDF_DATA_DIR)="([^"]+)"'
_MANAGERS = ("pyenv", "rbenv", "nodenv", "asdf", "goenv", "jenv", "plenv")


class Program:
    """What runs: ``path`` (absolute), the ``shim`` it replaced, and folders it needs
    (never changed once made; not a dataclass, like a run's plan)."""

    __slots__ = ("path", "roots", "shim")

    def __init__(self, path: str, shim: str | None, roots: tuple[str, ...]) -> None:
        self.path = path
        self.shim = shim
        self.roots = roots


def _search(name: str, env_path: str | None) -> str | None:
    search = (env_path if env_path is not None else os.defpath).split(os.pathsep)
    # Only absolute PATH entries: never a program from the host's current folder.
    path = os.pathsep.join(p for p in search if os.path.isabs(p))
    return shutil.which(name, path=path)


#: what a file's head and stat signature answered (``_stamped``): a run reads its
#: program's first 4 KiB and its venv's ``pyvenv.cfg`` each time otherwise
_heads: dict[tuple[str, str], tuple[tuple[int, ...], object]] = {}


def _stamped(kind: str, path: str, read: Callable[[str], _T]) -> _T:
    """``read(path)``, kept while ``path`` keeps its stat signature (device, inode,
    size, change and modification times) and was last changed over a second ago (a
    change within the same tick of a coarse clock keeps the signature)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return read(path)
    sig = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    key = (kind, path)
    hit = _heads.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]  # type: ignore[return-value]  # what read() gave for this signature
    found = read(path)
    if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > 1_000_000_000:
        if len(_heads) > 256:
            _heads.clear()
        _heads[key] = (sig, found)
    return found


def _shim_manager(path: str) -> tuple[str, dict[str, str]] | None:
    """The version manager a shim script execs (and the roots it exports), else ``None``."""
    return _stamped("shim", path, _read_shim)


def _read_shim(path: str) -> tuple[str, dict[str, str]] | None:
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    match = re.search(_SHIM_EXEC, head)
    if match is None:
        return None
    manager = os.fsdecode(match.group(1))
    if Path(manager).name not in _MANAGERS:
        return None
    if not os.path.isabs(manager):
        found = shutil.which(manager)
        if found is None:
            return None
        manager = found
    exported = {os.fsdecode(k): os.fsdecode(v) for k, v in re.findall(_SHIM_ROOT, head)}
    return manager, exported


_which_cache: dict[tuple[str, ...], tuple[float, str | None]] = {}


def _which_via(manager: str, name: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """``MANAGER which NAME`` in ``cwd`` (answers reused for a few seconds)."""
    pins = tuple(f"{k}={v}" for k, v in sorted(env.items()) if k.endswith("_VERSION"))
    key = (manager, name, cwd, *pins)
    now = time.monotonic()
    hit = _which_cache.get(key)
    if hit is not None and now - hit[0] < 5.0:
        return hit[1]
    found = _ask_manager(manager, name, cwd, env)
    if len(_which_cache) > 256:
        _which_cache.clear()
    _which_cache[key] = (now, found)
    return found


def _ask_manager(manager: str, name: str, cwd: str, env: Mapping[str, str]) -> str | None:
    try:
        done = subprocess.run(
            [manager, "which", name],
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    if done.returncode != 0 or not lines:
        return None
    real = lines[-1].strip()
    return real if os.path.isabs(real) and os.access(real, os.X_OK) else None


@functools.lru_cache(maxsize=256)
def _prefix_of(path: str) -> str | None:
    parent = Path(path).parent
    if parent.name in ("bin", "sbin") and str(parent.parent) != "/":
        return str(parent.parent)
    return None


def program_roots(path: str) -> tuple[str, ...]:
    """Folders ``path`` needs: its install prefix, the resolved one, a venv's base."""
    roots: list[str] = []
    for cand in (path, real_path(path)):
        prefix = _prefix_of(cand)
        folder = prefix or str(Path(cand).parent)
        if folder not in roots:
            roots.append(folder)
        if prefix is not None:
            base = _venv_base(prefix)
            if base is not None and base not in roots:
                roots.append(base)
    return tuple(roots)


def _venv_base(prefix: str) -> str | None:
    """The base installation of a Python virtual environment (``home`` in pyvenv.cfg)."""
    home = _stamped("venv", os.path.join(prefix, "pyvenv.cfg"), _venv_home)
    if home is None:
        return None
    home = real_path(home)
    return _prefix_of(home + "/python") or home


def _venv_home(cfg: str) -> str | None:
    """``home`` of a ``pyvenv.cfg`` as written (``None``: no such file or line)."""
    try:
        with open(cfg, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home":
            return value.strip()
    return None


def find_program(
    name: str, *, env_path: str | None, cwd: str, env: Mapping[str, str]
) -> Program | None:
    """The program ``name`` would run (shims resolved), or ``None`` when not found."""
    found = name if os.path.isabs(name) else _search(name, env_path)
    if found is None:
        return None
    shim: str | None = None
    shimmed = _shim_manager(found)
    if shimmed is not None:
        manager, exported = shimmed
        real = _which_via(manager, Path(found).name, cwd, {**env, **exported})
        if real is not None:
            shim, found = found, real
    return Program(found, shim, program_roots(found))


def python_roots(executable_roots: Sequence[str] | None = None) -> tuple[str, ...]:
    """Folders skilldeck's own Python needs (for ``.py`` scripts run with it);
    ``executable_roots``: ``program_roots(sys.executable)`` when the caller has it."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    found = executable_roots if executable_roots is not None else program_roots(sys.executable)
    roots |= set(found)
    return tuple(sorted(roots))
