"""Settings read from another agent runtime's file: ``~/.agent/config.yaml``.

A user who moves from that runtime keeps its file; skilldeck already reads its skill
folders (``~/.agent/skills``, ``~/.agent/plugins``), so the choices made in its
``skills:`` section must hold too, or a plugin switched off there would reach the
prompt here. Only settings that turn skills *off* are taken (a plugin with
``enabled: false``, ``disabledBundled``, ``enabledBundled``); paths and timeouts stay
skilldeck's own (``docs/compatibility.md`` shows their equivalents). The file is the
user's own, in their home folder; it is read bounded, without following a link out of
the home folder, and anything malformed in it is a note, never an error: it belongs to
another program.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from skilldeck.config._imported import ImportedSettings

__all__ = ["read_agent_config"]

#: a config file of a few plugins is a few KiB; anything past this is not one
_MAX_BYTES = 256 * 1024


def read_agent_config(home: Path | None = None) -> ImportedSettings | None:
    """The skill settings of ``<home>/.agent/config.yaml``, or ``None`` when it has none."""
    home = home if home is not None else Path(os.path.expanduser("~"))
    path = home / ".agent" / "config.yaml"
    data = _load(path, home)
    if data is None:
        return None
    skills = data.get("skills") if isinstance(data, dict) else None
    if not isinstance(skills, dict):
        return None
    notes: list[str] = []
    plugins_dir = _folder(skills.get("pluginsDir"), home) or home / ".agent" / "plugins"
    off: list[tuple[str, str]] = []
    plugins = skills.get("plugins")
    for item in plugins if isinstance(plugins, list) else ():
        if not isinstance(item, dict) or item.get("enabled", True) is not False:
            continue
        name = item.get("name")
        if isinstance(name, str) and _plain(name):
            off.append((name, os.path.realpath(plugins_dir / name)))
    if off:
        notes.append("plugins switched off there: " + ", ".join(n for n, _ in off))
    disabled = tuple(f"bundled:{n}" for n in _names(skills.get("disabledBundled")))
    if disabled:
        notes.append("disabledBundled: " + ", ".join(n.split(":", 1)[1] for n in disabled))
    enabled = skills.get("enabledBundled")
    only = tuple(_names(enabled)) if isinstance(enabled, list) else None
    if only is not None:
        notes.append("enabledBundled: " + (", ".join(only) or "(none)"))
    if not notes:
        return None
    from skilldeck.config._imported import ImportedSettings  # most users have no such file

    return ImportedSettings(path, disabled, tuple(off), only, tuple(notes))


def _load(path: Path, home: Path) -> Any:
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            real = Path(os.path.realpath(path))
            if not real.is_relative_to(os.path.realpath(home)):
                return None
            st = os.stat(real)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_BYTES:
            return None
        if st.st_uid not in (os.getuid(), 0):
            return None  # another user's file says nothing about this user's skills
        with open(path, "rb") as fh:
            text = fh.read(_MAX_BYTES + 1)
    except OSError:
        return None
    import yaml  # only when the file exists: most users have none

    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except (ValueError, yaml.YAMLError, RecursionError):
        return None


def _names(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [v for v in value[:1000] if isinstance(v, str) and _plain(v)]


def _plain(name: str) -> bool:
    """A skill or plugin name that is one plain path component."""
    return bool(name) and len(name) <= 255 and "/" not in name and name not in (".", "..")


def _folder(value: Any, home: Path) -> Path | None:
    if not isinstance(value, str) or not value.strip():
        return None
    raw = value.strip()
    if raw.startswith("~/"):
        return home / raw[2:]
    return Path(raw) if os.path.isabs(raw) else None
