"""The SKILL.md format: parsing, the manifest, validation and lint."""

from skilldeck._format._invocation import (
    Invocation,
    listing_description,
    model_invocable,
    model_invocable_frontmatter,
)
from skilldeck._format._linear import compile_linear, pattern_problem
from skilldeck._format._lint import estimate_tokens, linked_paths, lint_skill
from skilldeck._format._manifest import (
    EXTENSION_FIELDS,
    SPEC_FIELDS,
    Manifest,
    Requirements,
    ToolPattern,
    Triggers,
    parse_allowed_tools,
)
from skilldeck._format._mdtools import (
    ArgTemplate,
    CommandTemplate,
    DeclaredTool,
    Literal,
    ParamType,
    Placeholder,
    ToolParameter,
    parse_declared_tools,
)
from skilldeck._format._scaffold import RESOURCE_FOLDERS, scaffold_skill
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
    "RESOURCE_FOLDERS",
    "SPEC_FIELDS",
    "ArgTemplate",
    "CommandTemplate",
    "DeclaredTool",
    "Invocation",
    "Literal",
    "Manifest",
    "ParamType",
    "ParsedSkillMd",
    "Placeholder",
    "Requirements",
    "ToolParameter",
    "ToolPattern",
    "Triggers",
    "ValidationReport",
    "compile_linear",
    "estimate_tokens",
    "find_skill_dirs",
    "linked_paths",
    "lint_skill",
    "listing_description",
    "locate_skill_md",
    "model_invocable",
    "model_invocable_frontmatter",
    "parse_allowed_tools",
    "parse_declared_tools",
    "parse_skill_md",
    "pattern_problem",
    "read_skill_md",
    "scaffold_skill",
    "validate_skill",
]
