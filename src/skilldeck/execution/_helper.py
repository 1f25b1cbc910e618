"""The launch helper, portable version (run as ``python -I -S _helper.py ...``).

The runner never uses ``preexec_fn`` (the MCP server is threaded); resource
limits, the privilege drop and process tracking happen in this small program,
exec'd between the runner and the skill's program. A compiled twin
(``_helper.c``) with the same protocol is used when a C compiler is available,
because it starts in well under a millisecond; this file is the fallback.

argv::

    helper 3 MODE UID GID GRACE_MS CPU AS FSIZE NOFILE NPROC CORE STATUS_FD OWN -- PROGRAM ARGS...

- ``exec``: apply limits, drop privileges, exec PROGRAM (inside a PID namespace,
  which already contains the tree);
- ``portable``: like ``exec`` with POSIX calls only (no ``prctl``, no ``/proc``); the
  runner kills the process group instead. Off Linux every mode behaves so;
- ``supervise``: become a child subreaper (orphans of the tree, including
  ``setsid`` escapers, are re-parented here), fork PROGRAM, wait; on
  SIGTERM/SIGINT/SIGHUP send SIGTERM to every descendant, after GRACE_MS freeze
  them all with SIGSTOP and SIGKILL them; when PROGRAM exits, kill whatever it
  left behind. The helper exits with PROGRAM's status (re-raising its signal) and,
  when ``STATUS_FD`` is not ``-1``, also writes it there (``e CODE`` or ``s SIGNAL``):
  a PID namespace's init reports a signal death as 128+N, like an exit status.

Limits: ``-1`` leaves one unchanged. ``UID``/``GID`` other than ``-1`` drop to
that user (bounding set emptied, groups cleared); ``no_new_privs`` is always set
(on Linux). Root staying root (``UID`` ``-1``) loses every capability before exec.
``OWN`` ``1``: ``NPROC`` counts only the run's own processes. Dropping from root to
``UID``, the program gets a user namespace of its own in which every id maps to
itself (the kernel counts ``RLIMIT_NPROC`` per user and namespace, so the run starts
from zero whatever else ``UID`` runs); where no namespace can be made, and for a
caller that is not root, ``NPROC`` is raised by ``UID``'s processes now (from ``/proc``).
Only the standard library's C-level modules are imported, so it starts fast.
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import signal
import sys
import time
from collections.abc import Iterable, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522
CLONE_NEWUSER = 0x10000000
LINUX = sys.platform.startswith("linux")

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg: int, arg2: int = 0) -> int:
    if not LINUX:
        return -1
    return int(_libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(arg2), 0, 0))


def _drop_capabilities() -> None:
    """Root staying root: empty the bounding and ambient sets, then every other set."""
    for cap in range(64):
        if _prctl(PR_CAPBSET_DROP, cap) != 0 and ctypes.get_errno() == errno.EINVAL:
            break
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    if _libc.capset(header, data) != 0:
        _fail("capset")


def _fail(what: str, code: int = 126) -> NoReturn:
    err = ctypes.get_errno() or errno.EPERM
    os.write(2, f"skilldeck-helper: {what}: {os.strerror(err)}\n".encode())
    os._exit(code)


def _limit(res: int, value: int, extra: int = 0) -> None:
    if value < 0:
        return
    try:
        resource.setrlimit(res, (value, value + extra))
    except (ValueError, OSError):
        try:
            resource.setrlimit(res, (value, value))
        except (ValueError, OSError) as exc:
            os.write(2, f"skilldeck-helper: setrlimit: {exc}\n".encode())
            os._exit(126)


def _count_processes(uid: int) -> int:
    """Processes of ``uid`` now, as ``/proc`` lists them (the fallback of ``_own_namespace``)."""
    count = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += 1
            except OSError:
                continue
    return count


def _identity_map(file: str) -> bytes:
    """The lines of ``file`` (``/proc/self/uid_map``) again, each range mapped to itself."""
    with open(file, "rb") as fh:
        rows = [line.split() for line in fh.read().splitlines() if line.strip()]
    return b"".join(b"%s %s %s\n" % (row[0], row[0], row[2]) for row in rows)


class _Mapping:
    """A move into a new user namespace: the identity maps and two pipes, ``go`` (the
    moving process says ``u`` once in its new namespace, ``n`` when it made none) and
    ``done`` (the mapper answers ``1`` once the maps are written)."""

    __slots__ = ("done", "gids", "go", "uids")

    def __init__(self) -> None:
        self.uids = _identity_map("/proc/self/uid_map")
        self.gids = _identity_map("/proc/self/gid_map")
        self.go = os.pipe()
        self.done = os.pipe()

    def map_ids(self, pid: int) -> None:
        """The mapper's half (a process of the namespace above): wait for ``pid``'s
        word, write its maps when it moved, answer (not a process that said nothing)."""
        os.close(self.go[1])
        os.close(self.done[0])
        try:
            what = os.read(self.go[0], 1)
            if what:
                ok = b"0"
                try:
                    if what == b"u":
                        for name, data in (("uid_map", self.uids), ("gid_map", self.gids)):
                            fd = os.open(f"/proc/{pid}/{name}", os.O_WRONLY)
                            try:
                                if os.write(fd, data) != len(data):
                                    raise OSError(errno.EIO, "short write")
                            finally:
                                os.close(fd)
                        ok = b"1"
                except OSError:
                    pass
                os.write(self.done[1], ok)
        except OSError:
            pass  # the mover reads no answer: it stops
        finally:
            os.close(self.go[0])
            os.close(self.done[1])

    def enter(self, can: bool) -> bool:
        """The moving half: a new user namespace (``can``: a mapper waits), then its
        answer. False when no namespace was made (nothing changed); a namespace made
        but left without ids ends the process (nothing may run there)."""
        os.close(self.go[0])
        os.close(self.done[1])
        if not can:
            os.close(self.go[1])
            os.close(self.done[0])
            return False
        made = _libc.unshare(CLONE_NEWUSER) == 0
        answer = b"0"
        try:
            os.write(self.go[1], b"u" if made else b"n")
            os.close(self.go[1])
            answer = os.read(self.done[0], 1)
        except OSError:
            answer = b"0"
        finally:
            os.close(self.done[0])
        if not made:
            return False
        if answer != b"1":
            os.write(2, b"skilldeck-helper: user namespace: the ids could not be mapped\n")
            os._exit(126)
        return True


def _own_namespace(mapping: _Mapping | None = None) -> bool:
    """Move this process (root, about to drop to another user) into a new user
    namespace where every id maps to itself. Only a process of the namespace above
    may write such a map: the supervisor does it for the program it forked
    (``mapping``, made before the fork), else a short-lived child of this process."""
    if mapping is not None:
        return mapping.enter(True)
    try:
        mapping = _Mapping()
    except (OSError, IndexError):
        return False
    me = os.getpid()
    try:
        mapper = os.fork()
    except OSError:
        mapper = -1
    if mapper == 0:
        try:
            mapping.map_ids(me)
        finally:
            os._exit(0)
    moved = mapping.enter(mapper > 0)
    if mapper > 0:
        os.waitpid(mapper, 0)
    return moved


def _namespace_wanted(uid: int, nproc: int, own: bool, linux: bool) -> bool:
    """Whether the program gets a user namespace of its own (see ``OWN`` above)."""
    return nproc >= 0 and own and linux and uid >= 0 and os.geteuid() == 0


def _process_cap(
    uid: int, nproc: int, own: bool, linux: bool, mapping: _Mapping | None = None
) -> int:
    """``RLIMIT_NPROC`` for the program (see ``OWN`` above)."""
    if nproc < 0 or not own:
        return nproc
    if _namespace_wanted(uid, nproc, own, linux) and _own_namespace(mapping):
        return nproc
    return nproc + _count_processes(uid if uid >= 0 else os.getuid())


def _setup_and_exec(
    opts: Sequence[int],
    prog: list[str],
    pdeath: bool,
    portable: bool = False,
    mapping: _Mapping | None = None,
) -> NoReturn:
    uid, gid, cpu, as_, fsize, nofile, nproc, core, status_fd, own = opts
    linux = LINUX and not portable
    if status_fd >= 0:
        os.close(status_fd)
    cap = _process_cap(uid, nproc, own == 1, linux, mapping)  # first: it may use the pipes
    # nothing skilldeck holds open (the sealed copy of this file) reaches the program
    os.closerange(3, 65536)
    os.umask(0o077)
    _limit(resource.RLIMIT_CPU, cpu, 1)
    _limit(resource.RLIMIT_AS, as_)
    _limit(resource.RLIMIT_FSIZE, fsize)
    _limit(resource.RLIMIT_NOFILE, nofile)
    _limit(resource.RLIMIT_NPROC, cap)
    _limit(resource.RLIMIT_CORE, core)
    if uid >= 0:
        if linux:
            for cap in range(64):
                if _prctl(PR_CAPBSET_DROP, cap) != 0 and ctypes.get_errno() == errno.EINVAL:
                    break
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
        except OSError as exc:
            os.write(2, f"skilldeck-helper: privilege drop: {exc}\n".encode())
            os._exit(126)
        if os.getuid() != uid or os.geteuid() != uid or os.getegid() != gid:
            os._exit(126)
    elif linux and os.geteuid() == 0:
        _drop_capabilities()
    if linux:
        if _prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
            _fail("no_new_privs")
        if pdeath:
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    try:
        os.execv(prog[0], prog)  # noqa: S606  (argv, never a shell)
    except OSError as exc:
        os.write(2, f"skilldeck-helper: cannot execute {prog[0]}: {exc.strerror}\n".encode())
        os._exit(127 if exc.errno == errno.ENOENT else 126)


def parents() -> dict[int, int]:
    """Each live process's parent, read from ``/proc`` (the fallback of ``children``)."""
    parent: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                data = fh.read(512)
        except OSError:
            continue
        rest = data[data.rfind(b")") + 2 :].split()
        if len(rest) > 1:
            parent[int(name)] = int(rest[1])
    return parent


_tracks_children: list[bool] = []


def children(pid: int) -> list[int] | None:
    """The children of every thread of ``pid``, from its own ``/proc`` entries.

    Costs what the process has, not what the host runs. ``None`` when this
    kernel does not list children (``/proc/PID/task/TID/children`` needs
    ``CONFIG_PROC_CHILDREN``); ``[]`` for a process that is gone.
    """
    if not _tracks_children:
        me = os.getpid()
        _tracks_children.append(os.path.exists(f"/proc/{me}/task/{me}/children"))
    if not _tracks_children[0]:
        return None
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:  # a plain descriptor: a buffered file costs five more system calls a read
            fd = os.open(f"/proc/{pid}/task/{tid}/children", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue  # the thread ended meanwhile
        try:
            data = b""
            while chunk := os.read(fd, 65536):
                data += chunk
            found += [int(x) for x in data.split()]
        except (OSError, ValueError):
            continue
        finally:
            os.close(fd)
    return found


def descendants(root: int) -> set[int]:
    """Every live process below ``root`` (the runner uses it too).

    Walks down from ``root`` through each process's own children list, so it costs
    the size of the tree; only a kernel without those lists makes it read every
    process of the host.
    """
    found: set[int] = set()
    frontier = [root]
    while frontier:
        below = children(frontier.pop())
        if below is None:
            return _descendants_by_scan(root)
        fresh = [pid for pid in below if pid not in found]
        found.update(fresh)
        frontier += fresh
    return found


def _descendants_by_scan(root: int) -> set[int]:
    parent = parents()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, pp in parent.items() if pp in frontier and pid not in found}
        found |= frontier
    return found


def _signal_all(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def _childless() -> bool:
    try:
        with open(f"/proc/self/task/{os.getpid()}/children", "rb") as fh:
            return not fh.read(16)
    except OSError:
        return False


def _kill_tree() -> None:
    if _childless():
        return
    stopped: set[int] = set()
    quiet = 0
    for _ in range(1000):
        fresh = descendants(os.getpid()) - stopped
        if not fresh:
            # a second empty pass: a process that died while the tree was read hands
            # its children to this subreaper after its own list was read
            quiet += 1
            if quiet == 2:
                break
            continue
        quiet = 0
        _signal_all(fresh, signal.SIGSTOP)
        stopped |= fresh
    _signal_all(stopped, signal.SIGKILL)


def _noop(signum: int, frame: object) -> None:
    return None


def main(argv: list[str]) -> int:
    if len(argv) < 16 or argv[1] != "3" or argv[14] != "--":
        os.write(2, b"skilldeck-helper: bad arguments (protocol 3)\n")
        return 125
    mode = argv[2]
    nums = [int(x) for x in argv[3:14]]
    uid, gid, grace = nums[0], nums[1], nums[2]
    opts = (uid, gid, *nums[3:])
    status_fd = nums[9]
    prog = argv[15:]
    portable = mode == "portable" or not LINUX
    if mode != "supervise" or portable:
        _setup_and_exec(opts, prog, False, portable)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    watched = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGCHLD}
    for each in watched:  # a namespace's init (bwrap --as-pid-1) only gets handled signals
        signal.signal(each, _noop)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, watched)
    # the program's own user namespace is mapped by this process: no mapper process
    mapping = None
    if _namespace_wanted(uid, opts[6], opts[9] == 1, LINUX):
        try:
            mapping = _Mapping()
        except (OSError, IndexError):
            mapping = None
    main_pid = os.fork()
    if main_pid == 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
        _setup_and_exec(opts, prog, True, mapping=mapping)
    if mapping is not None:
        mapping.map_ids(main_pid)  # Python ignores SIGPIPE: a gone program ends nothing
    status = 0
    done = False
    deadline = None
    while True:
        try:
            while True:
                pid, st = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                if pid == main_pid:
                    status, done = st, True
        except ChildProcessError:
            break
        if done:
            break
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            break
        wait = 1.0 if deadline is None else max(0.001, deadline - now)
        info = signal.sigtimedwait(watched, wait)
        if info is not None and info.si_signo != signal.SIGCHLD and deadline is None:
            deadline = time.monotonic() + max(grace, 0) / 1000.0
            _signal_all(descendants(os.getpid()), signal.SIGTERM)
    _kill_tree()
    while True:
        try:
            pid, st = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        if pid == main_pid and not done:
            status, done = st, True
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if status_fd >= 0:
        if os.WIFSIGNALED(status):
            line = f"s {os.WTERMSIG(status)}\n"
        else:
            line = f"e {os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1}\n"
        try:
            os.write(status_fd, line.encode())
        except OSError:
            pass
        os.close(status_fd)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset (as the C twin ignores it)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        return 128 + sig
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
