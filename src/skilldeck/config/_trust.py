"""A project config file is a request, not a grant: guarded keys and trusted digests.

A project's ``.skilldeck/config.toml`` comes with the repository, so its author
is whoever pushed it. Keys that could run a program or weaken isolation,
approvals, checks or trust are *guarded*: a project file's guarded keys are
ignored (and reported, SK530) until the user runs ``skilldeck trust``, which
records the file's ``sha256`` digest in the user's data folder
(``trusted-configs.json``). Any change to the file lapses the trust, as with
direnv's ``allow``; skilldeck's own rewrites of a trusted file (``install``
adding an ``[installed.<name>]`` table) carry the trust over when they leave the
guarded settings as they were.

What a project file may set without trust (everything else is guarded):

- ``[catalog]`` ``roots`` and ``recursive`` when every folder (links resolved)
  lies inside the repository (skills found there get ``user`` trust, the same
  as the repository's own; a folder outside, such as ``/``, would let a clone
  make every command scan the disk), ``disabled``, ``pinned``, ``budget``,
  ``enabled_bundled`` (these only turn skills off);
- ``[execution]`` ``workdir`` and ``default_timeout`` (still capped by the
  user's ``timeout_cap``);
- ``[installed.<name>]`` tables (or ``[plugins.<name>]``, the older spelling)
  whose ``path`` lies inside the project's ``.skilldeck/skills`` (what
  ``install --scope project`` writes);
- a guarded key set to its strictest value (``TIGHTENING``: ``[install] scan =
  "block"``, ``[execution] sandbox = "strict"``, ``network = false``, ``[catalog]
  mode = "strict"``);
- ``[runtime]`` keys that only tighten what the user's file (or the default) sets:
  fewer tools, lower limits, stricter allowed-tools (``skilldeck.config._runtime``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skilldeck._atomic import atomic_write_text, file_lock
from skilldeck._errors import ConfigError
from skilldeck._json import loads
from skilldeck._paths import PROJECT_DIR, dirs, within
from skilldeck._statedir import read_state_file
from skilldeck.config._runtime import loosening

__all__ = [
    "PROJECT_SAFE",
    "TrustedConfig",
    "UntrustedSettings",
    "file_digest",
    "guarded_values",
    "is_trusted",
    "record_trust",
    "revoke_trust",
    "strip_keys",
    "trusted_configs",
]

PROJECT_CONFIG_UNTRUSTED = "SK530"
PROJECT_NOT_OWNED = "SK531"

#: Keys a project file may set without being trusted, per top-level table.
PROJECT_SAFE: Mapping[str, frozenset[str]] = {
    "catalog": frozenset({"roots", "recursive", "disabled", "pinned", "budget", "enabled_bundled"}),
    "execution": frozenset({"workdir", "default_timeout"}),
}

#: Guarded keys a project file may still set to their strictest value (that only tightens).
TIGHTENING: Mapping[str, tuple[object, ...]] = {
    "install.scan": ("block",),
    "catalog.mode": ("strict",),
    "execution.sandbox": ("strict",),
    "execution.network": (False,),
}

_STORE = "trusted-configs.json"
_MAX_STORE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class UntrustedSettings:
    """Guarded keys a project config file sets that were ignored (it is not trusted)."""

    file: Path
    keys: tuple[str, ...]
    digest: str
    #: ``never`` (not trusted before) or ``changed`` (trusted, then edited)
    reason: str = "never"
    #: each ignored key with its value as JSON text (cut at 200 characters), for review
    values: tuple[tuple[str, str], ...] = ()
    #: the line of each key in ``keys`` (``None`` when it could not be found)
    lines: tuple[int | None, ...] = ()

    @property
    def line(self) -> int | None:
        """The line of the first ignored key that has one."""
        return next((n for n in self.lines if n is not None), None)

    @property
    def message(self) -> str:
        why = "changed since you trusted it" if self.reason == "changed" else "not trusted"
        lines = dict(zip(self.keys, self.lines, strict=False))
        shown = [f"{k} (line {lines[k]})" if lines.get(k) else k for k in self.keys]
        return f"{self.file} is {why}: ignoring {', '.join(shown)}"

    @property
    def hint(self) -> str:
        return (
            "read the file, then run `skilldeck trust` in the project to apply these "
            f"settings, or set them in your own config file ({dirs().config_file})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": str(self.file),
            "keys": list(self.keys),
            "digest": self.digest,
            "reason": self.reason,
            "values": dict(self.values),
            "lines": dict(zip(self.keys, self.lines, strict=False)),
            "message": self.message,
            "hint": self.hint,
        }


@dataclass(frozen=True, slots=True)
class TrustedConfig:
    """One trusted project config file; ``state`` is ``valid``, ``changed`` or ``missing``."""

    file: Path
    digest: str
    trusted_at: str
    state: str = "valid"

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": str(self.file),
            "digest": self.digest,
            "trusted_at": self.trusted_at,
            "state": self.state,
        }


def file_digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _inside(raw: object, folder: Path, *, itself: bool = False) -> bool:
    """Whether path ``raw`` (links resolved) lies below ``folder`` (or is it, with ``itself``)."""
    if not isinstance(raw, str):
        return True  # not a path: the checker reports wrong types
    path = os.path.realpath(raw)
    top = os.path.realpath(folder)
    return (itself or path != top) and within(path, (top,))


#: ``[catalog]`` keys holding folders: without trust they must stay inside the repository.
_PROJECT_PATH_KEYS = frozenset({"roots", "recursive"})


def _tightens(key: str, value: object) -> bool:
    return any(type(value) is type(v) and value == v for v in TIGHTENING.get(key, ()))


def guarded_values(
    data: Mapping[str, Any], base: Path, *, user: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The guarded keys a project file's (checked) data sets, with their values.

    ``user`` is the user's file's (checked) data: ``[runtime]`` keys are guarded
    when they loosen what it sets (or the defaults, without it).
    """
    out = _guarded(data, base, user or {})
    return {k: v for k, v in out.items() if not _tightens(k, v)}


def _guarded(data: Mapping[str, Any], base: Path, user: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    skills = base / PROJECT_DIR / "skills"
    for table, value in data.items():
        safe = PROJECT_SAFE.get(table)
        if table == "runtime" and isinstance(value, Mapping):
            mine = user.get("runtime")
            out.update(loosening(value, mine if isinstance(mine, Mapping) else {}))
        elif safe is not None and isinstance(value, Mapping):
            for key, item in value.items():
                outside = (
                    table == "catalog"
                    and key in _PROJECT_PATH_KEYS
                    and isinstance(item, list)
                    and not all(_inside(p, base, itself=True) for p in item)
                )
                if key not in safe or outside:
                    out[f"{table}.{key}"] = item
        elif table in ("installed", "plugins") and isinstance(value, Mapping):
            for name, entry in value.items():
                if isinstance(entry, Mapping) and not _inside(entry.get("path"), skills):
                    out[f"{table}.{name}.path"] = entry.get("path")
        elif isinstance(value, Mapping) and value:
            for key, item in value.items():
                out[f"{table}.{key}"] = item
        else:
            out[table] = value
    return out


def strip_keys(data: dict[str, Any], keys: list[str] | tuple[str, ...]) -> None:
    """Delete dotted ``keys`` from ``data`` in place (tables left empty stay)."""
    for key in keys:
        *parents, leaf = key.split(".")
        node: Any = data
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(leaf, None)


# --- the user's record of trusted files ---------------------------------------


def _store_path() -> Path:
    return dirs().data / _STORE


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _read_store() -> dict[str, dict[str, str]]:
    path = _store_path()
    try:
        got = read_state_file(path, max_bytes=_MAX_STORE_BYTES + 1)  # owner and mode checked
        if got is None:
            return {}
        raw = got
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}", path=path) from exc
    try:
        data = loads(raw.decode("utf-8"))
        files = data["files"]
        if len(raw) > _MAX_STORE_BYTES or not isinstance(files, dict):
            raise ValueError("not a trust list")
        return {
            str(k): {"digest": str(v["digest"]), "trusted_at": str(v.get("trusted_at", ""))}
            for k, v in files.items()
        }
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(
            f"{path}: damaged list of trusted config files: {exc}",
            path=path,
            hint="delete it, then run `skilldeck trust` again in the projects you trust",
        ) from exc


def _write_store(files: dict[str, dict[str, str]]) -> None:
    payload = {"version": 1, "files": dict(sorted(files.items()))}
    atomic_write_text(_store_path(), json.dumps(payload, indent=2) + "\n", mode=0o600)


def _key(file: Path) -> str:
    return os.path.abspath(file)


def is_trusted(file: Path, digest: str) -> str:
    """``valid`` when ``file`` is trusted at ``digest``; ``changed`` or ``never`` otherwise."""
    entry = _read_store().get(_key(file))
    if entry is None:
        return "never"
    return "valid" if entry["digest"] == digest else "changed"


def record_trust(file: Path, digest: str) -> TrustedConfig:
    """Record ``file`` as trusted at ``digest`` (replacing an older record)."""
    when = _now()
    dirs().data.mkdir(parents=True, exist_ok=True, mode=0o700)
    with file_lock(_store_path()):
        files = _read_store()
        files[_key(file)] = {"digest": digest, "trusted_at": when}
        _write_store(files)
    return TrustedConfig(Path(_key(file)), digest, when)


def revoke_trust(file: Path) -> bool:
    """Forget ``file``; returns whether it was trusted."""
    if not _store_path().exists():
        return False
    with file_lock(_store_path()):
        files = _read_store()
        found = files.pop(_key(file), None) is not None
        if found:
            _write_store(files)
    return found


def trusted_configs() -> tuple[TrustedConfig, ...]:
    """Every trusted file, with whether it still matches its digest."""
    out: list[TrustedConfig] = []
    for name, entry in sorted(_read_store().items()):
        state = "missing"
        with contextlib.suppress(OSError):
            with open(name, "rb") as fh:
                data = fh.read(_MAX_STORE_BYTES)
            state = "valid" if file_digest(data) == entry["digest"] else "changed"
        out.append(TrustedConfig(Path(name), entry["digest"], entry["trusted_at"], state))
    return tuple(out)
