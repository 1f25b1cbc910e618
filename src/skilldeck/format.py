"""The SKILL.md format: parsing, validation, lint, manifests and body-declared tools.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._format import (
    FRONTMATTER_LIMIT as FRONTMATTER_LIMIT,
)
from skilldeck._format import (
    NAME_RE as NAME_RE,
)
from skilldeck._format import (
    RESOURCE_FOLDERS as RESOURCE_FOLDERS,
)
from skilldeck._format import (
    CommandTemplate as CommandTemplate,
)
from skilldeck._format import (
    DeclaredTool as DeclaredTool,
)
from skilldeck._format import (
    Invocation as Invocation,
)
from skilldeck._format import (
    Manifest as Manifest,
)
from skilldeck._format import (
    ParamType as ParamType,
)
from skilldeck._format import (
    ParsedSkillMd as ParsedSkillMd,
)
from skilldeck._format import (
    Requirements as Requirements,
)
from skilldeck._format import (
    ToolParameter as ToolParameter,
)
from skilldeck._format import (
    ToolPattern as ToolPattern,
)
from skilldeck._format import (
    Triggers as Triggers,
)
from skilldeck._format import (
    ValidationReport as ValidationReport,
)
from skilldeck._format import (
    check_name as check_name,
)
from skilldeck._format import (
    estimate_tokens as estimate_tokens,
)
from skilldeck._format import (
    find_skill_dirs as find_skill_dirs,
)
from skilldeck._format import (
    is_skill_name as is_skill_name,
)
from skilldeck._format import (
    lint_skill as lint_skill,
)
from skilldeck._format import (
    model_invocable_frontmatter as model_invocable_frontmatter,
)
from skilldeck._format import (
    parse_declared_tools as parse_declared_tools,
)
from skilldeck._format import (
    parse_skill_md as parse_skill_md,
)
from skilldeck._format import (
    read_skill_md as read_skill_md,
)
from skilldeck._format import (
    scaffold_skill as scaffold_skill,
)
from skilldeck._format import (
    validate_skill as validate_skill,
)

__all__ = [
    "FRONTMATTER_LIMIT",
    "NAME_RE",
    "RESOURCE_FOLDERS",
    "CommandTemplate",
    "DeclaredTool",
    "Invocation",
    "Manifest",
    "ParamType",
    "ParsedSkillMd",
    "Requirements",
    "ToolParameter",
    "ToolPattern",
    "Triggers",
    "ValidationReport",
    "check_name",
    "estimate_tokens",
    "find_skill_dirs",
    "is_skill_name",
    "lint_skill",
    "model_invocable_frontmatter",
    "parse_declared_tools",
    "parse_skill_md",
    "read_skill_md",
    "scaffold_skill",
    "validate_skill",
]
