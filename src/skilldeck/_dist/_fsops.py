"""File-tree operations: a checked copy of a skill folder, atomic swaps, removal.

``copy_skill_tree`` is the single gate every installed or exported file goes
through: it walks without following links out, refuses links that leave the
skill, special files (devices, fifos, sockets) and trees over the limits,
copies links that stay inside as plain files, and normalises permissions
(``0o755`` for anything executable, ``0o644`` otherwise; no setuid bits).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from skilldeck._errors import InstallError

from ._model import InstallLimits, InstallProgress, ProgressCallback

__all__ = ["copy_skill_tree", "exchange", "remove_tree", "scan_skill_tree"]

_SKIP = frozenset({".git"})


@dataclass(frozen=True, slots=True)
class _Item:
    rel: str
    real: str
    is_dir: bool
    executable: bool
    size: int


def scan_skill_tree(root: Path, limits: InstallLimits, *, what: str = "skill") -> list[_Item]:
    """Every directory and file a copy of ``root`` would hold, checked against the rules."""
    real_root = os.path.realpath(root)
    items: list[_Item] = []
    files = 0
    folders = 0
    total = 0
    active: set[str] = set()

    def walk(real_dir: str, rel_dir: str) -> None:
        nonlocal files, folders, total
        if real_dir in active:
            raise InstallError(
                f"{what} {root.name}: a link at {rel_dir or '.'} loops back on itself",
                path=str(root),
                hint="remove the looping link",
            )
        active.add(real_dir)
        try:
            entries = sorted(os.scandir(real_dir), key=lambda e: e.name)
        except OSError as exc:
            raise InstallError(f"cannot read {real_dir}: {exc.strerror}", path=real_dir) from exc
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if entry.name in _SKIP:
                continue  # git metadata (a folder, or a submodule's pointer file)
            full = os.path.join(real_dir, entry.name)
            if entry.is_symlink():
                target = os.path.realpath(full)
                if not (target == real_root or target.startswith(real_root + os.sep)):
                    raise InstallError(
                        f"{what} {root.name}: link {rel} points outside the skill",
                        path=str(root),
                        hint="replace the link with the file it points to, or remove it",
                    )
                if not os.path.exists(target):
                    raise InstallError(
                        f"{what} {root.name}: link {rel} is dangling",
                        path=str(root),
                        hint="remove the broken link",
                    )
                full = target
            try:
                st = os.stat(full)
            except OSError as exc:
                raise InstallError(f"cannot read {rel}: {exc.strerror}", path=full) from exc
            if stat.S_ISDIR(st.st_mode):
                folders += 1
                if folders > 4 * limits.max_files:
                    raise InstallError(
                        f"{what} {root.name} has more than {4 * limits.max_files} folders "
                        "(counting linked folders each time they are reached)",
                        path=str(root),
                        hint="remove the extra folders or links to folders",
                    )
                items.append(_Item(rel, full, True, False, 0))
                walk(full, rel)
            elif stat.S_ISREG(st.st_mode):
                files += 1
                total += st.st_size
                if files > limits.max_files:
                    raise InstallError(
                        f"{what} {root.name} has more than {limits.max_files} files",
                        path=str(root),
                        hint="skills are limited in size; raise the limit only for a source "
                        "you trust",
                    )
                if total > limits.max_bytes:
                    raise InstallError(
                        f"{what} {root.name} is larger than {limits.max_bytes} bytes "
                        f"(at {rel}, {st.st_size} bytes)",
                        path=str(root),
                        hint="skills are limited in size; raise the limit only for a source "
                        "you trust",
                    )
                items.append(_Item(rel, full, False, bool(st.st_mode & 0o111), st.st_size))
            else:
                raise InstallError(
                    f"{what} {root.name}: {rel} is not a regular file (device, fifo or socket)",
                    path=str(root),
                    hint="skills may hold only folders and regular files",
                )
        active.discard(real_dir)

    walk(real_root, "")
    return items


def copy_skill_tree(
    src: Path,
    dest: Path,
    limits: InstallLimits,
    *,
    on_progress: ProgressCallback | None = None,
    what: str = "skill",
) -> int:
    """Copy ``src`` to the new folder ``dest`` under the rules above. Returns the file count."""
    items = scan_skill_tree(src, limits, what=what)
    total = sum(1 for i in items if not i.is_dir)
    dest.mkdir(mode=0o755)
    done = 0
    for item in items:
        target = dest / item.rel
        if item.is_dir:
            target.mkdir(mode=0o755, exist_ok=True)
            continue
        mode = 0o755 if item.executable else 0o644
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        with os.fdopen(fd, "wb") as out, open(item.real, "rb") as inp:
            shutil.copyfileobj(inp, out, 1 << 20)
        os.chmod(target, mode)
        done += 1
        if on_progress and (done % 64 == 0 or done == total):
            on_progress(InstallProgress("copy", f"copying {src.name}", done, total))
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


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two existing paths (Linux ``renameat2(RENAME_EXCHANGE)``).

    Returns False when the platform or filesystem cannot; the caller then
    falls back to two renames (and recovery covers the gap between them).
    """
    fn = _RENAMEAT2
    if fn is None:
        return False
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)  # type: ignore[operator]
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: not supported here
        return False
    raise OSError(err, os.strerror(err), str(a))


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
