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
links, and its guarded keys (``skilldeck._configtrust``: anything that runs a
program or weakens isolation, approvals, checks or trust) are ignored until
the user trusts the file's digest (``skilldeck trust``); ``Config.untrusted``
says what was ignored.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from skilldeck._atomic import atomic_write_text, file_lock
from skilldeck._configtrust import (
    PROJECT_CONFIG_UNTRUSTED,
    PROJECT_NOT_OWNED,
    TrustedConfig,
    UntrustedSettings,
    file_digest,
    guarded_values,
    is_trusted,
    record_trust,
    revoke_trust,
    strip_keys,
)
from skilldeck._diagnostics import Diagnostic
from skilldeck._errors import ConfigError, UnsafeStateError
from skilldeck._paths import (
    PROJECT_DIR,
    dirs,
    find_project_root,
    foreign_project_root,
    is_safe_directory,
    owner_problem,
)
from skilldeck._statedir import check_entry, open_dir, read_file_at

if TYPE_CHECKING:
    from tomlkit.toml_document import TOMLDocument

__all__ = [
    "DEFAULT_SOURCES",
    "SOURCE_KINDS",
    "Budget",
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

Scope = Literal["user", "project"]

#: Source kinds a config may order, lowest precedence first.
SOURCE_KINDS: tuple[str, ...] = ("bundled", "user", "extra", "project", "installed")
DEFAULT_SOURCES: tuple[str, ...] = SOURCE_KINDS

_CATALOG_KEYS = {
    "sources",
    "roots",
    "recursive",
    "disabled",
    "pinned",
    "budget",
    "source_roots",
    "mode",
    "enabled_bundled",
}
#: what ``install`` writes into a ``[plugins.<name>]`` table (another installer's plugin record)
_PLUGIN_KEYS = {"url", "ref", "subdir", "path", "name", "enabled", "installed_at"}
#: the keys of the other tables read as plain values (a typo there would be ignored silently)
_TABLE_KEYS = {
    "install": {"dir", "scan"},
    "security": {"safe_directories"},
    "store": {"url", "tenant"},
}


@dataclass(frozen=True, slots=True)
class Budget:
    """A tier-1 size budget: ``limit`` characters, or approximate tokens (4 chars each)."""

    limit: int
    unit: Literal["chars", "tokens"] = "chars"

    @property
    def chars(self) -> int:
        return self.limit * 4 if self.unit == "tokens" else self.limit

    @classmethod
    def parse(cls, value: object) -> Budget:
        """``8000`` (characters), ``"8000"``, ``"8000 chars"`` or ``"2000 tokens"``."""
        if isinstance(value, Budget):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return cls(value)
        if isinstance(value, str):
            m = re.fullmatch(r"\s*(\d+)\s*(chars?|characters?|tokens?|t|c)?\s*", value)
            if m and int(m.group(1)) > 0:
                unit = (m.group(2) or "c")[0]
                return cls(int(m.group(1)), "tokens" if unit == "t" else "chars")
        raise ValueError(
            f"invalid budget {value!r}: use a positive number of characters "
            "or a string like '2000 tokens'"
        )


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


@dataclass(frozen=True, slots=True)
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
    #: skill names listed first in tier 1, whatever the budget
    pinned: tuple[str, ...] = ()
    budget: Budget | None = None
    #: how SKILL.md files are loaded: ``lenient`` or ``strict`` (``[catalog] mode``)
    mode: Literal["lenient", "strict"] = "lenient"
    #: when set, only these bundled skills are on (``[catalog] enabled_bundled``)
    enabled_bundled: tuple[str, ...] | None = None
    plugins: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    execution: Mapping[str, Any] = field(default_factory=dict)
    runtime: Mapping[str, Any] = field(default_factory=dict)
    #: guarded keys of an untrusted project file, ignored (``None``: nothing ignored)
    untrusted: UntrustedSettings | None = None
    #: why the project's config was not read at all (another user's folder), or ``None``
    ignored_project: str | None = None

    @property
    def notices(self) -> tuple[Diagnostic, ...]:
        """Warnings about the project config: not trusted (SK530), not yours (SK531)."""
        out: list[Diagnostic] = []
        if self.ignored_project is not None:
            out.append(Diagnostic.make(PROJECT_NOT_OWNED, self.ignored_project, hint=OWNER_HINT))
        if self.untrusted is not None:
            out.append(
                Diagnostic.make(
                    PROJECT_CONFIG_UNTRUSTED,
                    self.untrusted.message,
                    path=str(self.untrusted.file),
                    hint=self.untrusted.hint,
                )
            )
        return tuple(out)

    @property
    def files(self) -> tuple[Path, ...]:
        """The config files that exist and were read, user first."""
        return tuple(p for p in (self.user_file, self.project_file) if p is not None)

    def table(self, name: str) -> Mapping[str, Any]:
        """A top-level table of the merged config (empty when absent)."""
        value = self.data.get(name, {})
        return value if isinstance(value, Mapping) else {}


def _parse(path: Path, text: str) -> dict[str, Any]:
    """The file's TOML as plain values; ``ConfigError`` with line and column when invalid."""
    try:
        return tomllib.loads(text)
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


def _line_of(text: str, key: str) -> int | None:
    """Best-effort 1-based line of ``key =`` (or ``[key]``) in ``text``.

    A key of a table is looked for below the table's header when there is one.
    """
    table, _, leaf = key.rpartition(".")
    start = 0
    if table:
        head = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]", re.M).search(text)
        start = head.end() if head else 0
    pat = re.compile(rf"^\s*(?:{re.escape(leaf)}\s*=|\[\s*{re.escape(key)}\s*\])", re.M)
    m = pat.search(text, start) or pat.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


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
            hint="check the file's permissions",
        ) from exc
    return _parse(path, text), text, raw


class _Checker:
    """Validates one file's plain data, raising ``ConfigError`` with a line."""

    def __init__(self, path: Path, text: str, base: Path) -> None:
        self.file = path
        self.text = text
        self.base = base

    def fail(self, key: str, message: str, hint: str) -> ConfigError:
        line = _line_of(self.text, key)
        loc = f"{self.file}:{line}" if line else str(self.file)
        return ConfigError(f"{loc}: {key}: {message}", path=self.file, line=line, hint=hint)

    def table(self, data: Mapping[str, Any], key: str) -> dict[str, Any]:
        value = data.get(key.rsplit(".", 1)[-1], {})
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table", f"write it as [{key}]")
        return value

    def strings(self, value: Any, key: str) -> list[str]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(key, "must be a list of strings", f'write {key} = ["...", "..."]')
        return list(value)

    def abspath(self, raw: str) -> str:
        p = Path(raw).expanduser()
        return str(p if p.is_absolute() else (self.base / p))

    def normalise(self, data: dict[str, Any]) -> dict[str, Any]:
        """Check known keys and make path values absolute (before merging)."""
        catalog = self.table(data, "catalog")
        for key in catalog:
            if key not in _CATALOG_KEYS:
                raise self.fail(
                    f"catalog.{key}",
                    "unknown key",
                    "known keys: " + ", ".join(sorted(_CATALOG_KEYS)),
                )
        if "sources" in catalog:
            sources = self.strings(catalog["sources"], "catalog.sources")
            bad = [s for s in sources if s not in SOURCE_KINDS]
            if bad or len(set(sources)) != len(sources):
                raise self.fail(
                    "catalog.sources",
                    f"unknown or repeated source {', '.join(bad) or 'name'}",
                    "use each of " + ", ".join(SOURCE_KINDS) + " at most once, lowest first",
                )
            catalog["sources"] = sources
        for key in ("roots", "recursive"):
            if key in catalog:
                catalog[key] = [
                    self.abspath(p) for p in self.strings(catalog[key], f"catalog.{key}")
                ]
        if "mode" in catalog and catalog["mode"] not in ("lenient", "strict"):
            raise self.fail(
                "catalog.mode", f"unknown mode {catalog['mode']!r}", 'mode = "lenient" or "strict"'
            )
        for key in ("disabled", "pinned", "enabled_bundled"):
            if key in catalog:
                catalog[key] = self.strings(catalog[key], f"catalog.{key}")
        if "budget" in catalog:
            try:
                Budget.parse(catalog["budget"])
            except ValueError as exc:
                raise self.fail("catalog.budget", str(exc), "e.g. budget = 8000") from None
        if "source_roots" in catalog:
            table = self.table(catalog, "catalog.source_roots")
            for kind, roots in table.items():
                if kind not in SOURCE_KINDS:
                    raise self.fail(
                        f"catalog.source_roots.{kind}",
                        "unknown source",
                        "use one of " + ", ".join(SOURCE_KINDS),
                    )
                table[kind] = [
                    self.abspath(p) for p in self.strings(roots, f"catalog.source_roots.{kind}")
                ]
        plugins = self.table(data, "plugins")
        for name, entry in plugins.items():
            if not isinstance(entry, dict):
                raise self.fail(f"plugins.{name}", "must be a table", f"write [plugins.{name}]")
            for key in entry:
                if key not in _PLUGIN_KEYS:
                    raise self.fail(
                        f"plugins.{name}.{key}",
                        "unknown key",
                        "known keys: " + ", ".join(sorted(_PLUGIN_KEYS)),
                    )
            if "enabled" in entry and not isinstance(entry["enabled"], bool):
                raise self.fail(
                    f"plugins.{name}.enabled", "must be true or false", "enabled = true"
                )
            if isinstance(entry.get("path"), str):
                entry["path"] = self.abspath(entry["path"])
        for name, known in _TABLE_KEYS.items():
            for key in self.table(data, name):
                if key not in known:
                    raise self.fail(
                        f"{name}.{key}", "unknown key", "known keys: " + ", ".join(sorted(known))
                    )
        install = self.table(data, "install")
        if "dir" in install and (not isinstance(install["dir"], str) or not install["dir"].strip()):
            raise self.fail("install.dir", "must be a folder path", 'e.g. dir = "~/skills"')
        self.table(data, "execution")
        self.table(data, "runtime")
        return data


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
    return _Checker(path, text, base).normalise(data)


def _load_project(path: Path, base: Path) -> tuple[dict[str, Any], UntrustedSettings | None] | None:
    """The project file's checked data, its guarded keys removed unless it is trusted."""
    read = _read_doc(path, project=True)
    if read is None:
        return None
    data, text, raw = read
    data = _Checker(path, text, base).normalise(data)
    values = guarded_values(data, base)
    if not values:
        return data, None
    digest = file_digest(raw)
    state = is_trusted(path, digest)
    if state == "valid":
        return data, None
    strip_keys(data, list(values))
    shown = tuple((k, json.dumps(v, default=str)[:200]) for k, v in values.items())
    return data, UntrustedSettings(path, tuple(values), digest, state, shown)


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
        loaded = _load_project(project_path, base)
        if loaded is not None:
            project, untrusted = loaded
    merged = _merge(user or {}, project or {})
    catalog = merged.get("catalog", {})
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
        disabled=tuple(catalog.get("disabled", ())),
        pinned=tuple(catalog.get("pinned", ())),
        budget=Budget.parse(budget) if budget is not None else None,
        mode=catalog.get("mode", "lenient"),
        enabled_bundled=tuple(catalog["enabled_bundled"]) if "enabled_bundled" in catalog else None,
        plugins=_freeze(merged.get("plugins", {})),
        execution=_freeze(merged.get("execution", {})),
        runtime=_freeze(merged.get("runtime", {})),
        untrusted=untrusted,
        ignored_project=f"{ignored}: its project config and skills are ignored"
        if ignored is not None
        else None,
    )


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
    here = Path(cwd) if cwd is not None else Path.cwd()
    if foreign_project_root(here) is None and not config_path("project", cwd=here).exists():
        return ()
    return load_config(cwd=here).notices


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
    data, text, raw = read
    _Checker(path, text, path.parent.parent).normalise(data)
    return record_trust(path, file_digest(raw))


def revoke_project_trust(*, cwd: str | os.PathLike[str] | None = None) -> bool:
    """Stop trusting the project config file; returns whether it was trusted."""
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
    import tomlkit

    with file_lock(path):
        read = _read_doc(path, project=scope == "project")
        doc = tomlkit.parse(read[1]) if read is not None else tomlkit.document()
        before = read[0] if read is not None else {}
        mutate(doc)
        text = tomlkit.dumps(doc)
        try:  # checked with the parser every read uses
            after = _Checker(path, text, base).normalise(tomllib.loads(text))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"{path}: the change would produce invalid TOML: {exc}", path=path
            ) from exc
        atomic_write_text(path, text)
    if scope == "project" and read is not None:
        # skilldeck's own edit (e.g. a [plugins] table) keeps a trusted file trusted
        # when the guarded settings are unchanged; any other change lapses the trust.
        old = guarded_values(_Checker(path, read[1], base).normalise(before), base)
        if (
            old
            and old == guarded_values(after, base)
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
    finally:
        os.close(fd)
