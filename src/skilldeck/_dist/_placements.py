"""Placing installed skills in agents' folders, keeping them in step, checking drift.

An installed skill lives once, in the scope's skills folder. Each agent named
with ``--agent`` gets a *placement*: a symbolic link to that folder (default;
updates reach it through the link) or a copy (``--copy``; refreshed by every
update). Several agents may share a folder (``.agents/skills`` in a project
serves Codex, Cursor, OpenCode...): one placement serves them all.

Folders are derived from the agent table, the scope and the validated skill
name, never read from the lockfile. Nothing is removed that is not
skilldeck's own: a link is removed only while it points at the installed
copy, a copied folder only while its content still matches what skilldeck
placed there.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from skilldeck._digest import skill_digest
from skilldeck._errors import InstallError

from ._agents import AGENTS, agent_dir
from ._fsops import copy_skill_tree, exchange, remove_tree
from ._model import InstallLimits, Placement, PlacementCheck, PlacementMode

__all__ = ["Target", "check", "conflicts", "place", "targets", "unplace"]

_TMP = ".skilldeck-tmp-"


@dataclass(frozen=True, slots=True)
class Target:
    """One folder to hold a skill: ``path`` (``<agent dir>/<name>``), its mode, its agents."""

    path: Path
    mode: PlacementMode
    agents: tuple[str, ...]


def _project(base: Path) -> Path:
    return base.parent  # ``<project>/.skilldeck`` -> ``<project>``


def targets(scope: str, base: Path, name: str, placements: Iterable[Placement]) -> list[Target]:
    """The folders ``placements`` put ``name`` in (shared folders once; link wins over copy)."""
    by_path: dict[Path, Target] = {}
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
            by_path[folder] = Target(folder, p.mode, (p.agent,))
        else:
            mode: PlacementMode = "link" if "link" in (have.mode, p.mode) else "copy"
            by_path[folder] = Target(folder, mode, (*have.agents, p.agent))
    return list(by_path.values())


def _points_at(path: Path, installed: Path) -> bool:
    try:
        return path.is_symlink() and os.path.realpath(path) == os.path.realpath(installed)
    except OSError:
        return False


def _ours(path: Path, installed: Path, digests: Sequence[str]) -> bool:
    """``path`` is skilldeck's placement: our link, or a copy with a known digest.

    A dangling link counts as ours: it shows nothing, so replacing or removing
    it loses nothing.
    """
    if path.is_symlink():
        return _points_at(path, installed) or not path.exists()
    if path.is_dir():
        try:
            return skill_digest(path) in digests
        except (OSError, ValueError):
            return False
    return False


def conflicts(targets_: Sequence[Target], installed: Path, digests: Sequence[str]) -> list[Target]:
    """Targets holding something that is not skilldeck's placement of this skill."""
    return [
        t for t in targets_ if os.path.lexists(t.path) and not _ours(t.path, installed, digests)
    ]


def place(
    targets_: Sequence[Target],
    installed: Path,
    *,
    digests: Sequence[str],
    force: bool = False,
    limits: InstallLimits | None = None,
) -> list[str]:
    """Make every target show ``installed``; returns the paths written or already right.

    A target holding something else is replaced only with ``force``
    (``InstallError`` otherwise). Each target changes with one rename.
    """
    done: list[str] = []
    current = skill_digest(installed)
    for t in targets_:
        exists = os.path.lexists(t.path)
        if exists and not force and not _ours(t.path, installed, [*digests, current]):
            raise InstallError(
                f"{t.path} already holds a skill skilldeck did not put there",
                path=str(t.path),
                hint="pass --force to replace it, or install under another name with --name",
            )
        if t.mode == "link" and _points_at(t.path, installed):
            done.append(str(t.path))
            continue
        if t.mode == "copy" and exists and not t.path.is_symlink() and t.path.is_dir():
            with contextlib.suppress(OSError, ValueError):
                if skill_digest(t.path) == current:
                    done.append(str(t.path))
                    continue
        t.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = t.path.parent / f"{_TMP}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            if t.mode == "link":
                os.symlink(installed, tmp, target_is_directory=True)
            else:
                copy_skill_tree(installed, tmp, limits or InstallLimits())
            _swap(tmp, t.path)
        finally:
            with contextlib.suppress(OSError):
                remove_tree(tmp)
        done.append(str(t.path))
    return done


def _swap(new: Path, dest: Path) -> None:
    """Put ``new`` at ``dest`` in one rename; what was there ends up at ``new``."""
    if not os.path.lexists(dest):
        os.rename(new, dest)
        return
    if (dest.is_symlink() or not dest.is_dir()) and new.is_symlink():
        os.replace(new, dest)  # link over link: atomic
        return
    if exchange(new, dest):
        return
    old = dest.parent / f"{_TMP}{os.getpid()}-old-{secrets.token_hex(4)}"
    os.rename(dest, old)
    os.rename(new, dest)
    os.rename(old, new)


def unplace(
    targets_: Sequence[Target], installed: Path, digests: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Remove skilldeck's placements; returns (removed paths, kept paths with why)."""
    removed: list[str] = []
    kept: list[str] = []
    for t in targets_:
        if not os.path.lexists(t.path):
            continue
        if not _ours(t.path, installed, digests):
            kept.append(f"{t.path} (not skilldeck's copy any more; left alone)")
            continue
        if t.path.is_symlink():
            t.path.unlink()
        else:
            grave = t.path.parent / f"{_TMP}{os.getpid()}-rm-{secrets.token_hex(4)}"
            os.rename(t.path, grave)
            remove_tree(grave)
        removed.append(str(t.path))
    return removed, kept


def check(
    targets_: Sequence[Target], installed: Path, digest: str, *, enabled: bool = True
) -> list[PlacementCheck]:
    """Each target on disk against the installed copy (drift)."""
    out: list[PlacementCheck] = []
    for t in targets_:
        problem: str | None = None
        if not os.path.lexists(t.path):
            problem = None if not enabled else "missing"
        elif not enabled:
            problem = "present while disabled"
        elif t.path.is_symlink():
            if not t.path.exists():
                problem = "dangling link"
            elif not _points_at(t.path, installed):
                problem = "link to another folder"
        elif not t.path.is_dir():
            problem = "not a folder"
        else:
            try:
                same = skill_digest(t.path) == digest
            except (OSError, ValueError):
                same = False
            if not same:
                problem = "differs from the installed copy"
        out.append(PlacementCheck(t.agents, str(t.path), t.mode, problem))
    return out
