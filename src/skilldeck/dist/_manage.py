"""``update``, ``remove``, ``verify`` and enabling/disabling by name (``list_installed`` is
in ``_installed``: a listing need not import the installer)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import tomlkit
from tomlkit.items import Array, Table
from tomlkit.toml_document import TOMLDocument

from skilldeck._digest import digest_of_files, skill_file_digests
from skilldeck._errors import (
    InstallError,
    InvalidArgumentsError,
    SkillError,
    SkillNotFoundError,
    UnsafeStateError,
    hint_command,
)
from skilldeck._paths import safe_relpath, shown_path, within
from skilldeck._statedir import user_mac_matches
from skilldeck.config import load_config, update_config
from skilldeck.events import SinkLike, SkillsRemoved, SkillsUpdated, deliver
from skilldeck.execution import revoke_lapsed
from skilldeck.format import usable_name
from skilldeck.security import scan_mode

from ._install import Staged, commit_staged, fetch_source, remember_placed, stage_skill
from ._installed import is_enabled, placement_checks
from ._model import (
    FileChanges,
    InstallLimits,
    LockEntry,
    ProgressCallback,
    RemoveResult,
    Scope,
    SkillUpdate,
    SkillVerification,
    SourceSpec,
    UpdateResult,
    VerifyReport,
    report,
)
from ._placements import Placed, place, stray_entries, targets, unplace
from ._source import on_this_machine
from ._state import Layout, Stage, apply_ops, layout, now_iso, swap_out

__all__ = ["remove", "set_skill_enabled", "update", "verify"]


def _enabled(name: str, cwd: str | os.PathLike[str] | None) -> bool:
    return is_enabled(load_config(cwd=cwd), name)


def _sync_placements(
    lay: Layout, entry: LockEntry, digests: list[str], cwd: str | os.PathLike[str] | None
) -> tuple[list[Placed], str | None]:
    """Bring an installed skill's placements in line (after an update): (done, problem)."""
    if not entry.placements or not _enabled(entry.name, cwd):
        return [], None
    where = targets(lay.scope, lay.base, entry.name, entry.placements)
    try:
        done = place(where, lay.skill_dir(entry.name), digests=digests)
    except (InstallError, UnsafeStateError, OSError) as exc:
        return [], f"placement not refreshed: {getattr(exc, 'message', exc)}"
    remember_placed(lay, entry.name, done)
    return done, None


def _unknown(name: str, lay: Layout, entries: dict[str, LockEntry]) -> SkillNotFoundError:
    have = ", ".join(sorted(entries)) or "none"
    return SkillNotFoundError(
        f"no skill named {name!r} is installed in the {lay.scope} scope",
        skill=name,
        hint=f"installed: {have} (see `skilldeck list --installed`; --scope picks the scope)",
    )


def _pick(
    lay: Layout, entries: dict[str, LockEntry], names: Sequence[str] | None, all_skills: bool
) -> list[LockEntry]:
    if names:
        for n in names:
            if n not in entries:
                raise _unknown(n, lay, entries)
        return [entries[n] for n in dict.fromkeys(names)]
    return [entries[n] for n in sorted(entries)]  # no names: every installed skill


def update(
    names: Sequence[str] | None = None,
    *,
    all_skills: bool = False,
    scope: Scope = "user",
    dry_run: bool = False,
    cwd: str | os.PathLike[str] | None = None,
    limits: InstallLimits | None = None,
    on_progress: ProgressCallback | None = None,
    events: SinkLike | None = None,
) -> UpdateResult:
    """Fetch installed skills' sources again and install what changed.

    ``names`` picks skills; without names every installed skill of the scope
    is updated (``all_skills`` says the same explicitly).

    Skills are compared by content digest; each result lists the files added,
    removed and modified relative to what is on disk now. A skill pinned to a
    commit stays at that commit. ``dry_run`` fetches and compares but changes
    nothing. A changed skill loses its script approvals. A source that cannot
    be fetched marks its skills ``failed`` and the others still update.
    """
    lim = limits or InstallLimits()
    lay = layout(scope, cwd=cwd)
    with lay.locked():
        entries = lay.read_lock()
    chosen = _pick(lay, entries, names, all_skills)
    groups: dict[tuple[str, str, str | None], list[LockEntry]] = {}
    results: dict[str, SkillUpdate] = {}
    for entry in chosen:
        refused = _shipped_source(lay, entry)
        if refused is not None:
            results[entry.name] = _failed(entry, refused)
            continue
        groups.setdefault((entry.kind, entry.url, entry.ref), []).append(entry)
    to_commit: list[tuple[Staged, LockEntry, FileChanges, LockEntry]] = []
    when = now_iso()
    with Stage(lay) as stage:
        for i, ((kind, url, ref), group) in enumerate(groups.items()):
            spec = SourceSpec(kind=kind, url=url, ref=ref, display=url)  # type: ignore[arg-type]
            try:
                fetched = fetch_source(
                    spec, stage, lim, on_progress, slot=f"src{i}", use_subpath=False
                )
                root, commit = fetched.root, fetched.commit
            except SkillError as exc:
                for entry in group:
                    results[entry.name] = _failed(entry, exc)
                continue
            for entry in group:
                rel = safe_relpath(entry.skill_path) if entry.skill_path else ""
                src = root / rel if rel else root
                try:
                    if rel is None:
                        raise InstallError(
                            f"lockfile entry {entry.name} has an invalid skill_path",
                            hint="fix skills.lock or reinstall the skill",
                        )
                    if not (src / "SKILL.md").exists() and not (src / "skill.md").exists():
                        raise InstallError(
                            f"{entry.skill_path or 'the source root'} no longer holds a skill",
                            hint=f"remove it (`{hint_command('remove', entry.name)}`) or reinstall",
                        )
                    staged = stage_skill(
                        src,
                        root,
                        stage,
                        lim,
                        name=entry.name,
                        on_progress=on_progress,
                        scan=scan_mode(load_config(cwd=cwd)),
                        submodules=fetched.submodules,
                    )
                except SkillError as exc:
                    results[entry.name] = _failed(entry, exc)
                    continue
                current = lay.skill_dir(entry.name)
                # a link in place of the folder is not the installed copy: never read through
                real = current.is_dir() and not current.is_symlink()
                on_disk = skill_file_digests(current) if real else {}
                changes = FileChanges.between(on_disk, staged.files)
                if staged.digest == entry.digest and digest_of_files(on_disk) == entry.digest:
                    results[entry.name] = SkillUpdate(
                        entry.name, "unchanged", entry.digest, staged.digest, entry.commit, commit
                    )
                    continue
                new_entry = replace(
                    entry, commit=commit, digest=staged.digest, files=staged.files, updated_at=when
                )
                if dry_run:
                    results[entry.name] = SkillUpdate(
                        entry.name,
                        "would-update",
                        entry.digest,
                        staged.digest,
                        entry.commit,
                        commit,
                        changes,
                    )
                else:
                    to_commit.append((staged, new_entry, changes, entry))
        report(on_progress, "staged", f"{len(to_commit)} skill(s) checked")
        if to_commit:
            with lay.locked():
                now = lay.read_lock()
                # Another operation may have removed or changed a skill since we read.
                for staged, _new, _changes, old in list(to_commit):
                    if now.get(staged.name) != old:
                        to_commit.remove((staged, _new, _changes, old))
                        results[staged.name] = _failed(
                            old,
                            InstallError(
                                "changed by another operation while updating",
                                hint=f"run `{hint_command('update', staged.name)}` again",
                            ),
                        )
                if to_commit:
                    commit_staged(
                        lay,
                        stage,
                        [(s, e) for s, e, _c, _o in to_commit],
                        keep_installed_at=True,
                        on_progress=on_progress,
                    )
            for staged, new_entry, changes, old in to_commit:
                revoked = staged.digest != old.digest and revoke_lapsed(staged.name, old.digest)
                results[staged.name] = SkillUpdate(
                    staged.name,
                    "updated",
                    old.digest,
                    new_entry.digest,
                    old.commit,
                    new_entry.commit,
                    changes,
                    approvals_revoked=revoked,
                )
    if not dry_run and any(e.placements for e in chosen):
        with lay.locked():
            fresh = lay.read_lock()
            for e in chosen:
                u = results[e.name]
                cur = fresh.get(e.name)
                if u.status == "failed" or cur is None:
                    continue
                done, problem = _sync_placements(lay, cur, [e.digest, cur.digest], cwd)
                results[e.name] = replace(
                    u,
                    placed=tuple(p.path for p in done),
                    repaired=tuple(p.path for p in done if p.action != "kept"),
                    error=problem or u.error,
                )
    ordered = tuple(results[e.name] for e in chosen)
    updated = tuple(u.name for u in ordered if u.status == "updated")
    if updated:
        deliver(events, SkillsUpdated(skills=updated, location=str(lay.installed)))
    return UpdateResult(scope=scope, dry_run=dry_run, skills=ordered)


def _shipped_source(lay: Layout, entry: LockEntry) -> InstallError | None:
    """Refuse a source on this machine outside the project that a project's lockfile
    names, unless this user's skilldeck recorded it (``LockEntry.mac``): the lockfile
    can come with the repository, which would then copy the user's files into it."""
    path = on_this_machine(entry.kind, entry.url)
    if lay.scope != "project" or path is None:
        return None
    project = os.path.realpath(lay.base.parent)
    if os.path.isabs(path) and within(os.path.realpath(path), (project,)):
        return None
    if user_mac_matches(entry.signed_source, entry.mac):
        return None
    sub = ("--path", entry.skill_path) if entry.skill_path else ()
    again = hint_command(
        "install", entry.url, *sub, "--name", entry.name, "--scope", "project", "--force"
    )
    return InstallError(
        f"the project's lockfile names a source outside the project, {shown_path(path)}, "
        "that you did not install from",
        hint="the lockfile may have come with the repository; if you trust that source, "
        f"install it yourself: {again}",
    )


def _failed(entry: LockEntry, exc: SkillError) -> SkillUpdate:
    msg = exc.message + (f" (hint: {exc.hint})" if exc.hint else "")
    return SkillUpdate(
        entry.name, "failed", entry.digest, None, entry.commit, None, FileChanges(), error=msg
    )


def remove(
    name: str,
    *,
    scope: Scope = "user",
    cwd: str | os.PathLike[str] | None = None,
    events: SinkLike | None = None,
    on_progress: ProgressCallback | None = None,
) -> RemoveResult:
    """Remove an installed skill: its folder goes in one rename, then the lockfile
    entry and the ``[installed.<name>]`` config table."""
    lay = layout(scope, cwd=cwd)
    target = lay.skill_dir(name)
    with Stage(lay) as stage, lay.locked():
        entries = lay.read_lock()
        if name not in entries and not os.path.lexists(target):
            raise _unknown(name, lay, entries)
        old_digest = entries[name].digest if name in entries else None
        old_places = entries[name].placements if name in entries else ()
        ops = [{"op": "remove", "name": name}]
        stage.write_intent(ops)
        report(on_progress, "swap", f"removing {name}")
        if os.path.lexists(target):
            (stage.path / "old").mkdir()
            swap_out(lay, name, stage.path / "old" / name)
        report(on_progress, "record", "recording")
        apply_ops(lay, ops)
        where = targets(lay.scope, lay.base, name, old_places)
        removed, kept = unplace(where, target, [old_digest] if old_digest else [])
    if old_digest is not None:
        revoke_lapsed(name, old_digest)
    deliver(events, SkillsRemoved(skills=(name,), location=str(lay.installed)))
    return RemoveResult(
        scope=scope, name=name, path=str(target), unplaced=tuple(removed), kept=tuple(kept)
    )


def verify(
    names: Sequence[str] | None = None,
    *,
    scope: Scope = "user",
    cwd: str | os.PathLike[str] | None = None,
) -> VerifyReport:
    """Check every installed skill's files against the lockfile's digests.

    A modified, added or removed file, a missing folder, or a link or special
    file inside a skill makes that skill fail. Folders in the skills directory
    that the lockfile does not know are listed as ``untracked``. Verifying
    writes nothing (no lock file, no state folder in a project) unless an
    interrupted operation must be finished first.
    """
    lay = layout(scope, cwd=cwd)
    entries = lay.read_settled()
    missing = [n for n in names or () if n not in entries]
    if missing:
        raise _unknown(missing[0], lay, entries)
    chosen = [entries[n] for n in dict.fromkeys(names)] if names else list(entries.values())
    checks: list[SkillVerification] = []
    for entry in sorted(chosen, key=lambda e: e.name) if not names else chosen:
        folder = lay.skill_dir(entry.name)
        if not folder.is_dir() or folder.is_symlink():
            gone = (
                "a link in place of the folder"
                if folder.is_symlink()
                else "not a folder"
                if os.path.lexists(folder)
                else "folder missing"
            )
            checks.append(SkillVerification(entry.name, False, entry.digest, None, problem=gone))
            continue
        files = skill_file_digests(folder)
        actual = digest_of_files(files)
        changes = FileChanges.between(entry.files, files)
        stray = stray_entries(folder)
        problem = None
        if stray:
            problem = "holds files outside the digest: " + ", ".join(stray[:5])
        elif actual != entry.digest:
            problem = "files differ from the lockfile"
        places = placement_checks(lay, entry, enabled=_enabled(entry.name, cwd))
        drift = [p for p in places if p.problem]
        if problem is None and drift:
            problem = f"agent folder {drift[0].path}: {drift[0].problem}"
        checks.append(
            SkillVerification(
                entry.name, problem is None, entry.digest, actual, changes, problem, places
            )
        )
    untracked: tuple[str, ...] = ()
    if lay.installed.is_dir():
        untracked = tuple(sorted(p.name for p in lay.installed.iterdir() if p.name not in entries))
    return VerifyReport(scope=scope, skills=tuple(checks), untracked=untracked)


def set_skill_enabled(
    name: str,
    enabled: bool,
    *,
    scope: Scope = "user",
    cwd: str | os.PathLike[str] | None = None,
) -> Path:
    """Enable or disable a skill by name (any source, bundled included).

    Edits ``[catalog].disabled`` in the scope's config file, and the
    ``enabled`` flag of ``[installed.<name>]`` (or ``[plugins.<name>]``, its older
    spelling) when the skill was installed.
    An installed skill placed in agents' folders is taken out of them when
    disabled (agents have no disabled list) and put back when enabled.
    Returns the config file written. A name no skill can have (a line break, a
    control character, a ``/``) is refused with ``InvalidArgumentsError``.
    """
    source, _, bare = name.rpartition(":")  # SOURCE:NAME names one copy
    if not usable_name(bare) or not source.isprintable():
        raise InvalidArgumentsError(
            f"{name!r} is not a skill name",
            field="name",
            hint="give a skill's name as `skilldeck list --all` shows it, or SOURCE:NAME",
        )

    def mutate(doc: TOMLDocument) -> None:
        catalog = doc.get("catalog")
        if not isinstance(catalog, Table):
            catalog = tomlkit.table()
            doc["catalog"] = catalog
        current = catalog.get("disabled")
        names = [str(v) for v in current] if isinstance(current, Array | list) else []
        if enabled:
            names = [n for n in names if n != name]
        elif name not in names:
            names.append(name)
        if names or "disabled" in catalog:
            catalog["disabled"] = names
        for spelling in ("installed", "plugins"):
            records = doc.get(spelling)
            if isinstance(records, Table) and isinstance(records.get(name), Table):
                records[name]["enabled"] = enabled

    written = update_config(scope, mutate, cwd=cwd)
    lay = layout(scope, cwd=cwd)
    entry = lay.read_lock().get(name)
    if entry is not None and entry.placements:
        where = targets(lay.scope, lay.base, name, entry.placements)
        with lay.locked():
            if enabled:
                remember_placed(
                    lay, name, place(where, lay.skill_dir(name), digests=[entry.digest])
                )
            else:
                unplace(where, lay.skill_dir(name), [entry.digest])
    return written
