"""The one discovery of skill folders under a root, with the one skip list.

Every part of skilldeck that looks for skills goes through ``SkillFinder``: the
catalog (``list``, ``serve``), ``validate`` and ``lint``, ``install --all``,
the security scan of a folder of skills and ``why``. So they find the same
skills in the same tree.

The rules:

- A folder holding ``SKILL.md`` (or a lowercase ``skill.md``) is a skill.
- ``immediate``: the root itself when it holds SKILL.md, else its direct
  sub-folders. ``recursive``: every folder down to ``max_depth``, skills nested
  inside skills included.
- ``repository`` (a folder the user names: ``--root DIR``, ``[catalog] roots``,
  an install source, ``validate``/``scan DIR``) whose folder holds no SKILL.md
  is read as a repository of skills. Immediate: its direct sub-folders, and
  those that are not skills searched down to ``REPOSITORY_DEPTH`` levels, a
  skill folder ending the descent; so the layouts real repositories use are
  found (``skills/<name>``, ``skills/<category>/<name>``, ``<category>/<name>``,
  Claude Code plugin folders ``<plugin>/skills/<name>`` and
  ``plugins/<plugin>/skills/<name>``) while a skill's own sub-folders are not
  (nested skills need ``recursive``). When that finds no skill at all, every
  depth is searched, as ``recursive``. Both depths also enter the hidden
  ``REPOSITORY_CONTAINERS`` of the root. A SKILL.md at a repository root that opens
  no frontmatter (``frontmatter_start``) is the repository's index, not a skill: the
  root is a skill then only when no other skill is found.
- **Skipped folders** (``skipped_folder``): every name starting with ``.``
  (``.git``, ``.hg``, ``.svn``, ``.venv``, ``.tox``, agents' own copies such as
  ``.codex/`` or ``.gemini/``), ``node_modules``, ``__pycache__``, ``venv`` and
  ``site-packages``; in a repository, the hidden containers of
  ``REPOSITORY_CONTAINERS`` (and the way to them) are the exception. The root
  itself is never skipped, whatever its name (``~/.claude/skills`` is a root).
- **Links** to folders are followed once, only when their real path stays inside
  ``allowed`` (real paths; the root's own by default); links that escape, dangle,
  loop or lead to a folder already searched are skipped with a diagnostic.
- A SKILL.md that is not a regular file (a folder, a pipe) still makes its folder
  a candidate: reading it gives the SK113 error (without waiting on a pipe).
- **A linked SKILL.md** is part of its skill only when it stays inside the skill
  folder (resolved by the contained reader, as every read of the skill's files
  is); a link leaving the folder, or dangling, still makes the folder a skill
  candidate, with the SK214 error ``skill_md_escapes`` and its SKILL.md unread.
"""

from __future__ import annotations

import operator
import os
import stat as _stat
from collections.abc import Callable, Iterable

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._errors import PathNotAllowedError, SkillError
from skilldeck._paths import within
from skilldeck._tree._consts import (
    LINK_DANGLING,
    LINK_DUPLICATE,
    LINK_ESCAPES,
    LINK_LOOP,
    NOT_A_SKILL_FILE,
    ROOT_UNREADABLE,
    SKILL_MD_ESCAPES,
    TOO_DEEP,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from skilldeck._tree._types import Found

__all__ = [
    "MAX_DEPTH",
    "REPOSITORY_CONTAINERS",
    "REPOSITORY_DEPTH",
    "SKIP_FOLDERS",
    "SkillFinder",
    "find_skill_folders",
    "frontmatter_start",
    "linked_skill_md",
    "skill_md_escapes",
    "skipped_folder",
]

MAX_DEPTH = 12
"""How deep a recursive search goes (the root is depth 0)."""

SKIP_FOLDERS = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})
"""Folders never searched for skills, besides every hidden (dot) name."""

REPOSITORY_DEPTH = 4
"""How deep the folders of a repository root are searched for skills without
``recursive`` (``<category>/<plugin>/skills/<name>`` is 4 levels down)."""

REPOSITORY_CONTAINERS = (
    ".claude/skills",
    ".agents/skills",
    ".github/skills",
    "skills/.curated",
    "skills/.experimental",
    "skills/.system",
)
"""Hidden folders of a repository root that hold skills: the project folders of
Claude Code, of the universal layout and of GitHub Copilot, and the channels of
openai/skills (the folders the ``npx skills`` CLI also searches). Other agents' hidden folders
(``.codex/skills``, ``.gemini/skills``) are usually links to the same skills and
stay skipped."""

_ON_THE_WAY = frozenset(
    way
    for container in REPOSITORY_CONTAINERS
    for end in range(1, len(container) + 1)
    if within(container, (way := container[:end],), sep="/")
)
"""The relative paths with a container at or below them (``within``, asked once here
of every prefix of each container): the containers and the folders on the way to
them. A path a walk makes (no ``/`` at its end) is one of them exactly when
``within`` says so of one container, without a call per container and folder."""

SKILL_MD_NAMES = ("SKILL.md", "skill.md")


_SEP = os.sep
_FIRST = operator.itemgetter(0)
_NAME = operator.attrgetter("name")


def frontmatter_start(text: str) -> int | None:
    """Where the ``---`` line opening a SKILL.md's frontmatter starts, after the blank
    lines a lenient reading lets come before it (``None``: the text opens none). The
    parser and discovery (a repository's index) both ask here."""
    at = len(text) - len(text.lstrip("\r\n \t"))
    return at if text.startswith("---", at) else None


def _index_md(md: str) -> bool:
    """Is ``md`` (a repository root's SKILL.md) a regular file whose first bytes open
    no frontmatter: the repository's index, not a skill? A link, or a file that cannot
    be read, is left to the skill rules (SK214, SK113)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(md, flags)
    except OSError:
        return False
    try:
        if not _stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, _INDEX_HEAD)
    except OSError:
        return False
    finally:
        os.close(fd)
    text = head.decode("utf-8", "replace").removeprefix("\ufeff")
    return frontmatter_start(text) is None


_INDEX_HEAD = 4096


def skipped_folder(name: str, under: str | None = None) -> bool:
    """Is a folder of this name never searched for skills (the one skip list)?

    ``under`` is, in a repository root, the relative path (``/``-separated, ``""``
    for the root) of the folder holding ``name``: a hidden folder of
    ``REPOSITORY_CONTAINERS``, or on the way to one, is searched, and inside a
    hidden folder nothing else is.
    """
    if name in SKIP_FOLDERS:
        return True
    if under is None:
        return name[:1] == "."
    path = f"{under}/{name}" if under else name
    if path in _ON_THE_WAY:
        return False  # a container, or the way to one
    inside = within(under, REPOSITORY_CONTAINERS, sep="/")
    if name[:1] == ".":
        return True
    return not inside and any(part[:1] == "." for part in under.split("/"))


def skill_md_escapes(md: str) -> Diagnostic:
    """The SK214 error of a SKILL.md that is a link leaving its folder (or dangling)."""
    try:
        target = os.path.realpath(md, strict=True)
        where = f" to {target}"
    except OSError:
        where = " that dangles"
    return Diagnostic.make(
        SKILL_MD_ESCAPES,
        f"SKILL.md is a link{where}, outside the skill folder; it is not read "
        "and the skill cannot be used",
        path=md,
        hint="replace the link with the file itself",
    )


def linked_skill_md(folder: str, name: str = "SKILL.md") -> tuple[str, os.stat_result] | None:
    """A SKILL.md that is a link, resolved by the contained reader (as every read of a
    skill's files is): its real path and stat when it stays inside the skill folder,
    ``None`` when it leaves the folder, dangles or is not a regular file."""
    from skilldeck._tree._reader import ContainedFolder  # a listing never asks

    try:
        with ContainedFolder(folder) as tree:
            fd = tree.open(name)
    except SkillError:
        return None
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    return os.path.realpath(os.path.join(folder, name)), st


def _stat_sig(st: os.stat_result) -> Any:
    return st


class SkillFinder:
    """One discovery pass over a root (see the module docstring for the rules).

    ``allowed`` are the real paths links may lead into (default: the root's).
    ``sig`` turns the stat of each SKILL.md into what ``Found`` carries.
    ``max_dirs`` caps the folders searched (``truncated`` then says so).
    ``repository`` reads a root without SKILL.md as a repository of skills.
    Problems met go to ``diags``.
    """

    def __init__(
        self,
        root: str,
        *,
        recursive: bool,
        max_depth: int = MAX_DEPTH,
        real_root: str | None = None,
        allowed: tuple[str, ...] | None = None,
        diags: list[Diagnostic] | None = None,
        sig: Callable[[os.stat_result], Any] = _stat_sig,
        max_dirs: int | None = None,
        repository: bool = False,
    ) -> None:
        self.root = root
        self.real_root = real_root if real_root is not None else os.path.realpath(root)
        self.allowed = allowed if allowed is not None else (self.real_root,)
        self.recursive = recursive
        self.max_depth = self.full_depth = max_depth
        self.diags: list[Diagnostic] = diags if diags is not None else []
        self.sig = sig
        self.max_dirs = max_dirs
        self.repository = repository
        # a skill folder ends the descent (immediate repository roots)
        self.nested = recursive
        self.descends = recursive  # links to folders are walked, not just probed
        self.truncated = False
        self.found: list[Found] = []
        self.seen_skill: set[str] = set()  # real skill folders
        self.visited: set[str] = set()  # real folders searched (recursive)
        self.links: list[tuple[str, int]] = []
        self.links_followed = 0
        self.too_deep: list[str] = []
        # an immediate root of plain skill folders (SKILL.md a regular file, no
        # links, no findings) can be listed again from its rows (the catalog's replay)
        self.plain = not recursive
        self.others: list[str] = []  # sub-folders without SKILL.md or skill.md
        # a repository root whose SKILL.md opens no frontmatter: its index, a skill
        # only when nothing else is found
        self.index_root = False

    # -- SKILL.md inside a folder

    def skill_file(self, folder: str, names: Iterable[str] | None = None) -> None:
        """Record ``folder`` as a skill if it holds SKILL.md (checked per the link rules)."""
        md = folder + _SEP + "SKILL.md"
        try:
            st = os.lstat(md)
        except FileNotFoundError:
            if names is not None and "skill.md" not in names:
                return
            md = folder + _SEP + "skill.md"
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
                    NOT_A_SKILL_FILE, f"cannot read {md}: {exc.strerror or exc}", path=md
                )
            )
            return
        real_md = md
        if _stat.S_ISLNK(st.st_mode):
            inside = linked_skill_md(folder, os.path.basename(md))
            if inside is None:  # leaves the folder or dangles: SK214, never read
                self.found.append((folder, md, "", self.sig(st)))
                return
            real_md, st = inside
        # a SKILL.md that is no regular file (a folder, a pipe) is still a candidate:
        # reading it (without waiting) gives the same SK113 error everywhere
        self.found.append((folder, md, real_md, self.sig(st)))

    def link_ok(self, link: str, real: str) -> bool:
        """May a link be followed? Emits SK503/SK504 and returns False when not."""
        if not os.path.exists(real):
            self.diags.append(
                Diagnostic.make(
                    LINK_DANGLING,
                    f"{link} is a link to {os.readlink(link) if os.path.islink(link) else real}, "
                    "which does not exist; it is skipped",
                    path=link,
                    hint="remove the link or restore its target",
                )
            )
            return False
        if not within(real, self.allowed):
            self.diags.append(
                Diagnostic.make(
                    LINK_ESCAPES,
                    f"{link} leads to {real}, outside every skills root; it is skipped "
                    "and never read",
                    path=link,
                    hint="copy the skill into a root, or add the target's folder as a root",
                )
            )
            return False
        return True

    # -- walking

    def find(self) -> list[Found]:
        """Every skill folder under the root, sorted by path (``OSError`` when the
        root itself cannot be read)."""
        if self.repository and os.path.lexists(os.path.join(self.root, "SKILL.md")):
            self.index_root = _index_md(os.path.join(self.root, "SKILL.md"))
        if self.recursive:
            self.walk_tree(self.root, self.real_root, 0)
            self.follow_links()
        else:
            mark = len(self.diags)
            self.walk_immediate()
            if self.repository and self.others:
                self.follow_links()  # the root's own links first: a skill's path as found
                self.walk_repository()
            self.follow_links()
            if self.repository:
                self.too_deep.clear()  # the layouts' bound is the rule, not a finding
            if self.repository and not self.found:
                self.walk_everything(mark)
        if self.index_root and not self.found:
            self.add_skill_dir(self.root, self.real_root)  # no skill but the index: SK101
        if self.too_deep:
            self.diags.append(
                Diagnostic.make(
                    TOO_DEEP,
                    f"{len(self.too_deep)} folder(s) deeper than {self.max_depth} levels "
                    f"under {self.root} were not searched (first: {self.too_deep[0]})",
                    path=self.too_deep[0],
                    hint="add a deeper folder as its own root",
                )
            )
        self.found.sort(key=_FIRST)
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
            self.plain = False
            if not self.index_root:
                self.add_skill_dir(root, self.real_root)
                return
        with os.scandir(root) as it:
            entries = sorted(it, key=_NAME)
        real_prefix = self.real_root.rstrip(_SEP) + _SEP
        seen = self.seen_skill
        found = self.found
        lstat, is_reg, sig = os.lstat, _stat.S_ISREG, self.sig
        under = "" if self.repository else None
        for e in entries:
            name = e.name
            if skipped_folder(name, under):
                continue
            if e.is_symlink():
                self.links.append((e.path, 1))
                self.plain = False
                continue
            if not e.is_dir(follow_symlinks=False):
                continue
            folder = e.path
            md = folder + _SEP + "SKILL.md"
            try:
                st = lstat(md)
            except OSError:
                st = None
            if st is not None and is_reg(st.st_mode):  # the common case, inlined
                found.append((folder, md, md, sig(st)))
                seen.add(real_prefix + name)
                continue
            before = len(found)
            self.skill_file(folder)  # links, skill.md, odd files: the careful path
            if len(found) > before:
                seen.add(real_prefix + name)
                self.plain = False
            elif st is None:
                self.others.append(folder)
            else:
                self.plain = False  # SKILL.md is something else than a file

    def walk_repository(self) -> None:
        """The root's sub-folders that are not skills, searched as a repository of
        skills: down to ``REPOSITORY_DEPTH`` levels, a skill folder ending the
        descent. Their contents change below the root, so the listing is not
        replayed (``plain``); a root of skill folders only never gets here."""
        self.plain = self.nested = False
        self.descends = True
        self.max_depth = min(self.max_depth, REPOSITORY_DEPTH)
        prefix = self.real_root.rstrip(_SEP) + _SEP
        for folder in self.others:
            self.walk_tree(folder, prefix + os.path.basename(folder), 1)

    def walk_everything(self, mark: int) -> None:
        """A repository root whose layouts hold no skill is searched at every depth
        (as ``recursive``), the first pass's findings dropped."""
        del self.diags[mark:]
        self.seen_skill.clear()
        self.visited.clear()
        self.links.clear()
        self.links_followed = 0
        self.too_deep.clear()
        self.plain = False
        self.nested = self.descends = True
        self.max_depth = self.full_depth
        self.walk_tree(self.root, self.real_root, 0)
        self.follow_links()

    def walk_tree(self, folder: str, real: str, depth: int) -> None:
        stack = [(folder, real, depth)]
        while stack:
            here, real_here, d = stack.pop()
            if real_here in self.visited:
                continue
            if self.max_dirs is not None and len(self.visited) >= self.max_dirs:
                self.truncated = True
                return
            self.visited.add(real_here)
            try:
                with os.scandir(here) as it:
                    entries = sorted(it, key=_NAME)
            except OSError as exc:
                if here == self.root:
                    raise
                self.diags.append(
                    Diagnostic.make(
                        ROOT_UNREADABLE,
                        f"cannot read {here}: {exc.strerror or exc}",
                        path=here,
                        severity=Severity.WARNING,
                    )
                )
                continue
            if not self.nested and d > 0 and real_here in self.seen_skill:
                continue  # a skill found through a link: its folders hold no more
            names = {e.name for e in entries}
            if (
                ("SKILL.md" in names or "skill.md" in names)
                and real_here not in self.seen_skill
                and not (self.index_root and here == self.root)
            ):
                before = len(self.found)
                self.skill_file(here, names)
                if len(self.found) > before:
                    self.seen_skill.add(real_here)
                    if not self.nested and d > 0:
                        continue  # a skill's own folders hold no skills of the repository
            under = self.relative(here) if self.repository else None
            subdirs: list[tuple[str, str, int]] = []
            for e in entries:
                if skipped_folder(e.name, under):
                    continue
                if e.is_symlink():
                    if e.name not in SKILL_MD_NAMES:
                        self.links.append((e.path, d + 1))
                elif e.is_dir(follow_symlinks=False):
                    if d + 1 > self.max_depth:
                        self.too_deep.append(e.path)
                        continue
                    subdirs.append((e.path, os.path.join(real_here, e.name), d + 1))
            stack.extend(reversed(subdirs))

    def relative(self, folder: str) -> str:
        """``folder`` (as found, under the root) relative to the root, ``/``-separated."""
        rel = folder[len(self.root) :].strip(_SEP)
        return rel.replace(_SEP, "/") if _SEP != "/" else rel

    def follow_links(self) -> None:
        i = self.links_followed
        while i < len(self.links):
            link, depth = self.links[i]
            i += 1
            real = os.path.realpath(link)
            if not self.link_ok(link, real):
                continue
            if not os.path.isdir(real):
                continue  # a link to a file that is not SKILL.md: not a skill
            parent_real = os.path.realpath(os.path.dirname(link))
            if within(parent_real, (real,)):
                self.diags.append(
                    Diagnostic.make(
                        LINK_LOOP,
                        f"{link} leads back to {real}, which contains it; it is skipped",
                        path=link,
                        hint="remove the link; it makes the folder tree infinite",
                    )
                )
                continue
            if real in self.seen_skill or real in self.visited:
                self.diags.append(
                    Diagnostic.make(
                        LINK_DUPLICATE,
                        f"{link} leads to {real}, which is already scanned; it is skipped",
                        path=link,
                    )
                )
                continue
            if self.descends:
                if depth > self.max_depth:
                    self.too_deep.append(link)
                    continue
                self.walk_tree(link, real, depth)
            else:
                self.add_skill_dir(link, real)
        self.links_followed = i


def find_skill_folders(
    root: str | os.PathLike[str],
    *,
    recursive: bool = True,
    max_depth: int = MAX_DEPTH,
    max_dirs: int | None = None,
    diags: list[Diagnostic] | None = None,
    repository: bool = True,
) -> list[str]:
    """The skill folders under ``root`` by the rules of this module (sorted; links
    may lead anywhere inside ``root``; ``root`` is a folder the user named, read
    as a repository of skills unless ``repository=False``). A root that cannot be read gives ``[]``
    and an SK502 diagnostic in ``diags``; more than ``max_dirs`` folders,
    ``PathNotAllowedError``."""
    path = os.fspath(root)
    finder = SkillFinder(
        path,
        recursive=recursive,
        max_depth=max_depth,
        diags=diags,
        max_dirs=max_dirs,
        repository=repository,
    )
    try:
        found = finder.find()
    except OSError as exc:
        finder.diags.append(
            Diagnostic.make(
                ROOT_UNREADABLE, f"cannot read {path}: {exc.strerror or exc}", path=path
            )
        )
        return []
    if finder.truncated:
        raise PathNotAllowedError(
            f"{path} holds more than {max_dirs} folders; not every one was searched for skills",
            path=path,
            hint="point at the folder that holds the skills",
            reason="too_many",
        )
    return [f[0] for f in found]
