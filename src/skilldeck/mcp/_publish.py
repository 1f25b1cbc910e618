"""What the catalog publishes over MCP, and how its files are read.

- ``publishable``: the catalog entries served (enabled and shadowed skills whose
  frontmatter has a spec-conformant name and a description), each with its skill
  path: the winner of a name at ``<name>``, a shadowed one at ``<source>/<name>``.
- ``read_all``: one file's bytes (any file of the skill, not only tier-3 ones).
- ``signature``: what a skill's published form depends on, to skip unchanged
  skills on a rescan.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from skilldeck import Catalog, CatalogEntry, SkillStatus
from skilldeck.mcp import _uris
from skilldeck.mcp._wire import MAX_TOTAL_BYTES

__all__ = [
    "SERVED_STATUSES",
    "frontmatter",
    "publishable",
    "read_all",
    "ref_of",
    "signature",
]

SERVED_STATUSES = frozenset({SkillStatus.ENABLED, SkillStatus.SHADOWED})
_MAX_SIGNATURE_ENTRIES = 20_000


def read_all(catalog: Catalog, ref: str, relpath: str, skill_md: str | None = None) -> bytes:
    """One file of a skill, any file the walker lists, up to the limit.

    Every read goes through the catalog, whose reads resolve beneath the skill
    folder (``skilldeck._tree``); ``SKILL.md`` is the skill's own bytes
    (``catalog.skill_md_bytes``: a folder's, or what an inline skill was added
    with). ``skill_md`` is no longer needed and is ignored.
    """
    if relpath == "SKILL.md":
        md: bytes = catalog.skill_md_bytes(ref, max_bytes=MAX_TOTAL_BYTES).data
        return md
    data: bytes = catalog.read_bundled(ref, relpath, max_bytes=MAX_TOTAL_BYTES, index="all").data
    return data


def signature(entry: CatalogEntry) -> list[tuple[str, int, int, int, int]] | None:
    """The stat of everything under a skill's folder: ``(path, inode, mtime, size, ctime)``,
    sorted; ``None`` when the skill has no folder or the tree is too big to tell."""
    if entry.path is None:
        return None
    tree: list[tuple[str, int, int, int, int]] = []
    stack = [os.fspath(entry.path)]
    while stack:
        top = stack.pop()
        try:
            with os.scandir(top) as it:
                for item in it:
                    try:
                        st = item.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    tree.append((item.path, st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns))
                    if item.is_dir(follow_symlinks=False):
                        stack.append(item.path)
        except OSError:
            continue
        if len(tree) > _MAX_SIGNATURE_ENTRIES:
            return None
    tree.sort()
    return tree


def ref_of(entry: CatalogEntry) -> str:
    """How the catalog addresses an entry: the visible skill by name, others as ``SOURCE:NAME``.

    (``SOURCE:NAME`` names the first candidate of that source; a source holding two
    skills of one name, e.g. at two depths of a recursive root, cannot address the
    second, so the visible one is always addressed by its bare name.)
    """
    if entry.status is SkillStatus.ENABLED:
        return entry.name
    return f"{entry.source}:{entry.name}"


def frontmatter(entry: CatalogEntry) -> dict[str, Any] | None:
    """The verbatim frontmatter as JSON, or ``None`` when it lacks a usable name/description."""
    manifest = entry.metadata.manifest
    raw = manifest.frontmatter if manifest is not None else None
    if not isinstance(raw, Mapping):
        return None
    data = json.loads(json.dumps(dict(raw), default=str, ensure_ascii=False))
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not isinstance(description, str) or not description:
        return None
    if not _uris.valid_skill_name(name):
        return None
    return dict(data)


def publishable(
    entries: Iterable[CatalogEntry],
    frontmatter_of: Callable[[CatalogEntry], dict[str, Any] | None] = frontmatter,
) -> list[tuple[str, CatalogEntry, dict[str, Any]]]:
    """(skill path, entry, frontmatter) of every served entry, winners at ``<name>``.

    ``frontmatter_of`` gives an entry's frontmatter (a caller may have it cached).
    """
    chosen: list[tuple[CatalogEntry, dict[str, Any]]] = []
    for entry in entries:
        if entry.status not in SERVED_STATUSES:
            continue
        found = frontmatter_of(entry)
        if found is not None:
            chosen.append((entry, found))
    shadowed = SkillStatus.SHADOWED
    winners = {fm["name"] for e, fm in chosen if e.status is not shadowed}
    taken: set[str] = set()
    out: list[tuple[str, CatalogEntry, dict[str, Any]]] = []
    for entry, fm in sorted(chosen, key=lambda c: c[0].status is shadowed):
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
        out.append((path, entry, fm))
    return out
