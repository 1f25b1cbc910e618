"""One discovery pass over a skills root: folders, SKILL.md files and symlinks."""

from __future__ import annotations

import operator
import os
import stat as _stat
import struct
from collections.abc import Iterable
from typing import TYPE_CHECKING

from skilldeck._catalog import _codes as C
from skilldeck._catalog._cache import Sig, pack_sig, sig_of
from skilldeck._catalog._files import SKIP_DIRS, within
from skilldeck._diagnostics import Diagnostic, Severity

if TYPE_CHECKING:
    from skilldeck._catalog._fs import FileSystemStore

__all__ = ["Found", "Walker"]

#: (folder as found, SKILL.md as found, real SKILL.md, stat signature)
Found = tuple[str, str, str, Sig]

_SKILL_NAMES = ("SKILL.md", "skill.md")
_SEP = os.sep
_FIRST = operator.itemgetter(0)
_NAME = operator.attrgetter("name")


class Walker:
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
        self.found: list[Found] = []
        self.seen_skill: set[str] = set()  # real skill folders
        self.visited: set[str] = set()  # real folders walked (recursive)
        self.links: list[tuple[str, int]] = []
        self.too_deep: list[str] = []
        # an immediate root of plain skill folders (SKILL.md a regular file, no
        # links, no findings) can be listed again from its rows: see ``replay``
        self.plain = not store.recursive
        self.others: list[str] = []  # sub-folders without SKILL.md or skill.md

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
        self.found.append((folder, md, real_md, sig_of(st)))

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
        if not within(real, self.allowed):
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

    def walk(self) -> list[Found]:
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
            self.add_skill_dir(root, self.real_root)
            return
        with os.scandir(root) as it:
            entries = sorted(it, key=_NAME)
        real_prefix = self.real_root.rstrip(_SEP) + _SEP
        seen = self.seen_skill
        found = self.found
        lstat, is_reg, pack = os.lstat, _stat.S_ISREG, pack_sig
        for e in entries:
            name = e.name
            if name[0] == ".":
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
                try:
                    sig = pack(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev)
                except struct.error:
                    sig = sig_of(st)
                found.append((folder, md, md, sig))
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

    def replay(self, folders: list[str], others: list[str]) -> list[Found] | None:
        """The skills of an immediate root whose folder list did not change (its
        mtime, ctime and inode are those of a plain walk): one ``lstat`` per skill.

        ``None`` when a SKILL.md is gone or no longer a regular file, or a folder
        without one gained one: the caller walks the root again.
        """
        found: list[Found] = []
        append, lstat, is_reg, sep = found.append, os.lstat, _stat.S_ISREG, _SEP
        pack = pack_sig
        try:
            for folder in folders:
                md = folder + sep + "SKILL.md"
                st = lstat(md)
                if not is_reg(st.st_mode):
                    return None
                try:
                    sig = pack(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev)
                except struct.error:
                    sig = sig_of(st)
                append((folder, md, md, sig))
        except OSError:
            return None
        for folder in others:
            if os.path.lexists(folder + sep + "SKILL.md") or os.path.lexists(
                folder + sep + "skill.md"
            ):
                return None
        self.others = others
        return found

    def walk_tree(self, folder: str, real: str, depth: int) -> None:
        stack = [(folder, real, depth)]
        while stack:
            here, real_here, d = stack.pop()
            if real_here in self.visited:
                continue
            self.visited.add(real_here)
            try:
                with os.scandir(here) as it:
                    entries = sorted(it, key=_NAME)
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
            if ("SKILL.md" in names or "skill.md" in names) and real_here not in self.seen_skill:
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
            if within(parent_real, (real,)):
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
