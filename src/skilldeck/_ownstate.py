"""skilldeck's own state folders: what they are, and what a run may never see.

The config, data, cache and install folders (``protected_state``), resolved through
links, and the checks of the folders a run is shown (``view_problem``,
``hidden_inside``). Apart from ``_statedir``'s descriptor-based access to state
folders: only a run asks, and a listing need not build these.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path

from skilldeck._paths import dirs, install_base, real_path, within

__all__ = [
    "StatePlace",
    "hidden_inside",
    "package_envs",
    "protected_state",
    "protected_state_fixed",
    "view_problem",
]


class StatePlace:
    """One folder of skilldeck's own state, as configured (``path``) and resolved
    (``real``); ``what`` names it in messages. Never changed once made; not a
    dataclass (nothing compares or copies one, and making a dataclass costs a run's
    start-up about 4 M instructions)."""

    __slots__ = ("path", "real", "what")

    def __init__(self, path: str, real: str, what: str) -> None:
        self.path = path
        self.real = real
        self.what = what

    def spellings(self) -> tuple[str, ...]:
        return (self.path,) if self.path == self.real else (self.path, self.real)


_fixed: ContextVar[list[list[StatePlace]] | None] = ContextVar("skilldeck_state", default=None)


@contextlib.contextmanager
def protected_state_fixed() -> Iterator[None]:
    """Within the block, :func:`protected_state` is resolved once, when first asked.

    For one run: its plan, report and sandbox arguments ask for the list several
    times within milliseconds, and must all see the same one. Every run resolves it
    anew (the folders follow the environment, the config file and the links). A block
    inside another keeps the outer block's list.
    """
    if _fixed.get() is not None:
        yield
        return
    token = _fixed.set([])
    try:
        yield
    finally:
        _fixed.reset(token)


def protected_state() -> list[StatePlace]:
    """Every folder of skilldeck's own state, the one list all guards use.

    The config folder (settings, the user's own skills), the data folder
    (approvals, trust grants, installed skills, the key that signs staging ids
    and the launch helper), the cache folder (the compiled launch helper,
    catalog and search indexes) and the install folder when ``[install] dir``
    moves it. Links are resolved: a run must reach none of them by any name.
    """
    fixed = _fixed.get()
    if fixed is None:
        return _resolve_state()
    if not fixed:
        fixed.append(_resolve_state())
    return list(fixed[0])


def _resolve_state() -> list[StatePlace]:
    d = dirs()
    places = (
        (d.config, "config folder"),
        (d.data, "data folder"),
        (d.cache, "cache folder"),
        (install_base(), "install folder"),
    )
    out: list[StatePlace] = []
    for path, what in places:
        shown = os.path.abspath(path)
        if any(shown == p.path for p in out):
            continue  # one folder named twice: the install folder is the data folder by default
        place = StatePlace(shown, real_path(shown), what)
        if all(place.real != p.real for p in out):
            out.append(place)
    return out


def package_envs() -> Path:
    """Where the Python environments of skills' scripts live: beside the cache folder.

    Not inside it: a run sees its environment (read-only), and nothing of the
    protected state may be visible to a run. Runs share these environments, so no run
    may see them writable (:func:`view_problem`).
    """
    cache = dirs().cache
    return cache.with_name(cache.name + "-envs")


def _home() -> str | None:
    home = os.path.expanduser("~")
    return real_path(home) if home and home != "~" else None


def view_problem(path: str | os.PathLike[str], *, writable: bool) -> str | None:
    """Why a run must not see ``path`` (a working folder, a mount), or ``None``.

    Nothing inside skilldeck's own state is ever visible to a run. A writable
    view may in addition not contain that state (a run could rename a folder
    above it and put its own in place) nor be the home folder or a folder above it
    (shell start-up files, agents' skill folders). A read-only view that contains
    the state is allowed: bubblewrap hides the state inside it (:func:`hidden_inside`).
    """
    shown = os.path.abspath(path)
    names = {shown, real_path(shown)}
    for place in protected_state():
        for name in names:
            if any(within(name, (s,)) for s in place.spellings()):
                return f"{shown} is inside skilldeck's own {place.what} ({place.real})"
            if writable and any(within(s, (name,)) for s in place.spellings()):
                return f"{shown} contains skilldeck's own {place.what} ({place.real})"
    if writable:
        envs = real_path(package_envs())
        if any(within(name, (envs,)) or within(envs, (name,)) for name in names):
            return (
                f"{shown} holds the Python environments every run shares ({envs}); "
                "mount it read-only"
            )
    home = _home()
    if writable and home is not None and any(within(home, (name,)) for name in names):
        return f"{shown} is your home folder or holds it (shell start-up files, agents' folders)"
    return None


def hidden_inside(views: Iterable[str]) -> list[str]:
    """The state folders (every spelling) that lie inside one of ``views``: a sandbox
    mounts an empty folder over each, after the views."""
    found: list[str] = []
    for place in protected_state():
        for name in place.spellings():
            if name not in found and any(within(name, (v,)) and name != v for v in views):
                found.append(name)
    return found
