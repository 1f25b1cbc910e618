"""Skill roots named by environment variables, and where they sit in precedence.

==================  =========================================  ==========  =========
variable            meaning                                    discovery   position
==================  =========================================  ==========  =========
``SKILLS_DIR``      the shipped skills                         recursive   low
``SKILLDECK_PATH``  ``os.pathsep``-separated roots; as with    immediate   high
                    ``PATH``, an earlier entry wins
``CUSTOM_SKILLS_DIR``  the custom skills (override             recursive   highest
                    shipped ones)
==================  =========================================  ==========  =========

All of them belong to the ``extra`` source, around the config file's roots::

    SKILLS_DIR < [catalog] roots, recursive < SKILLDECK_PATH (last .. first) < CUSTOM_SKILLS_DIR

so an environment variable overrides the config file, except ``SKILLS_DIR``,
which holds the shipped defaults that everything else may
override. The ``extra`` source itself sits between ``user`` and ``project`` in
the default source order. Relative paths are taken from the working directory;
a relative ``CUSTOM_SKILLS_DIR`` from ``AGENT_WORKSPACE_ROOT`` when that is set
(the workspace). Unset or empty variables add nothing; empty entries of
``SKILLDECK_PATH`` are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from skilldeck.catalog._model import Root

__all__ = ["ENV_VARIABLES", "env_roots"]

#: The variables read, lowest precedence first.
ENV_VARIABLES = ("SKILLS_DIR", "SKILLDECK_PATH", "CUSTOM_SKILLS_DIR")


def _absolute(raw: str, base: Path) -> Path:
    path = Path(raw).expanduser()
    return path if path.is_absolute() else base / path


def env_roots(
    environ: Mapping[str, str] | None = None, *, cwd: str | os.PathLike[str] | None = None
) -> tuple[tuple[Root, ...], tuple[Root, ...]]:
    """The roots ``SKILLS_DIR``, ``SKILLDECK_PATH`` and ``CUSTOM_SKILLS_DIR`` name, as
    ``(below, above)``: ``below`` goes under the config file's roots, ``above`` over
    them (each lowest precedence first). A pair, not a class: every listing asks, and
    making a class costs start-up time."""
    env = os.environ if environ is None else environ
    here = Path(cwd) if cwd is not None else Path.cwd()
    below: list[Root] = []
    above: list[Root] = []
    shipped = env.get("SKILLS_DIR", "").strip()
    if shipped:
        below.append(Root(_absolute(shipped, here), True))
    entries = [e.strip() for e in env.get("SKILLDECK_PATH", "").split(os.pathsep)]
    for entry in reversed([e for e in entries if e]):
        above.append(Root(_absolute(entry, here)))
    custom = env.get("CUSTOM_SKILLS_DIR", "").strip()
    if custom:
        workspace = env.get("AGENT_WORKSPACE_ROOT", "").strip()
        base = _absolute(workspace, here) if workspace else here
        above.append(Root(_absolute(custom, base), True))
    return tuple(below), tuple(above)
