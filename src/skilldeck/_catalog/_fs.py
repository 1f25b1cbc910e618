"""The filesystem store: discovery of skill folders under one root, and bounded reads.

Discovery rules (DESIGN.md):

- ``immediate`` (default): the root's direct sub-folders holding ``SKILL.md``
  are skills (a root that itself holds SKILL.md is one skill). Names starting
  with ``.`` are skipped.
- ``recursive``: any folder at any depth (up to ``max_depth``) holding SKILL.md,
  including skills nested inside other skills. ``.git``, ``node_modules``,
  virtualenvs and caches are not entered.
- Symlinks (to a folder or to SKILL.md) are followed once, only when their real
  path stays inside an allowed root; links that escape, dangle, loop or lead to
  a folder already scanned are skipped with a diagnostic and never read.

Reads of bundled files (tier 3) resolve real paths and refuse anything outside
the skill's real folder, anything that is not a regular file, and anything not
in the skill's file index.
"""

from __future__ import annotations

import errno
import os
import stat as _stat
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from skilldeck._catalog import _codes as C
from skilldeck._catalog._cache import MetadataCache, Record
from skilldeck._catalog._model import Skill, SkillMetadata
from skilldeck._catalog._store import (
    BUNDLED_DIRS,
    DEFAULT_FILE_LIMIT,
    FileData,
    IndexMode,
    Scan,
    in_bundled_index,
)
from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._digest import skill_digest
from skilldeck._errors import (
    FileNotFoundInSkillError,
    FileTooLargeError,
    PathNotAllowedError,
    SkillNotFoundError,
    SkillUnavailableError,
)
from skilldeck._format import read_skill_md
from skilldeck._paths import safe_relpath

__all__ = ["MAX_DEPTH", "MAX_INDEX_FILES", "SKIP_DIRS", "FileSystemStore", "Mode"]

Mode = Literal["lenient", "strict"]

MAX_DEPTH = 12
"""How deep a recursive root is searched (the root is depth 0)."""

MAX_INDEX_FILES = 5_000
"""At most this many files are indexed per skill with ``index="all"``."""

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def _within(real: str, bases: Iterable[str]) -> bool:
    for base in bases:
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def _diag_tuple(d: Diagnostic) -> list[Any]:
    return [d.code, d.severity.value, d.message, d.path, d.line, d.column, d.hint]


def _diag_from(row: list[Any]) -> Diagnostic:
    return Diagnostic(row[0], Severity(row[1]), row[2], row[3], row[4], row[5], row[6])


class FileSystemStore:
    """Skills in the folders of one root on disk (the embedded default store).

    ``allowed_roots`` widens where symlinks may lead (the catalog passes every
    root of every source); the store's own root is always allowed. ``cache``
    persists parsed metadata between processes. ``index`` chooses the file
    index: ``bundled`` (``scripts/``, ``references/``, ``assets/`` one level
    deep, the default) or ``all`` (every file). Thread-safe.
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        recursive: bool = False,
        source: str = "",
        allowed_roots: Sequence[str | os.PathLike[str]] = (),
        cache: MetadataCache | None = None,
        index: IndexMode = "bundled",
        mode: Mode = "lenient",
        max_depth: int = MAX_DEPTH,
    ) -> None:
        self.root = Path(os.path.abspath(os.fspath(root)))
        self.recursive = recursive
        self.source = source
        self.index: IndexMode = index
        self.mode: Mode = mode
        self.max_depth = max_depth
        self._extra_allowed = tuple(os.fspath(p) for p in allowed_roots)
        self._cache = cache
        self._lock = threading.RLock()
        # in-process memory: key -> (mtime_ns, size, record, metadata)
        self._memory: dict[str, tuple[int, int, Record, SkillMetadata]] = {}
        self._scan: Scan | None = None
        self._by_key: dict[str, SkillMetadata] = {}
        self.exists = False

    def __repr__(self) -> str:
        mode = "recursive" if self.recursive else "immediate"
        return f"FileSystemStore({str(self.root)!r}, {mode}, source={self.source!r})"

    @property
    def cache_key(self) -> str:
        mode = "recursive" if self.recursive else "immediate"
        return f"{self.root}\0{mode}\0{self.mode}"

    # ------------------------------------------------------------------ discovery

    def scan(self, *, refresh: bool = False) -> Scan:
        """Every candidate under the root (valid or not) and the problems met.

        The first call scans; later calls return the same result until
        ``refresh=True`` (which re-reads only changed SKILL.md files).
        """
        with self._lock:
            if self._scan is None or refresh:
                self._scan = self._do_scan()
                self._by_key = {m.key: m for m in self._scan.skills}
            return self._scan

    def refresh(self) -> Scan:
        return self.scan(refresh=True)

    def list_skills(self) -> list[SkillMetadata]:
        return [m for m in self.scan().skills if m.valid]

    def _do_scan(self) -> Scan:
        diags: list[Diagnostic] = []
        root = os.fspath(self.root)
        try:
            st = os.stat(root)
        except FileNotFoundError:
            self.exists = False
            return Scan(())
        except OSError as exc:
            self.exists = False
            if exc.errno == errno.ENOTDIR:
                return Scan((), (self._root_not_dir(root),))
            return Scan((), (self._root_unreadable(root, exc),))
        if not _stat.S_ISDIR(st.st_mode):
            self.exists = False
            return Scan((), (self._root_not_dir(root),))
        self.exists = True
        real_root = os.path.realpath(root)
        allowed = (real_root, *(os.path.realpath(p) for p in self._extra_allowed))
        walker = _Walker(self, root, real_root, allowed, diags)
        try:
            found = walker.walk()
        except OSError as exc:
            return Scan((), (self._root_unreadable(root, exc),))
        metas = self._parse_all(found)
        return Scan(tuple(metas), tuple(diags))

    def _root_not_dir(self, root: str) -> Diagnostic:
        return Diagnostic.make(
            C.ROOT_NOT_DIR,
            f"skills root {root} is not a folder",
            path=root,
            hint="point the root at a folder whose sub-folders hold SKILL.md files",
        )

    def _root_unreadable(self, root: str, exc: OSError) -> Diagnostic:
        return Diagnostic.make(
            C.ROOT_UNREADABLE,
            f"cannot read skills root {root}: {exc.strerror or exc}",
            path=root,
            hint="check the folder's permissions",
        )

    def _parse_all(self, found: list[tuple[str, str, str, int, int]]) -> list[SkillMetadata]:
        """Turn (folder, SKILL.md, real SKILL.md, mtime, size) into metadata, cached."""
        disk: dict[str, Record] | None = None
        new_memory: dict[str, tuple[int, int, Record, SkillMetadata]] = {}
        changed = False
        metas: list[SkillMetadata] = []
        for folder, md, real_md, mtime, size in found:
            key = md if md == real_md else f"{md}\0{real_md}"
            hit = self._memory.get(key)
            if hit is not None and hit[0] == mtime and hit[1] == size:
                new_memory[key] = hit
                metas.append(hit[3])
                continue
            if disk is None:
                disk = self._cache.load(self.cache_key) if self._cache is not None else {}
            row = disk.get(key)
            if row is not None and row[0] == mtime and row[1] == size:
                record: Record = row[2]
                manifest = None
            else:
                changed = True
                record, manifest = self._parse(real_md, folder)
            meta = self._meta(folder, md, record, manifest)
            new_memory[key] = (mtime, size, record, meta)
            metas.append(meta)
        if self._cache is not None and (
            changed or (disk is not None and len(disk) != len(new_memory)) or
            (disk is None and len(new_memory) != len(self._memory))
        ):
            self._cache.save(self.cache_key, {k: [v[0], v[1], v[2]] for k, v in new_memory.items()})
        self._memory = new_memory
        return metas

    def _parse(self, md: str, folder: str) -> tuple[Record, Any]:
        parsed = read_skill_md(
            md, metadata_only=True, mode=self.mode, folder_name=os.path.basename(folder)
        )
        m = parsed.manifest
        valid = parsed.ok
        diags = list(parsed.diagnostics)
        if os.path.basename(md) == "skill.md":
            diags.insert(
                0,
                Diagnostic.make(
                    "SK215",
                    "the skill file is named 'skill.md'; the specification requires 'SKILL.md'",
                    path=md,
                    hint=f"rename it to {os.path.join(folder, 'SKILL.md')}",
                    severity=Severity.WARNING,
                ),
            )
        if m is not None:
            record = [
                m.name,
                m.description,
                list(m.tags),
                list(m.requires.commands),
                list(m.requires.env),
                sorted(str(k) for k in m.requires.other),
                valid,
                [_diag_tuple(d) for d in diags],
            ]
        else:
            record = [
                os.path.basename(folder),
                "",
                [],
                [],
                [],
                [],
                False,
                [_diag_tuple(d) for d in diags],
            ]
        return record, m if valid else None

    def _meta(self, folder: str, md: str, rec: Record, manifest: Any) -> SkillMetadata:
        return SkillMetadata(
            rec[0],
            rec[1],
            Path(folder),
            Path(md),
            self.source,
            folder,
            tuple(rec[2]),
            tuple(rec[3]),
            tuple(rec[4]),
            tuple(rec[5]),
            tuple(_diag_from(d) for d in rec[7]) if rec[7] else (),
            rec[6],
            manifest,
        )

    # ------------------------------------------------------------------ access

    def get(self, name: str) -> SkillMetadata:
        """The metadata for a key (skill folder path) or the first skill of that name."""
        scan = self.scan()
        with self._lock:
            found = self._by_key.get(name)
        if found is None:
            found = next((m for m in scan.skills if m.name == name and m.valid), None)
        if found is None:
            raise SkillNotFoundError(f"no skill named {name!r} under {self.root}", skill=name)
        return found

    def _real_folder(self, meta: SkillMetadata) -> str:
        assert meta.path is not None
        real = os.path.realpath(meta.path)
        allowed = (os.path.realpath(self.root), *(os.path.realpath(p) for p in self._extra_allowed))
        if not _within(real, allowed):
            raise PathNotAllowedError(
                f"skill folder {meta.path} now leads outside the allowed roots",
                skill=meta.name,
                hint="refresh the catalog; the folder was replaced by a link",
            )
        return real

    def load_skill(self, name: str, *, max_bytes: int | None = None) -> Skill:
        meta = self.get(name)
        if not meta.valid:
            raise SkillUnavailableError(
                f"skill {meta.name!r} at {meta.path} is invalid",
                skill=meta.name,
                hint=f"run: skilldeck validate {meta.path}",
            )
        real = self._real_folder(meta)
        assert meta.skill_md is not None
        md_real = os.path.realpath(meta.skill_md)
        allowed = (os.path.realpath(self.root), *(os.path.realpath(p) for p in self._extra_allowed))
        if not _within(md_real, allowed):
            raise PathNotAllowedError(
                f"{meta.skill_md} leads outside the allowed roots", skill=meta.name
            )
        parsed = read_skill_md(md_real, max_bytes=max_bytes, mode=self.mode, folder_name=meta.path.name if meta.path else None)
        files, _ = index_files(real, self.index)
        return Skill(
            meta,
            parsed.manifest if parsed.manifest is not None else meta.manifest,
            parsed.body,
            parsed.body_truncated,
            files,
            parsed.body_line,
            parsed.diagnostics,
        )

    def files(self, name: str, *, index: IndexMode | None = None) -> tuple[str, ...]:
        meta = self.get(name)
        return index_files(self._real_folder(meta), index or self.index)[0]

    def file_problems(self, name: str, *, index: IndexMode | None = None) -> tuple[Diagnostic, ...]:
        """Diagnostics met while indexing a skill's files (escaping links, devices)."""
        meta = self.get(name)
        return index_files(self._real_folder(meta), index or self.index)[1]

    def read_bundled(
        self,
        name: str,
        relpath: str,
        *,
        max_bytes: int = DEFAULT_FILE_LIMIT,
        truncate: bool = False,
        index: IndexMode | None = None,
    ) -> FileData:
        """Read one bundled file, refusing anything outside the skill (see module doc)."""
        meta = self.get(name)
        clean = safe_relpath(relpath) if isinstance(relpath, str) else None
        if clean is None:
            raise PathNotAllowedError(
                f"path {relpath!r} is not allowed",
                skill=meta.name,
                path=str(relpath),
                hint="give a path relative to the skill folder, e.g. references/guide.md",
            )
        real_dir = self._real_folder(meta)
        target = os.path.join(real_dir, clean)
        files = index_files(real_dir, index or self.index)[0]
        if clean not in files:
            if os.path.lexists(target):
                raise PathNotAllowedError(
                    f"{clean} is not one of the bundled files of {meta.name}",
                    skill=meta.name,
                    path=clean,
                    hint="list the skill's files with skills_load; only those can be read",
                )
            raise FileNotFoundInSkillError(
                f"no file {clean} in skill {meta.name}",
                skill=meta.name,
                path=clean,
                hint="list the skill's files with skills_load",
            )
        return read_contained(real_dir, clean, max_bytes=max_bytes, truncate=truncate, skill=meta.name)

    def read_file(
        self, name: str, relpath: str, *, max_bytes: int = DEFAULT_FILE_LIMIT
    ) -> bytes:
        return self.read_bundled(name, relpath, max_bytes=max_bytes).data

    def digest(self, name: str) -> str:
        """The content digest of the skill folder (``skilldeck.skill_digest``)."""
        return skill_digest(self._real_folder(self.get(name)))


def read_contained(
    real_dir: str, rel: str, *, max_bytes: int, truncate: bool, skill: str
) -> FileData:
    """Open ``real_dir/rel`` only if its real path stays inside and it is a regular file."""
    target = os.path.join(real_dir, rel)
    real = os.path.realpath(target)
    if not _within(real, (real_dir,)) or real == real_dir:
        raise PathNotAllowedError(
            f"{rel} leads outside the skill folder", skill=skill, path=rel,
            hint="bundled files must live inside the skill folder",
        )
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except FileNotFoundError:
        raise FileNotFoundInSkillError(f"no file {rel} in skill {skill}", skill=skill, path=rel) from None
    except OSError as exc:
        raise PathNotAllowedError(
            f"cannot open {rel}: {exc.strerror or exc}", skill=skill, path=rel
        ) from None
    try:
        st = os.fstat(fd)
        if not _stat.S_ISREG(st.st_mode):
            raise PathNotAllowedError(
                f"{rel} is not a regular file", skill=skill, path=rel,
                hint="only regular files can be read (not folders, devices or pipes)",
            )
        if st.st_size > max_bytes and not truncate:
            raise FileTooLargeError(
                f"{rel} is {st.st_size} bytes, over the {max_bytes}-byte limit",
                skill=skill,
                path=rel,
                hint="ask for a truncated read or raise max_bytes",
                size=st.st_size,
                limit=max_bytes,
            )
        chunks: list[bytes] = []
        want = max_bytes + 1
        while want > 0:
            chunk = os.read(fd, min(want, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            want -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        if not truncate:
            raise FileTooLargeError(
                f"{rel} grew over the {max_bytes}-byte limit while being read",
                skill=skill, path=rel, size=len(data), limit=max_bytes,
            )
        return FileData(rel, data[:max_bytes], max(st.st_size, len(data)), True)
    return FileData(rel, data, len(data), False)


def index_files(real_dir: str, mode: IndexMode) -> tuple[tuple[str, ...], tuple[Diagnostic, ...]]:
    """The skill's file index (sorted relative POSIX paths) and problems met.

    Links are listed only when their real path is a regular file inside the
    skill folder; special files and escaping links are left out with a
    diagnostic.
    """
    out: list[str] = []
    diags: list[Diagnostic] = []

    def consider(full: str, rel: str, is_link: bool, is_file: bool, is_dir: bool) -> bool:
        """Add a file; return True when ``full`` is a folder that may be entered."""
        if is_link:
            real = os.path.realpath(full)
            if not _within(real, (real_dir,)):
                diags.append(
                    Diagnostic.make(
                        C.FILE_LINK_ESCAPES,
                        f"{rel} is a link leading outside the skill folder; it is not indexed",
                        path=full,
                        hint="copy the file into the skill instead of linking to it",
                    )
                )
                return False
            try:
                st = os.stat(real)
            except OSError:
                diags.append(
                    Diagnostic.make(
                        C.LINK_DANGLING, f"{rel} is a link to nothing", path=full,
                        hint="remove the link or restore its target",
                    )
                )
                return False
            is_file, is_dir = _stat.S_ISREG(st.st_mode), _stat.S_ISDIR(st.st_mode)
            if is_dir:
                return False  # linked folders are not entered (no loops, no duplicates)
        if is_file:
            out.append(rel)
            return False
        if is_dir:
            return True
        diags.append(
            Diagnostic.make(
                C.SPECIAL_FILE, f"{rel} is not a regular file; it is not indexed", path=full
            )
        )
        return False

    if mode == "bundled":
        for sub in BUNDLED_DIRS:
            sub_full = os.path.join(real_dir, sub)
            try:
                st = os.lstat(sub_full)
            except OSError:
                continue
            if _stat.S_ISLNK(st.st_mode):
                real_sub = os.path.realpath(sub_full)
                if not _within(real_sub, (real_dir,)) or not os.path.isdir(real_sub):
                    diags.append(
                        Diagnostic.make(
                            C.FILE_LINK_ESCAPES,
                            f"{sub}/ is a link leading outside the skill folder; "
                            "it is not indexed",
                            path=sub_full,
                            hint="copy the files into the skill instead of linking to them",
                        )
                    )
                    continue
                sub_real = real_sub
            elif _stat.S_ISDIR(st.st_mode):
                sub_real = sub_full
            else:
                continue
            try:
                entries = sorted(os.scandir(sub_real), key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                rel = f"{sub}/{e.name}"
                consider(
                    os.path.join(sub_full, e.name),
                    rel,
                    e.is_symlink(),
                    e.is_file(follow_symlinks=False),
                    e.is_dir(follow_symlinks=False),
                )
        return tuple(out), tuple(diags)

    stack = [("", real_dir)]
    while stack:
        rel_dir, full_dir = stack.pop()
        try:
            entries = sorted(os.scandir(full_dir), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if e.name in SKIP_DIRS:
                continue
            rel = f"{rel_dir}{e.name}"
            if rel == "SKILL.md":
                continue
            if consider(
                e.path, rel, e.is_symlink(), e.is_file(follow_symlinks=False),
                e.is_dir(follow_symlinks=False),
            ):
                stack.append((rel + "/", e.path))
        if len(out) > MAX_INDEX_FILES:
            diags.append(
                Diagnostic.make(
                    C.TOO_MANY_FILES,
                    f"more than {MAX_INDEX_FILES} files; only the first are indexed",
                    path=real_dir,
                )
            )
            break
    return tuple(sorted(out[:MAX_INDEX_FILES])), tuple(diags)


_SKILL_NAMES = ("SKILL.md", "skill.md")


class _Walker:
    """One discovery pass over a root (see the module docstring for the rules)."""

    def __init__(
        self,
        store: FileSystemStore,
        root: str,
        real_root: str,
        allowed: tuple[str, ...],
        diags: list[Diagnostic],
    ) -> None:
        self.store = store
        self.root = root
        self.real_root = real_root
        self.allowed = allowed
        self.diags = diags
        self.found: list[tuple[str, str, str, int, int]] = []
        self.seen_skill: set[str] = set()  # real skill folders
        self.visited: set[str] = set()  # real folders walked (recursive)
        self.links: list[tuple[str, int]] = []
        self.too_deep: list[str] = []

    # -- SKILL.md inside a folder

    def skill_file(self, folder: str, names: Iterable[str] | None = None) -> None:
        """Record ``folder`` as a skill if it holds SKILL.md (checked per the link rules)."""
        md = os.path.join(folder, "SKILL.md")
        try:
            st = os.lstat(md)
        except FileNotFoundError:
            if names is not None and "skill.md" not in names:
                return
            md = os.path.join(folder, "skill.md")
            try:
                st = os.lstat(md)
            except OSError:
                return
            if names is None:
                try:
                    if "skill.md" not in os.listdir(folder):
                        return  # case-insensitive file system matched SKILL.md
                except OSError:
                    return
        except OSError as exc:
            self.diags.append(
                Diagnostic.make(
                    C.NOT_A_SKILL_FILE, f"cannot read {md}: {exc.strerror or exc}", path=md
                )
            )
            return
        real_md = md
        if _stat.S_ISLNK(st.st_mode):
            real_md = os.path.realpath(md)
            if not self.link_ok(md, real_md):
                return
            try:
                st = os.stat(real_md)
            except OSError:
                return
        if not _stat.S_ISREG(st.st_mode):
            self.diags.append(
                Diagnostic.make(
                    C.NOT_A_SKILL_FILE,
                    f"{md} is not a regular file; the folder is skipped",
                    path=md,
                    hint="SKILL.md must be a file",
                )
            )
            return
        self.found.append((folder, md, real_md, st.st_mtime_ns, st.st_size))

    def link_ok(self, link: str, real: str) -> bool:
        """May a link be followed? Emits SK503/SK504 and returns False when not."""
        if not os.path.exists(real):
            self.diags.append(
                Diagnostic.make(
                    C.LINK_DANGLING,
                    f"{link} is a link to {os.readlink(link) if os.path.islink(link) else real}, "
                    "which does not exist; it is skipped",
                    path=link,
                    hint="remove the link or restore its target",
                )
            )
            return False
        if not _within(real, self.allowed):
            self.diags.append(
                Diagnostic.make(
                    C.LINK_ESCAPES,
                    f"{link} leads to {real}, outside every skills root; it is skipped "
                    "and never read",
                    path=link,
                    hint="copy the skill into a root, or add the target's folder as a root",
                )
            )
            return False
        return True

    # -- walking

    def walk(self) -> list[tuple[str, str, str, int, int]]:
        if self.store.recursive:
            self.walk_tree(self.root, self.real_root, 0)
        else:
            self.walk_immediate()
        self.follow_links()
        if self.too_deep:
            self.diags.append(
                Diagnostic.make(
                    C.TOO_DEEP,
                    f"{len(self.too_deep)} folder(s) deeper than {self.store.max_depth} levels "
                    f"under {self.root} were not searched (first: {self.too_deep[0]})",
                    path=self.too_deep[0],
                    hint="add a deeper folder as its own root",
                )
            )
        self.found.sort(key=lambda f: f[0])
        return self.found

    def add_skill_dir(self, folder: str, real: str) -> None:
        if real in self.seen_skill:
            return
        before = len(self.found)
        self.skill_file(folder)
        if len(self.found) > before:
            self.seen_skill.add(real)

    def walk_immediate(self) -> None:
        root = self.root
        if os.path.lexists(os.path.join(root, "SKILL.md")):
            self.add_skill_dir(root, self.real_root)
            return
        with os.scandir(root) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if e.name.startswith("."):
                continue
            if e.is_symlink():
                self.links.append((e.path, 1))
            elif e.is_dir(follow_symlinks=False):
                self.add_skill_dir(e.path, os.path.join(self.real_root, e.name))

    def walk_tree(self, folder: str, real: str, depth: int) -> None:
        stack = [(folder, real, depth)]
        while stack:
            here, real_here, d = stack.pop()
            if real_here in self.visited:
                continue
            self.visited.add(real_here)
            try:
                with os.scandir(here) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                if here == self.root:
                    raise
                self.diags.append(
                    Diagnostic.make(
                        C.ROOT_UNREADABLE,
                        f"cannot read {here}: {exc.strerror or exc}",
                        path=here,
                        severity=Severity.WARNING,
                    )
                )
                continue
            names = {e.name for e in entries}
            if "SKILL.md" in names or "skill.md" in names:
                if real_here not in self.seen_skill:
                    before = len(self.found)
                    self.skill_file(here, names)
                    if len(self.found) > before:
                        self.seen_skill.add(real_here)
            subdirs: list[tuple[str, str, int]] = []
            for e in entries:
                if e.name in SKIP_DIRS:
                    continue
                if e.is_symlink():
                    if e.name not in _SKILL_NAMES:
                        self.links.append((e.path, d + 1))
                elif e.is_dir(follow_symlinks=False):
                    if d + 1 > self.store.max_depth:
                        self.too_deep.append(e.path)
                        continue
                    subdirs.append((e.path, os.path.join(real_here, e.name), d + 1))
            stack.extend(reversed(subdirs))

    def follow_links(self) -> None:
        i = 0
        while i < len(self.links):
            link, depth = self.links[i]
            i += 1
            real = os.path.realpath(link)
            if not self.link_ok(link, real):
                continue
            if not os.path.isdir(real):
                continue  # a link to a file that is not SKILL.md: not a skill
            parent_real = os.path.realpath(os.path.dirname(link))
            if _within(parent_real, (real,)):
                self.diags.append(
                    Diagnostic.make(
                        C.LINK_LOOP,
                        f"{link} leads back to {real}, which contains it; it is skipped",
                        path=link,
                        hint="remove the link; it makes the folder tree infinite",
                    )
                )
                continue
            if real in self.seen_skill or real in self.visited:
                self.diags.append(
                    Diagnostic.make(
                        C.LINK_DUPLICATE,
                        f"{link} leads to {real}, which is already scanned; it is skipped",
                        path=link,
                    )
                )
                continue
            if self.store.recursive:
                if depth > self.store.max_depth:
                    self.too_deep.append(link)
                    continue
                self.walk_tree(link, real, depth)
            else:
                self.add_skill_dir(link, real)
