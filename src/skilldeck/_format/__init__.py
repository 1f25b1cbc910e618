"""The SKILL.md format: parsing, the manifest, validation and lint."""

from skilldeck._format._manifest import (
    EXTENSION_FIELDS,
    SPEC_FIELDS,
    Manifest,
    Requirements,
    ToolPattern,
    Triggers,
    parse_allowed_tools,
)
from skilldeck._format._skillmd import (
    DEFAULT_MAX_BYTES,
    FRONTMATTER_LIMIT,
    ParsedSkillMd,
    parse_skill_md,
    read_skill_md,
)
from skilldeck._format._validate import (
    ValidationReport,
    find_skill_dirs,
    locate_skill_md,
    validate_skill,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "EXTENSION_FIELDS",
    "FRONTMATTER_LIMIT",
    "SPEC_FIELDS",
    "Manifest",
    "ParsedSkillMd",
    "Requirements",
    "ToolPattern",
    "Triggers",
    "ValidationReport",
    "find_skill_dirs",
    "locate_skill_md",
    "parse_allowed_tools",
    "parse_skill_md",
    "read_skill_md",
    "validate_skill",
]
