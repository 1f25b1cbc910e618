"""The catalog: sources, stores, skills, status, digests, diagnosis and its quality report.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._digest import (
        bytes_digest as bytes_digest,
        digest_of_files as digest_of_files,
        file_digest as file_digest,
        skill_digest as skill_digest,
        skill_file_digests as skill_file_digests,
    )
    from skilldeck._tree import SkillTree as SkillTree, WalkLimits as WalkLimits
    from skilldeck.catalog._budget import (
        SkillListItem as SkillListItem,
        SkillListPlan as SkillListPlan,
        clean_text as clean_text,
        plan_skill_list as plan_skill_list,
    )
    from skilldeck.catalog._cache import MetadataCache as MetadataCache, sig_of as sig_of
    from skilldeck.catalog._catalog import Catalog as Catalog, RootInfo as RootInfo
    from skilldeck.catalog._doctor import DoctorReport as DoctorReport, diagnose as diagnose
    from skilldeck.catalog._fileset import (
        check_read as check_read,
        index_of as index_of,
        linked_of as linked_of,
    )
    from skilldeck.catalog._fs import FileSystemStore as FileSystemStore
    from skilldeck.catalog._loaded import FileData as FileData, Skill as Skill
    from skilldeck.catalog._memory import MemoryStore as MemoryStore
    from skilldeck.catalog._model import (
        CatalogEntry as CatalogEntry,
        Root as Root,
        SkillMetadata as SkillMetadata,
        SkillStatus as SkillStatus,
        Source as Source,
        Trust as Trust,
    )
    from skilldeck.catalog._snapshot import (
        CatalogSnapshot as CatalogSnapshot,
        FileDigest as FileDigest,
        SnapshotDiff as SnapshotDiff,
        SnapshotEntry as SnapshotEntry,
        SnapshotFile as SnapshotFile,
    )
    from skilldeck.catalog._sources import (
        bundled_root as bundled_root,
        default_sources as default_sources,
        project_folders as project_folders,
    )
    from skilldeck.catalog._store import (
        DEFAULT_FILE_LIMIT as DEFAULT_FILE_LIMIT,
        Discovery as Discovery,
        FileFacts as FileFacts,
        StoreBase as StoreBase,
        bundled_relpath as bundled_relpath,
    )
    from skilldeck.catalog._types import IndexMode as IndexMode, Store as Store
    from skilldeck.catalog._why import WhyLine as WhyLine
    from skilldeck.search import (
        CatalogFinding as CatalogFinding,
        CatalogReport as CatalogReport,
        lint_catalog as lint_catalog,
    )
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "SkillListPlan": "._budget",
        "Catalog": "._catalog",
        "RootInfo": "._catalog",
        "DoctorReport": "._doctor",
        "diagnose": "._doctor",
        "check_read": "._fileset",
        "index_of": "._fileset",
        "linked_of": "._fileset",
        "FileSystemStore": "._fs",
        "CatalogEntry": "._model",
        "Root": "._model",
        "Skill": "._loaded",
        "SkillMetadata": "._model",
        "SkillStatus": "._model",
        "Source": "._model",
        "Trust": "._model",
        "WhyLine": "._why",
        "CatalogSnapshot": "._snapshot",
        "FileDigest": "._snapshot",
        "SnapshotDiff": "._snapshot",
        "SnapshotEntry": "._snapshot",
        "SnapshotFile": "._snapshot",
        "DEFAULT_FILE_LIMIT": "._store",
        "Discovery": "._store",
        "FileData": "._loaded",
        "FileFacts": "._store",
        "IndexMode": "._types",
        "MemoryStore": "._memory",
        "Store": "._types",
        "StoreBase": "._store",
        "bundled_relpath": "._store",
        "bytes_digest": "skilldeck._digest",
        "digest_of_files": "skilldeck._digest",
        "file_digest": "skilldeck._digest",
        "skill_digest": "skilldeck._digest",
        "skill_file_digests": "skilldeck._digest",
        "SkillTree": "skilldeck._tree",
        "WalkLimits": "skilldeck._tree",
        "CatalogFinding": "skilldeck.search",
        "CatalogReport": "skilldeck.search",
        "lint_catalog": "skilldeck.search",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "SkillListItem": "._budget",
        "clean_text": "._budget",
        "plan_skill_list": "._budget",
        "MetadataCache": "._cache",
        "sig_of": "._cache",
        "bundled_root": "._sources",
        "default_sources": "._sources",
        "project_folders": "._sources",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
