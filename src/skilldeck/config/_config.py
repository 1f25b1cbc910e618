"""skilldeck's configuration files: TOML, a user file and a project file.

- user file: ``dirs().config_file`` (``$SKILLDECK_HOME/config/config.toml`` when set);
- project file: ``<repository root>/.skilldeck/config.toml`` (the working directory's
  ``.skilldeck/config.toml`` outside a repository).

The project file overrides the user file key by key (tables merge, every other
value replaces). Paths in either file may use ``~``; relative paths are taken
from the folder that holds the file's ``.skilldeck`` folder for a project file
and from the config folder for the user file.

Reads parse with ``tomllib``; writes go through :func:`update_config`: read,
mutate a ``tomlkit`` document (comments and layout kept), validate, write
atomically under a file lock (``tomlkit`` is imported only then).
Tables and keys are documented in ``docs/configuration.md``.

The project file comes with the repository: it is read without following
links, and its guarded keys (``skilldeck.config._trust``: anything that runs a
program or weakens isolation, approvals, checks or trust) are ignored until
the user trusts the file's digest (``skilldeck trust``); ``Config.untrusted``
says what was ignored.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

from skilldeck._atomic import atomic_write_text, file_lock
from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import ConfigError, UnsafeStateError
from skilldeck._frozen import field, value as value_class
from skilldeck._paths import (
    PROJECT_DIR,
    dirs,
    find_project_root,
    foreign_project_root,
    is_safe_directory,
    owner_problem,
)
from skilldeck._statedir import (
    check_entry,
    keep_out_of_commits,
    open_dir,
    read_file_at,
    read_state_file,
)
from skilldeck.config._import import read_agent_config
from skilldeck.config._schema import (
    DEFAULT_SOURCES,
    SOURCE_KINDS,
    Checker,
    fold_installed,
    line_of,
    locate,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from tomlkit.toml_document import TOMLDocument

    from skilldeck.config._budget import Budget
    from skilldeck.config._imported import ImportedSettings
    from skilldeck.config._trust import TrustedConfig, UntrustedSettings

# Start-up: ``tomllib``, ``json`` and ``skilldeck.config._trust`` are imported where
# a config file exists; most commands run without a project config file.

__all__ = [
    "DEFAULT_SOURCES",
    "SOURCE_KINDS",
    "Config",
    "Scope",
    "config_path",
    "load_config",
    "project_base",
    "project_notices",
    "revoke_project_trust",
    "trust_project_config",
    "update_config",
]

_MAX_CONFIG_BYTES = 4 * 1024 * 1024
OWNER_HINT = (
    "skilldeck ignores project folders owned by another user (like git's safe.directory); "
    "to use it anyway, list it in your own config file: [security] safe_directories = "
    '["/path/to/project"]'
)

if TYPE_CHECKING:
    Scope = Literal["user", "project"]


def project_base(cwd: str | os.PathLike[str] | None = None) -> Path:
    """The folder whose ``.skilldeck/`` holds the project config: repo root, else cwd."""
    here = Path(cwd) if cwd is not None else Path.cwd()
    root = find_project_root(here) or foreign_project_root(here)
    return root if root is not None else here.resolve()


def config_path(scope: Scope, *, cwd: str | os.PathLike[str] | None = None) -> Path:
    """Where the config file of ``scope`` lives (it may not exist)."""
    if scope == "user":
        return dirs().config_file
    if scope == "project":
        return project_base(cwd) / PROJECT_DIR / "config.toml"
    raise ConfigError(f"unknown config scope {scope!r}", hint="use 'user' or 'project'")


@value_class
class Config:
    """The merged view of the user and project config files (project wins key by key).

    ``data`` is the merged content as plain Python values; the typed attributes
    are the keys other layers use. Paths are absolute.
    """

    data: Mapping[str, Any] = field(default_factory=dict)
    user_file: Path | None = None
    project_file: Path | None = None
    #: source kinds in precedence order, lowest first
    sources: tuple[str, ...] = DEFAULT_SOURCES
    #: extra roots scanned immediately (source ``extra``)
    roots: tuple[Path, ...] = ()
    #: extra roots scanned recursively (source ``extra``)
    recursive_roots: tuple[Path, ...] = ()
    #: replacement root lists per source kind (``[catalog.source_roots]``)
    source_roots: Mapping[str, tuple[Path, ...]] = field(default_factory=dict)
    #: skill names (``NAME`` or ``SOURCE:NAME``) disabled by config
    disabled: tuple[str, ...] = ()
    #: skill names listed first in the skill list, whatever the budget
    pinned: tuple[str, ...] = ()
    budget: Budget | None = None
    #: how SKILL.md files are loaded: ``lenient`` or ``strict`` (``[catalog] mode``)
    mode: Literal["lenient", "strict"] = "lenient"
    #: when set, only these bundled skills are on (``[catalog] enabled_bundled``)
    enabled_bundled: tuple[str, ...] | None = None
    #: ``[installed.<name>]`` tables (and their older spelling ``[plugins.<name>]``)
    installed: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    execution: Mapping[str, Any] = field(default_factory=dict)
    runtime: Mapping[str, Any] = field(default_factory=dict)
    #: guarded keys of an untrusted project file, ignored (``None``: nothing ignored)
    untrusted: UntrustedSettings | None = None
    #: why the project's config was not read at all (another user's folder), or ``None``
    ignored_project: str | None = None
    #: what another agent runtime's ``~/.agent/config.yaml`` turns off (its names are
    #: in ``disabled`` and ``enabled_bundled`` too), or ``None``
    imported: ImportedSettings | None = None

    @property
    def notices(self) -> tuple[Diagnostic, ...]:
        """Warnings about the project config: not trusted (SK530), not yours (SK531)."""
        from skilldeck.config._trust import PROJECT_CONFIG_UNTRUSTED, PROJECT_NOT_OWNED

        out: list[Diagnostic] = []
        if self.ignored_project is not None:
            out.append(Diagnostic.make(PROJECT_NOT_OWNED, self.ignored_project, hint=OWNER_HINT))
        if self.untrusted is not None:
            out.append(
                Diagnostic.make(
                    PROJECT_CONFIG_UNTRUSTED,
                    self.untrusted.message,
                    path=str(self.untrusted.file),
                    line=self.untrusted.line,
                    hint=self.untrusted.hint,
                )
            )
        return tuple(out)

    @property
    def files(self) -> tuple[Path, ...]:
        """The config files that exist and were read, user first."""
        return tuple(p for p in (self.user_file, self.project_file) if p is not None)

    def located(self, error: ConfigError) -> ConfigError:
        """``error`` about a key of this config (``execution.x ...``), with the file and
        line that set the key (the project file first: it wins key by key)."""
        return locate(error, (self.project_file, self.user_file))

    def table(self, name: str) -> Mapping[str, Any]:
        """A top-level table of the merged config (empty when absent)."""
        value = self.data.get(name, {})
        return value if isinstance(value, Mapping) else {}


def _parse(path: Path, text: str) -> dict[str, Any]:
    """The file's TOML as plain values; ``ConfigError`` with line and column when invalid."""
    import tomllib

    try:
        return tomllib.loads(text)
    except RecursionError:  # tomllib recurses per level of nested arrays and inline tables
        raise ConfigError(
            f"{path}: invalid TOML: arrays or inline tables nest too deeply",
            path=path,
            hint=_TOML_HINT,
        ) from None
    except tomllib.TOMLDecodeError as exc:
        import tomlkit.exceptions

        try:  # tomlkit's error names the line and column as attributes
            tomlkit.parse(text)
        except tomlkit.exceptions.ParseError as detail:
            raise ConfigError(
                f"{path}:{detail.line}:{detail.col}: invalid TOML: {detail}",
                path=path,
                line=detail.line,
                column=detail.col,
                hint=_TOML_HINT,
            ) from exc
        raise ConfigError(f"{path}: invalid TOML: {exc}", path=path, hint=_TOML_HINT) from exc


_TOML_HINT = "fix the TOML syntax (strings need quotes, tables are [name])"


def _read_bytes(path: Path, *, project: bool) -> bytes | None:
    """The file's bytes (``None`` when missing). A project file and its
    ``.skilldeck`` folder are never read through a link (``UNSAFE_STATE``)."""
    if project:
        try:
            parent = os.open(path.parent.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:
            return None
        # another user's folder is read only when the user allowed it (safe_directories)
        allowed = is_safe_directory(path.parent.parent)
        try:
            fd = open_dir(PROJECT_DIR, dir_fd=parent, path=path.parent, any_owner=allowed)
        finally:
            os.close(parent)
        if fd is None:
            return None
        try:
            return read_file_at(
                fd, path.name, path=path, max_bytes=_MAX_CONFIG_BYTES, any_owner=allowed
            )
        finally:
            os.close(fd)
    if path == dirs().config_file:  # skilldeck's own state: owner and mode checked
        got = read_state_file(path, max_bytes=_MAX_CONFIG_BYTES + 1)
        if got is None:
            raise FileNotFoundError(path)
        raw = got
    else:
        with path.open("rb") as fh:
            raw = fh.read(_MAX_CONFIG_BYTES + 1)
    if len(raw) > _MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: config file is larger than {_MAX_CONFIG_BYTES} bytes")
    return raw


def _read_doc(path: Path, *, project: bool = False) -> tuple[dict[str, Any], str, bytes] | None:
    """The file's plain data, text and bytes (``None`` when missing)."""
    try:
        raw = _read_bytes(path, project=project)
        if raw is None:
            return None
        text = raw.decode("utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: config file is not UTF-8 text", path=path, hint="save it as UTF-8"
        ) from exc
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read config file: {exc.strerror}",
            path=path,
            hint=_READ_HINTS.get(exc.errno or 0, "check that the file can be read"),
        ) from exc
    return _parse(path, text), text, raw


#: what to do when a config file cannot be read, by the read's error
_READ_HINTS = {
    errno.EACCES: "check the file's permissions",
    errno.EPERM: "check the file's permissions",
    errno.ENOTDIR: "a part of the path is a file, not a folder: check the path",
    errno.EISDIR: "the config file's path is a folder: it must be a file",
    errno.ELOOP: "the path goes round a loop of symbolic links: check the path",
}


def _merge(low: dict[str, Any], high: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(low)
    for key, value in high.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _load_file(path: Path, base: Path) -> dict[str, Any] | None:
    read = _read_doc(path)
    if read is None:
        return None
    data, text, _raw = read
    return fold_installed(Checker(path, text, base).normalise(data))


def _load_project(
    path: Path, base: Path, user: Mapping[str, Any]
) -> tuple[dict[str, Any], UntrustedSettings | None] | None:
    """The project file's checked data, its guarded keys removed unless it is trusted
    (``user``: the user file's data, which decides what a ``[runtime]`` key loosens)."""
    read = _read_doc(path, project=True)
    if read is None:
        return None
    import json

    from skilldeck.config._trust import (
        UntrustedSettings,
        file_digest,
        guarded_values,
        is_trusted,
        strip_keys,
    )

    data, text, raw = read
    data = Checker(path, text, base).normalise(data)
    values = guarded_values(data, base, user=user)
    if not values:
        return fold_installed(data), None
    digest = file_digest(raw)
    state = is_trusted(path, digest)
    if state == "valid":
        return fold_installed(data), None
    strip_keys(data, list(values))
    fold_installed(data)
    shown = tuple((k, json.dumps(v, default=str)[:200]) for k, v in values.items())
    lines = tuple(line_of(text, k) for k in values)
    return data, UntrustedSettings(path, tuple(values), digest, state, shown, lines)


def load_config(*, cwd: str | os.PathLike[str] | None = None) -> Config:
    """Read and merge the user and project config files (missing files are fine).

    Raises ``ConfigError`` (with path, line and a hint) for a file that is not
    valid TOML or holds a wrong value for a known key, and ``UnsafeStateError``
    for a project file (or its ``.skilldeck`` folder) that is a link or another
    user's. Guarded keys of an untrusted project file are left out and listed
    in ``Config.untrusted``.
    """
    user_path = config_path("user")
    project_path = config_path("project", cwd=cwd)
    user = _load_file(user_path, user_path.parent)
    project = None
    untrusted = None
    base = project_path.parent.parent
    ignored = owner_problem(*_owned_parts(base), folder=base)
    if ignored is None and project_path.resolve() != user_path.resolve():
        loaded = _load_project(project_path, base, user or {})
        if loaded is not None:
            project, untrusted = loaded
    merged = _merge(user or {}, project or {})
    catalog = merged.get("catalog", {})
    imported = read_agent_config()
    budget = catalog.get("budget")
    return Config(
        data=_freeze(merged),
        user_file=user_path if user is not None else None,
        project_file=project_path if project is not None else None,
        sources=tuple(catalog.get("sources", DEFAULT_SOURCES)),
        roots=tuple(Path(p) for p in catalog.get("roots", ())),
        recursive_roots=tuple(Path(p) for p in catalog.get("recursive", ())),
        source_roots=MappingProxyType(
            {k: tuple(Path(p) for p in v) for k, v in catalog.get("source_roots", {}).items()}
        ),
        disabled=(*catalog.get("disabled", ()), *(imported.disabled if imported else ())),
        pinned=tuple(catalog.get("pinned", ())),
        budget=_budget(budget),
        mode=catalog.get("mode", "lenient"),
        enabled_bundled=tuple(catalog["enabled_bundled"])
        if "enabled_bundled" in catalog
        else (imported.enabled_bundled if imported else None),
        installed=_freeze(merged.get("installed", {})),
        execution=_freeze(merged.get("execution", {})),
        runtime=_freeze(merged.get("runtime", {})),
        untrusted=untrusted,
        ignored_project=f"{ignored}: its project config and skills are ignored"
        if ignored is not None
        else None,
        imported=imported,
    )


def _budget(value: object) -> Budget | None:
    """``[catalog] budget`` as a ``Budget`` (``None``: not set; most configs set none)."""
    if value is None:
        return None
    from skilldeck.config._budget import Budget

    return Budget.parse(value)


def _owned_parts(base: Path) -> tuple[Path, ...]:
    """What must be the user's own for ``base`` to count as a project: the repository
    root and its ``.git`` (inside a repository) and the ``.skilldeck`` folder."""
    if os.path.lexists(base / ".git"):
        return (base, base / ".git", base / PROJECT_DIR)
    return (base / PROJECT_DIR,)


def project_notices(*, cwd: str | os.PathLike[str] | None = None) -> tuple[Diagnostic, ...]:
    """Warnings about the working folder's project (SK530 not trusted, SK531 not yours).

    Cheap when there is nothing to say: the config files are parsed only when
    the project has a config file or belongs to another user.
    """
    config = project_config(cwd=cwd)
    return config.notices if config is not None else ()


def project_config(*, cwd: str | os.PathLike[str] | None = None) -> Config | None:
    """``load_config()`` when the working folder's project may have something to say
    (a config file, or a folder of another user's), else ``None`` without parsing:
    what ``project_notices`` reads, for a caller that goes on to use the config (the
    command line parses it once per command)."""
    here = Path(cwd) if cwd is not None else Path.cwd()
    if foreign_project_root(here) is None and not config_path("project", cwd=here).exists():
        return None
    return load_config(cwd=here)


def trust_project_config(*, cwd: str | os.PathLike[str] | None = None) -> TrustedConfig:
    """Trust the project config file as it is now: its guarded keys apply until it changes.

    The file must exist, be valid, and be the user's own (not through a link).
    """
    path = config_path("project", cwd=cwd)
    read = _read_doc(path, project=True)
    if read is None:
        raise ConfigError(
            f"there is no project config file at {path}",
            path=path,
            hint="run `skilldeck trust` inside the project whose .skilldeck/config.toml "
            "you want to apply",
        )
    from skilldeck.config._trust import file_digest, record_trust

    data, text, raw = read
    Checker(path, text, path.parent.parent).normalise(data)
    return record_trust(path, file_digest(raw))


def revoke_project_trust(*, cwd: str | os.PathLike[str] | None = None) -> bool:
    """Stop trusting the project config file; returns whether it was trusted."""
    from skilldeck.config._trust import revoke_trust

    return revoke_trust(config_path("project", cwd=cwd))


def update_config(
    scope: Scope,
    mutate: Callable[[TOMLDocument], None],
    *,
    cwd: str | os.PathLike[str] | None = None,
) -> Path:
    """Read-modify-write one config file atomically, comments kept; returns its path.

    ``mutate`` edits the ``tomlkit`` document in place. The result is validated
    before it is written; an invalid result raises ``ConfigError`` and leaves
    the file as it was.
    """
    path = config_path(scope, cwd=cwd)
    base = path.parent if scope == "user" else path.parent.parent
    if scope == "project":
        _check_project_state(path)
    import tomllib

    import tomlkit

    from skilldeck.config._trust import file_digest, guarded_values, is_trusted, record_trust

    with file_lock(path):
        read = _read_doc(path, project=scope == "project")
        doc = tomlkit.parse(read[1]) if read is not None else tomlkit.document()
        before = read[0] if read is not None else {}
        mutate(doc)
        text = tomlkit.dumps(doc)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # e.g. `disable NAME` typed in another encoding
            raise ConfigError(
                f"{path}: the change holds text that is not valid UTF-8; nothing was written",
                path=path,
                hint="give skill names and paths as UTF-8",
            ) from None
        try:  # checked with the parser every read uses
            after = Checker(path, text, base).normalise(tomllib.loads(text))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"{path}: the change would produce invalid TOML: {exc}", path=path
            ) from exc
        atomic_write_text(path, text)
    if scope == "project" and read is not None:
        # skilldeck's own edit (e.g. an [installed] table) keeps a trusted file trusted
        # when the guarded settings are unchanged; any other change lapses the trust.
        # (Compared with [plugins.<name>] read as its newer spelling: a rewrite moves it.)
        old = guarded_values(fold_installed(Checker(path, read[1], base).normalise(before)), base)
        if (
            old
            and old == guarded_values(fold_installed(after), base)
            and is_trusted(path, file_digest(read[2])) == "valid"
        ):
            record_trust(path, file_digest(text.encode("utf-8")))
    return path


def _check_project_state(path: Path) -> None:
    """Refuse to write a project config through a link or into another user's folder."""
    problem = owner_problem(*_owned_parts(path.parent.parent), folder=path.parent.parent)
    if problem is not None:
        raise UnsafeStateError(f"{problem}; not writing its config", path=path, hint=OWNER_HINT)
    parent = os.open(path.parent.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fd = open_dir(PROJECT_DIR, dir_fd=parent, path=path.parent, create=True, mode=0o755)
    finally:
        os.close(parent)
    assert fd is not None
    try:
        for name in (path.name, path.name + ".lock"):
            check_entry(fd, name, path.parent / name, want_dir=False)
        keep_out_of_commits(fd, path.parent)
    finally:
        os.close(fd)
