"""Export skills into another agent's skills folder (an isolated agent home).

``export_skills(["pdf-tools", Path("skills/review")], "claude", home=tmp_home)``
copies each skill to ``<home>/.claude/skills/<name>/``: scripts stay
executable, links that stay inside a skill become plain files, links that leave
it (and special files) are refused, and each skill appears in one rename. A
different copy already there is kept unless ``force=True``; an identical one
is left alone (``unchanged``).
"""

from __future__ import annotations

import importlib
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skilldeck._digest import skill_digest
from skilldeck._errors import InstallError, SkillNotFoundError, hint_command
from skilldeck._paths import shown_path
from skilldeck._statedir import open_below, remove_tree_at
from skilldeck.config import project_base
from skilldeck.events import SinkLike, SkillsInstalled, deliver
from skilldeck.format import validate_skill

from ._agents import AGENTS, ALIASES, agent_dir
from ._fsops import copy_skill_tree, swap_at
from ._model import ExportedSkill, ExportResult, InstallLimits, Scope
from ._state import layout

__all__ = ["AGENT_HOMES", "export_skills", "export_target"]

#: Each agent id (and the older spellings ``claude`` and ``agents``) with its
#: user-level skills folder (``~`` is the home; ``None``: project only).
AGENT_HOMES: dict[str, str | None] = {
    **{a.id: a.user_dir for a in AGENTS.values()},
    **{alias: AGENTS[target].user_dir for alias, target in ALIASES.items()},
}
_TMP_PREFIX = ".skilldeck-tmp-"


def export_target(
    to: str | os.PathLike[str],
    *,
    scope: Scope = "user",
    home: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> Path:
    """The skills folder for ``to``: an agent id (``claude-code``, ``codex``,
    ``cursor``... as ``skilldeck agents`` lists them) or a folder.

    For an agent the folder is its user-level one (under ``home`` when given:
    an isolated agent home) or, with ``scope="project"``, its project folder
    under the project root. A value that is neither a known id nor a path
    (holding ``/``, or starting with ``.`` or ``~``) is refused with
    ``InstallError``, so a typo never creates a folder.
    """
    key = os.fspath(to)
    agent_id = ALIASES.get(key, key)
    if not isinstance(to, os.PathLike) and agent_id in AGENTS:
        agent = AGENTS[agent_id]
        if scope == "project" and home is None:
            return agent_dir(agent, scope="project", project=project_base(cwd))
        return agent_dir(agent, scope="user", home=Path(home) if home is not None else None)
    if not isinstance(to, os.PathLike) and not _looks_like_path(key):
        raise InstallError(
            f"unknown agent {key!r}",
            hint="give an agent id (see `skilldeck agents`) or a folder path such as ./skills",
        )
    path = Path(key).expanduser()
    if not path.is_absolute():
        path = (Path(cwd) if cwd is not None else Path.cwd()) / path
    return path


def _looks_like_path(text: str) -> bool:
    return "/" in text or os.sep in text or text.startswith((".", "~"))


def _resolve(item: str | os.PathLike[str], cwd: Path) -> Path:
    """A skill folder from a path, or from an installed skill's name."""
    raw = os.fspath(item)
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        candidate = cwd / candidate
    if isinstance(item, os.PathLike) or "/" in raw or candidate.is_dir():
        if candidate.name in ("SKILL.md", "skill.md"):
            candidate = candidate.parent
        if not candidate.is_dir():
            raise SkillNotFoundError(
                f"no skill folder at {candidate}", path=str(candidate), hint="check the path"
            )
        return candidate
    scopes: tuple[Scope, ...] = ("project", "user")
    for scope in scopes:
        folder = layout(scope, cwd=cwd).skill_dir(raw)
        if folder.is_dir():
            return folder
    found = _from_catalog(raw, cwd)
    if found is not None:
        return found
    raise SkillNotFoundError(
        f"no skill named {raw!r}",
        skill=raw,
        hint="give an installed or catalogued skill's name, or a skill folder's path",
    )


def _from_catalog(name: str, cwd: Path) -> Path | None:
    catalog: Any = getattr(importlib.import_module("skilldeck.catalog"), "Catalog", None)
    if catalog is None:
        return None
    try:
        meta = catalog.default(cwd=cwd).get(name)
    except Exception:  # the catalog reports its own problems; here it is only a fallback
        return None
    path = getattr(meta, "path", None)
    return Path(path) if path is not None else None


def _clean_leftovers(fd: int) -> None:
    """Remove temp folders of exports that died (their pid is gone)."""
    for entry in os.listdir(fd):
        if not entry.startswith(_TMP_PREFIX):
            continue
        try:
            pid = int(entry[len(_TMP_PREFIX) :].split("-", 1)[0])
            os.kill(pid, 0)
        except (ValueError, ProcessLookupError):
            remove_tree_at(fd, entry)
        except PermissionError:
            continue


def _open_target(target_dir: Path, anchor: Path | None) -> int:
    """The target folder, created; below a project root no link is followed. A path
    that cannot be a folder (a file or fifo on it, no permission) is ``InstallError``."""
    if anchor is not None:
        fd = open_below(anchor, target_dir.relative_to(anchor), create=True)
        assert fd is not None
        return fd
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        return os.open(target_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        where = os.fsdecode(exc.filename or target_dir)
        at = "" if where == str(target_dir) else f" ({shown_path(where)})"
        raise InstallError(
            f"cannot export into {shown_path(str(target_dir))}{at}: {exc.strerror or exc}",
            path=str(target_dir),
            hint="give a folder, or a path where one can be made (--to ./FOLDER)",
        ) from None


def export_skills(
    skills: Sequence[str | os.PathLike[str]],
    to: str | os.PathLike[str],
    *,
    scope: Scope = "user",
    home: str | os.PathLike[str] | None = None,
    force: bool = False,
    cwd: str | os.PathLike[str] | None = None,
    limits: InstallLimits | None = None,
    events: SinkLike | None = None,
) -> ExportResult:
    """Copy skills (names or folders) into ``to`` (see ``export_target``).

    Every skill is validated first (an invalid one stops the export before
    anything is copied); then each is copied under the install rules and
    swapped in atomically. Emits ``SkillsInstalled`` listing the exported
    skills, with ``location`` the target folder.
    """
    lim = limits or InstallLimits()
    here = Path(cwd) if cwd is not None else Path.cwd()
    target_dir = export_target(to, scope=scope, home=home, cwd=here)
    plan: list[tuple[str, Path]] = []
    for item in skills:
        folder = _resolve(item, here)
        report = validate_skill(folder)
        if not report.valid or not report.name:
            errs = [d for d in report.diagnostics if d.is_error]
            detail = "; ".join(f"{d.code} {d.message}" for d in errs[:3])
            raise InstallError(
                f"cannot export {folder}: invalid SKILL.md: {detail or 'no manifest'}",
                path=str(folder),
                hint=f"fix the skill first (`{hint_command('validate', folder)}` lists every "
                "problem)",
            )
        if any(report.name == n for n, _ in plan):
            raise InstallError(f"skill {report.name!r} given twice", skill=report.name)
        plan.append((report.name, folder))
    anchor = None
    if scope == "project" and home is None and not _looks_like_path(os.fspath(to)):
        anchor = project_base(here)  # an agent's project folder: part of the project
    fd = _open_target(target_dir, anchor)
    try:
        _clean_leftovers(fd)
        done: list[ExportedSkill] = []
        for name, folder in plan:
            done.append(_export_one(name, folder, fd, target_dir, lim, force=force))
    finally:
        os.close(fd)
    result = ExportResult(skills_dir=str(target_dir), skills=tuple(done))
    deliver(events, SkillsInstalled(skills=result.names, source="export", location=str(target_dir)))
    return result


def _export_one(
    name: str, folder: Path, fd: int, target_dir: Path, lim: InstallLimits, *, force: bool
) -> ExportedSkill:
    dest = target_dir / name
    tmp = f"{_TMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        copy_skill_tree(folder, Path(tmp), lim, dir_fd=fd)
        digest = skill_digest(target_dir / tmp)
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            os.rename(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
            return ExportedSkill(name, str(dest), digest, "exported")
        if stat.S_ISDIR(st.st_mode) and skill_digest(dest) == digest:
            return ExportedSkill(name, str(dest), digest, "unchanged")
        if not force:
            raise InstallError(
                f"{dest} already exists and differs from {folder}",
                skill=name,
                path=str(dest),
                hint="pass --force to replace it",
            )
        swap_at(fd, tmp, name)
        return ExportedSkill(name, str(dest), digest, "replaced")
    finally:
        remove_tree_at(fd, tmp)
