"""Remembering, across processes, that a probe of this machine worked: bubblewrap
runs (a ``bwrap`` and a shell, about 5 ms of CPU) and the sealed launch helper
executes (about 1 ms); every command-line run made both.

Only a probe that worked is remembered, under a stamp of everything its answer
depends on that can be read cheaply: what the caller names (the probe's command
line, the ``bwrap`` file's inode, size, times, mode and owner; the helper's build
tag), who asks (user and group ids), the kernel's boot id, the namespaces this
process runs in (another container), the sysctls that allow user namespaces and
executable in-memory files, and this process's ``no_new_privs`` and seccomp state.
A remembered answer also lapses after an hour.

It fails safe both ways. A stale "works" never weakens isolation: the run still
goes through bubblewrap and the compiled helper, and if either then cannot start,
the run fails (it never falls back to less isolation than it was planned and
approved with) and the memo is forgotten, so the next run probes again. A "does
not work" is never remembered: every run probes again. The memos live in
skilldeck's own cache folder (``exec/probe-*``), owner- and mode-checked like the launch
helper beside them.
"""

from __future__ import annotations

import contextlib
import os
import time

from skilldeck._errors import UnsafeStateError
from skilldeck._paths import dirs
from skilldeck._statedir import open_state_dir, open_state_subdir, read_file_at, write_file_at

__all__ = ["BWRAP", "HELPER", "forget", "remember", "remembered", "stamp"]

BWRAP = "probe-bwrap"
HELPER = "probe-helper"
_MAX_AGE = 3600.0
_SYSCTLS = (
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
    "/proc/sys/vm/memfd_noexec",
)
_NAMESPACES = ("user", "mnt", "pid", "net", "cgroup", "ipc", "uts")


def _read(path: str, limit: int = 64) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).strip()
    except OSError:
        return b"-"


def _confinement() -> bytes:
    """This process's ``NoNewPrivs`` and ``Seccomp`` lines (a filter may forbid what
    a probe did)."""
    try:
        with open("/proc/self/status", "rb") as fh:
            return b" ".join(
                line.strip() for line in fh if line.startswith((b"NoNewPrivs:", b"Seccomp:"))
            )
    except OSError:
        return b"-"


def file_stamp(path: str) -> str:
    """What changes when ``path`` is replaced, upgraded or loses a mode bit."""
    st = os.stat(path)
    return (
        f"{path} {st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} "
        f"{st.st_mode} {st.st_uid} {st.st_gid}"
    )


def stamp(*parts: str) -> bytes | None:
    """The stamp of a probe described by ``parts``, or ``None`` when what it depends
    on cannot be read (then nothing is remembered)."""
    try:
        spaces = [os.readlink(f"/proc/self/ns/{name}") for name in _NAMESPACES]
    except OSError:
        return None
    lines = [
        *parts,
        f"{os.geteuid()} {os.getegid()} {os.getuid()} {os.getgid()}",
        *spaces,
    ]
    extra = [_read("/proc/sys/kernel/random/boot_id"), *map(_read, _SYSCTLS), _confinement()]
    return "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n" + b"\n".join(extra)


def _exec_dir(*, create: bool = True) -> tuple[int, str]:
    cache = dirs().cache
    top = open_state_dir(cache, create=create)
    try:
        return open_state_subdir(top, "exec", path=cache / "exec"), str(cache / "exec")
    finally:
        os.close(top)


def remembered(name: str, key: bytes) -> bool:
    """Whether the probe ``name`` with stamp ``key`` worked within the last hour."""
    try:
        fd, folder = _exec_dir()
    except (OSError, UnsafeStateError):
        return False
    try:
        shown = os.path.join(folder, name)
        data = read_file_at(fd, name, path=shown, max_bytes=64 << 10, private=True)
    except (OSError, UnsafeStateError):
        return False
    finally:
        os.close(fd)
    if data is None:
        return False
    when, _, kept = data.partition(b"\n")
    try:
        age = time.time() - float(when)
    except ValueError:
        return False
    return -60.0 < age < _MAX_AGE and kept == key


def remember(name: str, key: bytes) -> None:
    """Keep that the probe ``name`` with stamp ``key`` worked now (best effort)."""
    with contextlib.suppress(OSError, UnsafeStateError):
        fd, _ = _exec_dir()
        try:
            write_file_at(fd, name, f"{time.time():.0f}\n".encode() + key)
        finally:
            os.close(fd)


def forget(name: str) -> None:
    """Drop the memo of probe ``name`` (what it checked failed, or a probe found it
    unusable)."""
    with contextlib.suppress(OSError, UnsafeStateError):
        fd, _ = _exec_dir(create=False)
        try:
            os.unlink(name, dir_fd=fd)
        except FileNotFoundError:
            pass
        finally:
            os.close(fd)
