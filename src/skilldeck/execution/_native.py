"""Find the launch helper: the compiled one (built once into the cache) or the Python one.

The C helper is compiled from ``_helper.c`` with the system's C compiler the first
time it is needed (against musl where ``musl-gcc`` exists, else linked statically
where the C library allows it, else dynamically: every run executes the helper, see
``_BUILDS``) and kept in ``dirs().cache / "exec"``
under a name carrying the source's digest, so an upgrade rebuilds it. The cache is
skilldeck's own state and is trusted as far as it is checked, no further:

- the cache folder and its ``exec`` folder must be the user's and writable by no
  one else (``UNSAFE_STATE`` otherwise: a root whose ``HOME`` points at another
  user's home never runs that user's binary);
- the binary is read without following a link, and its bytes must carry the MAC
  written when skilldeck built it (``helper-<tag>.mac``, keyed by the secret in
  the data folder, a folder the cache cannot vouch for itself); a binary that
  differs is rebuilt;
- the verified bytes are copied into a sealed in-memory file (``memfd``) once per
  process, and every run executes that (``/proc/self/fd/N``, passed to the
  child): nothing can replace the helper between the check and the exec, and no
  path of it needs to exist inside a sandbox.

Compilation failures are remembered for the process and the Python helper (same
protocol, also from a sealed copy on Linux) is used instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import hmac
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from skilldeck._digest import bytes_digest
from skilldeck._errors import UnsafeStateError
from skilldeck._paths import dirs
from skilldeck._statedir import (
    open_state_dir,
    open_state_subdir,
    read_file_at,
    state_key,
    write_file_at,
)

__all__ = ["Helper", "find_helper", "forget_helper_runs"]

_HERE = Path(__file__).resolve().parent
_C_SOURCE = _HERE / "_helper.c"
_PY_SOURCE = _HERE / "_helper.py"
_MAX_BINARY = 8 << 20
_MFD_EXEC = 0x0010  # memfd may be executed (kernels with vm.memfd_noexec)
_lock = threading.Lock()
_MISSING = object()
_cache: dict[str, Helper | None] = {}


class Helper:
    """How to start the helper: ``argv`` prefix, its kind (``native`` or ``python``),
    where it came from (``path``) and the descriptor a child must inherit (``fd``,
    ``-1`` when the helper is a file on disk). Not a dataclass, like a run's plan."""

    __slots__ = ("argv", "fd", "kind", "path")

    def __init__(self, argv: tuple[str, ...], kind: str, path: str, fd: int = -1) -> None:
        self.argv = argv
        self.kind = kind
        self.path = path
        self.fd = fd

    @property
    def pass_fds(self) -> tuple[int, ...]:
        return (self.fd,) if self.fd >= 0 else ()


def _sealed(data: bytes, name: str) -> int | None:
    """A read-only descriptor of a sealed in-memory copy of ``data`` (Linux), or None."""
    create = getattr(os, "memfd_create", None)
    if create is None or not hasattr(fcntl, "F_ADD_SEALS"):
        return None
    flags = os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING
    try:
        try:
            fd = create(name, flags | _MFD_EXEC)
        except OSError:  # a kernel older than MFD_EXEC
            fd = create(name, flags)
    except OSError:
        return None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fchmod(fd, 0o555)
        seals = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SEAL
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
        # what a child inherits is opened read-only: the memfd itself is read-write
        ro = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    finally:
        os.close(fd)
    return ro


def _python_helper() -> Helper:
    if sys.platform.startswith("linux"):
        fd = _sealed(_PY_SOURCE.read_bytes(), "skilldeck-helper.py")
        if fd is not None:
            argv = (sys.executable, "-I", "-S", f"/proc/self/fd/{fd}")
            return Helper(argv, "python", str(_PY_SOURCE), fd)
    return Helper((sys.executable, "-I", "-S", str(_PY_SOURCE)), "python", str(_PY_SOURCE))


def _mac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, b"skilldeck-helper\0" + data, hashlib.sha256).hexdigest().encode()


def _memo_name(mac: bytes) -> str:
    """What names a verified binary in the probe memo: its MAC (already computed by
    the check; another digest of the bytes would cost as much again)."""
    return "hmac:" + mac.decode("ascii")


#: How the helper is built, first choice first: a compiler (``cc``: the system's C
#: compiler) and its flags. Against musl where ``musl-gcc`` exists: a static musl
#: program starts in about a quarter of a static glibc one's CPU (glibc's start probes
#: the processor with ``CPUID``, which traps to the hypervisor of a virtual machine,
#: about 0.4 ms a run here). Then static with the system's C library (no dynamic loader at
#: every run's start), then dynamic where it has no static archive (``libc.a``).
#: Stripped, so the per-process MAC check reads fewer bytes. ``musl-gcc`` has no
#: kernel headers of its own: it gets a folder of links to the system's (``linux``,
#: ``asm``, ``asm-generic``), searched after its own, never the system C library's
#: headers. All of it is part of the tag, so a helper cached by an earlier build
#: order is rebuilt once.
_KERNEL_HEADERS = "<kernel headers>"
_BUILDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("musl-gcc", ("-O2", "-static", "-s", "-idirafter", _KERNEL_HEADERS)),
    ("cc", ("-O2", "-static", "-s")),
    ("cc", ("-O2",)),
)
_KERNEL_DIRS = ("linux", "asm", "asm-generic")


def _compiler(name: str) -> str | None:
    if name == "cc":
        return shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    return shutil.which(name)


def _kernel_headers(cc: str, folder: Path) -> bool:
    """Fill ``folder`` (new, empty) with links to the system's kernel header folders;
    False when one is missing. ``asm`` is in the multiarch folder on Debian."""
    try:
        arch = (
            subprocess.run(
                [cc, "-print-multiarch"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
                check=False,
            )
            .stdout.decode("ascii", "replace")
            .strip()
        )
    except (OSError, subprocess.SubprocessError):
        arch = ""
    roots = [f"/usr/include/{arch}"] if arch and "/" not in arch else []
    roots.append("/usr/include")
    for name in _KERNEL_DIRS:
        found = next((f"{r}/{name}" for r in roots if os.path.isdir(f"{r}/{name}")), None)
        if found is None:
            return False
        os.symlink(found, folder / name)
    return True


def _build(cc: str, flags: tuple[str, ...], exec_dir: Path, scratch: str) -> bytes | None:
    """One build in ``exec_dir`` (already checked); its bytes, or None."""
    tmp = exec_dir / f"{scratch}.tmp"
    if _KERNEL_HEADERS in flags:
        headers = exec_dir / f"{scratch}.inc"
        os.mkdir(headers, 0o700)
        if not _kernel_headers(cc, headers):
            return None
        flags = tuple(str(headers) if f == _KERNEL_HEADERS else f for f in flags)
    proc = subprocess.run(
        [cc, *flags, "-o", str(tmp), str(_C_SOURCE)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    if proc.returncode != 0:
        return None
    with open(tmp, "rb") as fh:
        return fh.read(_MAX_BINARY)


def _compile(exec_dir: Path) -> bytes | None:
    """Build the helper in ``exec_dir`` (already checked), the first of ``_BUILDS``
    that works, and return its bytes."""
    for name, flags in _BUILDS:
        cc = _compiler(name)
        if cc is None:
            continue
        scratch = f".build-{os.urandom(8).hex()}"
        try:
            data = _build(cc, flags, exec_dir, scratch)
            if data is not None:
                return data
        except (OSError, subprocess.SubprocessError):
            pass  # the next way, if any
        finally:
            with contextlib.suppress(OSError):
                os.unlink(exec_dir / f"{scratch}.tmp")
            with contextlib.suppress(OSError):
                shutil.rmtree(exec_dir / f"{scratch}.inc")
    return None


@functools.cache
def _tag() -> str | None:
    """Digest of the C source, the build flags and the machine: a new version gets a
    new binary."""
    try:
        source = _C_SOURCE.read_bytes()
    except OSError:
        return None
    return bytes_digest(source + repr(_BUILDS).encode() + _machine().encode())[7:23]


def _machine() -> str:
    """``platform.machine()``: on POSIX it is ``os.uname().machine``, and the
    ``platform`` module (about 2 ms to import, a dozen regular expressions) is not
    needed for it."""
    if hasattr(os, "uname"):
        return os.uname().machine
    import platform

    return platform.machine()


def _works(helper: Helper) -> bool:
    """Smoke test: the sealed copy runs here (a kernel may forbid executing memfds).

    Without arguments the helper only says so and exits 125: that it ran at all is
    the answer, and no program has to be started after it."""
    try:
        done = subprocess.run(
            list(helper.argv),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
            pass_fds=helper.pass_fds,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 125 and done.stderr.startswith(b"skilldeck-helper: bad arguments")


def _runs_here(helper: Helper, digest: str) -> bool:
    """:func:`_works`, remembered across processes while nothing it depends on changed
    (``_probe_memo``: a stale memo fails a run, never weakens one, and is dropped)."""
    from skilldeck.execution import _probe_memo as memo

    stamp = memo.stamp(f"sealed launch helper {digest}")
    if stamp is not None and memo.remembered(memo.HELPER, stamp):
        return True
    if not _works(helper):
        memo.forget(memo.HELPER)
        return False
    if stamp is not None:
        memo.remember(memo.HELPER, stamp)
    return True


def forget_helper_runs() -> None:
    """The compiled helper failed to start a run: the next process tries it again."""
    from skilldeck.execution import _probe_memo

    _probe_memo.forget(_probe_memo.HELPER)


def _verified_binary(tag: str) -> tuple[bytes, bytes] | None:
    """The cached binary and its MAC when the MAC verifies, else a fresh build (stored
    with its MAC). The MAC also names the binary for the probe memo (hashing the
    bytes again would cost as much as the check).

    Raises ``UnsafeStateError`` when the cache or its ``exec`` folder is another
    user's or writable by others."""
    cache = dirs().cache
    key = state_key()
    top = open_state_dir(cache)
    try:
        exec_fd = open_state_subdir(top, "exec", path=cache / "exec")
    finally:
        os.close(top)
    name = f"helper-{tag}"
    try:
        shown = cache / "exec" / name
        try:
            data = read_file_at(exec_fd, name, path=shown, max_bytes=_MAX_BINARY, private=True)
            mac = read_file_at(exec_fd, name + ".mac", path=shown, max_bytes=256, private=True)
        except OSError:
            data = mac = None
        if data is not None and mac is not None:
            expected = _mac(key, data)
            if hmac.compare_digest(mac, expected):
                return data, expected
        data = _compile(cache / "exec")
        if data is None:
            return None
        expected = _mac(key, data)
        with contextlib.suppress(OSError):  # a full disk: this process still has the bytes
            write_file_at(exec_fd, name, data, mode=0o500)
            write_file_at(exec_fd, name + ".mac", expected)
        return data, expected
    finally:
        os.close(exec_fd)


def _native_helper() -> Helper | None:
    tag = _tag()
    if tag is None or not sys.platform.startswith("linux"):
        return None
    with _lock:
        # One sealed copy per process; a failed build is not retried.
        known = _cache.get(tag, _MISSING)
        if known is None or isinstance(known, Helper):
            return known
        try:
            built = _verified_binary(tag)
        except UnsafeStateError:
            raise  # someone else's or a shared cache: refused, not worked around
        except OSError:  # no writable cache (HOME=/nonexistent): the Python helper
            built = None
        fd = _sealed(built[0], f"skilldeck-helper-{tag}") if built is not None else None
        helper = None
        if fd is not None and built is not None:
            helper = Helper((f"/proc/self/fd/{fd}",), "native", f"helper-{tag} (sealed copy)", fd)
            if not _runs_here(helper, _memo_name(built[1])):
                os.close(fd)
                helper = None
        _cache[tag] = helper
        return helper


_python: list[Helper] = []


def find_helper(*, native: bool = True) -> Helper:
    """The launch helper to use (compiled when allowed and possible).

    Raises ``UnsafeStateError`` when the cache folder holding the compiled helper
    fails its owner or mode check.
    """
    if native:
        helper = _native_helper()
        if helper is not None:
            return helper
    with _lock:
        if not _python:
            _python.append(_python_helper())
        return _python[0]
