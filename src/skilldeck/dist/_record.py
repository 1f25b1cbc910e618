"""Record installed sources in the config file (``[installed.<name>]``).

One table per installed skill::

    [installed.pdf-tools]
    url = "https://github.com/acme/skills.git"   # where from: git URL, or a local
                                                  # folder's / archive's absolute path
    ref = "v1.2"                                  # when one was asked for
    subdir = "skills/pdf-tools"                   # the skill's folder in the source
    path = "/home/me/.local/share/skilldeck/skills/pdf-tools"   # where it is installed
    name = "pdf-tools"
    enabled = true
    installed_at = "2026-11-22T00:30:00Z"

``path`` is the installed folder: the catalog reads it as part of the
``installed`` source, and ``enabled = false`` disables what lies there. The
table is written in the config file of the scope the skill was installed into;
comments and layout elsewhere in the file are kept (tomlkit). Older versions
wrote the same table as ``[plugins.<name>]``; it is still read, and moved to
``[installed.<name>]`` the next time skilldeck writes that skill.
"""

from __future__ import annotations

from typing import Any

import tomlkit
from tomlkit.items import Table
from tomlkit.toml_document import TOMLDocument

from skilldeck.config import update_config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._state import Layout

__all__ = ["installed_table", "write_ops"]


def installed_table(
    entry: dict[str, Any], *, name: str, installed_at: str, path: str
) -> dict[str, Any]:
    """The ``[installed.<name>]`` values for a lockfile entry (JSON form)."""
    src = entry["source"]
    out: dict[str, Any] = {"url": src["url"]}
    if src.get("ref"):
        out["ref"] = src["ref"]
    if src.get("skill_path"):
        out["subdir"] = src["skill_path"]
    out["path"] = path
    out["name"] = name
    out["enabled"] = True
    out["installed_at"] = installed_at
    return out


def _records(doc: TOMLDocument) -> Table:
    table = doc.get("installed")
    if not isinstance(table, Table):
        table = tomlkit.table(is_super_table=True)
        doc["installed"] = table
    return table


def write_ops(lay: Layout, ops: list[dict[str, Any]]) -> None:
    """Apply install/remove ops to the scope's config file (one atomic write).

    A skill still recorded under the older ``[plugins.<name>]`` spelling moves
    to ``[installed.<name>]`` when it is written again, and loses its table
    there when removed.
    """

    def mutate(doc: TOMLDocument) -> None:
        records = _records(doc)
        older = doc.get("plugins")
        older = older if isinstance(older, Table) else None
        for op in ops:
            name = op["name"]
            old = records.get(name)
            if older is not None and name in older:
                old = old if old is not None else older[name]
                del older[name]
            if op["op"] == "install":
                values = dict(op["plugin"])
                if isinstance(old, Table) and old.get("enabled") is False:
                    values["enabled"] = False  # an update keeps a disabled skill disabled
                if isinstance(old, Table) and op.get("keep_installed_at") and "installed_at" in old:
                    values["installed_at"] = old["installed_at"]
                table = tomlkit.table()
                for key, value in values.items():
                    table[key] = value
                records[name] = table
            elif op["op"] == "remove" and name in records:
                del records[name]
        if not records:
            del doc["installed"]
        if older is not None and not older:
            del doc["plugins"]

    update_config(lay.scope, mutate, cwd=lay.cwd)
