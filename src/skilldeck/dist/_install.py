"""``install``: fetch a source, pick its skills, stage and check them, swap them in."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._digest import digest_of_files, skill_file_digests
from skilldeck._errors import (
    InstallError,
    ManifestError,
    PathNotAllowedError,
    SkillError,
    hint_command,
)
from skilldeck._paths import is_regular_file, shown_path, within
from skilldeck._statedir import user_mac
from skilldeck._tree import PLACEHOLDER, find_skill_folders
from skilldeck.config import load_config
from skilldeck.events import SinkLike, SkillsInstalled, deliver
from skilldeck.execution import revoke_lapsed, skill_package_sets
from skilldeck.format import is_skill_name, read_skill_md, validate_skill
from skilldeck.security import install_scan, scan_mode

from ._agents import resolve_agents
from ._archive import extract_archive
from ._fsops import copy_skill_tree
from ._git import fetch_commit, submodule_urls, submodules
from ._model import (
    InstalledSkill,
    InstallLimits,
    InstallProgress,
    InstallResult,
    LockEntry,
    Placement,
    ProgressCallback,
    Scope,
    SourceSpec,
    report,
)
from ._placements import Placed, conflicts, place, recorded, targets
from ._source import on_this_machine, parse_source, source_folder_name
from ._state import Layout, Stage, apply_ops, layout, now_iso, swap_in

__all__ = ["InstallPlan", "PlannedSkill", "discover_skills", "install", "remember_placed"]

_MAX_DISCOVERY_DIRS = 20_000
#: a git submodule in a source: its folder is left out, never fetched
SUBMODULE_LEFT_OUT = "SK521"


@dataclass(frozen=True, slots=True)
class PlannedSkill:
    """A skill about to be installed (shown to a ``confirm`` callback)."""

    name: str
    skill_path: str
    replaces: bool
    file_count: int
    warnings: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class InstallPlan:
    source: SourceSpec
    commit: str | None
    scope: Scope
    skills: tuple[PlannedSkill, ...]


ConfirmCallback = Callable[[InstallPlan], bool]


@dataclass(frozen=True, slots=True)
class Staged:
    name: str
    path: Path
    skill_path: str
    files: dict[str, str]
    digest: str
    warnings: tuple[Diagnostic, ...]


@dataclass(frozen=True, slots=True)
class Fetched:
    """A source materialised in the stage."""

    root: Path  # the source's root
    tree: Path  # the folder searched for skills: the root, or its sub-folder
    commit: str | None
    #: the git submodules below ``tree`` (paths relative to it), never fetched: each
    #: one's empty folder is taken out of the checkout, and its URL kept for hints
    submodules: Mapping[str, str | None]


def fetch_source(
    spec: SourceSpec,
    stage: Stage,
    limits: InstallLimits,
    on_progress: ProgressCallback | None,
    *,
    slot: str = "src",
    use_subpath: bool = True,
) -> Fetched:
    """Materialise ``spec`` inside the stage (a copy is named after the source: a
    skill at its root is named so in messages)."""
    dest = stage.path / slot / source_folder_name(spec)
    if spec.kind != "local":
        dest.parent.mkdir()
    commit: str | None = None
    subs: dict[str, str | None] = {}
    if spec.kind == "git":
        commit = fetch_commit(
            spec.url,
            spec.ref,
            dest,
            timeout=limits.git_timeout,
            on_progress=on_progress,
        )
        tree = dest
        subs = _submodules(dest, spec.url)
    elif spec.kind == "archive":
        if not Path(spec.url).is_file():
            raise InstallError(f"archive not found: {spec.url}", path=spec.url)
        extract_archive(Path(spec.url), dest, limits, on_progress=on_progress)
        tree = dest
    else:
        tree = Path(spec.url)
        if not tree.is_dir():
            raise InstallError(f"source folder not found: {spec.url}", path=spec.url)
    if spec.subpath and use_subpath:
        want = Path(spec.subpath).as_posix().strip("/")
        for path, url in subs.items():
            if within(want, (path,), sep="/"):
                raise InstallError(
                    f"{shown_path(path)} is a git submodule of {spec.display or spec.url}, "
                    "and submodules are never fetched",
                    hint=_own_repository(url),
                )
        sub = tree / spec.subpath
        real_tree = os.path.realpath(tree)
        real_sub = os.path.realpath(sub)
        if not within(real_sub, (real_tree,)):
            raise InstallError(
                f"sub-folder {spec.subpath} leaves the source", hint="give a folder inside it"
            )
        if not sub.is_dir():
            raise InstallError(
                f"no folder {spec.subpath} in {spec.display or spec.url}",
                hint="check the #SUBDIR / --path value",
            )
        inside = {p[len(want) + 1 :]: u for p, u in subs.items() if p.startswith(want + "/")}
        return Fetched(tree, sub, commit, inside)
    return Fetched(tree, tree, commit, subs)


def _submodules(checkout: Path, url: str) -> dict[str, str | None]:
    """The checkout's git submodules -> their URLs (``None``: not in ``.gitmodules``).
    Git leaves each one an empty folder, which is removed, so no skill is installed
    with it as if it were part of the skill."""
    found = submodules(checkout, url=url)
    if not found:
        return {}
    urls = submodule_urls(checkout, url=url)
    real = os.path.realpath(checkout)
    for path in found:
        where = checkout / path
        if within(os.path.realpath(where), (real,)):
            with contextlib.suppress(OSError):  # not empty, a link, gone: left as it is
                os.rmdir(where)
    return {path: urls.get(path) for path in found}


def _own_repository(url: str | None) -> str:
    """The hint for a submodule: install from its own repository (``url``, quoted for a
    shell: it comes from the source's ``.gitmodules``)."""
    if url is None:
        return "install from the submodule's own repository (the source does not say which)"
    return f"install from the submodule's own repository: {hint_command('install', url)}"


def submodule_notes(src: Path, tree: Path, subs: Mapping[str, str | None]) -> list[Diagnostic]:
    """A warning for each git submodule inside the skill folder ``src`` (of ``tree``):
    the install holds the skill without it."""
    rel = _rel(src, tree)
    out: list[Diagnostic] = []
    for path, url in subs.items():
        if rel and (path == rel or not within(path, (rel,), sep="/")):
            continue
        inner = path[len(rel) + 1 :] if rel else path
        out.append(
            Diagnostic.make(
                SUBMODULE_LEFT_OUT,
                f"{inner}: a git submodule, which is never fetched (left out)",
                path=os.path.join(src, inner),
                hint="the skill may need its files: ask the author to include them, or "
                + _own_repository(url).replace("install from", "get them from", 1),
            )
        )
    return out


def _outside(found: Sequence[Path], tree: Path, subs: Mapping[str, str | None]) -> list[str]:
    """The submodules that are inside none of the skill folders ``found``."""
    skills = [_rel(f, tree) for f in found]
    return [
        path for path in subs if not any(s == "" or within(path, (s,), sep="/") for s in skills)
    ]


def discover_skills(root: Path) -> list[Path]:
    """Skill folders at or below ``root``: the one discovery of ``skilldeck._tree``
    reading ``root`` as a repository of skills (links followed only inside
    ``root``), as ``skilldeck list --root ROOT`` finds them: a skill nested in
    another one is installed with it, not on its own."""
    try:
        found = find_skill_folders(root, recursive=False, max_dirs=_MAX_DISCOVERY_DIRS)
        return [Path(p) for p in found]
    except PathNotAllowedError:
        raise InstallError(
            f"source has more than {_MAX_DISCOVERY_DIRS} folders",
            hint="select the skill's folder with #SUBDIR or --path",
        ) from None


def without_placeholders(found: list[Path], tree: Path) -> tuple[list[Path], list[str]]:
    """The skill folders that are not template placeholders (SK219, the rule of
    ``skilldeck.format``), and a note per one left out. Only a SKILL.md that is a
    regular file is read, its frontmatter only."""
    kept: list[Path] = []
    notes: list[str] = []
    for folder in found:
        if _regular_skill_md(folder):
            md = folder / "SKILL.md" if (folder / "SKILL.md").exists() else folder / "skill.md"
            diags = read_skill_md(md, metadata_only=True).diagnostics
            hit = next((d for d in diags if d.code == PLACEHOLDER), None)
            if hit is not None:
                notes.append(f"{_shown(folder, tree)}: {hit.code} {hit.message}")
                continue
        kept.append(folder)
    return kept, notes


def declared_packages_of(name: str, folder: Path) -> tuple[str, ...]:
    """The package sets the installed skill's scripts declare (``"ORIGIN: REQ ..."``),
    read only: an install copies files and never runs a package resolver on what a
    repository asks for; ``skilldeck approve NAME`` builds them (the user's consent)."""
    try:
        sets = skill_package_sets(name, folder)
    except SkillError as exc:  # a declaration skilldeck refuses (an option, a URL)
        return (exc.message,)
    return tuple(f"{p.origin}: {' '.join(p.requirements) or '(no packages)'}" for p in sets)


def _regular_skill_md(folder: Path) -> bool:
    """SKILL.md is a regular file inside ``folder`` (safe to read before copying)."""
    for name in ("SKILL.md", "skill.md"):
        path = folder / name
        if os.path.lexists(path):
            return not path.is_symlink() and is_regular_file(path)
    return False


def _rel(path: Path, tree: Path) -> str:
    rel = path.relative_to(tree).as_posix()
    return "" if rel == "." else rel


def _shown(path: Path, tree: Path) -> str:
    """A skill folder of the source as a message names it: a folder name from the
    source, so its control characters are escaped (``shown_path``)."""
    return shown_path(_rel(path, tree) or path.name)


def _errors(diags: Sequence[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity is Severity.ERROR]


def _invalid(where: str, diags: Sequence[Diagnostic]) -> ManifestError:
    errs = _errors(diags)
    first = "; ".join(f"{d.code} {d.message}" for d in errs[:3])
    return ManifestError(
        f"{where}: invalid SKILL.md: {first or 'no manifest'}",
        diagnostics=diags,
        hint="fix the skill (`skilldeck validate PATH` on a copy of it lists every problem); "
        "nothing was installed",
    )


def rename_in_frontmatter(skill_md: Path, name: str) -> None:
    """Set ``name:`` in a SKILL.md's frontmatter (for ``--name``)."""
    data = skill_md.read_bytes()
    text = data.decode("utf-8-sig", errors="strict")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise InstallError(f"{skill_md}: no frontmatter to rename", path=str(skill_md))
    eol = "\r\n" if lines[0].endswith("\r\n") else "\n"
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            lines.insert(1, f"name: {name}{eol}")
            break
        if re.match(r"^name\s*:", lines[i]):
            lines[i] = f"name: {name}{eol}"
            break
    skill_md.write_text("".join(lines), encoding="utf-8")


def stage_skill(
    src: Path,
    tree: Path,
    stage: Stage,
    limits: InstallLimits,
    *,
    name: str | None,
    on_progress: ProgressCallback | None,
    scan: str = "warn",
    submodules: Mapping[str, str | None] | None = None,
) -> Staged:
    """Copy one skill into ``stage/ready/<name>`` under the rules, and validate the copy.

    Only the copy is read (never the source in place), so whatever the copy
    refuses (special files, escaping links, size) is never opened. The copy is
    then security-scanned (``scan``: ``warn``, ``block`` or ``off``, from the
    config's ``[install] scan``); findings join the warnings, and under
    ``block`` an error-level finding stops the install. ``submodules``: the git
    submodules of ``tree`` (``Fetched.submodules``), one warning each inside the skill.
    """
    real_src, real_tree = os.path.realpath(src), os.path.realpath(tree)
    if not within(real_src, (real_tree,)):
        raise InstallError(
            f"{_shown(src, tree)} is a link leading out of the source",
            path=str(src),
            hint="the source is malformed or hostile; nothing was installed",
        )
    ready = stage.path / "ready"
    ready.mkdir(exist_ok=True)
    incoming = ready / f".incoming-{secrets.token_hex(4)}"
    left_out = submodule_notes(src, tree, submodules or {})  # skipped, reported
    count = copy_skill_tree(src, incoming, limits, on_progress=on_progress, problems=left_out)
    pre = validate_skill(incoming)
    if pre.manifest is None or not pre.name:
        raise _invalid(_shown(src, tree), pre.diagnostics)
    final = name or pre.name
    if not is_skill_name(final):
        raise InstallError(
            f"{final!r} is not a valid skill name",
            hint="use lowercase letters, digits and single hyphens (at most 64 characters)",
        )
    dest = ready / final
    if dest.exists():
        raise InstallError(
            f"two skills in the source are both named {final!r}",
            hint="install them one at a time with --skill and --name",
        )
    os.rename(incoming, dest)
    if name is not None and name != pre.name:
        skill_md = dest / "SKILL.md" if (dest / "SKILL.md").exists() else dest / "skill.md"
        rename_in_frontmatter(skill_md, name)
    report = validate_skill(dest)
    if not report.valid:
        raise _invalid(shown_path(_rel(src, tree) or final), report.diagnostics)
    files = skill_file_digests(dest)
    if on_progress:
        on_progress(InstallProgress("validate", f"{final}: {count} files checked"))
    warnings = tuple(left_out)
    warnings += tuple(d for d in report.diagnostics if d.severity is Severity.WARNING)
    findings = install_scan(dest, mode=scan, skill=final)
    warnings += tuple(d.with_severity(Severity.WARNING) if d.is_error else d for d in findings)
    return Staged(final, dest, _rel(src, tree), files, digest_of_files(files), warnings)


def _in_submodules(paths: Sequence[str], fetched: Fetched) -> str:
    """The submodules ``paths`` named in a message, with the first one's source."""
    shown = ", ".join(shown_path(p) for p in paths[:5])
    more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
    return f"its git submodules, which are never fetched: {shown}{more}"


def select_skills(
    found: list[Path],
    tree: Path,
    *,
    skills: Sequence[str] | None,
    all_skills: bool,
    display: str,
) -> list[Path]:
    if not found:
        raise InstallError(
            f"no SKILL.md found in {display}",
            hint="point at a folder holding SKILL.md (use #SUBDIR or --path)",
        )
    if skills:
        by_name: dict[str, Path] = {}
        for folder in found:
            by_name.setdefault(folder.name, folder)
            if _regular_skill_md(folder):
                report = validate_skill(folder)
                if report.name:
                    by_name.setdefault(report.name, folder)
            by_name.setdefault(_rel(folder, tree), folder)
        missing = [s for s in skills if s not in by_name]
        if missing:
            raise InstallError(
                f"no skill named {', '.join(map(shown_path, missing))} in {display}",
                hint="available: " + ", ".join(_shown(f, tree) for f in found),
            )
        picked: list[Path] = []
        for s in skills:
            if by_name[s] not in picked:
                picked.append(by_name[s])
        return picked
    if all_skills or len(found) == 1:
        return found
    raise InstallError(
        f"{display} holds {len(found)} skills: " + ", ".join(_shown(f, tree) for f in found),
        hint="choose with --skill NAME (repeatable) or install them all with --all",
        available=len(found),
    )


def _refuse_existing(
    lay: Layout,
    staged: Sequence[Staged],
    entries: dict[str, LockEntry],
    wanted: Sequence[Placement],
    *,
    several: bool,
) -> None:
    """Without ``force``: a skill of the same name, or an agent folder holding
    something else, stops the install before anything is asked or changed.

    The hint offers only what works for this install: ``--name`` for one skill,
    ``--skip-existing`` for several (``several``: ``--all`` or more than one).
    """
    scope = " --scope project" if lay.scope == "project" else ""
    for s in staged:
        if os.path.lexists(lay.skill_dir(s.name)):
            prev = entries.get(s.name)
            origin = f" from {prev.source_display}" if prev else ""
            beside = (
                "add --skip-existing to leave it and install the others"
                if several
                else "add --name NEW-NAME to install beside it"
            )
            raise InstallError(
                f"a skill named {s.name!r} is already installed{origin} ({lay.skill_dir(s.name)})",
                skill=s.name,
                hint=f"add --force to replace it, {beside}, or leave it and run "
                f"`{hint_command('update', s.name)}{scope}`",
            )
        where = targets(lay.scope, lay.base, s.name, wanted)
        taken = conflicts(where, lay.skill_dir(s.name), [s.digest])
        if taken:
            other = "" if several else ", or add --name NEW-NAME to install under another name"
            raise InstallError(
                f"{taken[0].path} already holds a skill named {s.name!r} that skilldeck "
                "did not install",
                skill=s.name,
                path=str(taken[0].path),
                hint=f"add --force to replace it{other}",
            )


def remember_placed(lay: Layout, name: str, placed: Sequence[Placed]) -> None:
    """Record the identity of the copies ``place`` left (call under the scope lock)."""
    entries = lay.read_lock()
    entry = entries.get(name)
    if entry is None:
        return
    now = recorded(entry.placements, placed)
    if now != entry.placements:
        entries[name] = replace(entry, placements=now)
        lay.write_lock(entries)


def lock_entry(
    spec: SourceSpec,
    staged: Staged,
    commit: str | None,
    when: str,
    *,
    placements: tuple[Placement, ...] = (),
) -> LockEntry:
    entry = LockEntry(
        name=staged.name,
        kind=spec.kind,
        url=spec.url,
        ref=spec.ref,
        subpath=spec.subpath,
        skill_path=_join(spec.subpath, staged.skill_path),
        commit=commit,
        digest=staged.digest,
        files=staged.files,
        installed_at=when,
        updated_at=when,
        placements=placements,
    )
    if on_this_machine(entry.kind, entry.url) is None:
        return entry
    return replace(entry, mac=user_mac(entry.signed_source))


def _join(sub: str | None, rel: str) -> str:
    return "/".join(p for p in (sub or "", rel) if p)


def commit_staged(
    lay: Layout,
    stage: Stage,
    items: list[tuple[Staged, LockEntry]],
    *,
    keep_installed_at: bool = False,
    on_progress: ProgressCallback | None = None,
) -> list[bool]:
    """Swap staged skills in and record them (call under the scope lock).

    Returns, per skill, whether an installed copy was replaced.
    """
    from ._record import installed_table

    ops: list[dict[str, Any]] = []
    for staged, entry in items:
        data = entry.to_json()
        ops.append(
            {
                "op": "install",
                "name": staged.name,
                "entry": data,
                "plugin": installed_table(
                    data,
                    name=staged.name,
                    installed_at=entry.installed_at,
                    path=str(lay.skill_dir(staged.name)),
                ),
                "old": f"old/{staged.name}",
                "keep_installed_at": keep_installed_at,
            }
        )
    for staged, entry in items:  # checked before anything moves: the records are text
        try:
            json.dumps(entry.to_json(), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            shown = shown_path(entry.skill_path)
            raise InstallError(
                f"skill {staged.name}: its folder {shown or '.'} in the source is not valid "
                "UTF-8 (a name in another encoding); nothing was installed",
                hint="rename the folder with a UTF-8 name, or choose the other skills with "
                "--skill NAME",
            ) from None
    stage.write_intent(ops)
    report(on_progress, "swap", "moving into place")
    (stage.path / "old").mkdir(exist_ok=True)
    replaced = [
        swap_in(lay, staged.path, staged.name, stage.path / "old" / staged.name)
        for staged, _ in items
    ]
    report(on_progress, "record", "recording")
    apply_ops(lay, ops)
    return replaced


def install(
    source: str,
    *,
    ref: str | None = None,
    subpath: str | None = None,
    skills: Sequence[str] | None = None,
    all_skills: bool = False,
    name: str | None = None,
    scope: Scope = "user",
    force: bool = False,
    cwd: str | os.PathLike[str] | None = None,
    limits: InstallLimits | None = None,
    on_progress: ProgressCallback | None = None,
    confirm: ConfirmCallback | None = None,
    events: SinkLike | None = None,
    agents: Sequence[str] | None = None,
    copy: bool = False,
    choose: Callable[[Sequence[str]], Sequence[str]] | None = None,
    skip_existing: bool = False,
    skip_invalid: bool = False,
) -> InstallResult:
    """Install skills from a git URL, ``owner/repo``, a local folder or an archive.

    The source is fetched and each chosen skill copied into a private staging
    folder, checked (valid SKILL.md, limits, no escaping links or special
    files), renamed to its manifest name (or ``name``), then swapped into the
    scope's skills folder with one rename each and recorded in the lockfile and
    config. On any failure nothing visible changes. A source holding several
    skills needs ``skills=[...]`` or ``all_skills=True``. An installed skill of
    the same name is replaced only with ``force=True``. ``confirm`` sees the
    plan (names, warnings, replacements) and may return False to cancel.

    ``agents`` (ids of the agent table, ``"*"`` for every agent found on this
    machine) also places each skill in those agents' folders for the scope:
    a link to the installed copy, or a copy with ``copy=True``. The lockfile
    records the placements; update, remove and enable/disable keep them in step.

    ``choose`` (a picker) receives the skill paths of a multi-skill source when
    neither ``skills`` nor ``all_skills`` says which, and returns the chosen
    ones. ``skip_existing`` leaves skills already installed under the same
    name alone (and installs the others) instead of stopping; when every chosen
    skill is installed already, nothing changes and ``InstallResult.existing``
    names them (not an error). ``skip_invalid``
    leaves out the chosen skills that cannot be installed (an invalid SKILL.md, a
    name another skill of the source has, over the limits) and installs the rest;
    ``InstallResult.skipped`` names them.
    """
    lim = limits or InstallLimits()
    spec = parse_source(source, ref=ref, subpath=subpath, cwd=cwd)
    lay = layout(scope, cwd=cwd)
    picked_agents = resolve_agents(agents or ())
    mode: Literal["link", "copy"] = "copy" if copy else "link"
    wanted = tuple(Placement(a.id, mode) for a in picked_agents)
    for a in picked_agents:
        if scope == "user" and a.user_dir is None:
            raise InstallError(
                f"{a.display} has no user-level skills folder (project only)",
                hint=f"use --scope project with --agent {a.id}",
            )
    if name is not None and (all_skills or (skills and len(skills) > 1)):
        raise InstallError("--name applies to one skill only", hint="install them one at a time")
    with Stage(lay) as stage:
        fetched = fetch_source(spec, stage, lim, on_progress)
        tree, commit = fetched.tree, fetched.commit
        found, placeholders = without_placeholders(discover_skills(tree), tree)
        unfetched = _outside(found, tree, fetched.submodules)
        if unfetched and not found:
            raise InstallError(
                f"{spec.display or spec.url} holds no skill of its own; "
                + _in_submodules(unfetched, fetched),
                hint=_own_repository(fetched.submodules[unfetched[0]]),
            )
        if not found and placeholders:
            raise InstallError(
                f"{spec.display or spec.url} holds only a template placeholder, no skill: "
                + placeholders[0],
                hint="copy it and write your skill's name and description, or start one "
                "with `skilldeck new NAME`",
            )
        if choose is not None and not skills and not all_skills and len(found) > 1:
            skills = list(choose([_rel(f, tree) or f.name for f in found]))
            if not skills:
                raise InstallError("no skill chosen; nothing was installed")
        try:
            picked = select_skills(
                found, tree, skills=skills, all_skills=all_skills, display=spec.display or spec.url
            )
        except InstallError as exc:
            if not (unfetched and skills):
                raise
            raise InstallError(  # the name asked for may be a submodule's skill
                f"{exc.message}; {_in_submodules(unfetched, fetched)}",
                hint=f"{exc.hint}; or {_own_repository(fetched.submodules[unfetched[0]])}",
            ) from None
        if name is not None and len(picked) > 1:
            raise InstallError(
                "--name applies to one skill only", hint="pick one skill with --skill"
            )
        scan = scan_mode(load_config(cwd=cwd))
        staged: list[Staged] = []
        skipped: list[str] = list(placeholders)
        if all_skills:
            skipped += [f"{shown_path(p)}: a git submodule, never fetched" for p in unfetched]
        for p in picked:
            try:
                staged.append(
                    stage_skill(
                        p,
                        tree,
                        stage,
                        lim,
                        name=name,
                        on_progress=on_progress,
                        scan=scan,
                        submodules=fetched.submodules,
                    )
                )
            except (ManifestError, InstallError) as exc:
                if not skip_invalid:
                    if len(picked) > 1 and exc.hint:  # one bad skill of many stops them all
                        exc.hint += "; to install the others, add --skip-invalid"
                    raise
                folder = _rel(p, tree) or p.name
                why = exc.message
                skipped.append(why if why.startswith(folder) else f"{folder}: {why}")
        if not staged:
            raise InstallError(
                "no chosen skill can be installed; nothing was installed",
                hint="; ".join(skipped[:5]),
            )
        report(on_progress, "staged", f"{len(staged)} skill(s) checked")
        entries = lay.read_lock()
        several = all_skills or len(staged) > 1
        existing: tuple[str, ...] = ()
        if skip_existing and not force:
            existing = tuple(s.name for s in staged if os.path.lexists(lay.skill_dir(s.name)))
            staged = [s for s in staged if s.name not in existing]
            if not staged:  # nothing to do is not a failure
                return InstallResult(
                    scope=scope,
                    source=spec,
                    commit=commit,
                    skills=(),
                    installed_dir=str(lay.installed),
                    available=tuple(_rel(f, tree) or f.name for f in found),
                    skipped=tuple(skipped),
                    existing=existing,
                )
        if not force:
            _refuse_existing(lay, staged, entries, wanted, several=several)
        else:  # replacing is allowed, following a project's links is not
            for s in staged:
                conflicts(targets(lay.scope, lay.base, s.name, wanted), lay.skill_dir(s.name), [])
        if confirm is not None:
            plan = InstallPlan(
                spec,
                commit,
                scope,
                tuple(
                    PlannedSkill(
                        s.name,
                        s.skill_path,
                        os.path.lexists(lay.skill_dir(s.name)),
                        len(s.files),
                        s.warnings,
                    )
                    for s in staged
                ),
            )
            if not confirm(plan):
                raise InstallError("install cancelled; nothing was changed")
        when = now_iso()
        placed: dict[str, tuple[str, ...]] = {}
        with lay.locked():
            entries = lay.read_lock()
            if not force:
                _refuse_existing(lay, staged, entries, wanted, several=several)
            items = []
            for s in staged:
                prev = entries.get(s.name)
                keep = [p for p in (prev.placements if prev else ()) if p not in wanted]
                merged = tuple(p for p in keep if p.agent not in {w.agent for w in wanted})
                entry = lock_entry(spec, s, commit, when, placements=merged + wanted)
                items.append((s, entry))
            replaced = commit_staged(lay, stage, items, on_progress=on_progress)
            for (s, entry), was_replaced in zip(items, replaced, strict=True):
                prev = entries.get(s.name)
                if was_replaced and prev is not None and prev.digest != s.digest:
                    revoke_lapsed(s.name, prev.digest)
                where = targets(lay.scope, lay.base, s.name, entry.placements)
                known = [s.digest] + ([prev.digest] if prev else [])
                done = place(where, lay.skill_dir(s.name), digests=known, force=force, limits=lim)
                remember_placed(lay, s.name, done)
                placed[s.name] = tuple(p.path for p in done)
    result = InstallResult(
        scope=scope,
        source=spec,
        commit=commit,
        skills=tuple(
            InstalledSkill(
                name=s.name,
                path=str(lay.skill_dir(s.name)),
                digest=s.digest,
                source=spec.display or spec.url,
                commit=commit,
                skill_path=entry.skill_path,
                replaced=r,
                file_count=len(s.files),
                warnings=s.warnings,
                placed=placed.get(s.name, ()),
                packages=declared_packages_of(s.name, lay.skill_dir(s.name)),
            )
            for (s, entry), r in zip(items, replaced, strict=True)
        ),
        installed_dir=str(lay.installed),
        available=tuple(_rel(f, tree) or f.name for f in found),
        skipped=tuple(skipped),
        existing=existing,
    )
    deliver(
        events,
        SkillsInstalled(
            skills=result.names, source=spec.display or spec.url, location=str(lay.installed)
        ),
    )
    return result
