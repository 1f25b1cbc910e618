"""The Catalog: sources -> stores -> candidates -> one visible skill per name.

Precedence: sources are given lowest first and a later source wins; inside a
source a later root wins; inside one root the first folder in path order wins
(the others are reported as duplicates, SK509), except that in a recursive root
a copy outside translation folders (``ja-JP/``, ``zh-CN/``, ``locales/``) wins
over one inside, and then the shallowest copy (``skills/x`` over
``docs/ja-JP/skills/x``); see ``preferred_order``. Statuses and collapsing of
identical copies are decided by ``_resolve.Resolver``; this module scans,
keeps one consistent snapshot, and answers queries (loads and file reads included).
"""

from __future__ import annotations

import builtins
import os
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._errors import (
    InvalidArgumentsError,
    SkillNotFoundError,
    SkillUnavailableError,
    hint_command,
)
from skilldeck._frozen import value
from skilldeck._gc import paused as _gc_paused
from skilldeck._paths import dirs
from skilldeck._tree import PLACEHOLDER
from skilldeck.catalog._cache import MetadataCache
from skilldeck.catalog._files import walk_all
from skilldeck.catalog._fs import FileSystemStore
from skilldeck.catalog._model import (
    CatalogEntry,
    Root,
    SkillMetadata,
    SkillStatus,
    Source,
    Trust,
    of_source,
    with_code,
)
from skilldeck.catalog._resolve import Batch, Resolver, State, changed
from skilldeck.catalog._store import (
    DEFAULT_FILE_LIMIT,
    Discovery,
    FileFacts,
    Scanned,
    StoreBase,
    as_store,
)
from skilldeck.config import Config, load_config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from skilldeck._tree import Walk
    from skilldeck.catalog._fs import Mode
    from skilldeck.catalog._loaded import FileData, Skill
    from skilldeck.catalog._runnable import Runnable
    from skilldeck.catalog._snapshot import CatalogSnapshot, SnapshotMaker, TreeStamps
    from skilldeck.catalog._types import IndexMode
    from skilldeck.catalog._why import WhyLine
    from skilldeck.config import Budget

__all__ = ["Catalog", "RootInfo"]

_ADDRESS_RANK = {SkillStatus.ENABLED: 0, SkillStatus.SHADOWED: 1}


#: a folder name that holds translations: ``ja-JP``, ``zh_CN``, ``zh-Hans``, ``pt-BR``,
#: ``locales``, ``i18n`` (a bare language code such as ``ja`` too, from a short list);
#: compiled on first use (``re``'s cache): only same-name copies in a recursive root ask,
#: and compiling it costs a listing's start-up more than its whole resolution
_LOCALE_DIR = (
    r"(?:[a-z]{2,3}[-_](?:[A-Za-z]{2}|[A-Z][a-z]{3}|\d{3})(?:[-_][A-Za-z]{2})?"
    r"|ar|de|es|fr|he|hi|id|it|ja|ko|nl|pl|pt|ru|sv|th|tr|uk|vi|zh"
    r"|i18n|l10n|locales?|translations?)"
)


def _in_translation(folder: str, root: str) -> bool:
    rel = folder[len(root) :] if folder.startswith(root) else folder
    locale_dir = re.compile(_LOCALE_DIR, re.IGNORECASE)
    return any(locale_dir.fullmatch(part) for part in rel.split(os.sep)[:-1] if part)


def preferred_order(skills: Sequence[SkillMetadata], root: str) -> Sequence[SkillMetadata]:
    """Same-name copies in one recursive root, most preferred first: a copy outside
    translation folders, then the shallowest, then the first in path order. The
    order of skills without a same-name copy does not matter (resolution is per name),
    so the list is returned as is when every name is unique."""
    names = {m.name for m in skills}
    if len(names) == len(skills):
        return skills
    counts: dict[str, int] = {}
    for m in skills:
        counts[m.name] = counts.get(m.name, 0) + 1

    def key(m: SkillMetadata) -> tuple[bool, int]:
        if counts[m.name] < 2 or m.folder is None:
            return (False, 0)
        return (_in_translation(m.folder, root), m.folder.count(os.sep))

    return sorted(skills, key=key)  # stable: path order breaks ties


def _without_placeholders(
    skills: Sequence[SkillMetadata], diags: builtins.list[Diagnostic]
) -> Sequence[SkillMetadata]:
    """The skills that are not template placeholders (SK219: never listed or
    served); each one left out is reported in ``diags`` (as info: ``doctor``
    shows it, ``validate`` gives the warning)."""
    found = with_code(skills, PLACEHOLDER)
    if not found:
        return skills
    diags.extend(d.with_severity(Severity.INFO) for _i, d in found)
    left_out = {i for i, _d in found}
    return [meta for i, meta in enumerate(skills) if i not in left_out]


@value
class RootInfo:
    """One root of one source, as ``doctor`` reports it."""

    source: str
    path: Path
    recursive: bool
    exists: bool
    skills: int
    diagnostics: tuple[Diagnostic, ...] = ()
    repository: bool = False

    @property
    def mode(self) -> str:
        """``recursive``, ``repository`` (a repository's layouts) or ``immediate``."""
        if self.recursive:
            return "recursive"
        return "repository" if self.repository else "immediate"


class Catalog:
    """Skills from several sources with precedence, status, caching and watching.

    Build one with ``Catalog.default()`` (configured and default sources),
    ``Catalog.from_roots(paths)`` (explicit roots, later wins) or
    ``Catalog(sources)``. The first query scans; ``refresh()`` rescans, reading
    only SKILL.md files whose path, mtime or size changed. Thread-safe: queries
    see one consistent snapshot.

    ``mode`` is how SKILL.md files are loaded: ``"lenient"`` (the default)
    accepts what agents accept and warns, ``"strict"`` makes every deviation
    from the format an error (the skill is listed as invalid). Without it the
    config's ``[catalog] mode`` decides. A source's ``store`` may be any
    ``Store``; the parts ``StoreBase`` adds get their defaults when it lacks them.
    A store that discovers a root folder (``StoreBase.folder_root``, a
    ``FileSystemStore``) is not scanned again through its source's ``roots``:
    one folder gives one skill, whatever the route. ``keep_frontmatter`` keeps
    the frontmatter of every SKILL.md a scan parses (``SkillMetadata.frontmatter_json``)
    for a caller that publishes it, such as an MCP server, and the digest of each one
    it read whole, so the next ``snapshot`` does not read it again.
    """

    def __init__(
        self,
        sources: Sequence[Source],
        *,
        config: Config | None = None,
        cache: bool | str | os.PathLike[str] = True,
        index: IndexMode = "bundled",
        mode: Mode | None = None,
        check_requirements: bool = True,
        environ: Mapping[str, str] | None = None,
        keep_frontmatter: bool = False,
    ) -> None:
        self.sources: tuple[Source, ...] = tuple(sources)
        names = [s.name for s in self.sources]
        if len(set(names)) != len(names):
            raise InvalidArgumentsError(
                "source names must be unique: " + ", ".join(names),
                field="sources",
                hint="give each Source its own name",
            )
        self.config = config if config is not None else Config()
        self.index: IndexMode = index
        chosen = mode if mode is not None else self.config.mode
        if chosen not in ("lenient", "strict"):
            raise InvalidArgumentsError(
                f"unknown loading mode {chosen!r}",
                field="mode",
                hint='use mode="lenient" (the default) or mode="strict"',
            )
        self.mode: Mode = chosen
        self.check_requirements = check_requirements
        self._environ = environ
        if cache is True:
            self._cache: MetadataCache | None = MetadataCache(dirs().cache / "catalog")
        elif cache is False:
            self._cache = None
        else:
            self._cache = MetadataCache(Path(cache))
        allowed = [r.path for s in self.sources for r in s.roots]
        self._stores: list[tuple[Source, Root | None, StoreBase]] = []
        for src in self.sources:
            covered: set[tuple[str, bool]] = set()
            if src.store is not None:
                store = as_store(src.store)
                self._stores.append((src, None, store))
                folder = store.folder_root()
                if folder is not None:  # its root is not scanned twice
                    covered.add(folder)
            for root in src.roots:
                if (os.path.realpath(root.path), root.recursive) in covered:
                    continue
                store = FileSystemStore(
                    root.path,
                    recursive=root.recursive,
                    source=src.name,
                    allowed_roots=allowed,
                    cache=self._cache,
                    index=index,
                    mode=self.mode,
                    repository=root.repository,
                    keep_frontmatter=keep_frontmatter,
                )
                self._stores.append((src, root, store))
        self._lock = threading.RLock()
        self._state: State | None = None
        self._resolver = Resolver(
            self.config, self.sources, check_requirements=check_requirements, environ=environ
        )
        self._last_found: builtins.list[Discovery] = []
        self._snapshots: SnapshotMaker | None = None  # made by the first snapshot()

    # ------------------------------------------------------------------ builders

    @classmethod
    def from_roots(
        cls,
        paths: Iterable[str | os.PathLike[str]],
        *,
        recursive: bool = False,
        **options: Any,
    ) -> Catalog:
        """A catalog of explicit roots only (sources ``root1``, ``root2``, ...; later wins).

        A root without SKILL.md of its own may be a repository of skills: its
        layouts are searched (``skills/<name>``, plugin folders, ... see ``Root``).
        ``options`` are ``Catalog``'s (``mode="strict"``, ``cache``, ``index``, ...).
        """
        sources = [
            Source.of(f"root{i}", "root", [p], recursive=recursive, repository=True)
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
        from skilldeck.catalog._sources import default_sources

        cfg = config if config is not None else load_config(cwd=cwd)
        return cls([*default_sources(cfg, cwd=cwd), *extra_sources], config=cfg, **options)

    # ------------------------------------------------------------------ scanning

    def _snapshot(self) -> State:
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
            if before.entries is self._state.entries:
                return False
            return changed(before, self._state)

    def _build(self, *, refresh: bool) -> State:
        """Scan every store, then resolve precedence and status."""
        with _gc_paused():
            return self._build_unpaused(refresh=refresh)

    def _build_unpaused(self, *, refresh: bool) -> State:
        scans = [store.discover(refresh=refresh) for _src, _root, store in self._stores]
        before = self._state
        if (
            before is not None
            and len(scans) == len(self._last_found)
            and all(a is b for a, b in zip(scans, self._last_found, strict=True))
            and self._resolver.requirements_unchanged(before)
        ):
            return before  # no store saw a change: the last result stands
        self._last_found = scans
        diags: list[Diagnostic] = []
        roots: list[RootInfo] = []
        batches: list[Batch] = []
        for (src, root, store), scan in zip(self._stores, scans, strict=True):
            diags.extend(scan.diagnostics)
            skills: Sequence[SkillMetadata] = _without_placeholders(scan.skills, diags)
            if root is not None:
                roots.append(
                    RootInfo(
                        src.name,
                        root.path,
                        root.recursive,
                        store.exists,
                        len(skills),
                        scan.diagnostics,
                        repository=root.repository,
                    )
                )
            # inside a root, the first folder in path order wins
            name = src.name
            if root is not None and root.recursive:
                skills = preferred_order(skills, str(root.path))
            if not of_source(skills, name):
                from dataclasses import replace  # (not imported by a listing that needs none)

                skills = [m if m.source == name else replace(m, source=name) for m in skills]
            batches.append((skills, store, src))
        return self._resolver.resolve(batches, diags, roots, self._state)

    # ------------------------------------------------------------------ status

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

    def skill_md_stamps(self, metas: Sequence[SkillMetadata]) -> builtins.list[bytes | None]:
        """The stamp of each of ``metas``' SKILL.md as the last scan validated it
        (its packed stat signature, ``StoreBase.skill_md_stamps``); ``None`` where
        the catalog keeps none (a link, a file changed while it was read, a store
        that keeps no signatures, metadata of another listing): stat that file."""
        held: dict[int, bytes] = {}
        for _src, _root, store in self._stores:
            held.update(store.skill_md_stamps())
        return [held.get(id(meta)) for meta in metas]

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
            matches = [e for e in state.by_name.get(bare, ()) if e.source == source]
            if not matches:
                raise self._not_found(name, state)
            # Within one source a usable copy beats an invalid or disabled one that
            # happens to sort first (duplicates at two depths of a recursive root).
            return min(matches, key=lambda e: _ADDRESS_RANK.get(e.status, 2))
        found = state.visible.get(name)
        if found is not None:
            return found
        cands = state.by_name.get(name)
        if cands:
            return cands[0]
        raise self._not_found(name, state)

    def _not_found(self, name: str, state: State) -> SkillNotFoundError:
        import difflib

        bare = name.partition(":")[2] or name
        close = difflib.get_close_matches(bare, list(state.visible), n=3)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        hint += f"to see where it was looked for, run: {hint_command('why', bare)}"
        return SkillNotFoundError(f"no skill named {name!r}", skill=name, hint=hint)

    def _usable(self, name: str) -> tuple[CatalogEntry, StoreBase]:
        entry = self.get(name)
        if entry.status not in (SkillStatus.ENABLED, SkillStatus.SHADOWED):
            raise SkillUnavailableError(
                f"skill {entry.address} is {entry.status.value}: {entry.reason}",
                skill=entry.name,
                status=entry.status.value,
                hint=f"for details, run: {hint_command('why', entry.name)}",
            )
        return entry, self._snapshot().stores.of(entry.metadata)

    def load(
        self, name: str, *, max_bytes: int | None = None, index: IndexMode | None = None
    ) -> Skill:
        """Load: the skill's body (at most ``max_bytes`` of SKILL.md) and file index.

        ``index="all"`` lists every file of the skill instead of the default
        ``scripts/``, ``references/``, ``assets/`` files one level deep.
        """
        from dataclasses import replace

        entry, store = self._usable(name)
        skill = store.load_skill(entry.metadata.key, max_bytes=max_bytes)
        if skill.metadata is not entry.metadata:
            skill = replace(skill, metadata=entry.metadata)
        if index is not None and index != self.index:
            skill = replace(skill, files=store.files(entry.metadata.key, index=index))
        return skill

    def runnable(self, name: str) -> Skill | Runnable:
        """The skill as a run reads it (``execution.SkillLike``): ``load(name)``, or,
        while its SKILL.md is unchanged since the scan (``StoreBase.run_settings``),
        a ``Runnable`` with the run settings the scan parsed, which loads the body
        only if it is read. The same errors as ``load`` for a skill it cannot load."""
        entry, store = self._usable(name)
        settings = store.run_settings(entry.metadata.key)
        if settings is None:
            return self.load(name)
        from skilldeck.catalog._runnable import Runnable

        return Runnable(entry.metadata, settings, lambda: self.load(name))

    def files(self, name: str, *, index: IndexMode | None = None) -> tuple[str, ...]:
        """The skill's file index (``bundled`` dirs one level deep, or ``all``)."""
        entry, store = self._usable(name)
        return store.files(entry.metadata.key, index=index)

    def read_bundled(
        self,
        name: str,
        relpath: str,
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> FileData:
        """A file read with details: the bytes, the full size, and whether they were cut."""
        entry, store = self._usable(name)
        return store.read_bundled(
            entry.metadata.key, relpath, max_bytes=max_bytes, truncate=truncate, index=index
        )

    def read_file(self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT) -> bytes:
        """One bundled file's bytes (``FileTooLargeError`` over ``max_bytes``)."""
        return self.read_bundled(name, relpath, max_bytes=max_bytes).data

    def skill_md_bytes(
        self, name: str, *, max_bytes: int = DEFAULT_FILE_LIMIT, truncate: bool = False
    ) -> FileData:
        """The skill's SKILL.md as stored: the bytes ``digest`` covers, for any store
        (``StoreBase.skill_md_bytes``). ``FileTooLargeError`` over ``max_bytes``
        unless ``truncate``.
        """
        entry, store = self._usable(name)
        return store.skill_md_bytes(entry.metadata.key, max_bytes=max_bytes, truncate=truncate)

    def digest(self, name: str) -> str:
        """The skill's content digest (``sha256:...`` over its files)."""
        entry = self.get(name)
        return self._snapshot().stores.of(entry.metadata).digest(entry.metadata.key)

    def snapshot(
        self,
        *,
        kept: Mapping[str, TreeStamps] | None = None,
        digest_within: tuple[int, int] | None = None,
    ) -> CatalogSnapshot:
        """An immutable snapshot of every entry with its files, change tokens and
        (computed on first use, cached by stamp) file digests; see ``CatalogSnapshot``.

        It reflects the last scan (``refresh()`` first to see changes on disk);
        entries whose token did not change since the last snapshot are the same
        objects, so ``new.diff(old)`` is cheap and digests are not computed again.
        ``kept``: the ``SnapshotEntry.stamps`` an earlier process kept, by entry key;
        a folder entry whose kept stamps all still hold is listed from them with
        ``stat`` alone instead of walking its folder. ``digest_within``
        ``(max_files, max_bytes)``: a folder entry walked now whose files of at most
        ``max_bytes`` are no more than ``max_files`` and ``max_bytes`` in all has them
        read and hashed in the same pass (``SnapshotEntry.within``), through the folder
        opened once, as ``digests`` would read them.
        """
        # a listing never needs these
        from skilldeck.catalog._snapshot import SnapshotMaker, address_of

        maker = self._snapshots
        if maker is None:
            with self._lock:
                if self._snapshots is None:
                    self._snapshots = SnapshotMaker()
                maker = self._snapshots
        state = self._snapshot()
        pairs = [(e, state.stores.of(e.metadata)) for e in state.entries]
        scanned: dict[str, Scanned] = {}  # what the scan read: not read again
        for _src, _root, store in self._stores:
            scanned.update(store.scanned_digests())
        return maker.take(
            pairs,
            walk=self._walk_addressed,
            listing=lambda ref: self.files(ref, index="all"),
            digest=_content_digest,
            reader=self._read_any,
            read_many=self._read_many,
            facts=_file_facts,
            owns=lambda entry: self.get(address_of(entry)) is entry,
            kept=kept,
            digest_within=digest_within,
            scanned=scanned,
        )

    def _walk_addressed(
        self,
        entry: CatalogEntry,
        store: StoreBase,
        pick: Callable[[Walk], Sequence[str]] | None = None,
        max_bytes: int = 0,
    ) -> tuple[str, Walk, bool, Mapping[str, FileData]]:
        """The real folder and files of the skill ``entry``'s address reads, whether
        it is ``entry``'s own (``SOURCE:NAME`` names the first usable copy of a
        source, which may be another folder than ``entry``'s), and the files ``pick``
        chooses read as ``_read_many`` reads them (none when it would refuse)."""
        from skilldeck.catalog._snapshot import address_of

        ref = address_of(entry)
        target = self.get(ref)
        if target is not entry:
            store = self._snapshot().stores.of(target.metadata)
        if pick is not None:
            try:
                self._usable(ref)  # what _read_many refuses is not read here either
            except SkillUnavailableError:
                pick = None
        if pick is not None:
            both = store.tree_read(target.metadata.key, pick, max_bytes=max_bytes, index="all")
            if both is not None:
                return both[0], both[1], target is entry, both[2]
        real, walk = _walk_entry(target, store)
        return real, walk, target is entry, {}

    def _read_any(self, ref: str, relpath: str, max_bytes: int, truncate: bool) -> FileData:
        if relpath == "SKILL.md":
            return self.skill_md_bytes(ref, max_bytes=max_bytes, truncate=truncate)
        return self.read_bundled(ref, relpath, max_bytes=max_bytes, truncate=truncate, index="all")

    def _read_many(
        self, ref: str, relpaths: Sequence[str], max_bytes: int
    ) -> builtins.list[FileData]:
        """``_read_any`` of several files of one skill (its folder opened once)."""
        entry, store = self._usable(ref)
        return store.read_many(entry.metadata.key, relpaths, max_bytes=max_bytes, index="all")

    def trust(self, name: str) -> Trust:
        """The trust level of the skill's source (bundled, user or untrusted)."""
        return self.get(name).trust

    def why(self, name: str, *, budget: int | Budget | None = None) -> builtins.list[WhyLine]:
        """Why ``name`` is or is not visible: one ``WhyLine`` per candidate or near miss."""
        from skilldeck.catalog._why import WhyLine, explain  # imported by why() only
        from skilldeck.config import Budget

        state = self._snapshot()
        bare = name.partition(":")[2] if ":" in name else name
        lines = explain(self, bare, state.by_name.get(bare, ()), state.entries, state.diagnostics)
        chosen = budget if budget is not None else self.config.budget
        visible = state.visible.get(bare)
        if chosen is not None and visible is not None:
            limit = Budget.parse(chosen).chars
            from skilldeck.catalog._budget import plan_skill_list

            plan = plan_skill_list(self.list(), budget=limit, pinned=self.config.pinned)
            if bare in plan.omitted_names:
                lines.append(
                    WhyLine(
                        "over_budget",
                        f"{bare} is left out of the skill list: it does not fit the "
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
        nearest existing parent, where only changes on the way to them count.
        """
        from skilldeck.catalog._watch import Watcher

        return Watcher(self, callback, debounce_ms=debounce_ms)

    def watch_targets(self) -> tuple[builtins.list[Path], builtins.list[Path]]:
        """``watched_paths`` split into those to watch and those to poll
        (``skilldeck.catalog._watch.split_watchable``)."""
        from skilldeck.catalog._watch import split_watchable

        return split_watchable(self.watched_paths())

    def watch_filter(self) -> Callable[[Any, str], bool]:
        """A filter for a file watcher of ``watched_paths()`` (``watch_filter=`` of
        watchfiles): changes inside a root, or on the way to one not created yet."""
        from skilldeck.catalog._watch import on_the_way

        roots = [root.path for _src, root, _store in self._stores if root is not None]
        return on_the_way(roots, self.watched_paths())

    def watched_paths(self) -> builtins.list[Path]:
        out: builtins.list[Path] = []
        for _src, root, _store in self._stores:
            if root is None:
                continue
            p = root.path
            while not p.exists() and p.parent != p:
                p = p.parent
            if p not in out:
                out.append(p)
        return out


def _content_digest(entry: CatalogEntry, store: StoreBase) -> str:
    """A store skill's content digest, asked of its store."""
    return store.digest(entry.metadata.key)


def _file_facts(entry: CatalogEntry, store: StoreBase, content: str) -> Iterable[FileFacts] | None:
    """What a store skill's store knows of the files of version ``content`` (``None``:
    it cannot tell, or another version is current)."""
    return store.file_facts(entry.metadata.key, content)


def _walk_entry(entry: CatalogEntry, store: StoreBase) -> tuple[str, Walk]:
    """A folder skill's real folder and every file the walker lists beneath it (a
    host store's skill with a ``path``: that folder, walked as found)."""
    found = store.tree(entry.metadata.key)
    if found is not None:
        return found
    assert entry.path is not None
    real = os.path.realpath(entry.path)
    return real, walk_all(real)
