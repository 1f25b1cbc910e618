"""The default sources and their roots, lowest precedence first (DESIGN.md).

==========  ===============================================================  =========
source      roots (lowest first; a later root wins over an earlier one)      trust
==========  ===============================================================  =========
bundled     the package's ``_bundled/`` folder                               bundled
user        ``$XDG_CONFIG_HOME/agents/skills``, ``~/.agent/skills``,
            ``~/.agents/skills``, ``$CODEX_HOME/skills`` (``~/.codex``),
            ``$CLAUDE_CONFIG_DIR/skills`` (``~/.claude``),
            ``dirs().user_skills``                                            user
extra       ``SKILLS_DIR``, ``[catalog] roots`` (immediate) and ``recursive``
            (recursive), ``SKILLDECK_PATH``, ``CUSTOM_SKILLS_DIR`` (see
            ``_envroots``)                                                     user
project     from the repository root down to the working directory, in each
            folder ``.claude/skills``, ``.agent/skills`` then ``.agents/skills``
                                                                              user
installed   ``~/.agent/plugins``, ``dirs().installed``,
            ``<project>/.skilldeck/skills``, and the
            ``path`` of each ``[installed.<name>]`` table                     untrusted
==========  ===============================================================  =========

``[catalog] sources`` reorders or drops sources; ``[catalog.source_roots]``
replaces a source's default roots. A root inside the current repository never
gives more than ``user`` trust, whatever the config says (docs/security.md).
"""

from __future__ import annotations

import os
from pathlib import Path

from skilldeck._paths import PROJECT_DIR, dirs, find_project_root, foreign_project_root
from skilldeck._statedir import safe_dirs
from skilldeck.catalog._envroots import env_roots
from skilldeck.catalog._model import TRUST_OF_KIND, Root, Source, Trust
from skilldeck.config import Config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.catalog._model import SourceKind

__all__ = ["bundled_root", "default_sources", "project_folders"]


def bundled_root() -> Path:
    """The folder of skills shipped inside the package."""
    # what importlib.resources answers for an installed package, without importing it
    return Path(__file__).parent.parent / "_bundled"


def project_folders(cwd: str | os.PathLike[str] | None = None) -> list[Path]:
    """Folders searched for project skills, repository root first, cwd last.

    Outside a repository only the working directory itself.
    """
    here = Path(cwd if cwd is not None else Path.cwd()).resolve()
    top = find_project_root(here)
    if top is None:
        # inside another user's repository: none of it is the user's project (SK531)
        return [] if foreign_project_root(here) is not None else [here]
    chain = [here]
    while chain[-1] != top and chain[-1].parent != chain[-1]:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def _env_dir(var: str, default: Path) -> Path:
    value = os.environ.get(var, "").strip()
    return Path(value).expanduser() if value else default


def _default_roots(kind: str, config: Config, cwd: str | os.PathLike[str] | None) -> list[Root]:
    if kind == "bundled":
        return [Root(bundled_root())]
    if kind == "user":
        home = _home()
        config_home = _env_dir("XDG_CONFIG_HOME", home / ".config")
        return [
            Root(config_home / "agents" / "skills"),  # the universal layout's user folder
            Root(home / ".agent" / "skills"),  # openskills --global --universal
            Root(home / ".agents" / "skills"),
            Root(_env_dir("CODEX_HOME", home / ".codex") / "skills"),
            Root(_env_dir("CLAUDE_CONFIG_DIR", home / ".claude") / "skills"),
            Root(dirs().user_skills),
        ]
    if kind == "extra":
        below, above = env_roots(cwd=cwd)  # SKILLS_DIR below the config's roots, the rest above
        # folders the user named: repositories of skills are recognised (Root)
        immediate = [Root(p, repository=True) for p in config.roots]
        recursive = [Root(p, True, repository=True) for p in config.recursive_roots]
        return [*below, *immediate, *recursive, *above]
    if kind == "project":
        roots: list[Root] = []
        for folder in project_folders(cwd):
            # .agent/skills wins over .claude/skills (the folder's own skills override
            # the Claude-compatible ones, as the .agent layout defines)
            roots.append(Root(folder / ".claude" / "skills"))
            roots.append(Root(folder / ".agent" / "skills"))  # openskills --universal
            roots.append(Root(folder / ".agents" / "skills"))
        return roots
    if kind == "installed":
        here = Path(cwd) if cwd is not None else Path.cwd()
        base = find_project_root(here) or here.resolve()
        # the plugins folder of the git plugin installer, below skilldeck's own installs
        roots = [Root(_home() / ".agent" / "plugins"), Root(dirs().installed)]
        state = base / PROJECT_DIR
        foreign = foreign_project_root(here) is not None
        if not foreign and safe_dirs(state, state / "skills"):  # never through a link
            roots.append(Root(state / "skills"))
        covered = [r.path for r in roots]
        for entry in config.installed.values():
            raw = entry.get("path")
            if not isinstance(raw, str):
                continue
            path = Path(raw)
            if any(path == c or c in path.parents for c in covered):
                continue  # found by its parent root already
            roots.append(Root(path))
        return roots
    return []


def default_sources(config: Config, *, cwd: str | os.PathLike[str] | None = None) -> list[Source]:
    """The configured sources in precedence order, lowest first."""
    out: list[Source] = []
    users: set[Path] = set()
    for kind in config.sources:
        override = config.source_roots.get(kind)
        if override is not None:
            roots = [Root(p) for p in override]
        else:
            roots = _default_roots(kind, config, cwd)
        if kind == "user":
            users.update(r.path.resolve() for r in roots)
        elif kind == "project":  # run from the home folder, the "project" is the user's own
            roots = [r for r in roots if r.path.resolve() not in users]
        k: SourceKind = kind  # type: ignore[assignment]
        out.append(Source(kind, k, tuple(roots), _capped(TRUST_OF_KIND[kind], roots, cwd)))
    return out


def _capped(trust: Trust, roots: list[Root], cwd: str | os.PathLike[str] | None) -> Trust:
    """Skills in the repository never get more than ``user`` trust, whatever the config."""
    if trust is not Trust.BUNDLED:
        return trust
    own = bundled_root().resolve()
    project = find_project_root(cwd)
    if project is None:
        return trust
    for root in roots:
        path = root.path.resolve()
        if path == own or own in path.parents:
            continue  # the package's own skills, wherever it is installed
        if path == project or project in path.parents:
            return Trust.USER
    return trust
