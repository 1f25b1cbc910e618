"""The one contained reader of a skill folder.

Reads resolve a relative path beneath the skill folder without a window for a
swap: from a descriptor of the folder, with ``openat2(RESOLVE_BENEATH |
RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`` where the kernel has it, and
otherwise (or when the path holds a link) one component at a time with
``O_NOFOLLOW`` from the descriptor of the folder above, resolving in-skill links
by hand. A file swapped mid-read gives ``PATH_NOT_ALLOWED`` or
``FILE_NOT_FOUND``, never an internal error. Where the platform has no
descriptor-relative calls, the real path is checked before opening.

Hidden names (a component starting with ``.``) are never read, and only regular
files are: a folder, pipe or device gives ``PATH_NOT_ALLOWED``. ``read_fd`` and
``read_file`` are the bounded read every read of a skill's files shares
(SKILL.md in discovery too).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections import deque
from collections.abc import Callable

from skilldeck._errors import (
    FOLDER_GONE_HINT,
    FileNotFoundInSkillError,
    FileTooLargeError,
    PathNotAllowedError,
    files_hint,
)
from skilldeck._paths import NAMES_DESCRIPTORS, fd_real_path, name_refusal, within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, Self

    from skilldeck._tree._types import ProblemKind

__all__ = [
    "MAX_LINKS",
    "ContainedFolder",
    "FileBytes",
    "is_hidden",
    "read_beneath",
    "read_fd",
    "read_file",
]

MAX_LINKS = 40
"""Links followed while resolving one path (the kernel's own limit)."""


_COMPILED = (".pyc", ".pyo")


def is_hidden(name: str) -> bool:
    """Is one path component left out of a skill: hidden (starts with ``.``, other than
    ``.`` and ``..``), or a compiled Python cache (``__pycache__``, ``*.pyc``, ``*.pyo``).

    Python runs an unchecked-hash ``.pyc`` without looking at the source beside it,
    and a sourceless ``module.pyc``: a skill must not run code that reviewers and the
    security scan never see, so caches are never served, digested, copied or run.
    """
    if name.startswith("."):
        return name not in (".", "..")
    return name == "__pycache__" or name.endswith(_COMPILED)


class FileBytes:
    """A bounded read: ``data`` (a prefix of ``size`` bytes when ``truncated``).

    A plain class, not a dataclass: nothing compares or prints one, and making a
    dataclass costs start-up about 4 M instructions."""

    __slots__ = ("data", "path", "size", "truncated")

    def __init__(self, path: str, data: bytes, size: int, truncated: bool = False) -> None:
        self.path = path
        self.data = data
        self.size = size
        self.truncated = truncated


# --- openat2 (Linux 5.6+) ---------------------------------------------------

_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
_OPENAT2_NR = {"x86_64": 437, "aarch64": 437, "arm64": 437, "riscv64": 437, "s390x": 437}
_openat2_fn: Callable[[int, str, int], int] | Literal[False] | None = False  # False: not probed


def _load_openat2() -> Callable[[int, str, int], int] | None:
    """``openat2`` through ``syscall(2)``, or ``None`` where it cannot be called."""
    if not sys.platform.startswith("linux"):
        return None
    nr = _OPENAT2_NR.get(os.uname().machine)
    if nr is None:
        return None
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        syscall = libc.syscall
    except (OSError, AttributeError):
        return None

    class _OpenHow(ctypes.Structure):
        _fields_ = [
            ("flags", ctypes.c_uint64),
            ("mode", ctypes.c_uint64),
            ("resolve", ctypes.c_uint64),
        ]

    # the call prepared once: argument types, and one open_how per set of flags
    syscall.restype = ctypes.c_long
    syscall.argtypes = (
        ctypes.c_long,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_void_p,
        ctypes.c_size_t,
    )
    resolve = _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS
    size = ctypes.sizeof(_OpenHow)
    hows: dict[int, tuple[_OpenHow, int]] = {}  # flags -> (open_how, its address)

    def openat2(dirfd: int, path: str, flags: int) -> int:
        how = hows.get(flags)
        if how is None:
            made = _OpenHow(flags, 0, resolve)  # read by the kernel, never written
            how = hows[flags] = (made, ctypes.addressof(made))
        fd: int = syscall(nr, dirfd, os.fsencode(path), how[1], size)
        if fd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), path)
        return fd

    try:  # a kernel before 5.6, or a seccomp filter, refuses it: then never use it
        os.close(openat2(-100, ".", _DIR_FLAGS))  # AT_FDCWD
    except OSError:
        return None
    return openat2


def _openat2() -> Callable[[int, str, int], int] | None:
    global _openat2_fn
    if _openat2_fn is False:
        _openat2_fn = _load_openat2()
    return _openat2_fn


def _disable_openat2() -> None:
    global _openat2_fn
    _openat2_fn = None


_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FILE_FLAGS = os.O_RDONLY | _CLOEXEC | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_DIR_FLAGS = os.O_RDONLY | _CLOEXEC | getattr(os, "O_DIRECTORY", 0)
# folders passed through need no read permission (Linux O_PATH)
_PASS_FLAGS = (getattr(os, "O_PATH", 0) or os.O_RDONLY) | _CLOEXEC | getattr(os, "O_DIRECTORY", 0)
_HAVE_DIR_FD = (
    os.open in os.supports_dir_fd
    and os.readlink in os.supports_dir_fd
    and os.scandir in os.supports_fd
    and _NOFOLLOW != 0
)
_UNSUPPORTED = {errno.ENOSYS, errno.EPERM, errno.EINVAL, errno.E2BIG, errno.EOPNOTSUPP}


_CHUNK = 1 << 20


def read_fd(fd: int, size: int, bound: int) -> bytes:
    """At most ``bound + 1`` bytes of the open file ``fd`` whose ``fstat`` size is ``size``.

    A file that fits is read whole in one call (its size is known); otherwise, or
    when the size says nothing (0), one byte past ``bound`` is asked for, so the
    caller sees that it is longer. Short reads continue; it stops at the end of
    the file or when a read would block. ``OSError`` from ``read`` is raised.
    """
    want = size if 0 < size <= bound else bound + 1
    data = os.read(fd, want if want == size else min(want, _CHUNK))
    if len(data) >= want or not data:
        return data
    chunks = [data]
    got = len(data)
    while got < want:
        try:
            chunk = os.read(fd, min(want - got, _CHUNK))
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_file(path: str, bound: int) -> tuple[bytes | None, os.stat_result]:
    """A bounded read (``read_fd``) of the file at ``path``, a path the caller has
    checked (links are followed); ``None`` when it is not a regular file (a folder,
    a pipe, a device: nothing is read and the open does not wait). ``OSError``
    when it cannot be opened or read."""
    fd = os.open(path, _FILE_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, st
        return read_fd(fd, st.st_size, bound), st
    finally:
        os.close(fd)


class _Refused(Exception):
    """Internal: why a path was refused (``kind`` as in ``Problem``)."""

    def __init__(self, kind: ProblemKind | Literal["missing", "not_dir"], message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _split(rel: str) -> list[str]:
    """Components of a skill-relative path given by a caller; ``_Refused`` if hostile."""
    if not isinstance(rel, str) or not rel or "\x00" in rel or "\\" in rel or rel.startswith("/"):
        raise _Refused("escapes", "not a plain relative path")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    for part in parts:
        if part == "..":
            raise _Refused("escapes", "'..' is not allowed")
        if is_hidden(part):
            raise _Refused(
                "hidden", "hidden files and folders and compiled Python caches are never served"
            )
        why = name_refusal(part)
        if why is not None:
            raise _Refused("escapes", f"a name that {why} is never served")
    return parts


class ContainedFolder:
    """A skill folder opened once; reads resolve beneath it.

    Use as a context manager (it holds a descriptor of the folder). ``skill``
    names the skill in error messages. ``follow_root=False`` refuses a folder
    that is a link (for a folder whose real path was checked earlier).
    """

    def __init__(
        self, root: str | os.PathLike[str], *, skill: str | None = None, follow_root: bool = True
    ) -> None:
        self.root = os.path.abspath(os.fspath(root))
        self.skill = skill
        self._fd = -1
        try:
            real = None
            if _HAVE_DIR_FD:
                # follow_root=False: a folder checked by its real path must not be a link now
                nofollow = 0 if follow_root else _NOFOLLOW
                self._fd = os.open(self.root, _DIR_FLAGS | nofollow)
                # a folder (O_DIRECTORY); its real path as the kernel names it
                real = fd_real_path(self._fd)
            if real is None:
                real = os.path.realpath(self.root)
                if not os.path.isdir(real):
                    raise NotADirectoryError(errno.ENOTDIR, "not a folder", self.root)
            self.real = real
            if not follow_root and real != self.root:
                raise NotADirectoryError(errno.ENOTDIR, "it is a link now", self.root)
        except (OSError, ValueError) as exc:
            raise FileNotFoundInSkillError(
                f"cannot open the skill folder {self.root}: {getattr(exc, 'strerror', exc)}",
                skill=skill,
                path=self.root,
                hint=FOLDER_GONE_HINT,
            ) from None
        self._bases = tuple(dict.fromkeys((self.real, self.root)))

    @classmethod
    def resolved(cls, root: str | os.PathLike[str], *, skill: str | None = None) -> Self | None:
        """The folder ``root`` leads to (links followed) opened once and named by its
        real path as the kernel names what was opened: what
        ``cls(real_path(root), follow_root=False)`` opens, with one open where that
        makes two (the real path's, then the folder's) and no window between them.
        ``None`` where the kernel cannot name it, or it cannot be opened as a folder:
        the caller takes the two steps, which report why."""
        if not (_HAVE_DIR_FD and NAMES_DESCRIPTORS):  # nothing to name what it opened
            return None
        try:
            fd = os.open(root, _DIR_FLAGS)
        except (OSError, ValueError):
            return None
        real = fd_real_path(fd)
        if real is None:
            os.close(fd)
            return None
        made = cls.__new__(cls)
        made.root = made.real = real
        made.skill = skill
        made._fd = fd
        made._bases = (real,)
        return made

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reads ---------------------------------------------------------------

    def open(self, rel: str) -> int:
        """A read-only descriptor of the regular file ``rel`` (caller closes it).

        Raises ``PathNotAllowedError`` for hostile or hidden paths, links that
        leave the folder, folders and special files, and
        ``FileNotFoundInSkillError`` when nothing is there.
        """
        return self._open_file(rel)[0]

    def _open_file(self, rel: str) -> tuple[int, int]:
        """``open`` of ``rel`` and the size its ``fstat`` gave (the one ``fstat`` of a read)."""
        try:
            fd = self._open(_split(rel), want_dir=False)
        except _Refused as why:
            raise self._error(rel, why) from None
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise self._error(rel, _Refused("unreadable", "it cannot be read")) from None
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise self._error(rel, _Refused("special", f"it is {what}"))
        return fd, st.st_size

    def read(self, rel: str, *, max_bytes: int, truncate: bool = False) -> FileBytes:
        """At most ``max_bytes`` of ``rel``: ``FileTooLargeError`` past it unless ``truncate``."""
        fd, size = self._open_file(rel)
        try:
            if size > max_bytes and not truncate:
                raise self._too_large(rel, size, max_bytes)
            try:
                data = read_fd(fd, size, max_bytes)
            except OSError:
                raise self._error(rel, _Refused("unreadable", "it cannot be read")) from None
        finally:
            os.close(fd)
        if len(data) > max_bytes:
            if not truncate:
                raise self._too_large(rel, len(data), max_bytes)
            return FileBytes(rel, data[:max_bytes], max(size, len(data)), True)
        return FileBytes(rel, data, len(data), False)

    def exists(self, rel: str) -> bool:
        """Is there anything at ``rel`` (a link counts, even a dangling one)?"""
        try:
            os.lstat(os.path.join(self.root, *_split(rel)))
        except (OSError, ValueError, _Refused):
            return False
        return True

    def _too_large(self, rel: str, size: int, limit: int) -> FileTooLargeError:
        return FileTooLargeError(
            f"{rel} is {size} bytes, over the {limit}-byte limit",
            skill=self.skill,
            path=rel,
            hint="ask for a truncated read or raise max_bytes",
            size=size,
            limit=limit,
        )

    def _error(self, rel: str, why: _Refused) -> FileNotFoundInSkillError | PathNotAllowedError:
        where = f" in skill {self.skill}" if self.skill else ""
        shown = rel if isinstance(rel, str) and rel.isprintable() else repr(rel)
        if why.kind in ("missing", "dangling"):
            return FileNotFoundInSkillError(
                f"no file {shown}{where}",
                skill=self.skill,
                path=rel,
                hint=files_hint(self.skill),
            )
        hints = {
            "hidden": (
                "hidden files (.env, .git/, ...) and compiled Python caches "
                "(__pycache__/, *.pyc) are never listed or served"
            ),
            "escapes": "give a path relative to the skill folder; links must stay inside it",
            "special": "only regular files can be read (not folders, devices or pipes)",
        }
        return PathNotAllowedError(
            f"{shown} cannot be read{where}: {why.message}",
            skill=self.skill,
            path=rel,
            hint=hints.get(why.kind, "bundled files must be regular files inside the skill"),
        )

    # --- resolution ----------------------------------------------------------

    def _open(self, parts: list[str], *, want_dir: bool) -> int:
        """Descriptor of ``parts`` beneath the folder; ``_Refused`` when not allowed."""
        if not _HAVE_DIR_FD:
            return self._open_by_path(parts, want_dir=want_dir)
        if not parts:
            if want_dir:
                return os.dup(self._fd)
            raise _Refused("special", "it is a folder")
        flags = _DIR_FLAGS if want_dir else _FILE_FLAGS
        fn = _openat2()
        if fn is not None:
            # one name: no '/' or '..' to leave by, and O_NOFOLLOW refuses a link, as
            # openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS would (without its setup)
            one = len(parts) == 1 and parts[0] not in ("", ".", "..")
            try:
                if one:
                    return os.open(parts[0], flags | _NOFOLLOW, dir_fd=self._fd)
                return fn(self._fd, "/".join(parts), flags | _NOFOLLOW)
            except OSError as exc:
                if exc.errno == errno.ENOENT:
                    raise _Refused("missing", "no such file") from None
                if not one and exc.errno in _UNSUPPORTED:
                    _disable_openat2()  # old kernel or a seccomp filter: walk by hand
                # ELOOP (a link on the way), EXDEV/EAGAIN (a race): resolve by hand
        return self._walk_open(parts, flags)

    def _walk_open(self, parts: list[str], flags: int) -> int:
        """Component by component from the folder's descriptor, links by hand."""
        todo = deque(parts)
        held: list[int] = []  # descriptors of the folders on the way (root excluded)
        links = 0
        try:
            while todo:
                name = todo.popleft()
                if name in ("", "."):
                    continue
                if name == "..":
                    if not held:
                        raise _Refused("escapes", "a link leads outside the skill folder")
                    os.close(held.pop())
                    continue
                if is_hidden(name):
                    raise _Refused("hidden", "a link leads into a hidden path")
                here = held[-1] if held else self._fd
                last = not todo
                try:
                    fd = os.open(name, (flags if last else _PASS_FLAGS) | _NOFOLLOW, dir_fd=here)
                except OSError as exc:
                    try:
                        target = os.readlink(name, dir_fd=here)
                    except OSError:
                        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                            raise _Refused("missing", "no such file") from None
                        if exc.errno in (errno.ELOOP, errno.EMLINK):
                            raise _Refused("escapes", "it changed while being read") from None
                        raise _Refused("unreadable", exc.strerror or str(exc)) from None
                    links += 1
                    if links > MAX_LINKS:
                        raise _Refused("loop", "too many links (a loop)") from None
                    if target.startswith("/"):
                        rest = self._inside(target)
                        for fd_ in held:
                            os.close(fd_)
                        held.clear()
                        todo.extendleft(reversed(rest))
                    else:
                        todo.extendleft(reversed(target.split("/")))
                    continue
                if last:
                    return fd
                held.append(fd)
            # the path ended on ".." or ".": the folder reached
            if flags & getattr(os, "O_DIRECTORY", 0):
                return os.open(".", _DIR_FLAGS, dir_fd=held[-1] if held else self._fd)
            raise _Refused("special", "it is a folder")
        finally:
            for fd_ in held:
                os.close(fd_)

    def _inside(self, target: str) -> list[str]:
        """Components of an absolute link target below the skill folder, or ``_Refused``."""
        for base in self._bases:
            if within(target, (base,), sep="/"):
                return target[len(base) :].split("/")
        raise _Refused("escapes", "a link leads outside the skill folder")

    def _open_by_path(self, parts: list[str], *, want_dir: bool) -> int:
        """Platforms without descriptor-relative calls: check the real path, then open."""
        full = os.path.join(self.root, *parts)
        real = os.path.realpath(full)
        if not within(real, (self.real,)):
            raise _Refused("escapes", "a link leads outside the skill folder")
        inner = os.path.relpath(real, self.real).split(os.sep)
        if any(is_hidden(p) for p in inner):
            raise _Refused("hidden", "a link leads into a hidden path")
        try:
            if want_dir:
                if not os.path.isdir(real):
                    raise _Refused("not_dir", "not a folder")
                return os.open(real, os.O_RDONLY)
            return os.open(real, _FILE_FLAGS | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
            raise _Refused("missing", "no such file") from None
        except OSError as exc:
            raise _Refused("unreadable", exc.strerror or str(exc)) from None


def read_beneath(
    root: str | os.PathLike[str],
    rel: str,
    *,
    max_bytes: int,
    truncate: bool = False,
    skill: str | None = None,
    follow_root: bool = True,
) -> FileBytes:
    """One bounded, contained read of ``rel`` beneath ``root`` (see ``ContainedFolder.read``)."""
    with ContainedFolder(root, skill=skill, follow_root=follow_root) as tree:
        return tree.read(rel, max_bytes=max_bytes, truncate=truncate)
