"""Start one program through the launch helper, drain its output with caps, enforce the timeout.

The child is started with an argv list (never a shell), stdin on ``/dev/null``,
stdout and stderr on one pipe (so they stay in order), in a new session, with
``umask 077``, ``close_fds`` and a prepared environment and working folder; all
of that is done by ``subprocess`` in C between fork and exec (no
``preexec_fn``). Resource limits, the privilege drop and process tracking are
the launch helper's job (see ``_helper.py``).

Output is read as it arrives: the first ``head`` bytes and the last ``tail``
bytes are kept, everything between is only counted, so memory stays bounded
whatever the program prints.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import math
import os
import select
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

from skilldeck._frozen import field, value
from skilldeck._json import loads
from skilldeck.execution._helper import children, descendants, parents

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ParamSpec

__all__ = ["Captured", "RunResult", "capture", "describe_exit", "render_output"]

if TYPE_CHECKING:
    _P = ParamSpec("_P")

_F_SETPIPE_SZ = 1031
_CHUNK = 1 << 16


@value
class RunResult:
    """The outcome of one script or declared-tool run."""

    success: bool
    exit_code: int | None
    output: str
    truncated: bool
    duration_ms: int
    parsed: Any = None
    error: str | None = None
    isolation: Mapping[str, Any] = field(default_factory=dict)
    output_bytes: int = 0
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """``{success, exit_code, output, truncated, duration_ms, parsed, error, isolation}``,
        plus ``hint`` when a failed run has one."""
        extra = {"hint": self.hint} if self.hint else {}
        return {
            "success": self.success,
            "exit_code": self.exit_code,
            "output": self.output,
            "truncated": self.truncated,
            "duration_ms": self.duration_ms,
            "parsed": self.parsed,
            "error": self.error,
            "isolation": dict(self.isolation),
            **extra,
        }


class Captured:
    """Raw outcome of :func:`capture` (not a dataclass, like a run's plan)."""

    __slots__ = ("cancelled", "duration_ms", "head", "returncode", "tail", "timed_out", "total")

    def __init__(
        self,
        returncode: int | None,
        head: bytes,
        tail: bytes,
        total: int,
        duration_ms: int,
        timed_out: bool,
        cancelled: bool = False,
    ) -> None:
        self.returncode = returncode
        self.head = head
        self.tail = tail
        self.total = total
        self.duration_ms = duration_ms
        self.timed_out = timed_out
        self.cancelled = cancelled


class _Sink:
    """Keeps the first ``head`` and last ``tail`` bytes of a stream, counts the rest."""

    __slots__ = ("head", "head_max", "tail", "tail_max", "total")

    def __init__(self, head: int, tail: int) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.head_max = head
        self.tail_max = tail
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_max - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self.tail_max:
            if len(data) >= self.tail_max:
                self.tail[:] = data[-self.tail_max :]
            else:
                self.tail += data
                if len(self.tail) > 2 * self.tail_max:
                    del self.tail[: len(self.tail) - self.tail_max]

    def final_tail(self) -> bytes:
        return bytes(self.tail[-self.tail_max :]) if self.tail_max else b""


def _signal(pid: int, sig: int, *, group: bool) -> None:
    with contextlib.suppress(OSError):
        if group:
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)


_PR_GET_DUMPABLE = 3
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_PR_GET_NO_NEW_PRIVS = 39  # this process's flag: one call, where /proc/self/status is a read
_guard_lock = threading.Lock()
_guard_runs = 0
_guard_restore: int | None = None
_reaper_restore = False
_helpers: set[int] = set()  # launch helpers of the runs under way (our own children)


@contextlib.contextmanager
def _out_of_reach() -> Iterator[None]:
    """skilldeck's own process is not dumpable while runs last (Linux).

    A program running as the same user without bubblewrap could otherwise read
    ``/proc/PID/environ`` of skilldeck (secrets a host passed to it, such as a
    ``GITHUB_TOKEN`` in an MCP server's configuration) or attach to it with
    ``ptrace``. Not dumpable, its ``/proc`` entries belong to root. The flag is
    restored when the last concurrent run ends.
    """
    global _guard_runs, _guard_restore, _reaper_restore
    prctl = _prctl()
    if prctl is None:
        yield
        return
    with _guard_lock:
        if _guard_runs == 0:
            before = prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
            _guard_restore = before if before > 0 else None
            if before > 0:
                prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
            # processes a run leaves when its helper dies come here, not to PID 1
            import ctypes

            reaper = ctypes.c_int(0)
            prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(reaper), 0, 0, 0)
            _reaper_restore = not reaper.value and not prctl(_PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
            if _reaper_restore:
                prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        _guard_runs += 1
    try:
        yield
    finally:
        with _guard_lock:
            _guard_runs -= 1
            if _guard_runs == 0 and _guard_restore is not None:
                prctl(_PR_SET_DUMPABLE, _guard_restore, 0, 0, 0)
                _guard_restore = None
            if _guard_runs == 0 and _reaper_restore:
                prctl(_PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
                _reaper_restore = False


def _no_new_privs(pid: int) -> bool | None:
    """The ``NoNewPrivs`` flag of ``pid`` (None when unknown)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"NoNewPrivs:"):
                    return line.split()[1] == b"1"
    except (OSError, IndexError):
        return None
    return None


def _kill_strays(within: float = 2.0) -> None:
    """Kill and reap what a run left to this process (see ``_out_of_reach``).

    A program that kills its launch helper (it may, running as the helper's user
    without bubblewrap) frees what it started; those processes come to this
    process, the subreaper while runs last. They are told from the host's own
    children by ``no_new_privs``, which every run sets and nothing can clear
    (this process does not have it, or it is not a subreaper). Only this
    process's own children are looked at, so the check costs the same whatever
    else the host runs.
    """
    if not _reaper_restore:
        return
    deadline = time.monotonic() + within
    quiet = 0
    while time.monotonic() < deadline:
        with _guard_lock:
            strays = [pid for pid in _own_children() if pid not in _helpers and _no_new_privs(pid)]
            for pid in strays:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        if not strays:
            # twice: a child list read while a process is re-parented here can miss it
            quiet += 1
            if quiet == 2:
                return
            continue
        quiet = 0
        for pid in strays:
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)


def _own_children() -> list[int]:
    """This process's children (every thread's); read from all of ``/proc`` only
    where the kernel keeps no child lists."""
    me = os.getpid()
    with contextlib.suppress(OSError):  # no /proc: nothing to find
        found = children(me)
        if found is not None:
            return found
        return [pid for pid, parent in parents().items() if parent == me]
    return []


@functools.cache
def _prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        func: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return func


def _reaped(func: Callable[_P, Captured]) -> Callable[_P, Captured]:
    """Run ``func`` out of a run's reach and reap what the run left (``_kill_strays``).

    Not after a ``sandboxed`` run: under bubblewrap the launch helper is the init of
    the run's PID namespace, which nothing inside can kill, and when it ends the
    kernel kills every process of the namespace, so none is ever re-parented here
    (the check read this process's child lists twice: about 0.1 ms a run)."""

    @functools.wraps(func)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> Captured:
        with _out_of_reach():
            try:
                return func(*args, **kwargs)
            finally:
                if not kwargs.get("sandboxed"):
                    _kill_strays()

    return run


@_reaped
def capture(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    grace: float,
    head: int,
    tail: int,
    sandboxed: bool,
    portable: bool = False,
    status_pipe: tuple[int, int] | None = None,
    cancel: threading.Event | None = None,
    pass_fds: Sequence[int] = (),
) -> Captured:
    """Run ``argv`` (helper and program) and collect its capped output.

    On timeout: SIGTERM to the whole tree (the helper forwards it to every
    descendant; under bubblewrap each process inside gets it), SIGKILL after
    ``grace`` seconds. Under bubblewrap the processes inside are killed first and
    the outer ``bwrap`` only if it does not then exit by itself, so it reaps its
    own children (killing it first would leave its child to PID 1 as a zombie).
    ``portable`` (no ``/proc``, no subreaper): leftovers in the process group are
    killed as soon as the program exits. ``status_pipe`` (read end, write end) is
    where the helper reports the program's exact status; the write end is passed to
    the helper and closed here.
    ``cancel``, once set, stops the run the same way as the timeout. ``pass_fds``:
    other descriptors the helper inherits (the sealed copy it runs from).
    Raises ``OSError`` when the helper itself cannot start.
    """
    start = time.monotonic()
    _guard_lock.acquire()  # a concurrent stray scan must not see this helper untracked
    try:
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
            umask=0o077,
            close_fds=True,
            pass_fds=(*pass_fds, *((status_pipe[1],) if status_pipe else ())),
        )
        _helpers.add(proc.pid)
    except BaseException:
        if status_pipe:
            os.close(status_pipe[0])
        raise
    finally:
        _guard_lock.release()
        if status_pipe:
            os.close(status_pipe[1])
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)
    os.set_blocking(fd, False)
    sink = _Sink(head, tail)
    deadline = start + timeout
    timed_out = False
    cancelled = False
    term_sent_at: float | None = None
    killed = False
    exited_at: float | None = None
    sel = selectors.DefaultSelector()
    sel.register(fd, selectors.EVENT_READ)
    outer_kill_at: float | None = None
    try:
        while True:
            now = time.monotonic()
            if not timed_out and (now >= deadline or (cancel is not None and cancel.is_set())):
                timed_out = True
                cancelled = now < deadline
                term_sent_at = now
                if sandboxed:
                    # parents first (lower ids, as a rule), so a shell dies before
                    # it can report its child's death
                    for pid in sorted(descendants(proc.pid)):
                        _signal(pid, signal.SIGTERM, group=False)
                else:
                    _signal(proc.pid, signal.SIGTERM, group=True)
            if (
                term_sent_at is not None
                and not killed
                and now >= term_sent_at + grace + (0 if sandboxed else 1.0)
            ):
                killed = True
                if sandboxed:
                    _kill_inside(proc.pid)
                    outer_kill_at = now + 1.0
                else:
                    _signal(proc.pid, signal.SIGKILL, group=False)
                    _signal(proc.pid, signal.SIGKILL, group=True)
            if outer_kill_at is not None and now >= outer_kill_at and proc.poll() is None:
                outer_kill_at = None
                _signal(proc.pid, signal.SIGKILL, group=False)
            if exited_at is None and proc.poll() is not None:
                exited_at = now
                if portable:
                    _signal(proc.pid, signal.SIGKILL, group=True)
            if exited_at is not None and now - exited_at > 1.0:
                # descendants outside the helper's reach still hold the pipe
                _signal(proc.pid, signal.SIGKILL, group=True)
                break
            if timed_out and killed and now - (term_sent_at or now) > grace + 5.0:
                break
            if exited_at is not None:
                wait = 0.05
            elif not timed_out:
                wait = deadline - now
            elif not killed or outer_kill_at is not None:
                wait = 0.05
            else:
                wait = 0.1
            events = sel.select(max(0.0, min(wait, 1.0 if cancel is None else 0.1)))
            if not events:
                continue
            try:
                data = os.read(fd, _CHUNK)
            except BlockingIOError:
                continue
            if not data:
                break
            sink.feed(data)
    except BaseException:
        # interrupted (Ctrl-C, a host's cancellation): nothing of the run may outlive it
        if sandboxed:
            _kill_inside(proc.pid)
        _signal(proc.pid, signal.SIGKILL, group=True)
        _wait(proc, 2.0)
        _helpers.discard(proc.pid)
        if status_pipe:
            os.close(status_pipe[0])
        raise
    finally:
        sel.close()
        proc.stdout.close()
    returncode: int | None = _wait(proc, grace + 2.0)
    _helpers.discard(proc.pid)
    if status_pipe:
        returncode = _reported_status(status_pipe[0], returncode)
    duration = int((time.monotonic() - start) * 1000)
    return Captured(
        returncode, bytes(sink.head), sink.final_tail(), sink.total, duration, timed_out, cancelled
    )


def _kill_inside(outer: int) -> None:
    """SIGKILL the namespace's init (bwrap's child) first: the kernel then kills every
    process inside at once, so no shell inside lives to report a child's death. Then
    whatever is still listed, parents first. The outer ``bwrap`` then exits by itself."""
    inside = descendants(outer)
    try:
        with open(f"/proc/{outer}/task/{outer}/children", "rb") as fh:
            first = [int(x) for x in fh.read().split()]
    except (OSError, ValueError):
        first = []
    for pid in [*first, *sorted(inside - set(first))]:
        _signal(pid, signal.SIGKILL, group=False)


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> int:
    """Wait for the helper to exit (no sleep-polling); kill it after ``timeout`` seconds."""
    code = proc.poll()
    if code is not None:
        return code
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        pidfd = -1
    if pidfd >= 0:
        try:  # poll: no selector of its own to make and close (pidfds are Linux's)
            poller = select.poll()
            poller.register(pidfd, select.POLLIN)
            if not poller.poll(max(0, math.ceil(timeout * 1000))):
                _signal(proc.pid, signal.SIGKILL, group=True)
        finally:
            os.close(pidfd)
        return proc.wait()
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _signal(proc.pid, signal.SIGKILL, group=True)
        return proc.wait()


def _reported_status(fd: int, fallback: int | None) -> int | None:
    """The helper's ``e CODE`` / ``s SIGNAL`` line as a Popen-style return code."""
    try:
        os.set_blocking(fd, False)
        data = os.read(fd, 64)
    except OSError:
        data = b""
    finally:
        os.close(fd)
    kind, _, value = data.decode("ascii", "replace").strip().partition(" ")
    if not value.isdigit():
        return fallback
    if kind == "s":
        return -int(value)
    return int(value) if kind == "e" else fallback


def _trim_utf8_end(data: bytes) -> bytes:
    """Drop an incomplete UTF-8 sequence cut off at the end."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if need <= back else data[:-back]
    return data


def _trim_utf8_start(data: bytes) -> bytes:
    skip = 0
    while skip < min(3, len(data)) and 0x80 <= data[skip] < 0xC0:
        skip += 1
    return data[skip:]


def render_output(cap: Captured) -> tuple[str, bool]:
    """The output text (head + marker + tail when truncated) and whether it was truncated."""
    kept = len(cap.head) + len(cap.tail)
    if cap.total <= kept:
        return (cap.head + cap.tail).decode("utf-8", "replace"), False
    omitted = cap.total - kept
    head = _trim_utf8_end(cap.head).decode("utf-8", "replace")
    tail = _trim_utf8_start(cap.tail).decode("utf-8", "replace")
    return f"{head}\n... [truncated {omitted} bytes] ...\n{tail}", True


def parse_json_output(text: str, truncated: bool) -> Any:
    """The output as JSON when it is a whole JSON object or array, else ``None``."""
    if truncated:
        return None
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        return loads(stripped)
    except ValueError:
        return None


def describe_exit(returncode: int | None) -> str | None:
    """``None`` for success, else a short human description of how the program ended."""
    if returncode == 0:
        return None
    if returncode is None:
        return "the program did not report an exit status"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        extra = {
            "SIGXCPU": " (CPU time limit)",
            "SIGXFSZ": " (file size limit)",
            "SIGKILL": " (killed)",
        }.get(name, "")
        return f"Command terminated by {name}{extra}"
    if returncode == 127:
        return "Command failed with exit code 127 (command not found)"
    if returncode == 126:
        return "Command failed with exit code 126 (cannot execute)"
    return f"Command failed with exit code {returncode}"
