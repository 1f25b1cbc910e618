"""The catalog: stores, discovery, precedence, status, cache and watching.

The doctor and snapshots are imported on first use (PEP 562): a listing needs neither.
"""

import importlib

from skilldeck._catalog._budget import Tier1Item, Tier1Plan, clean_text, plan_tier1
from skilldeck._catalog._cache import MetadataCache
from skilldeck._catalog._catalog import Catalog, RootInfo
from skilldeck._catalog._fileset import check_read, index_of, linked_of
from skilldeck._catalog._fs import FileSystemStore
from skilldeck._catalog._model import (
    CatalogEntry,
    Root,
    Skill,
    SkillMetadata,
    SkillStatus,
    Source,
    Trust,
    WhyLine,
)
from skilldeck._catalog._sources import bundled_root, default_sources, project_folders
from skilldeck._catalog._store import (
    DEFAULT_FILE_LIMIT,
    Discovery,
    FileData,
    FileFacts,
    IndexMode,
    MemoryStore,
    Store,
    StoreBase,
    bundled_relpath,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._catalog._doctor import DoctorReport, diagnose
    from skilldeck._catalog._snapshot import (
        CatalogSnapshot,
        FileDigest,
        SnapshotDiff,
        SnapshotEntry,
        SnapshotFile,
    )

_LAZY = {
    "DoctorReport": "skilldeck._catalog._doctor",
    "diagnose": "skilldeck._catalog._doctor",
    "CatalogSnapshot": "skilldeck._catalog._snapshot",
    "FileDigest": "skilldeck._catalog._snapshot",
    "SnapshotDiff": "skilldeck._catalog._snapshot",
    "SnapshotEntry": "skilldeck._catalog._snapshot",
    "SnapshotFile": "skilldeck._catalog._snapshot",
}

__all__ = [
    "DEFAULT_FILE_LIMIT",
    "Catalog",
    "CatalogEntry",
    "CatalogSnapshot",
    "Discovery",
    "DoctorReport",
    "FileData",
    "FileDigest",
    "FileFacts",
    "FileSystemStore",
    "IndexMode",
    "MemoryStore",
    "MetadataCache",
    "Root",
    "RootInfo",
    "Skill",
    "SkillMetadata",
    "SkillStatus",
    "SnapshotDiff",
    "SnapshotEntry",
    "SnapshotFile",
    "Source",
    "Store",
    "StoreBase",
    "Tier1Item",
    "Tier1Plan",
    "Trust",
    "WhyLine",
    "bundled_relpath",
    "bundled_root",
    "check_read",
    "clean_text",
    "default_sources",
    "diagnose",
    "index_of",
    "linked_of",
    "plan_tier1",
    "project_folders",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'skilldeck._catalog' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value
