"""Remembering, across processes, that bubblewrap worked here (the probe costs a
``bwrap`` and a shell, about 5 ms of CPU, on every command-line run).

Only a working probe is remembered, under a stamp of everything its answer depends
on that can be read cheaply: the probe's own command line, the ``bwrap`` file
(inode, size, times, mode, owner: an upgrade or a lost setuid bit), who asks (user
and group ids), the kernel's boot id, the namespaces this process runs in (another
container), the sysctls that allow user namespaces, and this process's
``no_new_privs`` and seccomp state. A remembered answer also lapses after an hour.

It fails safe both ways. A stale "works" never weakens isolation: the run still
goes through bubblewrap, and if bubblewrap then cannot start, the run fails (it
never falls back to running without the sandbox) and the memo is forgotten, so the
next run probes again. A "does not work" is never remembered: every run without a
usable bubblewrap probes again. The memo lives in skilldeck's own cache folder
(``exec/bwrap-usable``), owner- and mode-checked like the launch helper beside it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence

from skilldeck._errors import UnsafeStateError
from skilldeck._paths import dirs
from skilldeck._statedir import open_state_dir, open_state_subdir, read_file_at, write_file_at

__all__ = ["forget", "remember", "remembered", "stamp"]

_NAME = "bwrap-usable"
_MAX_AGE = 3600.0
_SYSCTLS = (
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
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
    bubblewrap does)."""
    try:
        with open("/proc/self/status", "rb") as fh:
            return b" ".join(
                line.strip() for line in fh if line.startswith((b"NoNewPrivs:", b"Seccomp:"))
            )
    except OSError:
        return b"-"


def stamp(bwrap: str, probe_argv: Sequence[str]) -> bytes | None:
    """What a probe of ``bwrap`` (run as ``probe_argv``) depends on, or ``None`` when
    it cannot be read (then nothing is remembered)."""
    try:
        st = os.stat(bwrap)
        spaces = [os.readlink(f"/proc/self/ns/{name}") for name in _NAMESPACES]
    except OSError:
        return None
    parts = [
        "\0".join(probe_argv),
        f"{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}",
        f"{st.st_mode} {st.st_uid} {st.st_gid}",
        f"{os.geteuid()} {os.getegid()} {os.getuid()} {os.getgid()}",
        *spaces,
    ]
    extra = [_read("/proc/sys/kernel/random/boot_id"), *map(_read, _SYSCTLS), _confinement()]
    return "\n".join(parts).encode("utf-8", "surrogateescape") + b"\n" + b"\n".join(extra)


def _exec_dir(*, create: bool = True) -> tuple[int, str]:
    cache = dirs().cache
    top = open_state_dir(cache, create=create)
    try:
        return open_state_subdir(top, "exec", path=cache / "exec"), str(cache / "exec" / _NAME)
    finally:
        os.close(top)


def remembered(key: bytes) -> bool:
    """Whether a probe with stamp ``key`` worked within the last hour."""
    try:
        fd, shown = _exec_dir()
    except (OSError, UnsafeStateError):
        return False
    try:
        data = read_file_at(fd, _NAME, path=shown, max_bytes=64 << 10, private=True)
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


def remember(key: bytes) -> None:
    """Keep that a probe with stamp ``key`` worked now (best effort)."""
    with contextlib.suppress(OSError, UnsafeStateError):
        fd, _ = _exec_dir()
        try:
            write_file_at(fd, _NAME, f"{time.time():.0f}\n".encode() + key)
        finally:
            os.close(fd)


def forget() -> None:
    """Drop the memo (bubblewrap failed, or a probe found it unusable)."""
    with contextlib.suppress(OSError, UnsafeStateError):
        fd, _ = _exec_dir(create=False)
        try:
            os.unlink(_NAME, dir_fd=fd)
        except FileNotFoundError:
            pass
        finally:
            os.close(fd)
