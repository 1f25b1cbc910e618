"""The Catalog: sources -> stores -> candidates -> one visible skill per name.

Precedence: sources are given lowest first and a later source wins; inside a
source a later root wins; inside one root the first folder in path order wins
(the others are reported as duplicates, SK509). Byte-identical copies of a
skill (same folder reached twice, or equal content digests) collapse into one
entry without a diagnostic.

Status of each candidate: ``invalid`` (errors in lenient mode), ``disabled``
(by config, by name or ``SOURCE:NAME``, or its plugin is disabled),
``unavailable`` (a required command is not on PATH or an environment variable
is unset; requirements of other kinds are reported as unchecked, not missing),
``enabled``; an enabled candidate below the visible one of its name is
``shadowed``. Invalid, disabled and unavailable candidates do not shadow.
"""

from __future__ import annotations

import difflib
import os
import shutil
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skilldeck._catalog import _codes as C
from skilldeck._catalog._budget import plan_tier1
from skilldeck._catalog._cache import MetadataCache
from skilldeck._catalog._fs import FileSystemStore
from skilldeck._catalog._model import (
    CatalogEntry,
    Root,
    Skill,
    SkillMetadata,
    SkillStatus,
    Source,
    Trust,
)
from skilldeck._catalog._sources import default_sources
from skilldeck._catalog._store import DEFAULT_FILE_LIMIT, FileData, IndexMode, Scan, Store
from skilldeck._catalog._why import explain
from skilldeck._config import Budget, Config, load_config
from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import InternalError, SkillError, SkillNotFoundError, SkillUnavailableError
from skilldeck._paths import dirs

__all__ = ["Catalog", "RootInfo"]


@dataclass(frozen=True, slots=True)
class RootInfo:
    """One root of one source, as ``doctor`` reports it."""

    source: str
    path: Path
    recursive: bool
    exists: bool
    skills: int
    diagnostics: tuple[Diagnostic, ...] = ()


@dataclass(slots=True)
class _Candidate:
    meta: SkillMetadata
    store: Any
    source: Source
    rank: int  # higher wins
    duplicates: list[Path] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _State:
    entries: tuple[CatalogEntry, ...]
    visible: Mapping[str, CatalogEntry]
    by_name: Mapping[str, tuple[CatalogEntry, ...]]  # highest precedence first
    stores: Mapping[int, Any]  # id(entry.metadata) -> store
    diagnostics: tuple[Diagnostic, ...]
    roots: tuple[RootInfo, ...]


class Catalog:
    """Skills from several sources with precedence, status, caching and watching.

    Build one with ``Catalog.default()`` (configured and default sources),
    ``Catalog.from_roots(paths)`` (explicit roots, later wins) or
    ``Catalog(sources)``. The first query scans; ``refresh()`` rescans, reading
    only SKILL.md files whose path, mtime or size changed. Thread-safe: queries
    see one consistent snapshot.
    """

    def __init__(
        self,
        sources: Sequence[Source],
        *,
        config: Config | None = None,
        cache: bool | str | os.PathLike[str] = True,
        index: IndexMode = "bundled",
        check_requirements: bool = True,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.sources: tuple[Source, ...] = tuple(sources)
        names = [s.name for s in self.sources]
        if len(set(names)) != len(names):
            raise SkillError(
                "source names must be unique: " + ", ".join(names),
                hint="give each Source its own name",
            )
        self.config = config if config is not None else Config()
        self.index: IndexMode = index
        self.check_requirements = check_requirements
        self._environ = environ
        if cache is True:
            self._cache: MetadataCache | None = MetadataCache(dirs().cache / "catalog")
        elif cache is False:
            self._cache = None
        else:
            self._cache = MetadataCache(Path(cache))
        allowed = [r.path for s in self.sources for r in s.roots]
        self._stores: list[tuple[Source, Root | None, Any]] = []
        for src in self.sources:
            if src.store is not None:
                self._stores.append((src, None, src.store))
            for root in src.roots:
                store = FileSystemStore(
                    root.path,
                    recursive=root.recursive,
                    source=src.name,
                    allowed_roots=allowed,
                    cache=self._cache,
                    index=index,
                )
                self._stores.append((src, root, store))
        self._lock = threading.RLock()
        self._state: _State | None = None

    # ------------------------------------------------------------------ builders

    @classmethod
    def from_roots(
        cls,
        paths: Iterable[str | os.PathLike[str]],
        *,
        recursive: bool = False,
        **options: Any,
    ) -> Catalog:
        """A catalog of explicit roots only (sources ``root1``, ``root2``, ...; later wins)."""
        sources = [
            Source.of(f"root{i}", "root", [p], recursive=recursive)
            for i, p in enumerate(paths, 1)
        ]
        return cls(sources, **options)

    @classmethod
    def default(
        cls,
        *,
        cwd: str | os.PathLike[str] | None = None,
        config: Config | None = None,
        extra_sources: Sequence[Source] = (),
        **options: Any,
    ) -> Catalog:
        """The configured sources (DESIGN.md's default order unless configured).

        ``extra_sources`` (e.g. inline skills) are added with the highest precedence.
        """
        cfg = config if config is not None else load_config(cwd=cwd)
        return cls([*default_sources(cfg, cwd=cwd), *extra_sources], config=cfg, **options)

    # ------------------------------------------------------------------ scanning

    def _snapshot(self) -> _State:
        state = self._state
        if state is None:
            with self._lock:
                if self._state is None:
                    self._state = self._build(refresh=False)
                state = self._state
        return state

    def refresh(self) -> bool:
        """Rescan every source; returns True when anything visible changed."""
        with self._lock:
            before = self._state
            self._state = self._build(refresh=True)
            if before is None:
                return True
            return _fingerprint(before) != _fingerprint(self._state)

    def _scan_store(self, store: Any, refresh: bool) -> Scan:
        if isinstance(store, FileSystemStore):
            return store.scan(refresh=refresh)
        scan = getattr(store, "scan", None)
        if callable(scan):
            result = scan()
            if isinstance(result, Scan):
                return result
        return Scan(tuple(store.list_skills()))

    def _build(self, *, refresh: bool) -> _State:
        diags: list[Diagnostic] = []
        roots: list[RootInfo] = []
        cands: list[_Candidate] = []
        rank = 0
        for src, root, store in self._stores:
            scan = self._scan_store(store, refresh)
            diags.extend(scan.diagnostics)
            if root is not None:
                roots.append(
                    RootInfo(
                        src.name,
                        root.path,
                        root.recursive,
                        bool(getattr(store, "exists", True)),
                        len(scan.skills),
                        scan.diagnostics,
                    )
                )
            # inside a root, the first folder in path order wins: rank it highest
            for meta in reversed(scan.skills):
                if meta.source != src.name:
                    meta = replace(meta, source=src.name)
                rank += 1
                cands.append(_Candidate(meta, store, src, rank))
        return self._resolve(cands, diags, roots)

    # ------------------------------------------------------------------ status

    def _resolve(
        self, cands: list[_Candidate], diags: list[Diagnostic], roots: list[RootInfo]
    ) -> _State:
        groups: dict[str, list[_Candidate]] = {}
        for cand in sorted(cands, key=lambda c: -c.rank):
            groups.setdefault(cand.meta.name, []).append(cand)
        checker = _Requirements(self._environ) if self.check_requirements else None
        disabled = set(self.config.disabled)
        plugin_paths = self._disabled_plugin_paths()
        entries: list[CatalogEntry] = []
        visible: dict[str, CatalogEntry] = {}
        by_name: dict[str, tuple[CatalogEntry, ...]] = {}
        stores: dict[int, Any] = {}
        for name in sorted(groups):
            group = _collapse(groups[name])
            own = [self._own_status(c, disabled, plugin_paths, checker) for c in group]
            winner = next(
                (i for i, (st, _, _) in enumerate(own) if st is SkillStatus.ENABLED), None
            )
            made: list[CatalogEntry] = []
            for i, (cand, (status, reason, extra)) in enumerate(zip(group, own, strict=True)):
                shadowed_by = None
                if winner is not None and i > winner and status is SkillStatus.ENABLED:
                    top = group[winner]
                    shadowed_by = f"{top.source.name}:{name}"
                    status = SkillStatus.SHADOWED
                    if top.source.name == cand.source.name:
                        reason = f"same name as {top.meta.path} in the same source"
                        extra = (
                            *extra,
                            Diagnostic.make(
                                C.DUPLICATE_NAME,
                                f"two skills named {name!r} in source {top.source.name}: "
                                f"{top.meta.path} is used, {cand.meta.path} is hidden",
                                path=str(cand.meta.path) if cand.meta.path else None,
                                hint="rename one of them (name and folder)",
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
                entry = CatalogEntry(
                    name,
                    cand.source.name,
                    cand.meta.path,
                    status,
                    cand.meta,
                    reason,
                    shadowed_by,
                    cand.source.trust,
                    cand.meta.diagnostics + tuple(extra),
                    tuple(cand.duplicates),
                )
                stores[id(cand.meta)] = cand.store
                made.append(entry)
                if status is SkillStatus.ENABLED:
                    visible[name] = entry
            by_name[name] = tuple(made)
            entries.extend(made)
        return _State(tuple(entries), visible, by_name, stores, tuple(diags), tuple(roots))

    def _disabled_plugin_paths(self) -> list[tuple[str, str]]:
        out = []
        for pname, entry in self.config.plugins.items():
            raw = entry.get("path")
            if entry.get("enabled", True) is False and isinstance(raw, str):
                out.append((pname, os.path.realpath(raw)))
        return out

    def _own_status(
        self,
        cand: _Candidate,
        disabled: set[str],
        plugins: list[tuple[str, str]],
        checker: _Requirements | None,
    ) -> tuple[SkillStatus, str | None, tuple[Diagnostic, ...]]:
        meta = cand.meta
        if not meta.valid:
            first = meta.errors[0] if meta.errors else None
            why = f"{first.code}: {first.message}" if first else "SKILL.md could not be read"
            return SkillStatus.INVALID, why, ()
        if meta.name in disabled or f"{cand.source.name}:{meta.name}" in disabled:
            return SkillStatus.DISABLED, "disabled by config", ()
        if plugins and meta.path is not None:
            real = os.path.realpath(meta.path)
            for pname, ppath in plugins:
                if real == ppath or real.startswith(ppath + os.sep):
                    return SkillStatus.DISABLED, f"plugin {pname} is disabled", ()
        if checker is not None:
            missing, notes = checker.check(meta)
            if missing:
                return SkillStatus.UNAVAILABLE, "; ".join(missing), notes
            return SkillStatus.ENABLED, None, notes
        return SkillStatus.ENABLED, None, ()

    # ------------------------------------------------------------------ queries

    def entries(self, *, include_shadowed: bool = True) -> list[CatalogEntry]:
        """Every candidate with its status, by name then precedence (highest first)."""
        state = self._snapshot()
        if include_shadowed:
            return list(state.entries)
        return [e for e in state.entries if e.status is not SkillStatus.SHADOWED]

    def list(self) -> list[SkillMetadata]:
        """Metadata of the visible (enabled) skills, sorted by name."""
        return [e.metadata for e in self._snapshot().visible.values()]

    def __len__(self) -> int:
        return len(self._snapshot().visible)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._snapshot().visible

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Problems met while scanning roots (not per-skill findings)."""
        return self._snapshot().diagnostics

    @property
    def roots(self) -> tuple[RootInfo, ...]:
        return self._snapshot().roots

    def get(self, name: str) -> CatalogEntry:
        """The visible skill ``NAME``, or the candidate ``SOURCE:NAME`` whatever its status.

        For a name with no visible skill, the highest-precedence candidate is
        returned (its status says why it is hidden). Raises ``SkillNotFoundError``.
        """
        state = self._snapshot()
        if ":" in name:
            source, _, bare = name.partition(":")
            for entry in state.by_name.get(bare, ()):
                if entry.source == source:
                    return entry
            raise self._not_found(name, state)
        found = state.visible.get(name)
        if found is not None:
            return found
        cands = state.by_name.get(name)
        if cands:
            return cands[0]
        raise self._not_found(name, state)

    def _not_found(self, name: str, state: _State) -> SkillNotFoundError:
        bare = name.partition(":")[2] or name
        close = difflib.get_close_matches(bare, list(state.visible), n=3)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        hint += f"run 'skilldeck why {bare}' to see where it was looked for"
        return SkillNotFoundError(f"no skill named {name!r}", skill=name, hint=hint)

    def _usable(self, name: str) -> tuple[CatalogEntry, Any]:
        entry = self.get(name)
        if entry.status not in (SkillStatus.ENABLED, SkillStatus.SHADOWED):
            raise SkillUnavailableError(
                f"skill {entry.address} is {entry.status.value}: {entry.reason}",
                skill=entry.name,
                status=entry.status.value,
                hint=f"run 'skilldeck why {entry.name}' for details",
            )
        return entry, self._snapshot().stores[id(entry.metadata)]

    def load(self, name: str, *, max_bytes: int | None = None) -> Skill:
        """Tier 2: the skill's body (at most ``max_bytes`` of SKILL.md) and file index."""
        entry, store = self._usable(name)
        skill: Skill = store.load_skill(entry.metadata.key, max_bytes=max_bytes)
        if skill.metadata is not entry.metadata:
            skill = replace(skill, metadata=entry.metadata)
        return skill

    def files(self, name: str, *, index: IndexMode | None = None) -> tuple[str, ...]:
        """The skill's file index (``bundled`` dirs one level deep, or ``all``)."""
        entry, store = self._usable(name)
        if hasattr(store, "files"):
            files: tuple[str, ...] = store.files(entry.metadata.key, index=index)
            return files
        return store.load_skill(entry.metadata.key).files  # type: ignore[no-any-return]

    def read_bundled(
        self,
        name: str,
        relpath: str,
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> FileData:
        """Tier 3 with details: the bytes, the full size, and whether they were cut."""
        entry, store = self._usable(name)
        if hasattr(store, "read_bundled"):
            data: FileData = store.read_bundled(
                entry.metadata.key, relpath, max_bytes=max_bytes, truncate=truncate, index=index
            )
            return data
        raw: bytes = store.read_file(entry.metadata.key, relpath, max_bytes=max_bytes)
        return FileData(relpath, raw, len(raw))

    def read_file(
        self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT
    ) -> bytes:
        """Tier 3: one bundled file's bytes (``FileTooLargeError`` over ``max_bytes``)."""
        return self.read_bundled(name, relpath, max_bytes=max_bytes).data

    def digest(self, name: str) -> str:
        """The skill's content digest (``sha256:...`` over its files)."""
        entry = self.get(name)
        store = self._snapshot().stores[id(entry.metadata)]
        if not hasattr(store, "digest"):
            raise InternalError(f"the store of {entry.address} cannot compute digests")
        digest: str = store.digest(entry.metadata.key)
        return digest

    def trust(self, name: str) -> Trust:
        """The trust level of the skill's source (bundled, user or untrusted)."""
        return self.get(name).trust

    def why(self, name: str, *, budget: int | Budget | None = None) -> list[Any]:
        """Why ``name`` is or is not visible: one ``WhyLine`` per candidate or near miss."""
        state = self._snapshot()
        bare = name.partition(":")[2] if ":" in name else name
        lines = explain(self, bare, state.by_name.get(bare, ()), state.entries, state.diagnostics)
        chosen = budget if budget is not None else self.config.budget
        visible = state.visible.get(bare)
        if chosen is not None and visible is not None:
            limit = Budget.parse(chosen).chars
            plan = plan_tier1(self.list(), budget=limit, pinned=self.config.pinned)
            if bare in plan.omitted_names:
                from skilldeck._catalog._model import WhyLine

                lines.append(
                    WhyLine(
                        "over_budget",
                        f"{bare} is left out of the tier-1 list: it does not fit the "
                        f"{limit}-character budget ({len(plan.omitted)} skills left out)",
                        visible.source,
                        visible.path,
                        visible.status,
                        "pin it ([catalog] pinned) or raise [catalog] budget; the model can "
                        "still find it with skills_search",
                    )
                )
        return lines

    def watch(
        self,
        callback: Callable[[Catalog], None],
        *,
        debounce_ms: int = 200,
    ) -> Any:
        """Call ``callback(catalog)`` after the roots change (needs ``skilldeck[watch]``).

        Returns a watcher with ``stop()``; the catalog is refreshed before the
        callback runs. Roots that do not exist yet are watched from their
        nearest existing parent.
        """
        from skilldeck._catalog._watch import Watcher

        return Watcher(self, callback, debounce_ms=debounce_ms)

    def watched_paths(self) -> list[Path]:
        out: list[Path] = []
        for _src, root, _store in self._stores:
            if root is None:
                continue
            p = root.path
            while not p.exists() and p.parent != p:
                p = p.parent
            if p not in out:
                out.append(p)
        return out


def _fingerprint(state: _State) -> tuple[Any, ...]:
    return tuple(
        (e.address, str(e.path), e.status, e.metadata.description) for e in state.entries
    )


def _collapse(group: list[_Candidate]) -> list[_Candidate]:
    """Drop lower-precedence candidates that are byte-identical to a kept one."""
    if len(group) < 2:
        return group
    kept: list[_Candidate] = []
    digests: dict[int, str | None] = {}

    def digest(c: _Candidate) -> str | None:
        if id(c) not in digests:
            try:
                digests[id(c)] = c.store.digest(c.meta.key) if hasattr(c.store, "digest") else None
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


class _Requirements:
    """Checks ``requires`` (commands on PATH, environment variables), memoised."""

    def __init__(self, environ: Mapping[str, str] | None) -> None:
        self.env = environ if environ is not None else os.environ
        self.path = self.env.get("PATH", os.defpath)
        self._which: dict[str, bool] = {}

    def has_command(self, cmd: str) -> bool:
        if cmd not in self._which:
            self._which[cmd] = shutil.which(cmd, path=self.path) is not None
        return self._which[cmd]

    def check(self, meta: SkillMetadata) -> tuple[list[str], tuple[Diagnostic, ...]]:
        if not (meta.requires_commands or meta.requires_env or meta.requires_other):
            return [], ()
        where = str(meta.skill_md) if meta.skill_md else None
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


def _unused(_: Store) -> None:  # keeps the Store import meaningful for type checkers
    return None
