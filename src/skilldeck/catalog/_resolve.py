"""Resolving candidates into one visible skill per name: precedence, status, collapse.

Precedence: candidates arrive lowest first; a later one wins. Byte-identical
copies (the same folder reached twice, or equal content digests) collapse into
one entry. Status of each candidate: ``invalid`` (errors in lenient mode),
``disabled`` (by config, by name or ``SOURCE:NAME``, a bundled skill left
out of ``enabled_bundled``, or its plugin is disabled), ``unavailable`` (a
required command is not on PATH or an
environment variable is unset; other requirement kinds are reported as
unchecked, not missing), ``enabled``; an enabled candidate below the visible
one of its name is ``shadowed``. Invalid, disabled and unavailable candidates do
not shadow. A resolver remembers its last result and reuses the entries of
names whose candidates did not change.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from operator import attrgetter
from pathlib import Path

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import SkillError, hint_command
from skilldeck._paths import within
from skilldeck.catalog import _codes as C
from skilldeck.catalog._model import (
    CatalogEntry,
    SkillMetadata,
    SkillStatus,
    Source,
    entry_of,
    of_source,
    raw_diagnostics,
    skill_md_text,
    with_notes,
)
from skilldeck.catalog._store import StoreBase
from skilldeck.config import Config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "Batch", "ByName", "Candidate", "Listed", "Requirements", "Resolver", "State", "Stores",
    "changed", "collapse", "same_name_hint",
]  # fmt: skip

_ENABLED = SkillStatus.ENABLED
_NAME = attrgetter("name")


def same_name_hint(path: Path | None) -> str:
    """The hint of a skill hidden by one of the same name in its own source: its
    address names the other, so only its folder reaches it."""
    if path is None:
        return "rename one of them (name and folder)"
    return f"rename one of them (name and folder); read this one with: {hint_command('show', path)}"


class Candidate:
    """One skill found by one store, at one precedence rank (higher wins).

    A plain class, not a dataclass: nothing compares or prints one, and making a
    dataclass costs start-up about 4 M instructions (so does ``State``'s)."""

    __slots__ = ("duplicates", "meta", "rank", "source", "store")

    def __init__(self, meta: SkillMetadata, store: StoreBase, source: Source, rank: int) -> None:
        self.meta = meta
        self.store = store
        self.source = source
        self.rank = rank
        self.duplicates: list[Path] = []


#: a candidate with its store and source
Listed = tuple[SkillMetadata, StoreBase, Source]

#: one store's candidates, most preferred first, with the store and their source (whose
#: name each metadata's ``source`` is); the catalog passes them lowest precedence first
Batch = tuple[Sequence[SkillMetadata], StoreBase, Source]


class Stores:
    """The store of each candidate: by source name where a source has one store (the
    usual case: no entry per skill), else by the metadata object."""

    __slots__ = ("by_id", "by_source")

    def __init__(self, by_source: dict[str, StoreBase], by_id: dict[int, StoreBase]) -> None:
        self.by_source = by_source
        self.by_id = by_id

    def of(self, meta: SkillMetadata) -> StoreBase:
        """The store ``meta`` came from (a candidate of the state that made this)."""
        store = self.by_id.get(id(meta)) if self.by_id else None
        return store if store is not None else self.by_source[meta.source]


class ByName(Mapping[str, tuple[CatalogEntry, ...]]):
    """Entries by name, highest precedence first. The entry of a name that had one
    candidate is held bare in ``one`` (no 1-tuple for each of 100,000 names); names
    that had several are in ``many``."""

    __slots__ = ("many", "one")

    def __init__(
        self, one: dict[str, CatalogEntry], many: dict[str, tuple[CatalogEntry, ...]]
    ) -> None:
        self.one = one
        self.many = many

    def __getitem__(self, name: str) -> tuple[CatalogEntry, ...]:
        entry = self.one.get(name)
        return (entry,) if entry is not None else self.many[name]

    def get(self, name: str, default: Any = None) -> Any:
        entry = self.one.get(name)
        return (entry,) if entry is not None else self.many.get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self.one or name in self.many

    def __iter__(self) -> Iterator[str]:
        yield from self.one
        yield from self.many

    def __len__(self) -> int:
        return len(self.one) + len(self.many)


_EMPTY = ByName({}, {})


class State:
    """One consistent snapshot of a catalog (never changed once made)."""

    __slots__ = ("by_name", "diagnostics", "entries", "roots", "stores", "visible")

    def __init__(
        self,
        entries: tuple[CatalogEntry, ...],
        visible: Mapping[str, CatalogEntry],
        by_name: Mapping[str, tuple[CatalogEntry, ...]],  # highest precedence first
        stores: Stores,
        diagnostics: tuple[Diagnostic, ...],
        roots: tuple[Any, ...],  # RootInfo
    ) -> None:
        self.entries = entries
        self.visible = visible
        self.by_name = by_name
        self.stores = stores
        self.diagnostics = diagnostics
        self.roots = roots


class _Groups:
    """Candidates grouped by name: ``first`` holds each name's highest-precedence
    candidate, ``more`` every candidate (highest first) of the names that have several."""

    __slots__ = ("first", "more", "sources", "stores")

    def __init__(self, batches: Sequence[Batch]) -> None:
        by_source: dict[str, StoreBase | None] = {}
        self.sources: dict[str, Source] = {}
        for _metas, store, src in batches:
            seen = by_source.get(src.name, store)
            by_source[src.name] = store if seen is store else None
            self.sources[src.name] = src
        sole = {name: store for name, store in by_source.items() if store is not None}
        by_id: dict[int, StoreBase] = {}
        first: dict[str, SkillMetadata] = {}
        more: dict[str, list[SkillMetadata]] = {}
        put = first.setdefault
        for metas, store, src in reversed(batches):
            if src.name not in sole or not of_source(metas, src.name):
                by_id.update((id(m), store) for m in metas)
            names = [*map(_NAME, metas)]
            if not first:
                first.update(zip(names, metas, strict=True))
                if len(first) == len(names):
                    continue  # no name twice (the usual case): grouped in C
                first.clear()
            for name, meta in zip(names, metas, strict=True):
                had = put(name, meta)
                if had is not meta:
                    bucket = more.get(name)
                    if bucket is None:
                        more[name] = [had, meta]
                    else:
                        bucket.append(meta)
        self.first, self.more = first, more
        self.stores = Stores(sole, by_id)

    def listed(self, metas: Sequence[SkillMetadata]) -> list[Listed]:
        of, sources = self.stores.of, self.sources
        return [(m, of(m), sources[m.source]) for m in metas]


class Resolver:
    """Turns scanned candidates into catalog entries for one catalog's config."""

    def __init__(
        self,
        config: Config,
        sources: Sequence[Source],
        *,
        check_requirements: bool,
        environ: Mapping[str, str] | None,
    ) -> None:
        self.config = config
        self.sources = tuple(sources)
        self.check_requirements = check_requirements
        self._environ = environ
        # the last resolve, for reuse: name -> entries (its State's by_name), and the
        # candidates of the names that had more than one (one candidate: its entry's
        # metadata; no tuple per name kept for 100,000 names that have one)
        self._resolved: ByName = _EMPTY
        self._multi: dict[str, tuple[SkillMetadata, ...]] = {}
        self._needs: list[str] = []  # names whose status depends on PATH or the environment

    def resolve(
        self,
        batches: Sequence[Batch],
        diags: list[Diagnostic],
        roots: list[Any],
        before: State | None,
    ) -> State:
        """Group candidates (batches lowest precedence first) by name, highest first,
        and give each a status. ``Candidate`` objects are made only for names that
        need them."""
        groups = _Groups(batches)
        if before is not None and self.unchanged(groups):
            return State(
                before.entries,
                before.visible,
                before.by_name,
                before.stores,
                tuple(diags),
                tuple(roots),
            )
        checker = Requirements(self._environ) if self.check_requirements else None
        disabled = set(self.config.disabled)
        plugin_paths = self.disabled_plugin_paths()
        simple = not disabled and not plugin_paths and self.config.enabled_bundled is None
        entries: list[CatalogEntry] = []
        one: dict[str, CatalogEntry] = {}
        many: dict[str, tuple[CatalogEntry, ...]] = {}
        all_visible = True  # every name has one candidate, enabled: visible is ``one``
        sources, stores, more = groups.sources, groups.stores, groups.more
        previous, previous_multi = self._resolved.one, self._multi
        multi: dict[str, tuple[SkillMetadata, ...]] = {}
        needs: list[str] = []  # names whose status can change with PATH or the environment
        first, held_notes = groups.first, raw_diagnostics
        for name in sorted(first):
            group = more.get(name)
            if group is None:  # the common case: one candidate, nothing to compare
                meta = first[name]
                last = previous.get(name) if previous else None
                if (
                    last is not None
                    and last.metadata is meta
                    and not meta.requires_commands
                    and not meta.requires_env
                ):
                    # unchanged: its status depends only on the config
                    one[name] = last
                    entries.append(last)
                    all_visible = all_visible and last.status is _ENABLED
                    continue
                src = sources[meta.source]
                if (
                    simple
                    and meta.valid
                    and not (meta.requires_commands or meta.requires_env or meta.requires_other)
                ):  # own_status would say enabled with no notes: skip asking
                    status, reason, notes = _ENABLED, None, held_notes(meta)
                else:
                    status, reason, extra = self.own_status(
                        Candidate(meta, stores.of(meta), src, 0), disabled, plugin_paths, checker
                    )
                    notes = with_notes(held_notes(meta), extra)
                    if meta.requires_commands or meta.requires_env:
                        needs.append(name)
                entry = entry_of(
                    name, src.name, status, meta, reason, None, src.trust, notes, ()
                )  # fmt: skip
                all_visible = all_visible and status is _ENABLED
                one[name] = entry
                entries.append(entry)
                continue
            all_visible = False
            needs.append(name)
            metas = tuple(group)
            multi[name] = metas
            last_metas = previous_multi.get(name)
            if (
                last_metas is not None
                and len(last_metas) == len(metas)
                and all(a is b for a, b in zip(last_metas, metas, strict=True))
                and not any(m.requires_commands or m.requires_env for m in metas)
            ):
                # unchanged candidates whose status depends only on this catalog's config
                made_again = self._resolved.many[name]
                many[name] = made_again
                entries.extend(made_again)
                continue
            made = self._resolve_group(
                name, groups.listed(metas), disabled, plugin_paths, checker
            )  # fmt: skip
            many[name] = made
            entries.extend(made)
        by_name = ByName(one, many)
        visible = one if all_visible else {e.name: e for e in entries if e.status is _ENABLED}
        self._resolved, self._multi = by_name, multi
        self._needs = needs
        return State(tuple(entries), visible, by_name, stores, tuple(diags), tuple(roots))

    def _resolve_group(
        self,
        name: str,
        raw: list[Listed],
        disabled: set[str],
        plugin_paths: list[tuple[str, str]],
        checker: Requirements | None,
    ) -> tuple[CatalogEntry, ...]:
        """The entries of a name with several candidates (highest first): identical
        copies collapsed, each with its status, the ones below the winner shadowed."""
        group = collapse([Candidate(meta, store, src, 0) for meta, store, src in raw])
        own = [self.own_status(c, disabled, plugin_paths, checker) for c in group]
        winner = next((i for i, (st, _, _) in enumerate(own) if st is SkillStatus.ENABLED), None)
        made: list[CatalogEntry] = []
        for i, (cand, (status, reason, extra)) in enumerate(zip(group, own, strict=True)):
            shadowed_by = None
            if winner is not None and i > winner and status is SkillStatus.ENABLED:
                top = group[winner]
                shadowed_by = f"{top.source.name}:{name}"
                status = SkillStatus.SHADOWED
                if top.source.name == cand.source.name:
                    reason = (
                        f"not used: {top.meta.path} has the same name in the same "
                        "source and is preferred"
                    )
                    extra = (
                        *extra,
                        Diagnostic.make(
                            C.DUPLICATE_NAME,
                            f"two skills named {name!r} in source {top.source.name}: "
                            f"{top.meta.path} is used, {cand.meta.path} is hidden "
                            "(preferred: outside translation folders, then shallowest, "
                            "then first in path order)",
                            path=str(cand.meta.path) if cand.meta.path else None,
                            hint=same_name_hint(cand.meta.path),
                        ),
                    )
                else:
                    reason = f"shadowed by {shadowed_by} ({top.meta.path})"
                    extra = (
                        *extra,
                        Diagnostic.make(
                            C.SHADOWED,
                            f"{cand.source.name}:{name} is hidden by {shadowed_by}",
                            path=str(cand.meta.path) if cand.meta.path else None,
                            hint=f"address it as {cand.source.name}:{name}",
                        ),
                    )
            made.append(
                CatalogEntry(
                    name,
                    cand.source.name,
                    status,
                    cand.meta,
                    reason,
                    shadowed_by,
                    cand.source.trust,
                    cand.meta.diagnostics + tuple(extra),
                    tuple(cand.duplicates),
                )
            )
        return tuple(made)

    def requirements_unchanged(self, state: State) -> bool:
        """Would every skill with requirements keep its status now (PATH, env)?"""
        if not self.check_requirements:
            return True
        checker = Requirements(self._environ)
        disabled = set(self.config.disabled)
        plugins = self.disabled_plugin_paths()
        sources = {s.name: s for s in self.sources}
        for name in self._needs:
            for entry in state.by_name.get(name, ()):
                meta = entry.metadata
                if not (meta.requires_commands or meta.requires_env):
                    continue
                if len(state.by_name[name]) > 1:
                    return False
                cand = Candidate(meta, state.stores.of(meta), sources[entry.source], 0)
                status, reason, _ = self.own_status(cand, disabled, plugins, checker)
                if status is not entry.status or reason != entry.reason or name != entry.name:
                    return False
        return True

    def unchanged(self, groups: _Groups) -> bool:
        """Is every candidate the same object as last time, and no status able to
        change (requirements are re-checked on every refresh)?"""
        previous, previous_multi = self._resolved, self._multi
        first, more = groups.first, groups.more
        if len(previous) != len(first):
            return False
        checker = Requirements(self._environ) if self.check_requirements else None
        disabled = set(self.config.disabled)
        plugins = self.disabled_plugin_paths()
        for name, meta in first.items():
            group = more.get(name)
            metas = previous_multi.get(name)
            if metas is not None:  # several candidates: the same objects, none with needs
                if group is None or len(metas) != len(group):
                    return False
                for was, now in zip(metas, group, strict=True):
                    if was is not now or was.requires_commands or was.requires_env:
                        return False
                continue
            entry = previous.one.get(name)
            if group is not None or entry is None or entry.metadata is not meta:
                return False
            if meta.requires_commands or meta.requires_env:
                cand = Candidate(meta, groups.stores.of(meta), groups.sources[meta.source], 0)
                status, reason, _ = self.own_status(cand, disabled, plugins, checker)
                if entry.status is not status or entry.reason != reason:
                    return False
        return True

    def disabled_plugin_paths(self) -> list[tuple[str, str]]:
        out = []
        for pname, entry in self.config.installed.items():
            raw = entry.get("path")
            if entry.get("enabled", True) is False and isinstance(raw, str):
                out.append((f"plugin {pname} (enabled = false)", os.path.realpath(raw)))
        imported = self.config.imported
        if imported is not None:
            for pname, ppath in imported.disabled_paths:
                out.append((f"plugin {pname} (enabled: false in {imported.file})", ppath))
        return out

    def own_status(
        self,
        cand: Candidate,
        disabled: set[str],
        plugins: list[tuple[str, str]],
        checker: Requirements | None,
    ) -> tuple[SkillStatus, str | None, tuple[Diagnostic, ...]]:
        meta = cand.meta
        if not meta.valid:
            first = meta.errors[0] if meta.errors else None
            why = f"{first.code}: {first.message}" if first else "SKILL.md could not be read"
            return SkillStatus.INVALID, why, ()
        if meta.name in disabled or f"{cand.source.name}:{meta.name}" in disabled:
            return SkillStatus.DISABLED, "disabled by config", ()
        only = self.config.enabled_bundled
        if only is not None and cand.source.kind == "bundled" and meta.name not in only:
            return SkillStatus.DISABLED, "disabled by [catalog] enabled_bundled (not listed)", ()
        if plugins and meta.path is not None:
            real = os.path.realpath(meta.path)
            for pname, ppath in plugins:
                if within(real, (ppath,)):
                    why = f"disabled by {pname}"
                    return SkillStatus.DISABLED, why, ()
        if checker is not None:
            missing, notes = checker.check(meta)
            if missing:
                return SkillStatus.UNAVAILABLE, "; ".join(missing), notes
            return SkillStatus.ENABLED, None, notes
        return SkillStatus.ENABLED, None, ()


def _visible_key(e: CatalogEntry) -> tuple[Any, ...]:
    return (e.source, e.name, e.metadata.folder, e.status, e.metadata.description)


def changed(before: State, after: State) -> bool:
    """Did anything visible change (source, name, folder, status, description)?
    Entries the resolver reused are the same objects and are not compared."""
    if len(before.entries) != len(after.entries):
        return True
    return any(
        a is not b and _visible_key(a) != _visible_key(b)
        for a, b in zip(before.entries, after.entries, strict=True)
    )


def collapse(group: list[Candidate]) -> list[Candidate]:
    """Drop lower-precedence candidates that are byte-identical to a kept one."""
    if len(group) < 2:
        return group
    kept: list[Candidate] = []
    digests: dict[int, str | None] = {}

    def digest(c: Candidate) -> str | None:
        if id(c) not in digests:
            try:
                digests[id(c)] = c.store.digest(c.meta.key)
            except (SkillError, OSError):
                digests[id(c)] = None
        return digests[id(c)]

    for cand in group:
        twin = None
        for k in kept:
            if k.meta.valid != cand.meta.valid:
                continue
            if cand.meta.path is not None and k.meta.path is not None:
                if os.path.realpath(cand.meta.path) == os.path.realpath(k.meta.path):
                    twin = k
                    break
                if _size(k.meta) != _size(cand.meta):
                    continue
            d = digest(cand)
            if d is not None and d == digest(k):
                twin = k
                break
        if twin is None:
            kept.append(cand)
        elif cand.meta.path is not None:
            twin.duplicates.append(cand.meta.path)
    return kept


def _size(meta: SkillMetadata) -> int:
    try:
        return os.stat(meta.skill_md).st_size if meta.skill_md else -1
    except OSError:
        return -1


class Requirements:
    """Checks ``requires`` (commands on PATH, environment variables), memoised."""

    def __init__(self, environ: Mapping[str, str] | None) -> None:
        self.env = environ if environ is not None else os.environ
        self.path = self.env.get("PATH", os.defpath)
        self._which: dict[str, bool] = {}

    def has_command(self, cmd: str) -> bool:
        if cmd not in self._which:
            import shutil  # only skills that require commands need it

            self._which[cmd] = shutil.which(cmd, path=self.path) is not None
        return self._which[cmd]

    def check(self, meta: SkillMetadata) -> tuple[list[str], tuple[Diagnostic, ...]]:
        if not (meta.requires_commands or meta.requires_env or meta.requires_other):
            return [], ()
        where = skill_md_text(meta.folder, meta.md_name)
        missing: list[str] = []
        notes: list[Diagnostic] = []
        cmds = [c for c in meta.requires_commands if not self.has_command(c)]
        if cmds:
            missing.append("missing commands: " + ", ".join(cmds))
            notes.append(
                Diagnostic.make(
                    C.MISSING_COMMAND,
                    f"{meta.name} requires {', '.join(cmds)}, not found on PATH",
                    path=where,
                    hint="install the command or add its folder to PATH",
                )
            )
        env = [v for v in meta.requires_env if not self.env.get(v)]
        if env:
            missing.append("missing environment variables: " + ", ".join(env))
            notes.append(
                Diagnostic.make(
                    C.MISSING_ENV,
                    f"{meta.name} requires the environment variable(s) {', '.join(env)}",
                    path=where,
                    hint="set them in the environment skilldeck runs in",
                )
            )
        if meta.requires_other:
            notes.append(
                Diagnostic.make(
                    C.UNCHECKED_REQUIREMENT,
                    f"{meta.name} requires {', '.join(meta.requires_other)}, which skilldeck "
                    "cannot check (treated as met)",
                    path=where,
                    hint="requirement kinds checked: commands (on PATH) and env (variables)",
                )
            )
        return missing, tuple(notes)
