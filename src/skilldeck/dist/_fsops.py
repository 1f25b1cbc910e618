"""File-tree operations: a checked copy of a skill folder, atomic swaps, removal.

``copy_skill_tree`` is the single gate every installed or exported file goes
through: it copies the one walker's file set (``skilldeck._tree``: hidden files,
links that leave the skill and special files are left out, links that stay
inside become plain files), refuses trees over the limits, reads every file
beneath the skill folder, and normalises permissions (``0o755`` for anything
executable, ``0o644`` otherwise; no setuid bits).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import secrets
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import FileNotFoundInSkillError, InstallError, PathNotAllowedError
from skilldeck._statedir import open_dir
from skilldeck._tree import SkillTree, WalkLimits

from ._model import InstallLimits, InstallProgress, ProgressCallback

__all__ = ["copy_skill_tree", "exchange", "remove_tree", "scan_skill_tree", "swap_at"]


@dataclass(frozen=True, slots=True)
class _Item:
    rel: str
    is_dir: bool
    executable: bool
    size: int


def _walk_limits(limits: InstallLimits) -> WalkLimits:
    return WalkLimits(
        max_files=limits.max_files, max_dirs=4 * limits.max_files, max_bytes=limits.max_bytes
    )


def _items(
    tree: SkillTree,
    limits: InstallLimits,
    what: str,
    name: str,
    problems: list[Diagnostic] | None = None,
) -> list[_Item]:
    try:
        walk = tree.walk(limits=_walk_limits(limits))
    except PathNotAllowedError as exc:
        size = f"{limits.max_bytes / 2**20:g} MiB" if limits.max_bytes else "no size limit"
        raise InstallError(
            f"{what} {name}: {exc.message.split(': ', 1)[-1]}",
            path=exc.path,
            hint=f"a skill may hold {limits.max_files} files and {size}; for a source you "
            "trust, raise the limits: --max-files N --max-bytes N on the skilldeck command "
            "(from Python: limits=skilldeck.dist.InstallLimits(max_files=..., max_bytes=...))",
            limits={"max_files": limits.max_files, "max_bytes": limits.max_bytes},
        ) from None
    for problem in walk.problems:
        if problem.path.lower() == "skill.md":
            raise InstallError(
                f"{what} {name}: SKILL.md is not a file inside the skill ({problem.message})",
                path=str(tree.root),
                hint="SKILL.md must be a regular file in the skill folder",
            )
        if problems is not None:
            problems.append(problem.diagnostic(tree.root))
    folders = [_Item(d, True, False, 0) for d in walk.dirs]  # sorted: parents first
    return folders + [_Item(e.path, False, e.executable, e.size) for e in walk.files]


def scan_skill_tree(root: Path, limits: InstallLimits, *, what: str = "skill") -> list[_Item]:
    """Every folder and file a copy of ``root`` holds: the one walker's set
    (``skilldeck._tree``: no hidden files, in-skill links as files, links out and
    special files left out), within ``limits`` (else ``InstallError``)."""
    with _open_tree(root, what) as tree:
        return _items(tree, limits, what, root.name)


def _open_tree(root: Path, what: str) -> SkillTree:
    try:
        return SkillTree(root, skill=root.name)
    except FileNotFoundInSkillError as exc:
        raise InstallError(f"{what} {root.name}: {exc.message}", path=str(root)) from None


def copy_skill_tree(
    src: Path,
    dest: Path,
    limits: InstallLimits,
    *,
    on_progress: ProgressCallback | None = None,
    what: str = "skill",
    problems: list[Diagnostic] | None = None,
    dir_fd: int | None = None,
) -> int:
    """Copy ``src`` to the new folder ``dest`` under the rules above. Returns the file count.

    What the walk left out (links leaving the skill, special files) is appended
    to ``problems`` as diagnostics. Every file is read through the contained
    reader, so a folder swapped for a link mid-copy fails the copy
    (``InstallError``) instead of copying outside bytes. With ``dir_fd``,
    ``dest`` is a name in that folder (opened by the caller without following
    links); everything below it is made fresh by this copy.
    """
    with _open_tree(src, what) as tree:
        items = _items(tree, limits, what, src.name, problems)
        total = sum(1 for i in items if not i.is_dir)
        os.mkdir(dest, 0o755, dir_fd=dir_fd)
        top = open_dir(os.fspath(dest), dir_fd=dir_fd, path=dest)
        assert top is not None
        try:
            done = 0
            for item in items:
                if item.is_dir:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(item.rel, 0o755, dir_fd=top)
                    continue
                mode = 0o755 if item.executable else 0o644
                try:
                    src_fd = tree.open(item.rel)
                except (PathNotAllowedError, FileNotFoundInSkillError) as exc:
                    raise InstallError(
                        f"{what} {src.name}: {exc.message}",
                        path=str(src),
                        hint="the source changed while it was copied; try again",
                    ) from None
                fd = os.open(
                    item.rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=top
                )
                with os.fdopen(fd, "wb") as out, open(src_fd, "rb") as inp:
                    shutil.copyfileobj(inp, out, 1 << 20)
                    os.fchmod(out.fileno(), mode)
                done += 1
                if on_progress and (done % 64 == 0 or done == total):
                    on_progress(InstallProgress("copy", f"copying {src.name}", done, total))
        finally:
            os.close(top)
    return total


def _renameat2() -> object | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError, TypeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _renameat2()
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange(a: Path | str, b: Path | str, *, dir_fd: int | None = None) -> bool:
    """Atomically swap two existing paths (Linux ``renameat2(RENAME_EXCHANGE)``),
    relative to ``dir_fd`` when given.

    Returns False when the platform or filesystem cannot; the caller then
    falls back to two renames (and recovery covers the gap between them).
    """
    fn = _RENAMEAT2
    if fn is None:
        return False
    at = _AT_FDCWD if dir_fd is None else dir_fd
    rc = fn(at, os.fsencode(a), at, os.fsencode(b), _RENAME_EXCHANGE)  # type: ignore[operator]
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: not supported here
        return False
    raise OSError(err, os.strerror(err), str(a))


def swap_at(fd: int, new: str, dest: str) -> None:
    """Put ``new`` at ``dest`` (names in folder ``fd``) in one rename; neither is followed.

    What was at ``dest`` ends up at ``new`` (the caller removes it): an atomic
    exchange where the filesystem has one, else two renames.
    """
    try:
        old_st = os.stat(dest, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        os.rename(new, dest, src_dir_fd=fd, dst_dir_fd=fd)
        return
    new_is_dir = stat.S_ISDIR(os.stat(new, dir_fd=fd, follow_symlinks=False).st_mode)
    if not new_is_dir and not stat.S_ISDIR(old_st.st_mode):
        os.replace(new, dest, src_dir_fd=fd, dst_dir_fd=fd)  # a link or file over one: atomic
        return
    if exchange(new, dest, dir_fd=fd):
        return
    old = f".skilldeck-tmp-{os.getpid()}-old-{secrets.token_hex(4)}"
    os.rename(dest, old, src_dir_fd=fd, dst_dir_fd=fd)
    os.rename(new, dest, src_dir_fd=fd, dst_dir_fd=fd)
    os.rename(old, new, src_dir_fd=fd, dst_dir_fd=fd)


def remove_tree(path: Path) -> None:
    """Remove a file or folder we own (read-only parts included); missing is fine."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
        return
    if not path.exists():
        return
    shutil.rmtree(path, ignore_errors=True)
    if path.exists():  # read-only folders: make them writable, then retry
        for dirpath, dirnames, _files in os.walk(path):
            for d in dirnames:
                with contextlib.suppress(OSError):
                    os.chmod(os.path.join(dirpath, d), 0o700, follow_symlinks=False)
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
        shutil.rmtree(path, ignore_errors=True)
