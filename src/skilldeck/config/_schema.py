"""What a config file may hold: its tables, keys and values, and the check of one file.

:class:`Checker` validates one file's plain data before files are merged: known
keys only, values of the right type, paths made absolute, and a ``ConfigError``
that names the file, the line and a fix. Installed skills are recorded in
``[installed.<name>]`` tables; ``[plugins.<name>]`` is the older spelling, still
read (:func:`fold_installed` merges it into ``installed``), and a skill named in
both tables of one file is ``CONFIG_INVALID``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from skilldeck._errors import ConfigError
from skilldeck.config._runtime import check_runtime

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CATALOG_KEYS",
    "DEFAULT_SOURCES",
    "INSTALLED_KEYS",
    "INSTALLED_TABLES",
    "SOURCE_KINDS",
    "TABLE_KEYS",
    "Checker",
    "fold_installed",
    "line_of",
    "locate",
]

#: Source kinds a config may order, lowest precedence first.
SOURCE_KINDS: tuple[str, ...] = ("bundled", "user", "extra", "project", "installed")
DEFAULT_SOURCES: tuple[str, ...] = SOURCE_KINDS

CATALOG_KEYS = {
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
#: the tables that record installed skills: the documented name, then its older spelling
INSTALLED_TABLES = ("installed", "plugins")
#: what ``install`` writes into an ``[installed.<name>]`` table
INSTALLED_KEYS = {"url", "ref", "subdir", "path", "name", "enabled", "installed_at"}
#: the keys of the other tables read as plain values (a typo there would be ignored silently)
TABLE_KEYS = {
    "install": {"dir", "scan"},
    "security": {"safe_directories"},
    "store": {"url", "tenant"},
    "search": {"embedder"},  # user file only (skilldeck.search._embedding)
}
#: every top-level table a config file may hold (a typo there would be ignored silently)
TOP_LEVEL = {"catalog", *INSTALLED_TABLES, *TABLE_KEYS, "execution", "runtime"}


def line_of(text: str, key: str) -> int | None:
    """Best-effort 1-based line of ``key =`` (or ``[key]``) in ``text``.

    A key of a table is looked for below the table's header when there is one.
    """
    table, _, leaf = key.rpartition(".")
    start = 0
    if table:
        head = re.compile(rf"^[ \t]*\[\s*{re.escape(table)}\s*\]", re.M).search(text)
        start = head.end() if head else 0
    pat = re.compile(rf"^[ \t]*(?:{re.escape(leaf)}\s*=|\[\s*{re.escape(key)}\s*\])", re.M)
    m = pat.search(text, start) or pat.search(text)
    return text.count("\n", 0, m.start()) + 1 if m else None


def locate(error: ConfigError, files: tuple[Path | None, ...]) -> ConfigError:
    """``error`` with the first of ``files`` that sets the key it names, and the line,
    as :class:`Checker` reports its own findings; ``error`` itself when no key is
    named, it already has a file, or no file holds the key."""
    named = re.search(r"\b[a-z_]+(?:\.[\w-]+)+", error.message)
    if named is None or error.path is not None:
        return error
    for path in files:
        if path is None:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        line = line_of(text, named.group(0))
        if line is not None:
            return ConfigError(
                f"{path}:{line}: {error.message}",
                path=path,
                line=line,
                hint=error.hint,
                **error.context,
            )
    return error


class Checker:
    """Validates one file's plain data, raising ``ConfigError`` with a line."""

    def __init__(self, path: Path, text: str, base: Path) -> None:
        self.file = path
        self.text = text
        self.base = base

    def fail(self, key: str, message: str, hint: str) -> ConfigError:
        line, where = None, key
        while line is None and where:  # a key inside an inline table: the table's line
            line = line_of(self.text, where)
            where = where.rpartition(".")[0]
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
        if any("\x00" in v for v in value):  # no path or name holds one (os refuses it)
            raise self.fail(key, "a value contains a NUL byte", "remove the \\u0000 escape")
        return list(value)

    def abspath(self, raw: str) -> str:
        p = Path(raw).expanduser()
        return str(p if p.is_absolute() else (self.base / p))

    def normalise(self, data: dict[str, Any]) -> dict[str, Any]:
        """Check known keys and make path values absolute (before merging)."""
        for key in data:
            if key not in TOP_LEVEL:
                raise self.fail(
                    key,
                    "unknown table or key",
                    "known tables: " + ", ".join(f"[{t}]" for t in sorted(TOP_LEVEL)),
                )
        catalog = self.table(data, "catalog")
        for key in catalog:
            if key not in CATALOG_KEYS:
                raise self.fail(
                    f"catalog.{key}",
                    "unknown key",
                    "known keys: " + ", ".join(sorted(CATALOG_KEYS)),
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
            from skilldeck.config._budget import Budget

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
        self.installed(data)
        for name, known in TABLE_KEYS.items():
            for key in self.table(data, name):
                if key not in known:
                    raise self.fail(
                        f"{name}.{key}", "unknown key", "known keys: " + ", ".join(sorted(known))
                    )
        install = self.table(data, "install")
        if "dir" in install and (not isinstance(install["dir"], str) or not install["dir"].strip()):
            raise self.fail("install.dir", "must be a folder path", 'e.g. dir = "~/skills"')
        if "dir" in install:
            self.strings(install["dir"], "install.dir")
        security = self.table(data, "security")
        if "safe_directories" in security:
            self.strings(security["safe_directories"], "security.safe_directories")
        embedder = self.table(data, "search").get("embedder")
        if embedder is not None and (not isinstance(embedder, str) or not embedder.strip()):
            raise self.fail(
                "search.embedder",
                "must be a model id or a path",
                'e.g. embedder = "sentence-transformers/all-MiniLM-L6-v2", '
                '"path:/models/minilm", or "off"',
            )
        self.table(data, "execution")
        check_runtime(self.table(data, "runtime"), self.fail)
        return data

    def installed(self, data: Mapping[str, Any]) -> None:
        """Check ``[installed.<name>]`` and its older spelling ``[plugins.<name>]``."""
        tables = {table: self.table(data, table) for table in INSTALLED_TABLES}
        for table, entries in tables.items():
            for name, entry in entries.items():
                key = f"{table}.{name}"
                if not isinstance(entry, dict):
                    raise self.fail(key, "must be a table", f"write [{key}]")
                for item in entry:
                    if item not in INSTALLED_KEYS:
                        raise self.fail(
                            f"{key}.{item}",
                            "unknown key",
                            "known keys: " + ", ".join(sorted(INSTALLED_KEYS)),
                        )
                if "enabled" in entry and not isinstance(entry["enabled"], bool):
                    raise self.fail(f"{key}.enabled", "must be true or false", "enabled = true")
                if isinstance(entry.get("path"), str):
                    self.strings(entry["path"], f"{key}.path")
                    entry["path"] = self.abspath(entry["path"])
        for name in sorted(set(tables["installed"]) & set(tables["plugins"])):
            raise self.fail(
                f"plugins.{name}",
                f"skill {name!r} also has an [installed.{name}] table",
                f"keep one table: [installed.{name}] ([plugins.{name}] is its older spelling)",
            )


def fold_installed(data: dict[str, Any]) -> dict[str, Any]:
    """Move the older ``[plugins.<name>]`` tables of one checked file into ``installed``."""
    older = data.pop("plugins", None)
    if older:
        data["installed"] = {**older, **data.get("installed", {})}
    return data
