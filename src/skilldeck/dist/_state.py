"""Installed state of one scope: folders, lockfile, staging, the atomic swap, recovery.

Layout (``base`` is ``install_base()`` for the user scope, the data folder unless
``[install] dir`` of the user's config file moves it, and
``<project>/.skilldeck`` for the project scope)::

    base/skills/<name>/      installed skills (the catalog's ``installed`` source)
    base/skills.lock         JSON lockfile: source, commit, digests per skill
    base/skills.lock.lock    the scope lock (held while the state changes)
    base/.staging/<id>/      one folder per running operation, same filesystem

Every change follows one protocol. Work (fetch, extract, copy, validate)
happens in the operation's own staging folder, which holds an ``flock`` on
``.owner`` for as long as the process lives. Under the scope lock the
operation writes ``intent.json`` (what it is about to do), swaps each skill in
with one ``rename`` (``RENAME_EXCHANGE`` when replacing, so the old version is
never missing), then writes the lockfile and the config, and deletes its
staging folder. Whoever takes the scope lock next removes staging folders whose
owner died: an intent whose swap completed is rolled forward (lockfile and
config brought in line with what is on disk), one whose swap had not happened
is dropped, so an interrupted operation leaves either the old or the new state.

A project's ``.skilldeck`` comes with the repository, so none of it is taken
on faith (see ``docs/security.md``): every entry is opened from a directory
descriptor without following links and must belong to the current user
(``UNSAFE_STATE`` otherwise); staging folders carry an id only this user's
skilldeck can make (``skilldeck._statedir``), and clean-up leaves every other
folder alone; an intent file names skills, never paths.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skilldeck._atomic import file_lock
from skilldeck._digest import skill_digest
from skilldeck._errors import ConfigError, InstallError, SkillNotFoundError, UnsafeStateError
from skilldeck._json import loads
from skilldeck._paths import PROJECT_DIR, dirs, foreign_project_root, install_base, name_refusal
from skilldeck._statedir import (
    check_entry,
    check_stat,
    keep_out_of_commits,
    open_dir,
    read_file_at,
    remove_tree_at,
    stage_id,
    stage_id_is_ours,
    write_file_at,
)
from skilldeck.config import project_base

from ._fsops import exchange
from ._model import LockEntry, Scope

try:
    import fcntl as _fcntl
except ImportError:  # pragma: no cover - Windows
    _fcntl = None  # type: ignore[assignment]

__all__ = ["Layout", "Stage", "layout", "now_iso", "valid_name"]

LOCK_VERSION = 1
_MAX_LOCK_BYTES = 64 * 1024 * 1024
_MAX_INTENT_BYTES = 16 * 1024 * 1024
_STATE_FILES = ("skills.lock", "skills.lock.lock", "config.toml", "config.toml.lock")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def valid_name(name: object) -> bool:
    """One plain path component that is not hidden and that a walk would list
    (``name_refusal``): the only skill names state holds."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= 255
        and name not in (".", "..")
        and "/" not in name
        and not name.startswith(".")
        and name_refusal(name) is None
    )


@dataclass(frozen=True, slots=True)
class Layout:
    """Where one scope keeps its installed skills."""

    scope: Scope
    base: Path
    cwd: Path | None

    @property
    def installed(self) -> Path:
        return self.base / "skills"

    @property
    def lockfile(self) -> Path:
        return self.base / "skills.lock"

    @property
    def staging(self) -> Path:
        return self.base / ".staging"

    def skill_dir(self, name: str) -> Path:
        """``installed/<name>``; ``name`` must be one plain path component."""
        if not valid_name(name):
            raise SkillNotFoundError(
                f"{name!r} is not a skill name", skill=name, hint="give an installed skill's name"
            )
        return self.installed / name

    # --- the state folder, never through a link --------------------------

    def open_base(self, *, create: bool = False) -> int | None:
        """A descriptor of the scope's folder, checked; ``None`` when it does not exist.

        The project scope's ``.skilldeck`` is opened without following a link and
        must belong to the current user; the user scope's data folder is the
        user's own choice of place (it may be reached through a link).
        """
        if self.scope == "project":
            parent = os.open(self.base.parent, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
            try:
                fd = open_dir(PROJECT_DIR, dir_fd=parent, path=self.base, create=create, mode=0o755)
            finally:
                os.close(parent)
            if create and fd is not None:
                keep_out_of_commits(fd, self.base)
            return fd
        if create:
            self.base.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(self.base, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        except FileNotFoundError:
            return None
        try:
            check_stat(os.fstat(fd), self.base, want_dir=True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def check(self) -> None:
        """Refuse (``UNSAFE_STATE``) state entries that are links, the wrong kind or not yours."""
        fd = self.open_base()
        if fd is None:
            return
        try:
            for name in ("skills", ".staging"):
                check_entry(fd, name, self.base / name, want_dir=True)
            for name in _STATE_FILES:
                check_entry(fd, name, self.base / name, want_dir=False)
        finally:
            os.close(fd)

    # --- lockfile -------------------------------------------------------

    def read_lock(self) -> dict[str, LockEntry]:
        """Lockfile entries by skill name (empty when there is no lockfile)."""
        fd = self.open_base()
        if fd is None:
            return {}
        try:
            raw = read_file_at(fd, "skills.lock", path=self.lockfile, max_bytes=_MAX_LOCK_BYTES)
        finally:
            os.close(fd)
        if raw is None:
            return {}
        try:
            data = loads(raw.decode("utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("skills", {}), dict):
                raise ValueError("not a lockfile object")
            entries = {
                name: LockEntry.from_json(name, entry)
                for name, entry in data.get("skills", {}).items()
            }
            bad = [n for n in entries if not valid_name(n)]
            if bad:
                raise ValueError(f"{bad[0]!r} is not a skill name")
            return entries
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(
                f"{self.lockfile}: damaged lockfile: {exc}",
                path=self.lockfile,
                hint="restore it from a backup, or delete it and reinstall the skills",
            ) from exc

    def read_settled(self) -> dict[str, LockEntry]:
        """The lockfile for a read-only command (``verify``, ``doctor``).

        Nothing is created or written, unless an operation left a staging folder:
        then it is finished first under the scope lock (``locked``), as the next
        writing command would.
        """
        fd = self.open_base()
        if fd is None:
            return {}
        try:
            staging = open_dir(".staging", dir_fd=fd, path=self.staging)
        finally:
            os.close(fd)
        if staging is not None:
            try:
                pending = bool(os.listdir(staging))
            finally:
                os.close(staging)
            if pending:
                with self.locked():
                    return self.read_lock()
        return self.read_lock()

    def write_lock(self, entries: dict[str, LockEntry]) -> None:
        data = {
            "version": LOCK_VERSION,
            "skills": {name: entries[name].to_json() for name in sorted(entries)},
        }
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        fd = self.open_base(create=True)
        assert fd is not None
        try:
            write_file_at(fd, "skills.lock", text.encode("utf-8"), mode=0o644)
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def locked(self, *, timeout: float = 600.0) -> Iterator[None]:
        """Hold the scope lock, after cleaning up what dead operations left behind."""
        self.check()
        fd = self.open_base(create=True)
        if fd is not None:
            os.close(fd)
        try:
            with file_lock(self.lockfile, timeout=timeout):
                self.check()
                recover(self)
                yield
        except TimeoutError as exc:  # filelock.Timeout subclasses TimeoutError
            raise InstallError(
                f"another skilldeck operation holds {self.lockfile}.lock",
                hint="wait for it to finish, then retry",
            ) from exc


def layout(scope: Scope, *, cwd: str | os.PathLike[str] | None = None) -> Layout:
    """The layout of ``scope`` (``user``: skilldeck's data folder; ``project``:
    ``.skilldeck`` at the repository root, else in ``cwd``), checked: a state
    entry that is a link or another user's raises ``UnsafeStateError``."""
    if scope == "user":
        lay = Layout("user", install_base(), None)
    elif scope == "project":
        here = Path(cwd) if cwd is not None else Path.cwd()
        root = project_base(here)
        foreign = foreign_project_root(here)
        if foreign is not None:
            raise UnsafeStateError(
                f"{foreign} belongs to another user; skilldeck does not keep project state there",
                path=foreign,
                hint="work in a copy of the project you own, or use --scope user",
            )
        lay = Layout("project", root / PROJECT_DIR, here)
    else:
        raise InstallError(f"unknown scope {scope!r}", hint="use 'user' or 'project'")
    lay.check()
    return lay


# --- staging -----------------------------------------------------------------


class Stage:
    """A private staging folder for one operation, removed on exit.

    Its name is an id only this user's skilldeck can make (``stage_id``); while
    the process lives it holds an ``flock`` on ``.owner``, so a folder whose lock
    can be taken belongs to a dead operation.
    """

    def __init__(self, lay: Layout) -> None:
        self.layout = lay
        self._fd = -1
        self._stage_fd = -1
        base = lay.open_base(create=True)
        assert base is not None
        try:
            staging = open_dir(".staging", dir_fd=base, path=lay.staging, create=True)
        finally:
            os.close(base)
        assert staging is not None
        self._staging_fd = staging
        try:
            self.name = stage_id(dirs().data)
            os.mkdir(self.name, 0o700, dir_fd=staging)
            self.path = lay.staging / self.name
            fd = open_dir(self.name, dir_fd=staging, path=self.path)
            assert fd is not None
            self._stage_fd = fd
            self._fd = os.open(
                ".owner",
                os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                0o600,
                dir_fd=fd,
            )
            if _fcntl is not None:
                _fcntl.flock(self._fd, _fcntl.LOCK_EX)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Stage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._stage_fd >= 0:
            os.close(self._stage_fd)
            self._stage_fd = -1
        if self._staging_fd >= 0:
            if hasattr(self, "name"):
                remove_tree_at(self._staging_fd, self.name)
            os.close(self._staging_fd)
            self._staging_fd = -1
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def write_intent(self, ops: list[dict[str, Any]]) -> None:
        write_file_at(self._stage_fd, "intent.json", json.dumps({"ops": ops}, indent=1).encode())


def _owner_dead(stage_fd: int, st: os.stat_result) -> bool:
    """Whether the operation that made this (verified) staging folder has ended."""
    try:
        fd = os.open(".owner", os.O_RDWR | _NOFOLLOW | _CLOEXEC, dir_fd=stage_fd)
    except FileNotFoundError:
        # Created but not yet locked, or half-removed: dead if it is not brand new.
        return time.time() - st.st_mtime > 60
    except OSError:
        return False
    try:
        if _fcntl is None:  # pragma: no cover - Windows: no flock, trust the pid
            return False
        try:
            _fcntl.flock(fd, _fcntl.LOCK_EX | _fcntl.LOCK_NB)
        except BlockingIOError:
            return False
    finally:
        os.close(fd)
    return True


# --- the swap ----------------------------------------------------------------


def swap_in(lay: Layout, staged: Path, name: str, old_holder: Path) -> bool:
    """Move ``staged`` to ``installed/<name>``; an existing copy ends at ``old_holder``.

    Returns True when an existing skill was replaced.
    """
    lay.installed.mkdir(parents=True, exist_ok=True)
    target = lay.skill_dir(name)
    if not os.path.lexists(target):
        os.rename(staged, target)
        return False
    if exchange(staged, target):
        os.rename(staged, old_holder)
        return True
    # No atomic exchange here: two renames; recovery restores old_holder if we die between.
    os.rename(target, old_holder)
    os.rename(staged, target)
    return True


def swap_out(lay: Layout, name: str, holder: Path) -> None:
    """Move ``installed/<name>`` away (one rename) so it disappears at once."""
    os.rename(lay.skill_dir(name), holder)


def apply_ops(lay: Layout, ops: list[dict[str, Any]]) -> None:
    """Bring the lockfile and config in line with completed ops (idempotent)."""
    entries = lay.read_lock()
    for op in ops:
        if op["op"] == "install":
            entries[op["name"]] = LockEntry.from_json(op["name"], op["entry"])
        elif op["op"] == "remove":
            entries.pop(op["name"], None)
    lay.write_lock(entries)
    from ._record import write_ops  # tomlkit: loaded only when a scope changes

    write_ops(lay, ops)


def _intent_ops(stage_fd: int, where: Path) -> list[dict[str, Any]]:
    """The checked ops of a dead operation's intent (bad or unknown entries dropped).

    Only ``op``, ``name`` and the lockfile entry are taken from the file; every
    path is rebuilt from the scope's folders and the validated skill name.
    """
    try:
        raw = read_file_at(stage_fd, "intent.json", path=where, max_bytes=_MAX_INTENT_BYTES)
        ops = loads(raw.decode("utf-8"))["ops"] if raw is not None else []
    except (ValueError, KeyError, TypeError, OSError, UnsafeStateError):
        return []
    out: list[dict[str, Any]] = []
    for op in ops if isinstance(ops, list) else []:
        if not isinstance(op, dict) or not valid_name(op.get("name")):
            continue
        if op.get("op") == "remove":
            out.append({"op": "remove", "name": op["name"]})
        elif op.get("op") == "install" and isinstance(op.get("entry"), dict):
            try:
                LockEntry.from_json(op["name"], op["entry"])
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
            plugin = op.get("plugin")
            out.append(
                {
                    "op": "install",
                    "name": op["name"],
                    "entry": op["entry"],
                    "plugin": dict(plugin) if isinstance(plugin, dict) else {},
                    "keep_installed_at": op.get("keep_installed_at") is True,
                }
            )
    return out


def _kind_at(dir_fd: int | None, name: str) -> str | None:
    """``dir``, ``other`` or ``None`` (missing) for ``name`` in ``dir_fd``, not following links."""
    if dir_fd is None:
        return None
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return "dir" if stat.S_ISDIR(st.st_mode) else "other"


def _roll_forward(lay: Layout, base: int, stage_fd: int, stage_dir: Path) -> None:
    ops = _intent_ops(stage_fd, stage_dir / "intent.json")
    if not ops:
        return
    skills = open_dir("skills", dir_fd=base, path=lay.installed)
    old = open_dir("old", dir_fd=stage_fd, path=stage_dir / "old")
    try:
        done: list[dict[str, Any]] = []
        for op in ops:
            name = op["name"]
            here = _kind_at(skills, name)
            if op["op"] == "install":
                if here is None and _kind_at(old, name) == "dir":
                    if skills is None:
                        skills = open_dir(
                            "skills", dir_fd=base, path=lay.installed, create=True, mode=0o755
                        )
                    # died between the two fallback renames: put the old copy back
                    os.rename(name, name, src_dir_fd=old, dst_dir_fd=skills)
                elif here == "dir" and skill_digest(lay.skill_dir(name)) == op["entry"].get(
                    "digest"
                ):
                    op["plugin"]["path"] = str(lay.skill_dir(name))
                    done.append(op)
            elif op["op"] == "remove" and here is None:
                done.append(op)
        if done:
            apply_ops(lay, done)
    finally:
        for fd in (skills, old):
            if fd is not None:
                os.close(fd)


def recover(lay: Layout) -> list[str]:
    """Clean up after operations that died (call under the scope lock).

    Only staging folders whose name is one of this user's staging ids are
    touched; anything else in ``.staging`` (for example shipped by a
    repository) is left alone. Returns the names of the staging folders removed.
    """
    base = lay.open_base()
    if base is None:
        return []
    removed: list[str] = []
    try:
        staging = open_dir(".staging", dir_fd=base, path=lay.staging)
        if staging is None:
            return []
        try:
            data = dirs().data
            for name in sorted(os.listdir(staging)):
                if not stage_id_is_ours(name, data):
                    continue
                try:
                    stage_fd = open_dir(name, dir_fd=staging, path=lay.staging / name)
                except UnsafeStateError:
                    continue
                if stage_fd is None:
                    continue
                try:
                    if not _owner_dead(stage_fd, os.fstat(stage_fd)):
                        continue
                    _roll_forward(lay, base, stage_fd, lay.staging / name)
                finally:
                    os.close(stage_fd)
                remove_tree_at(staging, name)
                removed.append(name)
        finally:
            os.close(staging)
    finally:
        os.close(base)
    return removed
