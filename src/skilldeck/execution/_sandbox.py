"""The bubblewrap backend: probe whether it works here, and build its command line.

Under bubblewrap a run gets: the host's root read-only; private ``/tmp`` and
``/var/tmp``; ``/home``, ``/root``, the caller's home and skilldeck's own folders
(``protected_state``) hidden behind empty tmpfs mounts, also where a mount of an
ancestor (``/``, ``~/.cache``) would show them; ``/run`` hidden unless network is granted; the
skill folder read-only; the work folder writable (unless the work folder *is* the
skill folder); new PID, IPC, UTS, cgroup and (without a network grant) network
namespaces; ``--die-with-parent``. The launch helper supervises the program inside
the PID namespace. When skilldeck runs as root, bubblewrap runs
privileged (no user namespace) and the launch helper inside drops every
capability and switches to the unprivileged ``run_as`` user before the program
starts, so file permissions apply as for that user. As a normal user,
bubblewrap uses an unprivileged user namespace with all capabilities dropped.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

from skilldeck._frozen import replace, value
from skilldeck._ownstate import hidden_inside, protected_state
from skilldeck._paths import within
from skilldeck.execution._access import ancestors
from skilldeck.execution._platform import linux_layers, platform_note

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "SandboxStatus",
    "bwrap_argv",
    "forget_usable",
    "hidden_dirs",
    "private_dirs",
    "probe_sandbox",
    "usable_sandbox",
]

# Paths inside the sandbox: private tmpfs mounts, not the host's shared /tmp.
_TMP = "/tmp"  # noqa: S108
_VAR_TMP = "/var/tmp"  # noqa: S108
_HIDDEN_DEFAULT = ("/home", "/root")
_lock = threading.Lock()
_probes: dict[str, SandboxStatus] = {}
_versions: dict[str, str | None] = {}


@value
class SandboxStatus:
    """What the bubblewrap probe found on this machine."""

    available: bool
    path: str | None
    version: str | None
    reason: str | None
    as_root: bool
    user_namespace: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "backend": "bubblewrap",
            "available": self.available,
            "path": self.path,
            "version": self.version,
            "reason": self.reason,
            "as_root": self.as_root,
            "user_namespace": self.user_namespace,
        }


def _base_flags(*, as_root: bool, network: bool) -> list[str]:
    flags = [
        "--die-with-parent",
        "--unshare-pid",
        # the launch helper is the namespace's init and bwrap's only child: without
        # this, bwrap's own init is orphaned to PID 1 when bwrap exits (a zombie
        # wherever PID 1 does not reap)
        "--as-pid-1",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
    ]
    if not network:
        flags.append("--unshare-net")
    if not as_root:
        flags += ["--unshare-user", "--cap-drop", "ALL"]
    return flags


def probe_sandbox(bwrap: str | None = None, *, refresh: bool = False) -> SandboxStatus:
    """Try bubblewrap once per process (``refresh`` probes again), with its version."""
    status = usable_sandbox(bwrap, refresh=refresh, remembered=False)
    if status.path is None or not linux_layers():
        return status
    with _lock:
        if refresh or status.path not in _versions:
            _versions[status.path] = _version(status.path)
        version = _versions[status.path]
    return status if version is None else replace(status, version=version)


def usable_sandbox(
    bwrap: str | None = None, *, refresh: bool = False, remembered: bool = True
) -> SandboxStatus:
    """:func:`probe_sandbox` without the version: what a run needs (one process fewer).

    Once per process; ``remembered``: a probe that worked in an earlier process
    stands in while nothing it depends on changed (``_probe_memo``: only "works" is
    kept, and a run that finds bubblewrap broken forgets it)."""
    path = bwrap or _find_bwrap(refresh=refresh)
    as_root = os.geteuid() == 0
    key = f"{path or ''}\0{linux_layers()}"
    with _lock:
        if not refresh and key in _probes:
            return _probes[key]
        status = _probe(path, as_root, remembered=remembered and not refresh)
        _probes[key] = status
        return status


#: where ``bwrap`` was found on each ``PATH`` (a search stats every folder of it before
#: the one holding it: 0.15 ms a run on a long ``PATH``); kept per process, as the probe
_found: dict[str | None, str] = {}


def _find_bwrap(*, refresh: bool) -> str | None:
    """``shutil.which("bwrap")``: the answer found earlier for this ``PATH`` while that
    file is still executable (not found is searched again, so one installed is seen)."""
    key = os.environ.get("PATH")
    hit = None if refresh else _found.get(key)
    if hit is not None and os.access(hit, os.X_OK):
        return hit
    found = shutil.which("bwrap")
    if found is None:
        _found.pop(key, None)
    else:
        _found[key] = found
    return found


def forget_usable() -> None:
    """bubblewrap failed to start a run: probe it again (this process and the next)."""
    from skilldeck.execution import _probe_memo

    with _lock:
        _probes.clear()
        _found.clear()
    _probe_memo.forget(_probe_memo.BWRAP)


def _version(path: str) -> str | None:
    """``bwrap --version``, without the program's name (``None`` when it says nothing)."""
    try:
        ver = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return ver.stdout.strip().removeprefix("bubblewrap ").strip() or None


def _probe_argv(path: str, as_root: bool) -> list[str]:
    return [
        path,
        *_base_flags(as_root=as_root, network=False),
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--perms", "01777", "--tmpfs", _TMP,
        "--", "/bin/sh", "-c", "exit 0",
    ]  # fmt: skip


def _probe(path: str | None, as_root: bool, *, remembered: bool = False) -> SandboxStatus:
    if not linux_layers():
        return SandboxStatus(False, path, None, platform_note(), as_root, False)
    if path is None:
        return SandboxStatus(False, None, None, "bwrap is not installed", as_root, False)
    if not os.path.isfile(path):
        return SandboxStatus(False, None, None, f"bwrap is not installed at {path}", as_root, False)
    from skilldeck.execution import _probe_memo as memo

    argv = _probe_argv(path, as_root)
    try:
        stamp = memo.stamp("\0".join(argv), memo.file_stamp(path))
    except OSError:
        stamp = None
    works = SandboxStatus(True, path, None, None, as_root, not as_root)
    if remembered and stamp is not None and memo.remembered(memo.BWRAP, stamp):
        return works
    try:
        proc = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        memo.forget(memo.BWRAP)
        return SandboxStatus(False, path, None, f"bwrap cannot start: {exc}", as_root, False)
    if proc.returncode != 0:
        memo.forget(memo.BWRAP)
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        reason = "bwrap failed: " + (detail[-1] if detail else f"exit status {proc.returncode}")
        return SandboxStatus(False, path, None, reason, as_root, False)
    if stamp is not None:
        memo.remember(memo.BWRAP, stamp)
    return works


def hidden_dirs() -> list[str]:
    """Folders hidden behind empty mounts under bubblewrap (homes, skilldeck's own)."""
    return _hidden_dirs()


def private_dirs(network: bool) -> list[str]:
    """Folders whose host content a sandboxed program cannot see."""
    return [_TMP, _VAR_TMP, *_hidden_dirs(), *(() if network else ("/run", "/var/run"))]


_hidden_cache: dict[tuple[str, ...], list[str]] = {}  # a few entries per process


def _hidden_dirs() -> list[str]:
    places = protected_state()
    candidates = [os.environ.get("HOME") or "", *(n for p in places for n in p.spellings())]
    # keyed by which folders exist now: one created later (the data folder) is hidden too
    key = tuple(f"{c}\0{os.path.isdir(c)}" for c in candidates)
    cached = _hidden_cache.get(key)
    if cached is None:
        cached = _hidden_cache[key] = _find_hidden([c for c in candidates if c])
    return list(cached)


def _find_hidden(candidates: list[str]) -> list[str]:
    """The folders to hide: ``/home``, ``/root`` and each candidate not inside one of
    them nor inside the private ``/tmp`` and ``/var/tmp`` (whose host content no run
    sees: an empty mount there would only cost the run a mount)."""
    hidden = list(_HIDDEN_DEFAULT)
    for cand in candidates:
        try:
            real = str(Path(cand).resolve())
        except (OSError, RuntimeError):
            continue
        if real == "/" or within(real, (_TMP, _VAR_TMP)) or not Path(real).is_dir():
            continue
        if not within(real, hidden):
            hidden.append(real)
    return hidden


def _is_real_dir(path: str) -> bool:
    """A folder, not a link to one (one ``lstat``)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def bwrap_argv(
    bwrap: str,
    *,
    as_root: bool,
    network: bool,
    skill_dir: str,
    work_dir: str,
    work_writable: bool,
    scratch_dir: str,
    extra_ro: Sequence[str] = (),
    binds: Sequence[tuple[str, bool]] = (),
) -> list[str]:
    """The ``bwrap ... --`` prefix for one run.

    Order matters (a later mount covers an earlier one): the host read-only with
    private and hidden folders; interpreters; the working folder; extra mounts and
    argument paths; then empty folders over skilldeck's own state wherever one of
    those views contains it (a mount of ``/`` or ``~/.cache``); the run's own
    folders (the skill's snapshot, the scratch folder) last, so no mount covers
    them. The launch helper is not a path: it runs from a descriptor. bubblewrap
    creates mount points only inside its own empty folders, never on the host.
    """
    hidden = _hidden_dirs()
    argv = [bwrap, *_base_flags(as_root=as_root, network=network)]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += ["--perms", "01777", "--tmpfs", _TMP, "--perms", "01777", "--tmpfs", _VAR_TMP]
    for path in hidden:
        argv += ["--tmpfs", path]
    if not network:
        for run in ("/run", "/var/run"):
            if _is_real_dir(run):
                argv += ["--tmpfs", run]
    # Interpreters and tools that live under a hidden folder (a venv in a home).
    private = (_TMP, _VAR_TMP, *hidden, *(() if network else ("/run",)))
    made: set[str] = set()

    def parents(path: str) -> list[str]:
        # bwrap creates missing parents 0700; the unprivileged user must traverse them.
        out: list[str] = []
        for p in ancestors(path):
            if p in made or not within(p, private) or p in private:
                continue
            made.add(p)
            out += ["--perms", "0755", "--dir", p]
        return out

    views: list[str] = []
    for path in extra_ro:
        if within(path, private) and os.path.exists(path):
            argv += [*parents(path), "--ro-bind", path, path]
            views.append(path)
    if work_dir != skill_dir:
        # a fresh working folder inside the run's scratch folder is shown by that
        # folder's mount below (writable, last): a mount of its own would be covered
        if not within(work_dir, (scratch_dir,)):
            argv += [*parents(work_dir), "--bind" if work_writable else "--ro-bind"]
            argv += [work_dir, work_dir]
        views.append(work_dir)
    # Extra mounts and argument paths, after the work folder: a read-only file
    # inside a writable work folder stays read-only.
    for path, writable in binds:
        if os.path.exists(path):
            argv += [*parents(path), "--bind" if writable else "--ro-bind", path, path]
            views.append(path)
    for path in hidden_inside(views):
        if os.path.isdir(path):
            argv += ["--perms", "0000", "--tmpfs", path]
    argv += [*parents(skill_dir), "--ro-bind", skill_dir, skill_dir]
    argv += [*parents(scratch_dir), "--bind", scratch_dir, scratch_dir]
    argv += ["--chdir", work_dir, "--"]
    return argv
