"""What the catalog publishes over MCP, and how its files are read.

- ``publishable``: the snapshot entries served (enabled and shadowed skills whose
  frontmatter has a spec-conformant name and a description), each with its skill
  path: the winner of a name at ``<name>``, a shadowed one at ``<source>/<name>``.
- ``read_all``: one file's bytes through the catalog (any file of the skill, not
  only file reads).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from skilldeck import Catalog, CatalogEntry, SkillStatus
from skilldeck.catalog import SnapshotEntry
from skilldeck.format import is_skill_name
from skilldeck.mcp._wire import MAX_TOTAL_BYTES

__all__ = [
    "SERVED_STATUSES",
    "frontmatter",
    "publishable",
    "read_all",
]

SERVED_STATUSES = frozenset({SkillStatus.ENABLED, SkillStatus.SHADOWED})


def read_all(catalog: Catalog, ref: str, relpath: str) -> bytes:
    """One file of a skill, any file the walker lists, up to the limit.

    Every read goes through the catalog, whose reads resolve beneath the skill
    folder (``skilldeck._tree``); ``SKILL.md`` is the skill's own bytes
    (``catalog.skill_md_bytes``: a folder's, or what an inline skill was added
    with).
    """
    if relpath == "SKILL.md":
        md: bytes = catalog.skill_md_bytes(ref, max_bytes=MAX_TOTAL_BYTES).data
        return md
    data: bytes = catalog.read_bundled(ref, relpath, max_bytes=MAX_TOTAL_BYTES, index="all").data
    return data


def frontmatter(entry: CatalogEntry) -> dict[str, Any] | None:
    """The verbatim frontmatter as JSON, or ``None`` when it lacks a usable name/description.

    The catalog's ``frontmatter_json``: kept from its scan when the catalog keeps
    frontmatter (``create_server`` asks for that), else read from SKILL.md.
    """
    text = entry.metadata.frontmatter_json
    if text is None:
        return None
    data = _decoded(text)
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not isinstance(description, str) or not description:
        return None
    if not is_skill_name(name):
        return None
    return data


def _decoded(text: str) -> dict[str, Any]:
    """A frontmatter's JSON text (``frontmatter_as_json``: an object) as a new dict:
    decoded by msgspec (about 0.5 us a frontmatter where ``json.loads`` takes 4 us; a
    cold start decodes one per skill), or by ``json`` where msgspec refuses the text
    (``NaN``, a lone surrogate), with the same values either way."""
    try:
        data: dict[str, Any] = msgspec.json.decode(text)
    except ValueError:
        data = json.loads(text)
    return data


def publishable(
    entries: Iterable[SnapshotEntry],
    frontmatter_of: Callable[[SnapshotEntry], dict[str, Any] | None] | None = None,
) -> list[tuple[str, SnapshotEntry, dict[str, Any]]]:
    """(skill path, snapshot entry, frontmatter) of every served entry, winners at
    ``<name>``. ``frontmatter_of`` gives an entry's frontmatter (a caller may have
    it cached; default: parsed from its manifest).
    """
    chosen: list[tuple[SnapshotEntry, dict[str, Any]]] = []
    for item in entries:
        if item.entry.status not in SERVED_STATUSES:
            continue
        found = frontmatter_of(item) if frontmatter_of is not None else frontmatter(item.entry)
        if found is not None:
            chosen.append((item, found))
    shadowed = SkillStatus.SHADOWED
    winners = {fm["name"] for e, fm in chosen if e.entry.status is not shadowed}
    taken: set[str] = set()
    out: list[tuple[str, SnapshotEntry, dict[str, Any]]] = []
    first = [c for c in chosen if c[0].entry.status is not shadowed]  # winners, then others
    for item, fm in first + [c for c in chosen if c[0].entry.status is shadowed]:
        entry = item.entry
        if entry.status is not shadowed:
            path = fm["name"]
        else:
            prefix = str(entry.source).replace("/", "-").replace(":", "-") or "source"
            if prefix in winners:
                prefix += ".shadowed"
            path, n = f"{prefix}/{fm['name']}", 2
            while path in taken:
                path, n = f"{prefix}~{n}/{fm['name']}", n + 1
        if path in taken:
            continue
        taken.add(path)
        out.append((path, item, fm))
    return out
