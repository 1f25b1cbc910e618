"""What a run may read and write: the working folder, extra mounts, paths given as arguments.

- The working folder (``workdir``): ``project`` (default: the repository root above
  the current folder, else the current folder), ``skill`` (the skill's private
  snapshot, read-only), ``temp`` (a fresh empty folder) or an absolute path. Under
  bubblewrap it is visible read-write (the snapshot stays read-only).
- ``mounts``: ``PATH`` (read-only) or ``PATH:rw`` entries made visible under
  bubblewrap.
- Paths given as arguments that exist on the host are made visible read-only
  (``mount_arguments``; on for the command line, off for hosts such as the MCP
  server, where a model writes the arguments).

When a sandboxed program fails on a path it could not see, :func:`failure_hint`
says which one and how to make it visible.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from skilldeck._errors import ConfigError, InvalidArgumentsError
from skilldeck._frozen import value
from skilldeck._ownstate import view_problem
from skilldeck._paths import find_project_root, within

__all__ = [
    "Mount",
    "argument_paths",
    "failure_hint",
    "parse_mount",
    "project_workdir",
    "resolve_own_links",
]

_MAX_ARGUMENT_PATHS = 64
#: an absolute path in a program's output (compiled by ``re`` when a failed run is read)
_PATH_IN_OUTPUT = r"(?<![\w.~-])(/[\w.@%+=,~-]+(?:/[\w.@%+=,~-]+)*)"
_FAILURE_WORDS = ("No such file", "Permission denied", "not found", "cannot open", "can't open")


@value
class Mount:
    """One extra path made visible under bubblewrap."""

    path: str
    writable: bool = False

    def spec(self) -> str:
        return f"{self.path}:{'rw' if self.writable else 'ro'}"


def parse_mount(text: str, *, base: str | None = None, source: str = "--mount") -> Mount:
    """``PATH``, ``PATH:ro`` or ``PATH:rw`` (relative paths against ``base``)."""
    if not isinstance(text, str) or not text or "\x00" in text:
        raise ConfigError(f"{source}: expected PATH[:ro|rw], got {text!r}")
    path, writable = text, False
    head, sep, tail = text.rpartition(":")
    if sep and tail in ("ro", "rw"):
        path, writable = head, tail == "rw"
    if not os.path.isabs(path):
        if base is None:
            raise ConfigError(f"{source}: {path!r} must be an absolute path", hint="e.g. /data:ro")
        path = os.path.join(base, path)
    return Mount(os.path.normpath(path), writable)


def project_workdir(cwd: Path) -> tuple[Path, bool]:
    """The repository root above ``cwd`` (``True``), else ``cwd`` itself (``False``).

    ``cwd`` is a real path (the plan's current folder), and so is the root found from
    it (a folder above a real path): neither is resolved again."""
    root = find_project_root(cwd)
    if root is not None:
        return root, True
    return cwd, False


def check_workdir(path: str) -> Path:
    """An explicit working folder: it must exist and be a folder."""
    folder = Path(path)
    if folder.is_dir() and resolve_own_links(os.path.abspath(path)) is None:
        raise InvalidArgumentsError(
            f"the working folder {path} passes through a link another user owns "
            "(a run may have left it there)",
            field="workdir",
            hint="give the folder's real path",
        )
    if not folder.is_dir():
        raise InvalidArgumentsError(
            f"the working folder {path} does not exist or is not a folder",
            field="workdir",
            hint="give an existing folder, or one of skill, project, temp",
        )
    return folder.resolve()


def _candidates(arg: str) -> list[str]:
    out = []
    if arg.startswith("-"):
        _, sep, value = arg.partition("=")
        if sep:
            out.append(value)
    else:
        out.append(arg)
    return [c for c in out if c and "\x00" not in c and "://" not in c and len(c) < 4096]


def argument_paths(args: Sequence[str], workdir: Path) -> list[str]:
    """Real paths of the arguments that name something existing (relative to ``workdir``)."""
    found: list[str] = []
    for arg in args:
        for cand in _candidates(arg):
            full = cand if os.path.isabs(cand) else os.path.join(workdir, cand)
            try:
                if not os.path.lexists(full):
                    continue
                real = resolve_own_links(full)
            except (OSError, ValueError):
                continue
            if real is not None and real not in found:
                found.append(real)
            if len(found) >= _MAX_ARGUMENT_PATHS:
                return found
    return found


def resolve_own_links(path: str) -> str | None:
    """``path`` with its links resolved, or None when a link on the way is someone else's.

    A run may leave links in the working folder (``data.csv -> /root/.ssh/id_rsa``,
    made by ``nobody``); a person later typing ``data.csv`` must not make that target
    visible, nor move the run to the invoking user because nobody cannot read it.
    As root, only root's own links are followed (like the kernel's
    ``protected_symlinks`` rule for sticky folders); as another user the run has that
    user's uid, so its links cannot be told apart and all are followed.
    """
    trusted = {0} if hasattr(os, "geteuid") and os.geteuid() == 0 else None
    todo = [p for p in path.split("/") if p][::-1]
    current = "/"
    hops = 0
    while todo:
        part = todo.pop()
        if part == ".":
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        nxt = os.path.join(current, part)
        try:
            st = os.lstat(nxt)
        except OSError:
            return os.path.normpath(os.path.join(nxt, *reversed(todo)))
        if not stat.S_ISLNK(st.st_mode):
            current = nxt
            continue
        if trusted is not None and st.st_uid not in trusted:
            return None
        hops += 1
        if hops > 40:
            return None
        target = os.readlink(nxt)
        if target.startswith("/"):
            current = "/"
        todo.extend(p for p in target.split("/")[::-1] if p)
    return current


def failure_hint(
    output: str,
    *,
    args: Sequence[str],
    workdir: Path,
    user_cwd: Path | None,
    hidden: Sequence[str],
    visible: Sequence[str],
    sandboxed: bool,
) -> str | None:
    """A hint for a failed run that touched a path it could not see, or ``None``."""
    if user_cwd is not None and user_cwd.resolve() != workdir:
        for arg in args:
            for cand in _candidates(arg):
                if os.path.isabs(cand) or cand.startswith("-"):
                    continue
                if (user_cwd / cand).exists() and not (workdir / cand).exists():
                    hint = (
                        f"{cand!r} is relative to the working folder {workdir}, not to your "
                        f"current folder {user_cwd}: pass an absolute path"
                    )
                    if view_problem(user_cwd, writable=True) is None:  # else refused there
                        hint += f", or run with --workdir {user_cwd}"
                    return hint
    if not sandboxed:
        return None
    for match in re.finditer(_PATH_IN_OUTPUT, output[-8192:]):
        path = match.group(1).rstrip(".,:")
        if within(path, visible) or not within(path, hidden):
            continue
        if os.path.lexists(path):
            return (
                f"{path} exists on this machine but is hidden from the sandbox: pass it as an "
                f"argument, or add --mount {path} (or --mount {path}:rw to write there)"
            )
    if any(word in output for word in _FAILURE_WORDS):
        return (
            f"under the sandbox a program sees the working folder ({workdir}, read-write), the "
            "skill, paths given as arguments, and --mount paths; /tmp and home folders are "
            "private to the run"
        )
    return None
