"""Placing installed skills in agents' folders, keeping them in step, checking drift.

An installed skill lives once, in the scope's skills folder. Each agent named
with ``--agent`` gets a *placement*: a symbolic link to that folder (default;
updates reach it through the link) or a copy (``--copy``; refreshed by every
update). Several agents may share a folder (``.agents/skills`` in a project
serves Codex, Cursor, OpenCode...): one placement serves them all.

Folders are derived from the agent table, the scope and the validated skill
name, never read from the lockfile. A project's agent folders come with the
repository, so they are opened like its state folders (``open_below``): no
link is followed below the project root and every folder must be the user's,
so a clone shipping ``.claude -> ~/.claude`` never gets a skill written into,
or deleted from, the user's own folders. Links placed in a project are
relative (the project can move; nothing points outside it).

Nothing is removed that skilldeck's records do not name as its own: a link
only while it points at the installed copy, a copy only while it is the very
folder skilldeck placed (its inode is recorded) and still holds the content
placed there. Replacing needs less: a folder whose content equals the
skill's is replaced without ``force`` (nothing is lost).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from skilldeck._digest import skill_digest
from skilldeck._errors import InstallError, UnsafeStateError
from skilldeck._paths import name_refusal, shown_path
from skilldeck._statedir import open_below, remove_tree_at
from skilldeck._tree import is_hidden, read_file

from ._agents import AGENTS, agent_dir
from ._fsops import copy_skill_tree, swap_at
from ._model import InstallLimits, Placement, PlacementCheck, PlacementMode

__all__ = [
    "Placed",
    "Target",
    "check",
    "conflicts",
    "place",
    "recorded",
    "stray_entries",
    "targets",
    "unplace",
]

_TMP = ".skilldeck-tmp-"
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True, slots=True)
class Target:
    """One folder to hold a skill: ``path`` (``<agent dir>/<name>``), its mode, its agents.

    ``anchor`` is the place the folder belongs to when links below it must not
    be followed (the project root); ``None`` for the user's own folders.
    ``ino`` is the recorded identity of a copy skilldeck placed there.
    """

    path: Path
    mode: PlacementMode
    agents: tuple[str, ...]
    anchor: Path | None = None
    ino: int | None = None


@dataclass(frozen=True, slots=True)
class Placed:
    """What ``place`` did at one target: ``kept`` (already right), ``created``
    (nothing was there, or a dangling link) or ``replaced``."""

    path: str
    action: Literal["kept", "created", "replaced"]
    agents: tuple[str, ...]
    ino: int | None = None


def _project(base: Path) -> Path:
    return base.parent  # ``<project>/.skilldeck`` -> ``<project>``


def targets(scope: str, base: Path, name: str, placements: Iterable[Placement]) -> list[Target]:
    """The folders ``placements`` put ``name`` in (shared folders once; link wins over copy)."""
    by_path: dict[Path, Target] = {}
    anchor = _project(base) if scope == "project" else None
    for p in placements:
        agent = AGENTS.get(p.agent)
        if agent is None:
            continue  # an id from a newer table: nothing to do here
        try:
            folder = agent_dir(agent, scope=scope, project=_project(base)) / name
        except InstallError:
            continue
        have = by_path.get(folder)
        if have is None:
            by_path[folder] = Target(folder, p.mode, (p.agent,), anchor, p.ino)
        else:
            mode: PlacementMode = "link" if "link" in (have.mode, p.mode) else "copy"
            ino = have.ino if have.ino is not None else p.ino
            by_path[folder] = Target(folder, mode, (*have.agents, p.agent), anchor, ino)
    return list(by_path.values())


def recorded(placements: Sequence[Placement], placed: Sequence[Placed]) -> tuple[Placement, ...]:
    """``placements`` with the identity of each copy as ``place`` left it."""
    ino = {a: p.ino for p in placed for a in p.agents}
    out = []
    for p in placements:
        if p.agent in ino:
            p = Placement(p.agent, p.mode, ino[p.agent] if p.mode == "copy" else None)
        out.append(p)
    return tuple(out)


@contextlib.contextmanager
def _parent(t: Target, *, create: bool) -> Iterator[int | None]:
    """A descriptor of the folder holding ``t`` (``None`` when it does not exist).

    Below a project root no link is followed (``UnsafeStateError`` names it);
    the user's own agent folders are opened as the user set them up.
    """
    folder = t.path.parent
    if t.anchor is not None:
        fd = open_below(t.anchor, folder.relative_to(t.anchor), create=create)
    else:
        try:
            if create:
                folder.mkdir(parents=True, exist_ok=True)
            fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        except (FileNotFoundError, NotADirectoryError) as exc:
            if create:
                raise _unusable(folder, exc) from None
            fd = None
        except OSError as exc:  # no permission
            raise _unusable(folder, exc) from None
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def _unusable(folder: Path, exc: OSError) -> InstallError:
    return InstallError(
        f"cannot place skills in {shown_path(str(folder))}: {exc.strerror or exc}",
        path=str(folder),
        hint="make it a folder you can write (a file may be in its place), "
        "or install without --agent",
    )


def _usable(folder: Path) -> None:
    """Refuse (``InstallError``) a user's agent folder that exists as something other
    than a folder, or below a file: checked before an install swaps anything in."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        if folder.parent != folder:
            _usable(folder.parent)
        return
    except OSError as exc:  # a file on the way
        raise _unusable(folder, exc) from None
    if not stat.S_ISDIR(st.st_mode):
        raise _unusable(folder, NotADirectoryError(20, "Not a directory"))


def _lstat(fd: int | None, name: str) -> os.stat_result | None:
    if fd is None:
        return None
    try:
        return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _link_text(t: Target, installed: Path) -> str:
    """What a link at ``t`` holds: relative inside a project, absolute otherwise."""
    if t.anchor is not None:
        return os.path.relpath(installed, t.path.parent)
    return str(installed)


def _points_at(fd: int, t: Target, installed: Path) -> bool:
    """The link at ``t`` leads to the installed copy (also while that copy is being removed)."""
    try:
        text = os.readlink(t.path.name, dir_fd=fd)
    except OSError:
        return False
    if text == _link_text(t, installed):
        return True
    where = text if os.path.isabs(text) else os.path.join(t.path.parent, text)
    try:
        return os.path.realpath(where) == os.path.realpath(installed)
    except OSError:
        return False


def _dangles(t: Target, fd: int) -> bool:
    with contextlib.suppress(OSError):
        text = os.readlink(t.path.name, dir_fd=fd)
        where = text if os.path.isabs(text) else os.path.join(t.path.parent, text)
        return not os.path.exists(where)
    return False


def _digest_is(path: Path, digests: Sequence[str]) -> bool:
    try:
        return skill_digest(path) in digests
    except (OSError, ValueError):
        return False


def _replaceable(
    fd: int, t: Target, st: os.stat_result, installed: Path, digests: Sequence[str]
) -> bool:
    """Replacing what is at ``t`` loses nothing: our link, a dangling link, or a
    folder holding exactly a version of this skill."""
    if stat.S_ISLNK(st.st_mode):
        return _points_at(fd, t, installed) or _dangles(t, fd)
    if stat.S_ISDIR(st.st_mode):
        return _digest_is(t.path, digests)
    return False


def _ours(fd: int, t: Target, st: os.stat_result, installed: Path, digests: Sequence[str]) -> bool:
    """What is at ``t`` is what skilldeck's records say it placed there."""
    if stat.S_ISLNK(st.st_mode):
        return _points_at(fd, t, installed)
    if stat.S_ISDIR(st.st_mode):
        return t.ino is not None and st.st_ino == t.ino and _digest_is(t.path, digests)
    return False


def conflicts(targets_: Sequence[Target], installed: Path, digests: Sequence[str]) -> list[Target]:
    """Targets holding something that is not skilldeck's placement of this skill.

    A target reached through a link in a project raises ``UnsafeStateError``; a user
    agent folder that cannot be one (a file in its place) raises ``InstallError``.
    """
    out = []
    for t in targets_:
        if t.anchor is None:
            _usable(t.path.parent)
        with _parent(t, create=False) as fd:
            st = _lstat(fd, t.path.name)
            if (
                fd is not None
                and st is not None
                and not _replaceable(fd, t, st, installed, digests)
            ):
                out.append(t)
    return out


def place(
    targets_: Sequence[Target],
    installed: Path,
    *,
    digests: Sequence[str],
    force: bool = False,
    limits: InstallLimits | None = None,
) -> list[Placed]:
    """Make every target show ``installed``; returns what was done at each.

    A target holding something else is replaced only with ``force``
    (``InstallError`` otherwise). Each target changes with one rename.
    """
    done: list[Placed] = []
    current = skill_digest(installed)
    for t in targets_:
        with _parent(t, create=True) as fd:
            assert fd is not None
            done.append(_place_one(fd, t, installed, current, digests, force, limits))
    return done


def _place_one(
    fd: int,
    t: Target,
    installed: Path,
    current: str,
    digests: Sequence[str],
    force: bool,
    limits: InstallLimits | None,
) -> Placed:
    name = t.path.name
    st = _lstat(fd, name)
    if st is not None and not force and not _replaceable(fd, t, st, installed, [*digests, current]):
        raise InstallError(
            f"{t.path} already holds a skill skilldeck did not put there",
            path=str(t.path),
            hint="pass --force to replace it, or install under another name with --name",
        )
    text = _link_text(t, installed)
    if st is not None and t.mode == "link" and stat.S_ISLNK(st.st_mode):
        with contextlib.suppress(OSError):
            if os.readlink(name, dir_fd=fd) == text and os.path.isdir(installed):
                return Placed(str(t.path), "kept", t.agents)
    same_copy = st is not None and st.st_ino == t.ino and stat.S_ISDIR(st.st_mode)
    if t.mode == "copy" and same_copy and _digest_is(t.path, [current]):
        assert st is not None
        return Placed(str(t.path), "kept", t.agents, st.st_ino)
    tmp = f"{_TMP}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        if t.mode == "link":
            os.symlink(text, tmp, target_is_directory=True, dir_fd=fd)
        else:
            copy_skill_tree(installed, Path(tmp), limits or InstallLimits(), dir_fd=fd)
        ino = os.stat(tmp, dir_fd=fd, follow_symlinks=False).st_ino
        swap_at(fd, tmp, name)
    finally:
        remove_tree_at(fd, tmp)
    action: Literal["created", "replaced"] = "created"
    if st is not None and not (stat.S_ISLNK(st.st_mode) and _dangles(t, fd)):
        action = "replaced"
    return Placed(str(t.path), action, t.agents, ino if t.mode == "copy" else None)


def unplace(
    targets_: Sequence[Target], installed: Path, digests: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Remove skilldeck's placements; returns (removed paths, kept paths with why)."""
    removed: list[str] = []
    kept: list[str] = []
    for t in targets_:
        try:
            with _parent(t, create=False) as fd:
                st = _lstat(fd, t.path.name)
                if fd is None or st is None:
                    continue
                if not _ours(fd, t, st, installed, digests):
                    kept.append(f"{t.path} (not skilldeck's placement; left alone)")
                    continue
                if stat.S_ISLNK(st.st_mode):
                    os.unlink(t.path.name, dir_fd=fd)
                else:
                    grave = f"{_TMP}{os.getpid()}-rm-{secrets.token_hex(4)}"
                    os.rename(t.path.name, grave, src_dir_fd=fd, dst_dir_fd=fd)
                    remove_tree_at(fd, grave)
                removed.append(str(t.path))
        except UnsafeStateError as exc:
            kept.append(f"{t.path} ({exc.message})")
    return removed, kept


def check(
    targets_: Sequence[Target], installed: Path, digest: str, *, enabled: bool = True
) -> list[PlacementCheck]:
    """Each target on disk against the installed copy (drift)."""
    out: list[PlacementCheck] = []
    for t in targets_:
        try:
            with _parent(t, create=False) as fd:
                problem = _drift(fd, t, installed, digest, enabled)
        except UnsafeStateError as exc:
            problem = exc.message
        out.append(PlacementCheck(t.agents, str(t.path), t.mode, problem))
    return out


def _drift(fd: int | None, t: Target, installed: Path, digest: str, enabled: bool) -> str | None:
    st = _lstat(fd, t.path.name)
    if fd is None or st is None:
        return None if not enabled else "missing"
    if not enabled:
        return "present while disabled"
    if stat.S_ISLNK(st.st_mode):
        if _dangles(t, fd):
            return "dangling link"
        return None if _points_at(fd, t, installed) else "link to another folder"
    if not stat.S_ISDIR(st.st_mode):
        return "not a folder"
    if not _digest_is(t.path, [digest]):
        return "differs from the installed copy"
    stray = stray_entries(t.path)
    return f"holds files outside the digest: {', '.join(stray[:5])}" if stray else None


def stray_entries(folder: Path) -> list[str]:
    """Links, special files, hidden files or folders, names the walker leaves out
    (``name_refusal``) and compiled Python that running the sources never writes
    (``_a_cache_python_writes``) inside an installed skill or a copy placed for an agent.

    Installs never create them (they copy the walker's file set); such a file is
    outside the digest, and skilldeck never runs it (a run copies the digested files),
    but its presence means tampering, and an agent that runs a script in place may
    load it (a planted ``.pyc``).
    (The caches Python writes beside the sources, hidden to the walker too, are not
    counted: running an installed script in place writes them.)
    """
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for entry in dirnames + filenames:
            full = os.path.join(dirpath, entry)
            mode = os.lstat(full).st_mode
            odd = stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))
            if (
                odd
                or entry.startswith(".")
                or name_refusal(entry) is not None
                or (stat.S_ISREG(mode) and not _a_cache_python_writes(full))
            ):
                out.append(os.path.relpath(full, folder).replace(os.sep, "/"))
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
    return sorted(out)


def _a_cache_python_writes(path: str) -> bool:
    """False for compiled Python that running the skill's own sources never writes:
    a ``.pyc``/``.pyo`` outside ``__pycache__`` (sourceless: Python imports it
    as it is), a file in ``__pycache__`` that is not the cache of a ``.py`` beside
    it, or an unchecked-hash cache (Python runs it without looking at the source).
    True for every other file (the digest judges those)."""
    parent, name = os.path.split(path)
    in_cache = os.path.basename(parent) == "__pycache__"
    if not in_cache:
        return not is_hidden(name)  # the walker's rule: compiled Python is never served
    try:
        source = importlib.util.source_from_cache(path)  # the naming rule Python uses
    except ValueError:
        return False
    if not os.path.isfile(source) or os.path.islink(source):
        return False
    try:  # the tree's bounded read: a file swapped for a pipe is not waited on
        header = read_file(path, 8)[0]
    except OSError:
        return False
    if header is None or len(header) < 8:
        return False
    flags = int.from_bytes(header[4:8], "little")
    return flags in (0, 3)  # timestamp, or checked hash: Python checks it against the source
