"""Who runs a skill's program, and whether that user can reach what the run needs.

When skilldeck runs as root it never hands skill code root's powers. In ``auto``
(the default ``run_as``) the program runs as ``nobody`` when that user can reach
everything the run needs (the program and its install folders, the skill's
snapshot, the working folder, paths given as arguments and extra mounts);
otherwise it runs as the invoking user with every capability dropped, and the
isolation report says which path was out of reach. A ``run_as`` naming a user
refuses instead, naming the path; so does ``sandbox = "strict"`` in ``auto``: it never
runs a program as root by falling back.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from skilldeck._errors import SandboxUnavailableError
from skilldeck._paths import within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

__all__ = ["Need", "RunAs", "ancestors", "blocked_for", "choose_user", "nobody", "user_label"]

_RX = os.R_OK | os.X_OK
if TYPE_CHECKING:
    _T = TypeVar("_T")


class Need:
    """A path the run needs, the access it needs, and what it is (for messages).

    ``start``: under bubblewrap, the mount point at or above ``path`` below which
    host permissions apply (folders above a mount inside a hidden folder are
    created traversable by the sandbox); ``None`` checks every folder from ``/``.
    Never changed once made; not a dataclass (nothing compares or copies one, and
    making a dataclass costs start-up about 4 M instructions), like the classes of
    a run's plan.
    """

    __slots__ = ("path", "start", "want", "what")

    def __init__(self, path: Path, want: int, what: str, start: Path | None = None) -> None:
        self.path = path
        self.want = want
        self.what = what
        self.start = start


class RunAs:
    """The user the program runs as (``None``: unchanged) and why."""

    __slots__ = ("blocked", "gid", "label", "reason", "uid")

    def __init__(
        self,
        uid: int | None,
        gid: int | None,
        label: str,
        reason: str | None = None,
        blocked: str | None = None,
    ) -> None:
        self.uid = uid
        self.gid = gid
        self.label = label
        self.reason = reason
        self.blocked = blocked


_users: dict[object, object] = {}  # the answers below for one state of the user database
_users_stamp: tuple[int, int, int] | None = None


def _user_db(key: object, ask: Callable[[], _T]) -> _T:
    """``ask()``, kept while ``/etc/passwd`` keeps its stat signature (each look-up
    reads and parses that file: 20 us, three times a run)."""
    global _users_stamp
    try:
        st = os.stat("/etc/passwd")
        stamp: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None
    if stamp is None or stamp != _users_stamp:
        _users.clear()
        _users_stamp = stamp
    if stamp is not None and key in _users:
        return _users[key]  # type: ignore[return-value]  # what ask() gave for key
    found = ask()
    if stamp is not None:
        _users[key] = found
    return found


def nobody() -> tuple[int, int]:
    """The ``nobody`` user's ids (65534 when the system has no such entry)."""

    def ask() -> tuple[int, int]:
        try:
            import pwd

            entry = pwd.getpwnam("nobody")
            return (entry.pw_uid, entry.pw_gid)
        except (ImportError, KeyError):
            return (65534, 65534)

    return _user_db("nobody", ask)


def user_label(uid: int) -> str:
    def ask() -> str:
        try:
            import pwd

            return f"{uid} ({pwd.getpwuid(uid).pw_name})"
        except (ImportError, KeyError):
            return str(uid)

    return _user_db(uid, ask)


def ancestors(path: str) -> list[str]:
    """The folders above the absolute ``path``, outermost first: ``Path(path).parents``
    reversed, as strings (a ``Path`` for each cost a run about 0.05 ms)."""
    root = "//" if path.startswith("//") and not path.startswith("///") else "/"  # as POSIX
    parts = [part for part in path.split("/") if part and part != "."]
    return [root + "/".join(parts[:i]) for i in range(len(parts))]


def _allows(st: os.stat_result, uid: int, gid: int, want: int) -> bool:
    if uid == 0:
        return True
    shift = 6 if st.st_uid == uid else 3 if st.st_gid == gid else 0
    bits = (st.st_mode >> shift) & 0o7
    need = (
        (4 if want & os.R_OK else 0) | (2 if want & os.W_OK else 0) | (1 if want & os.X_OK else 0)
    )
    return bits & need == need


def blocked_for(
    path: Path,
    uid: int,
    gid: int,
    want: int,
    start: Path | None = None,
    *,
    seen: dict[str, bool] | None = None,
) -> Path | None:
    """The first folder or file on ``path`` that ``uid``/``gid`` cannot traverse or use
    (the folders from ``start`` down, when given: above it the run sees a mount).

    ``seen``: whether each folder checked so far may be traversed, shared by the
    checks of one decision (the paths a run needs have most of their folders in common).
    The folders are strings (``Path.parents`` and ``is_relative_to`` for each cost a
    sandboxed run about 0.05 ms), with the same answers.
    """
    text = str(path)
    top = str(start) if start is not None else None
    try:
        for parent in ancestors(text):
            if top is not None and not within(parent, (top,)):
                continue
            ok = seen.get(parent) if seen is not None else None
            if ok is None:
                ok = _allows(os.stat(parent), uid, gid, os.X_OK)
                if seen is not None:
                    seen[parent] = ok
            if not ok:
                return Path(parent)
        if not _allows(os.stat(text), uid, gid, want):
            return path
    except OSError:
        return None  # a path that does not exist blocks nobody in particular
    return None


def _describe(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return str(path)
    return f"{path} (mode {st.st_mode & 0o7777:04o}, owner uid {st.st_uid})"


def choose_user(
    setting: tuple[int, int] | str | None,
    needs: Sequence[Need],
    *,
    skill: str,
    as_root: bool,
    drop_caps: bool,
    strict: bool = False,
) -> RunAs:
    """Pick the run-as user (see the module docstring); raise when a chosen user cannot
    reach, and with ``strict`` (``sandbox = "strict"``) rather than fall back to root."""
    me = os.getuid() if hasattr(os, "getuid") else -1
    self_label = (
        f"{user_label(me)}, capabilities dropped" if drop_caps and as_root else user_label(me)
    )
    if not as_root:
        reason = None
        if isinstance(setting, tuple):
            reason = "run_as applies only when skilldeck runs as root"
        return RunAs(None, None, self_label, reason)
    if setting is None:
        return RunAs(None, None, self_label, 'run_as = "self"')
    auto = setting == "auto"
    uid, gid = nobody() if auto or not isinstance(setting, tuple) else setting
    seen: dict[str, bool] = {}
    for need in needs:
        blocked = blocked_for(need.path, uid, gid, need.want, need.start, seen=seen)
        if blocked is None:
            continue
        why = f"uid {uid} cannot reach the {need.what}: {_describe(blocked)}"
        import shlex  # for the hint of a refusal only

        if auto and not strict:
            return RunAs(
                None, None, self_label, why + "; running as the invoking user", str(blocked)
            )
        raise SandboxUnavailableError(
            f"the program cannot run as uid {uid}: {why}"
            + ('; sandbox = "strict" does not run it as root instead' if auto else ""),
            skill=skill,
            path=str(blocked),
            hint=(
                f"make it reachable: chmod o+rx {shlex.quote(str(blocked))} (and its "
                "folders); or, knowing the program then runs as root without "
                "capabilities: --run-as self"
                if strict
                else f"make it reachable (chmod o+rx on {blocked} and its folders), use "
                "bubblewrap (apt-get install bubblewrap), which mounts the interpreter for "
                "that user, or run as yourself: --run-as self"
            ),
        )
    return RunAs(uid, gid, user_label(uid))


def rx(path: str | os.PathLike[str]) -> int:
    """Read and traverse for folders, read for files."""
    return _RX if os.path.isdir(path) else os.R_OK
