"""Installed state of one scope: folders, lockfile, staging, the atomic swap, recovery.

Layout (``base`` is ``dirs().data`` for the user scope and
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
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skilldeck._atomic import atomic_write_text, file_lock
from skilldeck._config import project_base
from skilldeck._digest import skill_digest
from skilldeck._errors import ConfigError, InstallError, SkillNotFoundError
from skilldeck._paths import PROJECT_DIR, dirs

from ._fsops import exchange, remove_tree
from ._model import LockEntry, Scope

try:
    import fcntl as _fcntl
except ImportError:  # pragma: no cover - Windows
    _fcntl = None  # type: ignore[assignment]

__all__ = ["Layout", "Stage", "checkpoint", "layout", "now_iso"]

LOCK_VERSION = 1
_PAUSE_ENV = "SKILLDECK_TEST_PAUSE_AT"
_PAUSE_FILE_ENV = "SKILLDECK_TEST_PAUSE_FILE"


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def checkpoint(stage: str) -> None:
    """Test hook: pause at a named stage so a test can kill the process there.

    Active only when ``SKILLDECK_TEST_PAUSE_AT`` names the stage (``clone``:
    fetched, not checked out; ``staging``: copied and validated; ``swap``: intent
    written, nothing moved; ``record``: swapped, lockfile not yet written); the
    process then touches ``SKILLDECK_TEST_PAUSE_FILE`` and sleeps. Inert otherwise.
    """
    if os.environ.get(_PAUSE_ENV) != stage:
        return
    marker = os.environ.get(_PAUSE_FILE_ENV)
    if marker:
        Path(marker).write_text(str(os.getpid()), encoding="utf-8")
    time.sleep(120)


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
        if (
            not name
            or name in (".", "..")
            or "/" in name
            or "\\" in name
            or "\x00" in name
            or name.startswith(".")
        ):
            raise SkillNotFoundError(
                f"{name!r} is not a skill name", skill=name, hint="give an installed skill's name"
            )
        return self.installed / name

    # --- lockfile -------------------------------------------------------

    def read_lock(self) -> dict[str, LockEntry]:
        """Lockfile entries by skill name (empty when there is no lockfile)."""
        try:
            text = self.lockfile.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or not isinstance(data.get("skills", {}), dict):
                raise ValueError("not a lockfile object")
            return {
                name: LockEntry.from_json(name, entry)
                for name, entry in data.get("skills", {}).items()
            }
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(
                f"{self.lockfile}: damaged lockfile: {exc}",
                path=self.lockfile,
                hint="restore it from a backup, or delete it and reinstall the skills",
            ) from exc

    def write_lock(self, entries: dict[str, LockEntry]) -> None:
        data = {
            "version": LOCK_VERSION,
            "skills": {name: entries[name].to_json() for name in sorted(entries)},
        }
        atomic_write_text(self.lockfile, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    @contextlib.contextmanager
    def locked(self, *, timeout: float = 600.0) -> Iterator[None]:
        """Hold the scope lock, after cleaning up what dead operations left behind."""
        try:
            with file_lock(self.lockfile, timeout=timeout):
                recover(self)
                yield
        except TimeoutError as exc:  # filelock.Timeout subclasses TimeoutError
            raise InstallError(
                f"another skilldeck operation holds {self.lockfile}.lock",
                hint="wait for it to finish, then retry",
            ) from exc


def layout(scope: Scope, *, cwd: str | os.PathLike[str] | None = None) -> Layout:
    """The layout of ``scope`` (``user``: skilldeck's data folder; ``project``:
    ``.skilldeck`` at the repository root, else in ``cwd``)."""
    if scope == "user":
        return Layout("user", dirs().data, None)
    if scope == "project":
        here = Path(cwd) if cwd is not None else Path.cwd()
        return Layout("project", project_base(here) / PROJECT_DIR, here)
    raise InstallError(f"unknown scope {scope!r}", hint="use 'user' or 'project'")


# --- staging -----------------------------------------------------------------


class Stage:
    """A private staging folder for one operation, removed on exit.

    While the process lives it holds an ``flock`` on ``.owner``; a folder whose
    lock can be taken belongs to a dead operation.
    """

    def __init__(self, lay: Layout) -> None:
        self.layout = lay
        lay.staging.mkdir(parents=True, exist_ok=True)
        self.path = lay.staging / f"{os.getpid()}-{secrets.token_hex(4)}"
        self.path.mkdir()
        self._fd = os.open(self.path / ".owner", os.O_RDWR | os.O_CREAT, 0o600)
        if _fcntl is not None:
            _fcntl.flock(self._fd, _fcntl.LOCK_EX)

    def __enter__(self) -> Stage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        remove_tree(self.path)
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def write_intent(self, ops: list[dict[str, Any]]) -> None:
        atomic_write_text(self.path / "intent.json", json.dumps({"ops": ops}, indent=1))


def _owner_dead(stage_dir: Path) -> bool:
    if _fcntl is None:  # pragma: no cover - Windows: trust the pid in the name
        pid = int(stage_dir.name.split("-", 1)[0] or 0)
        try:
            os.kill(pid, 0)
        except OSError:
            return True
        return False
    try:
        fd = os.open(stage_dir / ".owner", os.O_RDWR)
    except FileNotFoundError:
        # Created but not yet locked, or half-removed: dead if it is not brand new.
        try:
            return time.time() - stage_dir.stat().st_mtime > 60
        except OSError:
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


ConfigWriter = Callable[[Layout, list[dict[str, Any]]], None]
_config_writer: list[ConfigWriter] = []


def set_config_writer(writer: ConfigWriter) -> None:
    """Registered by the record module: applies the config part of intent ops."""
    _config_writer[:] = [writer]


def apply_ops(lay: Layout, ops: list[dict[str, Any]]) -> None:
    """Bring the lockfile and config in line with completed ops (idempotent)."""
    entries = lay.read_lock()
    for op in ops:
        if op["op"] == "install":
            entries[op["name"]] = LockEntry.from_json(op["name"], op["entry"])
        elif op["op"] == "remove":
            entries.pop(op["name"], None)
    lay.write_lock(entries)
    for writer in _config_writer:
        writer(lay, ops)


def recover(lay: Layout) -> list[str]:
    """Clean up after operations that died (call under the scope lock).

    Returns the names of the staging folders removed.
    """
    if not lay.staging.is_dir():
        return []
    removed: list[str] = []
    for stage_dir in sorted(lay.staging.iterdir()):
        if not stage_dir.is_dir() or not _owner_dead(stage_dir):
            continue
        intent = stage_dir / "intent.json"
        if intent.is_file():
            try:
                ops = json.loads(intent.read_text(encoding="utf-8"))["ops"]
            except (ValueError, KeyError, OSError):
                ops = []
            done: list[dict[str, Any]] = []
            for op in ops:
                target = lay.skill_dir(op["name"])
                if op["op"] == "install":
                    old = stage_dir / op["old"]
                    if not os.path.lexists(target) and old.is_dir():
                        os.rename(old, target)  # died between the two fallback renames
                    elif target.is_dir() and skill_digest(target) == op["entry"]["digest"]:
                        done.append(op)
                elif op["op"] == "remove" and not os.path.lexists(target):
                    done.append(op)
            if done:
                apply_ops(lay, done)
        remove_tree(stage_dir)
        removed.append(stage_dir.name)
    return removed
