"""The one walker of a skill folder: every regular file beneath it, by the rules
of ``skilldeck._tree`` (hidden names, links, special files, limits), resolved
with the contained reader (``_reader``) so what is listed is what can be read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator

from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import PathNotAllowedError
from skilldeck._frozen import field, value
from skilldeck._paths import NOT_UTF8, name_refusal, shown_path
from skilldeck._tree._consts import (
    FILE_LINK_ESCAPES,
    LINK_DANGLING,
    LINK_LOOP,
    REFUSED_NAME,
    SECRET_FILE,
    SPECIAL_FILE,
    TOO_DEEP,
    TOO_MANY_FILES,
    UNDECODABLE_NAME,
    WALK_DEPTH,
    below_walk_depth,
)
from skilldeck._tree._reader import (
    _HAVE_DIR_FD,
    ContainedFolder,
    _Refused,
    is_hidden,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._tree._types import ProblemKind

__all__ = [
    "Entry",
    "Problem",
    "SkillTree",
    "Walk",
    "WalkLimits",
    "looks_like_secret",
    "secret_findings",
    "walk_skill",
]

_SECRET_NAMES = frozenset(
    {
        ".env",
        ".envrc",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".htpasswd",
        ".pgpass",
        ".aws",
        ".ssh",
        ".gnupg",
        ".docker",
        "credentials",
        "credentials.json",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
    }
)
_SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".ppk", ".asc")
_NOT_SECRET_ENV = (".example", ".sample", ".template", ".dist", ".defaults")


def secret_findings(root: str | os.PathLike[str], walk: Walk) -> list[Diagnostic]:
    """An SK518 warning for each file (listed or hidden) whose name looks like a secret."""
    out: list[Diagnostic] = []
    for rel in sorted({*walk.paths, *walk.hidden}):
        if looks_like_secret(rel):
            hidden = is_hidden(rel.rsplit("/", 1)[-1])
            out.append(
                Diagnostic.make(
                    SECRET_FILE,
                    f"{rel} looks like a secret (keys, tokens, .env)"
                    + (" (hidden: never served, but it is in the folder)" if hidden else ""),
                    path=os.path.join(os.fspath(root), rel),
                    hint="remove it from the skill folder and rotate the secret if it was "
                    "ever shared",
                )
            )
    return out


def looks_like_secret(path: str) -> bool:
    """Does a file or folder name look like it holds a secret (keys, tokens, ``.env``)?"""
    name = path.rstrip("/").rsplit("/", 1)[-1].lower()
    if name in _SECRET_NAMES:
        return True
    if name.startswith((".env.", "secrets.")):
        return not name.endswith(_NOT_SECRET_ENV)
    if name.startswith("service-account") and name.endswith(".json"):
        return True
    return name.endswith(_SECRET_SUFFIXES) and not name.endswith(".pub.asc")


@value
class Entry:
    """One regular file of a skill, as listed (a link is listed under its own path)."""

    path: str
    size: int
    executable: bool
    link: bool = False
    #: (inode, mtime_ns, ctime_ns) of the file (a link's target), to tell a change
    stamp: tuple[int, int, int] = field(default=(0, 0, 0), compare=False)


class Problem:
    """Something the walk left out: ``kind`` says why, ``path`` where (relative).

    ``Problem`` and ``Walk`` are plain classes, not dataclasses: nothing compares them,
    and making a dataclass costs start-up about 4 M instructions each."""

    __slots__ = ("kind", "message", "path")

    def __init__(self, kind: ProblemKind, path: str, message: str) -> None:
        self.kind = kind
        self.path = path
        self.message = message

    def __repr__(self) -> str:
        return f"Problem(kind={self.kind!r}, path={self.path!r}, message={self.message!r})"

    def diagnostic(self, root: str | os.PathLike[str]) -> Diagnostic:
        """This problem as a coded diagnostic located under ``root``."""
        code, hint = _PROBLEM_CODES[self.kind]
        where = os.path.join(os.fspath(root), self.path) if self.path else os.fspath(root)
        left_out = self.kind not in ("too_deep", "too_many")
        return Diagnostic.make(
            code, self.message + (" (left out)" if left_out else ""), path=where, hint=hint
        )


_PROBLEM_CODES: dict[str, tuple[str, str]] = {
    "escapes": (FILE_LINK_ESCAPES, "copy the file into the skill instead of linking to it"),
    "hidden": (FILE_LINK_ESCAPES, "hidden files are never served; link to a visible file"),
    "dangling": (LINK_DANGLING, "remove the link or restore its target"),
    "loop": (LINK_LOOP, "remove the looping link"),
    "special": (SPECIAL_FILE, "skills hold only folders and regular files"),
    "unreadable": (SPECIAL_FILE, "check the permissions of the folder"),
    "too_deep": (TOO_DEEP, "keep a skill's folders shallow"),
    "too_many": (TOO_MANY_FILES, "keep a skill small; move bulk data elsewhere"),
    "undecodable": (UNDECODABLE_NAME, "rename it: file names are served as UTF-8 text"),
    "bad_name": (REFUSED_NAME, "rename it: skilldeck never serves such a name"),
}


@value
class WalkLimits:
    """Caps of one walk. ``max_bytes`` (total size of the files) is off by default."""

    max_depth: int = WALK_DEPTH
    max_files: int = 20_000
    max_dirs: int = 20_000
    max_bytes: int | None = None


_DEFAULT_LIMITS = WalkLimits()
"""The caps of a walk that names none."""

#: (inode, mtime_ns, size, ctime_ns) of a folder
FolderStamp = tuple[int, int, int, int]


class Walk:
    """What a walk found: ``files`` sorted by path, the folders entered, the hidden
    names met (not entered) and the problems met. ``complete`` is False when a
    limit stopped the walk (only with ``strict=False``). ``stamps``: the
    ``FolderStamp`` of the folder walked and of each of ``dirs``, in that order, as
    the walk found them before listing each (empty when the folder could not be
    read): a later ``stat`` that still finds them tells that a folder's entries
    did not change since."""

    __slots__ = ("complete", "dirs", "files", "hidden", "problems", "stamps")

    def __init__(
        self,
        files: tuple[Entry, ...],
        dirs: tuple[str, ...] = (),
        hidden: tuple[str, ...] = (),
        problems: tuple[Problem, ...] = (),
        complete: bool = True,
        stamps: tuple[FolderStamp, ...] = (),
    ) -> None:
        self.files = files
        self.dirs = dirs
        self.hidden = hidden
        self.problems = problems
        self.complete = complete
        self.stamps = stamps

    def __repr__(self) -> str:
        return (
            f"Walk(files={self.files!r}, dirs={self.dirs!r}, hidden={self.hidden!r}, "
            f"problems={self.problems!r}, complete={self.complete!r})"
        )

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(e.path for e in self.files)


class SkillTree(ContainedFolder):
    """A skill folder opened once; walks and reads resolve beneath it.

    Use as a context manager (it holds a descriptor of the folder). ``skill``
    names the skill in error messages. ``follow_root=False`` refuses a folder
    that is a link (for a folder whose real path was checked earlier).
    """

    def walk(
        self,
        *,
        limits: WalkLimits = _DEFAULT_LIMITS,
        strict: bool = True,
        enter: Callable[[str], bool] | None = None,
    ) -> Walk:
        """Every regular file beneath the folder under the rules of ``skilldeck._tree``.

        ``enter(rel)`` may prune folders (``rel`` without a trailing slash).
        Past a limit: ``PathNotAllowedError`` (``strict``), or the walk stops
        there with a ``too_deep``/``too_many`` problem and ``complete=False``.
        """
        files: list[Entry] = []
        dirs: list[str] = []
        stamps: dict[str, FolderStamp] = {}  # "" and each of dirs
        hidden: list[str] = []
        problems: list[Problem] = []
        complete = True
        total = 0
        # (relative folder, (dev, inode) of the folders above it and itself, reached by a link)
        stack: list[tuple[str, tuple[tuple[int, int], ...], bool]] = []
        try:
            st = os.fstat(self._fd) if self._fd >= 0 else os.stat(self.real)
        except OSError:
            return Walk((), problems=(Problem("unreadable", "", "the folder cannot be read"),))
        stack.append(("", ((st.st_dev, st.st_ino),), False))
        stamps[""] = (st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns)

        def over(kind: ProblemKind, rel: str, message: str) -> None:
            nonlocal complete
            if strict:
                raise PathNotAllowedError(
                    f"{self.skill or self.root}: {message}",
                    skill=self.skill,
                    path=os.path.join(self.root, rel) if rel else self.root,
                    hint="skills must stay small and shallow; remove the extra folders or files",
                    reason=kind,
                )
            complete = False
            problems.append(Problem(kind, rel, message))

        while stack:
            rel_dir, seen, linked = stack.pop()
            for name, kind, info in self._list(rel_dir, problems):
                rel = f"{rel_dir}/{name}" if rel_dir else name
                if is_hidden(name):
                    hidden.append(shown_path(rel))
                    continue
                why = name_refusal(name)
                if why is not None:
                    shown = shown_path(rel)
                    bad: ProblemKind = "undecodable" if why == NOT_UTF8 else "bad_name"
                    problems.append(Problem(bad, shown, f"{shown}: the name {why}; it is skipped"))
                    continue
                via_link = linked
                if kind == "link":
                    kind, info = self._follow(rel, problems)
                    via_link = True
                if kind == "file":
                    assert info is not None
                    stamp = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
                    files.append(
                        Entry(rel, info.st_size, bool(info.st_mode & 0o111), via_link, stamp)
                    )
                    total += info.st_size
                    if len(files) > limits.max_files:
                        over("too_many", rel, f"more than {limits.max_files} files")
                        return self._done(files[:-1], dirs, hidden, problems, stamps, False)
                    if limits.max_bytes is not None and total > limits.max_bytes:
                        over("too_many", rel, f"more than {limits.max_bytes} bytes of files")
                        return self._done(files[:-1], dirs, hidden, problems, stamps, False)
                elif kind == "dir":
                    assert info is not None
                    key = (info.st_dev, info.st_ino)
                    if key in seen:
                        problems.append(
                            Problem("loop", rel, f"{rel}: a link back to a folder above it")
                        )
                        continue
                    if enter is not None and not enter(rel):
                        continue
                    # a folder whose files would lie too deep is not entered
                    if below_walk_depth(f"{rel}/", limits.max_depth):
                        over("too_deep", rel, f"folders nest deeper than {limits.max_depth}")
                        continue
                    dirs.append(rel)
                    stamps[rel] = (info.st_ino, info.st_mtime_ns, info.st_size, info.st_ctime_ns)
                    if len(dirs) > limits.max_dirs:
                        over("too_many", rel, f"more than {limits.max_dirs} folders")
                        return self._done(files, dirs[:-1], hidden, problems, stamps, False)
                    stack.append((rel, (*seen, key), via_link))
                elif kind == "special":
                    problems.append(
                        Problem("special", rel, f"{rel} is not a regular file (device, pipe)")
                    )
        return self._done(files, dirs, hidden, problems, stamps, complete)

    @staticmethod
    def _done(
        files: list[Entry],
        dirs: list[str],
        hidden: list[str],
        problems: list[Problem],
        stamps: dict[str, FolderStamp],
        complete: bool,
    ) -> Walk:
        files.sort(key=lambda e: e.path)
        dirs.sort()
        return Walk(
            tuple(files),
            tuple(dirs),
            tuple(sorted(hidden)),
            tuple(problems),
            complete,
            (stamps[""], *(stamps[d] for d in dirs)),
        )

    def _list(
        self, rel_dir: str, problems: list[Problem]
    ) -> Iterator[tuple[str, str, os.stat_result | None]]:
        """``(name, kind, stat)`` of a folder's entries, sorted; kind: file/dir/link/special."""
        try:
            if _HAVE_DIR_FD:
                fd = self._open(rel_dir.split("/") if rel_dir else [], want_dir=True)
                try:
                    with os.scandir(fd) as it:  # stat while its descriptor is open
                        listed = [(e.name, e.stat(follow_symlinks=False)) for e in it]
                finally:
                    os.close(fd)
                listed.sort(key=lambda item: item[0])
            else:
                fd = self._open_by_path(rel_dir.split("/") if rel_dir else [], want_dir=True)
                os.close(fd)
                base = os.path.join(self.real, *rel_dir.split("/")) if rel_dir else self.real
                with os.scandir(base) as it:
                    listed = sorted((e.name, e.stat(follow_symlinks=False)) for e in it)
        except _Refused as why:
            problems.append(Problem("unreadable", rel_dir, f"{rel_dir}/ {why.message}"))
            return
        except OSError as exc:
            problems.append(
                Problem("unreadable", rel_dir, f"{rel_dir or '.'}: {exc.strerror or exc}")
            )
            return
        for name, st in listed:
            mode = st.st_mode
            if stat.S_ISLNK(mode):
                yield name, "link", None
            elif stat.S_ISREG(mode):
                yield name, "file", st
            elif stat.S_ISDIR(mode):
                yield name, "dir", st
            else:
                yield name, "special", st

    def _follow(self, rel: str, problems: list[Problem]) -> tuple[str, os.stat_result | None]:
        """Resolve the link at ``rel`` with the reader's rules: (kind, stat of its target)."""
        try:
            fd = self._open(rel.split("/"), want_dir=False)
        except _Refused as why:
            kind: ProblemKind = "dangling" if why.kind == "missing" else "escapes"
            if why.kind in ("hidden", "loop", "unreadable"):
                kind = why.kind
            message = why.message
            if why.kind == "special":  # the link ends on a folder above it
                kind, message = "loop", "a link back to a folder above it"
            problems.append(Problem(kind, rel, f"{rel}: {message}; it is skipped"))
            return "skip", None
        try:
            st = os.fstat(fd)
        finally:
            os.close(fd)
        if stat.S_ISREG(st.st_mode):
            return "file", st
        if stat.S_ISDIR(st.st_mode):
            return "dir", st
        return "special", st


def walk_skill(
    root: str | os.PathLike[str],
    *,
    limits: WalkLimits = _DEFAULT_LIMITS,
    strict: bool = True,
    skill: str | None = None,
    enter: Callable[[str], bool] | None = None,
    follow_root: bool = True,
) -> Walk:
    """Walk a skill folder (see ``SkillTree.walk``)."""
    with SkillTree(root, skill=skill, follow_root=follow_root) as tree:
        return tree.walk(limits=limits, strict=strict, enter=enter)
