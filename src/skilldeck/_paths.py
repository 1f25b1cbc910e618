"""Where skilldeck keeps things, and path containment checks.

Every location can be moved by an environment variable, which is also how the
test suite stays hermetic:

- ``SKILLDECK_HOME``: puts config, data and cache under one folder
  (``config/``, ``data/``, ``cache/``);
- ``SKILLDECK_CONFIG_DIR``, ``SKILLDECK_DATA_DIR``, ``SKILLDECK_CACHE_DIR``: each one alone.

Otherwise the platform's user directories are used (``platformdirs``).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from skilldeck._frozen import value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "NOT_UTF8",
    "Dirs",
    "dirs",
    "fd_real_path",
    "find_project_root",
    "foreign_project_root",
    "install_base",
    "is_regular_file",
    "is_safe_directory",
    "name_refusal",
    "owner_problem",
    "real",
    "real_path",
    "safe_relpath",
    "shown_excerpt",
    "shown_path",
    "shown_text",
    "user_setting",
    "within",
]

APP = "skilldeck"
PROJECT_DIR = ".skilldeck"


@value
class Dirs:
    """The user-level folders skilldeck uses."""

    config: Path
    data: Path
    cache: Path

    @property
    def config_file(self) -> Path:
        return self.config / "config.toml"

    @property
    def installed(self) -> Path:
        """User-scope installed skills (``skilldeck install --scope user``): ``skills/``
        of :func:`install_base` (the data folder unless ``[install] dir`` moves it)."""
        return install_base() / "skills"

    @property
    def user_skills(self) -> Path:
        """skilldeck's own user skills folder."""
        return self.config / "skills"


#: what the folders follow: skilldeck's variables, and those the platform's user
#: folders are found from (``platformdirs``, ``~``)
_DIRS_VARS = (
    "SKILLDECK_CONFIG_DIR", "SKILLDECK_DATA_DIR", "SKILLDECK_CACHE_DIR", "SKILLDECK_HOME",
    "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
    "USERPROFILE", "HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA",
)  # fmt: skip
_dirs_last: tuple[tuple[str | None, ...], Dirs] | None = None  # one per process


def dirs() -> Dirs:
    """The current user-level folders (read from the environment each call; the
    answer for the same values of the variables it follows is kept)."""
    global _dirs_last
    get = os.environ.get
    key: tuple[str | None, ...] = (
        get("SKILLDECK_CONFIG_DIR"), get("SKILLDECK_DATA_DIR"), get("SKILLDECK_CACHE_DIR")
    )  # fmt: skip
    if not all(v and v[0] != "~" for v in key):  # a folder that follows more variables
        key = tuple(get(var) for var in _DIRS_VARS)
    last = _dirs_last
    if last is not None and last[0] == key:
        return last[1]
    found = _find_dirs()
    _dirs_last = (key, found)
    return found


def _find_dirs() -> Dirs:
    home = os.environ.get("SKILLDECK_HOME")
    base = Path(home).expanduser() if home else None

    def pick(var: str, sub: str) -> Path:
        value = os.environ.get(var)
        if value:
            return Path(value).expanduser()
        if base is not None:
            return base / sub
        # imported only when asked: its import is a large part of a command's start-up
        import platformdirs

        ask: Callable[[str], str] = getattr(platformdirs, f"user_{sub}_dir")
        return Path(ask(APP))

    return Dirs(
        config=pick("SKILLDECK_CONFIG_DIR", "config"),
        data=pick("SKILLDECK_DATA_DIR", "data"),
        cache=pick("SKILLDECK_CACHE_DIR", "cache"),
    )


_user_file: tuple[tuple[int, int, int, str], dict[str, Any]] | None = None  # one per process


def user_setting(table: str, key: str) -> Any:
    """``[table] key`` of the user's own config file (never a project's), or ``None``.

    For settings a cloned repository must not choose (where installs go, which
    folders of other users count, which database is served). A missing or
    unreadable file means ``None``; a broken one is reported with its line by the
    commands that load the config. Parsed once per change of the file (one stat).
    """
    global _user_file
    path = dirs().config_file
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_ino, st.st_mtime_ns, st.st_size, str(path))
    if _user_file is not None and _user_file[0] == stamp:
        data = _user_file[1]
    else:
        import tomllib  # only when the file exists

        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except (OSError, ValueError, RecursionError):  # load_config reports the error
            data = {}
        # a file changed within the last second may change again under the same stamp
        settled = time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) > 1_000_000_000
        _user_file = (stamp, data) if settled else None
    found = data.get(table)
    return found.get(key) if isinstance(found, dict) else None


def install_base() -> Path:
    """Where user-scope installs live (``skills/``, ``skills.lock``, ``.staging/``).

    ``[install] dir`` of the user's own config file (a relative path is taken from the
    config folder), else the data folder. A project's config file cannot move it: a
    cloned repository must not choose where skilldeck writes.
    """
    d = dirs()
    value = user_setting("install", "dir")
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        return d.data  # a bad value: load_config reports it
    path = Path(value).expanduser()
    return path if path.is_absolute() else d.config / path


def _nearest_repository(start: str | os.PathLike[str] | None) -> Path | None:
    folder = real_path(start if start is not None else os.getcwd())
    while True:  # strings, not Paths: a run asks this of its current folder
        if os.path.lexists(os.path.join(folder, ".git")):
            return Path(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def find_project_root(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (the repository root).

    Returns ``None`` outside a repository, and also when that repository
    belongs to another user and is not listed in ``[security]
    safe_directories`` (git's ``safe.directory`` rule; see
    :func:`foreign_project_root`).
    """
    root = _nearest_repository(start)
    if root is None or owner_problem(root, root / ".git") is not None:
        return None
    return root


def foreign_project_root(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The repository root above ``start`` when it is ignored for belonging to another user."""
    root = _nearest_repository(start)
    if root is not None and owner_problem(root, root / ".git") is not None:
        return root
    return None


def _euid() -> int | None:
    geteuid = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else None


def owner_problem(*paths: Path, folder: Path | None = None) -> str | None:
    """Why ``paths`` (a project root, its ``.git`` or ``.skilldeck``) cannot be used, or ``None``.

    A path owned by another user is refused unless ``folder`` (default: the
    first path) is listed in ``[security] safe_directories`` of the user's own
    config file. Missing paths are fine.
    """
    uid = _euid()
    if uid is None:
        return None
    for path in paths:
        try:
            owner = os.lstat(path).st_uid
        except OSError:
            continue
        if owner != uid:
            if is_safe_directory(folder if folder is not None else paths[0]):
                return None
            return f"{path} belongs to another user (uid {owner}; you are uid {uid})"
    return None


def safe_directories() -> tuple[str, ...]:
    """``[security] safe_directories`` of the user's config file (never a project file)."""
    raw = user_setting("security", "safe_directories")
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        return ()
    return tuple(v for v in raw if isinstance(v, str) and "\x00" not in v)


def is_safe_directory(folder: Path) -> bool:
    """Whether the user allowed ``folder`` although another user owns it."""
    allowed = safe_directories()
    if "*" in allowed:
        return True
    here = os.path.realpath(folder)
    return any(os.path.realpath(os.path.expanduser(a)) == here for a in allowed)


NOT_UTF8 = "is not valid UTF-8"
"""``name_refusal``'s answer for a name with bytes that are not UTF-8."""
_ENCODED = ("%2e", "%2f", "%5c", "%00")  # ".", "/", "\\", NUL, percent-encoded


def name_refusal(name: str) -> str | None:
    """Why one path component is never part of a skill, or ``None`` if it may be.

    The one rule for names, asked by the walker (a file or folder of such a name is
    left out: never listed, digested, copied or served) and by ``safe_relpath`` (a
    path with such a component is refused), so a file is listed exactly when it can
    be read. Refused: a backslash (a separator on Windows), a control character (a
    newline in a name rewrites a listing), a percent-encoded ``.``, ``/``, ``\\`` or
    NUL (traversal once some layer decodes it), a leading ``~`` (a home folder once
    some layer expands it), a drive letter's colon (``c:x``), and bytes that are not
    UTF-8 (a name has no text form for JSON, URIs and digests). Hidden names are a
    rule of their own (``_tree.is_hidden``)."""
    if name.isascii():
        if (
            name.isprintable()
            and "\\" not in name
            and "%" not in name
            and name[:1] != "~"
            and name[1:2] != ":"
        ):
            return None  # most names: a few passes in C
    else:
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            return NOT_UTF8
    if "\\" in name:
        return "has a backslash"
    if name and min(name) < " ":  # U+0000-U+001F
        return "has a control character"
    lowered = name.lower()
    if any(e in lowered for e in _ENCODED):
        return "has a percent-encoded '.', '/', '\\' or NUL"
    if name[:1] == "~":
        return "starts with '~'"
    if name[1:2] == ":":
        return "looks like a drive letter"
    return None


def shown_path(text: str) -> str:
    """A path or name as skilldeck prints it: bytes that are not UTF-8 (which ``os``
    decodes to surrogates) and control characters as ``\\xNN``, so it can be printed,
    logged and encoded, and a line break in a name cannot forge a line. A backslash
    of the name itself is shown doubled, so ``a\\x0ab`` (seven characters) and
    ``a<line break>b`` are not shown alike."""
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return shown_text(shown)


_SHOWN = 256
"""How much of a string given from outside (a URI, a cursor, a value) an error repeats."""


def shown_excerpt(text: str, limit: int = _SHOWN) -> str:
    """``text`` given from outside as an error message repeats it: whole up to ``limit``
    characters (256), else its start and its length (an error must not echo megabytes
    back)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def shown_text(text: str, *, keep: str = "") -> str:
    """Text from a skill (a description, a value, a message quoting one) as skilldeck
    prints it to a terminal: control characters (C0, DEL, C1: an escape sequence can
    retitle, recolour or clear a terminal, or set its clipboard) and the characters
    that reorder or break a line (bidirectional overrides, line separators) as
    ``\\xNN`` / ``\\uNNNN``; everything else, backslashes included, as it is.
    ``keep``: characters shown as they are (a program's output keeps ``"\\n\\t"``)."""
    if text.isprintable():
        return text
    if keep:
        return text.translate({k: v for k, v in _CONTROLS.items() if chr(k) not in keep})
    return text.translate(_CONTROLS)


_CONTROLS = {
    i: f"\\x{i:02x}" if i < 256 else f"\\u{i:04x}"
    for i in (*range(32), *range(127, 160), *range(0x202A, 0x202F), *range(0x2066, 0x206A))
}
_CONTROLS |= {0x2028: "\\u2028", 0x2029: "\\u2029"}


def safe_relpath(relpath: str) -> str | None:
    """Normalise a skill-relative path given by a model or user, or ``None`` if hostile.

    Refuses empty and absolute paths, ``..`` segments, and any component whose name
    no skill holds (``name_refusal``: backslashes, control characters, drive letters,
    a leading ``~``, percent-encoded traversal). Returns a POSIX path without ``.``
    segments.
    """
    if not relpath or relpath.startswith("/"):
        return None
    parts = [p for p in relpath.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    if any(map(name_refusal, parts)):
        return None
    return "/".join(parts)


def script_relpath(program: str, *, exists: Callable[[str], bool]) -> tuple[str | None, str]:
    """The skill-relative path under ``scripts/`` that ``program`` runs, and why not.

    The one rule for what a script name or a declared tool's relative program means:
    ``./x`` and ``x`` name ``scripts/x`` unless the skill has a file ``x`` outside
    ``scripts/`` (then it is refused: only files under ``scripts/`` run). Returns
    ``(relpath, "")``, or ``(None, "outside")`` for a name that leaves the skill, or
    ``(relpath, "not-scripts")`` for a file of the skill outside ``scripts/``.
    ``exists(relpath)`` tells whether the skill has that file.
    """
    rel = safe_relpath(program.removeprefix("./"))
    if rel is None:
        return None, "outside"
    if rel.startswith("scripts/"):
        return rel, ""
    if exists(rel):
        return rel, "not-scripts"
    return "scripts/" + rel, ""


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """True for a regular file (following links); False for devices, fifos, folders."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


_O_PATH = getattr(os, "O_PATH", 0)
NAMES_DESCRIPTORS = bool(_O_PATH)
"""Can ``fd_real_path`` name what a descriptor has open (Linux, ``/proc/self/fd``)?
Elsewhere it always answers ``None``, and a caller can skip the open it would name."""


def _kernel_real(path: str | os.PathLike[str]) -> str | None:
    """What the kernel names ``path`` once opened without reading (``O_PATH``,
    ``/proc/self/fd/N``), or ``None`` where it cannot (no such path, a loop, no
    ``/proc``, not Linux)."""
    if not _O_PATH:
        return None
    try:
        fd = os.open(path, _O_PATH | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        return fd_real_path(fd)
    finally:
        os.close(fd)


def fd_real_path(fd: int) -> str | None:
    """The real path of what the descriptor ``fd`` has open, as the kernel names it
    (``/proc/self/fd/N``: one call, and no window between an open and a check of
    what was opened), or ``None`` where it cannot (no ``/proc``, not Linux, a file
    or folder removed since)."""
    if not NAMES_DESCRIPTORS:
        return None
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    # a folder removed meanwhile is named "... (deleted)"
    return real if real.startswith("/") and not real.endswith(" (deleted)") else None


def real_path(path: str | os.PathLike[str]) -> str:
    """``os.path.realpath(path)``, answered by the kernel where it can.

    Three system calls, where ``os.path.realpath`` makes one ``lstat`` and a few
    Python steps per component (a run resolves about twenty paths); an absolute
    path that does not exist is named from the nearest folder above it that does
    (``_missing_real``); whatever the kernel cannot name so (a dangling link, a loop,
    no ``/proc``) gets ``os.path.realpath``'s answer, so the result is the same.
    """
    found = _kernel_real(path)
    if found is None:
        found = _missing_real(path)
    return found if found is not None else os.path.realpath(path)


def _missing_real(path: str | os.PathLike[str]) -> str | None:
    """What ``os.path.realpath`` answers for an absolute, normalized path that does not
    exist: the kernel's name of the nearest folder above it that exists, the missing
    names after it (each ``lstat`` failed, so none is a link). ``None`` for anything
    else (a dangling link, a name that is no folder, no ``/proc``): ``os.path.realpath``
    answers those, at many times the cost (a run asks this of the state folders it
    has not made yet)."""
    text = os.fspath(path)
    if not _O_PATH or not isinstance(text, str) or not text.startswith("/"):
        return None
    if text.startswith("//") or os.path.normpath(text) != text:
        return None
    missing: list[str] = []
    folder = text
    while True:
        try:
            os.lstat(folder)
            break
        except FileNotFoundError:
            if folder == "/":
                return None
            parent, _, name = folder.rpartition("/")
            missing.append(name)
            folder = parent or "/"
        except (OSError, ValueError):
            return None
    if not missing:
        return None  # it exists: a link the kernel could not follow
    found = _kernel_real(folder)
    if found is None:
        return None
    return found.rstrip("/") + "/" + "/".join(reversed(missing))


def real(path: Path) -> Path:
    """``path.resolve()`` through :func:`real_path` (the same answers and errors)."""
    found = _kernel_real(path)
    return Path(found) if found is not None else path.resolve()


def within(path: str, bases: Iterable[str], *, sep: str = os.sep) -> bool:
    """Whether ``path`` is one of ``bases`` or below one: the one containment rule,
    a check of the strings alone (no I/O), so both sides must already be in the
    same form (real paths, or skill-relative paths with ``sep="/"``). A base that
    ends with ``sep`` (the root ``/``) holds every path below it; ``/a/b`` is not
    below ``/a/bc``. (A loop: a walk asks this of every folder, and ``any`` over a
    generator costs about twice as much a call.)"""
    for b in bases:  # noqa: SIM110 (see above)
        if path == b or path.startswith(b.rstrip(sep) + sep):
            return True
    return False
