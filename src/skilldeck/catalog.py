"""The catalog: sources, stores, skills, status, digests, diagnosis and its quality report.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._catalog import (
    DEFAULT_FILE_LIMIT as DEFAULT_FILE_LIMIT,
)
from skilldeck._catalog import (
    Catalog as Catalog,
)
from skilldeck._catalog import (
    CatalogEntry as CatalogEntry,
)
from skilldeck._catalog import (
    CatalogSnapshot as CatalogSnapshot,
)
from skilldeck._catalog import (
    Discovery as Discovery,
)
from skilldeck._catalog import (
    DoctorReport as DoctorReport,
)
from skilldeck._catalog import (
    FileData as FileData,
)
from skilldeck._catalog import (
    FileDigest as FileDigest,
)
from skilldeck._catalog import (
    FileFacts as FileFacts,
)
from skilldeck._catalog import (
    FileSystemStore as FileSystemStore,
)
from skilldeck._catalog import (
    IndexMode as IndexMode,
)
from skilldeck._catalog import (
    MemoryStore as MemoryStore,
)
from skilldeck._catalog import (
    Root as Root,
)
from skilldeck._catalog import (
    RootInfo as RootInfo,
)
from skilldeck._catalog import (
    Skill as Skill,
)
from skilldeck._catalog import (
    SkillMetadata as SkillMetadata,
)
from skilldeck._catalog import (
    SkillStatus as SkillStatus,
)
from skilldeck._catalog import (
    SnapshotDiff as SnapshotDiff,
)
from skilldeck._catalog import (
    SnapshotEntry as SnapshotEntry,
)
from skilldeck._catalog import (
    SnapshotFile as SnapshotFile,
)
from skilldeck._catalog import (
    Source as Source,
)
from skilldeck._catalog import (
    Store as Store,
)
from skilldeck._catalog import (
    StoreBase as StoreBase,
)
from skilldeck._catalog import (
    Tier1Plan as Tier1Plan,
)
from skilldeck._catalog import (
    Trust as Trust,
)
from skilldeck._catalog import (
    WhyLine as WhyLine,
)
from skilldeck._catalog import (
    bundled_relpath as bundled_relpath,
)
from skilldeck._catalog import (
    check_read as check_read,
)
from skilldeck._catalog import (
    diagnose as diagnose,
)
from skilldeck._catalog import (
    index_of as index_of,
)
from skilldeck._catalog import (
    linked_of as linked_of,
)
from skilldeck._digest import (
    bytes_digest as bytes_digest,
)
from skilldeck._digest import (
    digest_of_files as digest_of_files,
)
from skilldeck._digest import (
    file_digest as file_digest,
)
from skilldeck._digest import (
    skill_digest as skill_digest,
)
from skilldeck._digest import (
    skill_file_digests as skill_file_digests,
)
from skilldeck._quality import (
    CatalogFinding as CatalogFinding,
)
from skilldeck._quality import (
    CatalogReport as CatalogReport,
)
from skilldeck._quality import (
    lint_catalog as lint_catalog,
)
from skilldeck._tree import (
    SkillTree as SkillTree,
)
from skilldeck._tree import (
    WalkLimits as WalkLimits,
)

__all__ = [
    "DEFAULT_FILE_LIMIT",
    "Catalog",
    "CatalogEntry",
    "CatalogFinding",
    "CatalogReport",
    "CatalogSnapshot",
    "Discovery",
    "DoctorReport",
    "FileData",
    "FileDigest",
    "FileFacts",
    "FileSystemStore",
    "IndexMode",
    "MemoryStore",
    "Root",
    "RootInfo",
    "Skill",
    "SkillMetadata",
    "SkillStatus",
    "SkillTree",
    "SnapshotDiff",
    "SnapshotEntry",
    "SnapshotFile",
    "Source",
    "Store",
    "StoreBase",
    "Tier1Plan",
    "Trust",
    "WalkLimits",
    "WhyLine",
    "bundled_relpath",
    "bytes_digest",
    "check_read",
    "diagnose",
    "digest_of_files",
    "file_digest",
    "index_of",
    "linked_of",
    "lint_catalog",
    "skill_digest",
    "skill_file_digests",
]
