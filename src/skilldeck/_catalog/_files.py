"""A skill's file index and contained reads of bundled files (tier 3).

A read resolves the real path and refuses anything outside the skill's real
folder, anything that is not a regular file (folders, devices, pipes) and, at
the store level, anything not in the skill's file index. Size limits always
apply; the file is opened with ``O_NOFOLLOW`` after resolution.
"""

from __future__ import annotations

import os
import stat as _stat

from skilldeck._catalog import _codes as C
from skilldeck._catalog._store import BUNDLED_DIRS, FileData, IndexMode
from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import FileNotFoundInSkillError, FileTooLargeError, PathNotAllowedError

__all__ = ["MAX_INDEX_FILES", "SKIP_DIRS", "index_files", "read_contained", "within"]

MAX_INDEX_FILES = 5_000
"""At most this many files are indexed per skill with ``index="all"``."""

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def within(real: str, bases: tuple[str, ...] | list[str]) -> bool:
    """Is the real path ``real`` one of ``bases`` or inside one (string check, no I/O)?"""
    return any(real == b or real.startswith(b.rstrip(os.sep) + os.sep) for b in bases)


def read_contained(
    real_dir: str, rel: str, *, max_bytes: int, truncate: bool, skill: str
) -> FileData:
    """Open ``real_dir/rel`` only if its real path stays inside and it is a regular file."""
    target = os.path.join(real_dir, rel)
    real = os.path.realpath(target)
    if not within(real, (real_dir,)) or real == real_dir:
        raise PathNotAllowedError(
            f"{rel} leads outside the skill folder",
            skill=skill,
            path=rel,
            hint="bundled files must live inside the skill folder",
        )
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except FileNotFoundError:
        raise FileNotFoundInSkillError(
            f"no file {rel} in skill {skill}", skill=skill, path=rel
        ) from None
    except OSError as exc:
        raise PathNotAllowedError(
            f"cannot open {rel}: {exc.strerror or exc}", skill=skill, path=rel
        ) from None
    try:
        st = os.fstat(fd)
        if not _stat.S_ISREG(st.st_mode):
            raise PathNotAllowedError(
                f"{rel} is not a regular file",
                skill=skill,
                path=rel,
                hint="only regular files can be read (not folders, devices or pipes)",
            )
        if st.st_size > max_bytes and not truncate:
            raise FileTooLargeError(
                f"{rel} is {st.st_size} bytes, over the {max_bytes}-byte limit",
                skill=skill,
                path=rel,
                hint="ask for a truncated read or raise max_bytes",
                size=st.st_size,
                limit=max_bytes,
            )
        chunks: list[bytes] = []
        want = max_bytes + 1
        while want > 0:
            chunk = os.read(fd, min(want, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            want -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        if not truncate:
            raise FileTooLargeError(
                f"{rel} grew over the {max_bytes}-byte limit while being read",
                skill=skill,
                path=rel,
                size=len(data),
                limit=max_bytes,
            )
        return FileData(rel, data[:max_bytes], max(st.st_size, len(data)), True)
    return FileData(rel, data, len(data), False)


def index_files(real_dir: str, mode: IndexMode) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """The skill's file index (sorted relative POSIX paths) and problems met.

    Links are listed only when their real path is a regular file inside the
    skill folder; special files and escaping links are left out with a
    diagnostic.
    """
    out: list[str] = []
    diags: list[Diagnostic] = []

    def consider(full: str, rel: str, is_link: bool, is_file: bool, is_dir: bool) -> bool:
        """Add a file; return True when ``full`` is a folder that may be entered."""
        if is_link:
            real = os.path.realpath(full)
            if not within(real, (real_dir,)):
                diags.append(
                    Diagnostic.make(
                        C.FILE_LINK_ESCAPES,
                        f"{rel} is a link leading outside the skill folder; it is not indexed",
                        path=full,
                        hint="copy the file into the skill instead of linking to it",
                    )
                )
                return False
            try:
                st = os.stat(real)
            except OSError:
                diags.append(
                    Diagnostic.make(
                        C.LINK_DANGLING,
                        f"{rel} is a link to nothing",
                        path=full,
                        hint="remove the link or restore its target",
                    )
                )
                return False
            is_file, is_dir = _stat.S_ISREG(st.st_mode), _stat.S_ISDIR(st.st_mode)
            if is_dir:
                return False  # linked folders are not entered (no loops, no duplicates)
        if is_file:
            out.append(rel)
            return False
        if is_dir:
            return True
        diags.append(
            Diagnostic.make(
                C.SPECIAL_FILE, f"{rel} is not a regular file; it is not indexed", path=full
            )
        )
        return False

    if mode == "bundled":
        # Files at the skill's root (forms.md, reference.md, ...) are indexed too:
        # real skills, Anthropic's own among them, point their bodies at them.
        try:
            top = sorted(os.scandir(real_dir), key=lambda e: e.name)
        except OSError:
            top = []
        for e in top:
            if e.name == "SKILL.md" or e.is_dir(follow_symlinks=False):
                continue
            if e.is_symlink() and os.path.isdir(e.path):
                continue
            consider(e.path, e.name, e.is_symlink(), e.is_file(follow_symlinks=False), False)
        for sub in BUNDLED_DIRS:
            sub_full = os.path.join(real_dir, sub)
            try:
                st = os.lstat(sub_full)
            except OSError:
                continue
            if _stat.S_ISLNK(st.st_mode):
                real_sub = os.path.realpath(sub_full)
                if not within(real_sub, (real_dir,)) or not os.path.isdir(real_sub):
                    diags.append(
                        Diagnostic.make(
                            C.FILE_LINK_ESCAPES,
                            f"{sub}/ is a link leading outside the skill folder; it is not indexed",
                            path=sub_full,
                            hint="copy the files into the skill instead of linking to them",
                        )
                    )
                    continue
                sub_real = real_sub
            elif _stat.S_ISDIR(st.st_mode):
                sub_real = sub_full
            else:
                continue
            try:
                entries = sorted(os.scandir(sub_real), key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                rel = f"{sub}/{e.name}"
                consider(
                    os.path.join(sub_full, e.name),
                    rel,
                    e.is_symlink(),
                    e.is_file(follow_symlinks=False),
                    e.is_dir(follow_symlinks=False),
                )
        return tuple(sorted(out)), tuple(diags)

    stack = [("", real_dir)]
    while stack:
        rel_dir, full_dir = stack.pop()
        try:
            entries = sorted(os.scandir(full_dir), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name in SKIP_DIRS:
                continue
            rel = f"{rel_dir}{e.name}"
            if rel == "SKILL.md":
                continue
            if consider(
                e.path,
                rel,
                e.is_symlink(),
                e.is_file(follow_symlinks=False),
                e.is_dir(follow_symlinks=False),
            ):
                stack.append((rel + "/", e.path))
        if len(out) > MAX_INDEX_FILES:
            diags.append(
                Diagnostic.make(
                    C.TOO_MANY_FILES,
                    f"more than {MAX_INDEX_FILES} files; only the first are indexed",
                    path=real_dir,
                )
            )
            break
    return tuple(sorted(out[:MAX_INDEX_FILES])), tuple(diags)
