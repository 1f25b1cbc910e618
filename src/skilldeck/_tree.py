"""One walker and one contained reader of a skill folder.

Every part of skilldeck that lists or reads a skill's files goes through this
module (digests, the file index, install copies, the security scan, MCP), so
what is digested is exactly what is served and what a run can see.

The rules, in one place:

- **Hidden names** (any path component starting with ``.``: ``.env``, ``.git/``,
  ``.DS_Store``, ``.x.swp``) are never listed and never read.
- **Links**: a link whose target stays inside the skill folder is followed and
  listed under the link's own path (a link to a folder is entered, once per
  path; one leading back to a folder above it is a loop). Links leaving the
  folder, dangling links, loops and links into hidden paths are skipped with a
  ``Problem`` and never read.
- **Special files** (FIFOs, devices, sockets) are skipped, and a read of one is
  refused.
- **Limits**: depth, file count, folder count and total size are capped; past a
  cap the walk raises a coded ``PathNotAllowedError`` (or, with
  ``strict=False``, stops there and says so).

Reads resolve a relative path beneath the skill folder without a window for a
swap: from a descriptor of the folder, with ``openat2(RESOLVE_BENEATH |
RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`` where the kernel has it, and
otherwise (or when the path holds a link) one component at a time with
``O_NOFOLLOW`` from the descriptor of the folder above, resolving in-skill links
by hand. A file swapped mid-read gives ``PATH_NOT_ALLOWED`` or
``FILE_NOT_FOUND``, never an internal error. Where the platform has no
descriptor-relative calls, the real path is checked before opening.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from skilldeck._diagnostics import Diagnostic, Severity, register_code
from skilldeck._errors import FileNotFoundInSkillError, FileTooLargeError, PathNotAllowedError

__all__ = [
    "Entry",
    "FileBytes",
    "Problem",
    "SkillTree",
    "Walk",
    "WalkLimits",
    "is_hidden",
    "looks_like_secret",
    "read_beneath",
    "read_fd",
    "read_file",
    "secret_findings",
    "walk_skill",
]

# Codes of what a walk leaves out (SK5xx: discovery and catalog; documented there)
LINK_DANGLING = register_code("SK504", Severity.WARNING, "a symlink points at nothing")
LINK_LOOP = register_code(
    "SK505", Severity.WARNING, "a symlink leads back to a folder being scanned"
)
TOO_DEEP = register_code(
    "SK507", Severity.WARNING, "folders below the recursion depth limit were not scanned"
)
FILE_LINK_ESCAPES = register_code(
    "SK514", Severity.WARNING, "a bundled file is a link leaving the skill folder"
)
SPECIAL_FILE = register_code("SK515", Severity.INFO, "a bundled file is not a regular file")
TOO_MANY_FILES = register_code(
    "SK516", Severity.WARNING, "a skill folder holds more files than are indexed"
)
SECRET_FILE = register_code(
    "SK518", Severity.WARNING, "a skill folder holds a file that looks like a secret"
)

MAX_LINKS = 40
"""Links followed while resolving one path (the kernel's own limit)."""

ProblemKind = Literal[
    "escapes", "dangling", "loop", "hidden", "special", "unreadable", "too_deep", "too_many"
]


def is_hidden(name: str) -> bool:
    """Is one path component hidden (starts with ``.``, other than ``.`` and ``..``)?"""
    return name.startswith(".") and name not in (".", "..")


_SECRET_NAMES = frozenset(
    {
        ".env",
        ".envrc",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".htpasswd",
        ".pgpass",
        ".aws",
        ".ssh",
        ".gnupg",
        ".docker",
        "credentials",
        "credentials.json",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
    }
)
_SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".ppk", ".asc")
_NOT_SECRET_ENV = (".example", ".sample", ".template", ".dist", ".defaults")


def secret_findings(root: str | os.PathLike[str], walk: Walk) -> list[Diagnostic]:
    """An SK518 warning for each file (listed or hidden) whose name looks like a secret."""
    out: list[Diagnostic] = []
    for rel in sorted({*walk.paths, *walk.hidden}):
        if looks_like_secret(rel):
            hidden = is_hidden(rel.rsplit("/", 1)[-1])
            out.append(
                Diagnostic.make(
                    SECRET_FILE,
                    f"{rel} looks like a secret (keys, tokens, .env)"
                    + (" (hidden: never served, but it is in the folder)" if hidden else ""),
                    path=os.path.join(os.fspath(root), rel),
                    hint="remove it from the skill folder and rotate the secret if it was "
                    "ever shared",
                )
            )
    return out


def looks_like_secret(path: str) -> bool:
    """Does a file or folder name look like it holds a secret (keys, tokens, ``.env``)?"""
    name = path.rstrip("/").rsplit("/", 1)[-1].lower()
    if name in _SECRET_NAMES:
        return True
    if name.startswith((".env.", "secrets.")):
        return not name.endswith(_NOT_SECRET_ENV)
    if name.startswith("service-account") and name.endswith(".json"):
        return True
    return name.endswith(_SECRET_SUFFIXES) and not name.endswith(".pub.asc")


@dataclass(frozen=True, slots=True)
class Entry:
    """One regular file of a skill, as listed (a link is listed under its own path)."""

    path: str
    size: int
    executable: bool
    link: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """Something the walk left out: ``kind`` says why, ``path`` where (relative)."""

    kind: ProblemKind
    path: str
    message: str

    def diagnostic(self, root: str | os.PathLike[str]) -> Diagnostic:
        """This problem as a coded diagnostic located under ``root``."""
        code, hint = _PROBLEM_CODES[self.kind]
        where = os.path.join(os.fspath(root), self.path) if self.path else os.fspath(root)
        left_out = self.kind not in ("too_deep", "too_many")
        return Diagnostic.make(
            code, self.message + (" (left out)" if left_out else ""), path=where, hint=hint
        )


_PROBLEM_CODES: dict[str, tuple[str, str]] = {
    "escapes": (FILE_LINK_ESCAPES, "copy the file into the skill instead of linking to it"),
    "hidden": (FILE_LINK_ESCAPES, "hidden files are never served; link to a visible file"),
    "dangling": (LINK_DANGLING, "remove the link or restore its target"),
    "loop": (LINK_LOOP, "remove the looping link"),
    "special": (SPECIAL_FILE, "skills hold only folders and regular files"),
    "unreadable": (SPECIAL_FILE, "check the permissions of the folder"),
    "too_deep": (TOO_DEEP, "keep a skill's folders shallow"),
    "too_many": (TOO_MANY_FILES, "keep a skill small; move bulk data elsewhere"),
}


@dataclass(frozen=True, slots=True)
class WalkLimits:
    """Caps of one walk. ``max_bytes`` (total size of the files) is off by default."""

    max_depth: int = 64
    max_files: int = 20_000
    max_dirs: int = 20_000
    max_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class Walk:
    """What a walk found: ``files`` sorted by path, the folders entered, the hidden
    names met (not entered) and the problems met. ``complete`` is False when a
    limit stopped the walk (only with ``strict=False``)."""

    files: tuple[Entry, ...]
    dirs: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    complete: bool = True

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(e.path for e in self.files)


@dataclass(frozen=True, slots=True)
class FileBytes:
    """A bounded read: ``data`` (a prefix of ``size`` bytes when ``truncated``)."""

    path: str
    data: bytes
    size: int
    truncated: bool = False


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

    syscall.restype = ctypes.c_long
    resolve = _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS

    def openat2(dirfd: int, path: str, flags: int) -> int:
        how = _OpenHow(flags, 0, resolve)
        fd = int(
            syscall(
                ctypes.c_long(nr),
                ctypes.c_int(dirfd),
                ctypes.c_char_p(os.fsencode(path)),
                ctypes.byref(how),
                ctypes.c_size_t(ctypes.sizeof(how)),
            )
        )
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
            raise _Refused("hidden", "hidden files and folders are never served")
    return parts


class SkillTree:
    """A skill folder opened once; walks and reads resolve beneath it.

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
            if _HAVE_DIR_FD:
                # follow_root=False: a folder checked by its real path must not be a link now
                nofollow = 0 if follow_root else _NOFOLLOW
                self._fd = os.open(self.root, _DIR_FLAGS | nofollow)
            self.real = os.path.realpath(self.root)
            if not follow_root and self.real != self.root:
                raise NotADirectoryError(errno.ENOTDIR, "it is a link now", self.root)
            if not os.path.isdir(self.real):
                raise NotADirectoryError(errno.ENOTDIR, "not a folder", self.root)
        except (OSError, ValueError) as exc:
            raise FileNotFoundInSkillError(
                f"cannot open the skill folder {self.root}: {getattr(exc, 'strerror', exc)}",
                skill=skill,
                path=self.root,
                hint="the skill folder was moved or removed; refresh the catalog",
            ) from None
        self._bases = tuple(dict.fromkeys((self.real, self.root)))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> SkillTree:
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
        return fd

    def read(self, rel: str, *, max_bytes: int, truncate: bool = False) -> FileBytes:
        """At most ``max_bytes`` of ``rel``: ``FileTooLargeError`` past it unless ``truncate``."""
        fd = self.open(rel)
        try:
            size = os.fstat(fd).st_size
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
                hint="list the skill's files with skills_load",
            )
        hints = {
            "hidden": "hidden files (.env, .git/, ...) are never listed or served",
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
            try:
                return fn(self._fd, "/".join(parts), flags | _NOFOLLOW)
            except OSError as exc:
                if exc.errno in _UNSUPPORTED:
                    _disable_openat2()  # old kernel or a seccomp filter: walk by hand
                elif exc.errno == errno.ENOENT:
                    raise _Refused("missing", "no such file") from None
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
            if target == base or target.startswith(base.rstrip("/") + "/"):
                return target[len(base) :].split("/")
        raise _Refused("escapes", "a link leads outside the skill folder")

    def _open_by_path(self, parts: list[str], *, want_dir: bool) -> int:
        """Platforms without descriptor-relative calls: check the real path, then open."""
        full = os.path.join(self.root, *parts)
        real = os.path.realpath(full)
        if not (real == self.real or real.startswith(self.real.rstrip(os.sep) + os.sep)):
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

    # --- the walk ------------------------------------------------------------

    def walk(
        self,
        *,
        limits: WalkLimits = WalkLimits(),
        strict: bool = True,
        enter: Callable[[str], bool] | None = None,
    ) -> Walk:
        """Every regular file beneath the folder under the rules of the module doc.

        ``enter(rel)`` may prune folders (``rel`` without a trailing slash).
        Past a limit: ``PathNotAllowedError`` (``strict``), or the walk stops
        there with a ``too_deep``/``too_many`` problem and ``complete=False``.
        """
        files: list[Entry] = []
        dirs: list[str] = []
        hidden: list[str] = []
        problems: list[Problem] = []
        complete = True
        total = 0
        # (relative folder, (dev, inode) of the folders above it and itself, reached by a link)
        stack: list[tuple[str, tuple[tuple[int, int], ...], bool]] = []
        try:
            st = os.fstat(self._fd) if self._fd >= 0 else os.stat(self.real)
        except OSError:
            return Walk((), problems=(Problem("unreadable", "", "the folder cannot be read"),))
        stack.append(("", ((st.st_dev, st.st_ino),), False))

        def over(kind: ProblemKind, rel: str, message: str) -> None:
            nonlocal complete
            if strict:
                raise PathNotAllowedError(
                    f"{self.skill or self.root}: {message}",
                    skill=self.skill,
                    path=os.path.join(self.root, rel) if rel else self.root,
                    hint="skills must stay small and shallow; remove the extra folders or files",
                    reason=kind,
                )
            complete = False
            problems.append(Problem(kind, rel, message))

        while stack:
            rel_dir, seen, linked = stack.pop()
            for name, kind, info in self._list(rel_dir, problems):
                rel = f"{rel_dir}/{name}" if rel_dir else name
                if is_hidden(name):
                    hidden.append(rel)
                    continue
                via_link = linked
                if kind == "link":
                    kind, info = self._follow(rel, problems)
                    via_link = True
                if kind == "file":
                    assert info is not None
                    files.append(Entry(rel, info.st_size, bool(info.st_mode & 0o111), via_link))
                    total += info.st_size
                    if len(files) > limits.max_files:
                        over("too_many", rel, f"more than {limits.max_files} files")
                        return self._done(files[:-1], dirs, hidden, problems, complete=False)
                    if limits.max_bytes is not None and total > limits.max_bytes:
                        over("too_many", rel, f"more than {limits.max_bytes} bytes of files")
                        return self._done(files[:-1], dirs, hidden, problems, complete=False)
                elif kind == "dir":
                    assert info is not None
                    key = (info.st_dev, info.st_ino)
                    if key in seen:
                        problems.append(
                            Problem("loop", rel, f"{rel}: a link back to a folder above it")
                        )
                        continue
                    if enter is not None and not enter(rel):
                        continue
                    if rel.count("/") + 1 > limits.max_depth:
                        over("too_deep", rel, f"folders nest deeper than {limits.max_depth}")
                        continue
                    dirs.append(rel)
                    if len(dirs) > limits.max_dirs:
                        over("too_many", rel, f"more than {limits.max_dirs} folders")
                        return self._done(files, dirs[:-1], hidden, problems, complete=False)
                    stack.append((rel, (*seen, key), via_link))
                elif kind == "special":
                    problems.append(
                        Problem("special", rel, f"{rel} is not a regular file (device, pipe)")
                    )
        return self._done(files, dirs, hidden, problems, complete=complete)

    @staticmethod
    def _done(
        files: list[Entry],
        dirs: list[str],
        hidden: list[str],
        problems: list[Problem],
        *,
        complete: bool,
    ) -> Walk:
        files.sort(key=lambda e: e.path)
        return Walk(
            tuple(files), tuple(sorted(dirs)), tuple(sorted(hidden)), tuple(problems), complete
        )

    def _list(
        self, rel_dir: str, problems: list[Problem]
    ) -> Iterator[tuple[str, str, os.stat_result | None]]:
        """``(name, kind, stat)`` of a folder's entries, sorted; kind: file/dir/link/special."""
        try:
            if _HAVE_DIR_FD:
                fd = self._open(rel_dir.split("/") if rel_dir else [], want_dir=True)
                try:
                    with os.scandir(fd) as it:  # stat while its descriptor is open
                        listed = [(e.name, e.stat(follow_symlinks=False)) for e in it]
                finally:
                    os.close(fd)
                listed.sort(key=lambda item: item[0])
            else:
                fd = self._open_by_path(rel_dir.split("/") if rel_dir else [], want_dir=True)
                os.close(fd)
                base = os.path.join(self.real, *rel_dir.split("/")) if rel_dir else self.real
                with os.scandir(base) as it:
                    listed = sorted((e.name, e.stat(follow_symlinks=False)) for e in it)
        except _Refused as why:
            problems.append(Problem("unreadable", rel_dir, f"{rel_dir}/ {why.message}"))
            return
        except OSError as exc:
            problems.append(
                Problem("unreadable", rel_dir, f"{rel_dir or '.'}: {exc.strerror or exc}")
            )
            return
        for name, st in listed:
            mode = st.st_mode
            if stat.S_ISLNK(mode):
                yield name, "link", None
            elif stat.S_ISREG(mode):
                yield name, "file", st
            elif stat.S_ISDIR(mode):
                yield name, "dir", st
            else:
                yield name, "special", st

    def _follow(self, rel: str, problems: list[Problem]) -> tuple[str, os.stat_result | None]:
        """Resolve the link at ``rel`` with the reader's rules: (kind, stat of its target)."""
        try:
            fd = self._open(rel.split("/"), want_dir=False)
        except _Refused as why:
            kind: ProblemKind = "dangling" if why.kind == "missing" else "escapes"
            if why.kind in ("hidden", "loop", "unreadable"):
                kind = why.kind
            message = why.message
            if why.kind == "special":  # the link ends on a folder above it
                kind, message = "loop", "a link back to a folder above it"
            problems.append(Problem(kind, rel, f"{rel}: {message}; it is skipped"))
            return "skip", None
        try:
            st = os.fstat(fd)
        finally:
            os.close(fd)
        if stat.S_ISREG(st.st_mode):
            return "file", st
        if stat.S_ISDIR(st.st_mode):
            return "dir", st
        return "special", st


def walk_skill(
    root: str | os.PathLike[str],
    *,
    limits: WalkLimits = WalkLimits(),
    strict: bool = True,
    skill: str | None = None,
    enter: Callable[[str], bool] | None = None,
    follow_root: bool = True,
) -> Walk:
    """Walk a skill folder (see ``SkillTree.walk``)."""
    with SkillTree(root, skill=skill, follow_root=follow_root) as tree:
        return tree.walk(limits=limits, strict=strict, enter=enter)


def read_beneath(
    root: str | os.PathLike[str],
    rel: str,
    *,
    max_bytes: int,
    truncate: bool = False,
    skill: str | None = None,
    follow_root: bool = True,
) -> FileBytes:
    """One bounded, contained read of ``rel`` beneath ``root`` (see ``SkillTree.read``)."""
    with SkillTree(root, skill=skill, follow_root=follow_root) as tree:
        return tree.read(rel, max_bytes=max_bytes, truncate=truncate)
