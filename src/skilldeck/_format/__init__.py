"""The SKILL.md format: parsing, the manifest, validation and lint.

Names are imported from their module on first use (PEP 562): tier 1 and the
catalog need ``listing_description`` or ``model_invocable`` without the parser,
lint and scaffolding; type checkers see every import below.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself costs start-up time; type checkers see True

if TYPE_CHECKING:
    from skilldeck._format._invocation import Invocation as Invocation
    from skilldeck._format._invocation import listing_description as listing_description
    from skilldeck._format._invocation import model_invocable as model_invocable
    from skilldeck._format._invocation import (
        model_invocable_frontmatter as model_invocable_frontmatter,
    )
    from skilldeck._format._linear import compile_linear as compile_linear
    from skilldeck._format._linear import pattern_problem as pattern_problem
    from skilldeck._format._links import estimate_tokens as estimate_tokens
    from skilldeck._format._links import linked_paths as linked_paths
    from skilldeck._format._lint import lint_skill as lint_skill
    from skilldeck._format._manifest import EXTENSION_FIELDS as EXTENSION_FIELDS
    from skilldeck._format._manifest import NAME_RE as NAME_RE
    from skilldeck._format._manifest import SPEC_FIELDS as SPEC_FIELDS
    from skilldeck._format._manifest import Manifest as Manifest
    from skilldeck._format._manifest import Requirements as Requirements
    from skilldeck._format._manifest import ToolPattern as ToolPattern
    from skilldeck._format._manifest import Triggers as Triggers
    from skilldeck._format._manifest import check_name as check_name
    from skilldeck._format._manifest import is_skill_name as is_skill_name
    from skilldeck._format._manifest import parse_allowed_tools as parse_allowed_tools
    from skilldeck._format._mdtools import ArgTemplate as ArgTemplate
    from skilldeck._format._mdtools import CommandTemplate as CommandTemplate
    from skilldeck._format._mdtools import DeclaredTool as DeclaredTool
    from skilldeck._format._mdtools import Literal as Literal
    from skilldeck._format._mdtools import ParamType as ParamType
    from skilldeck._format._mdtools import Placeholder as Placeholder
    from skilldeck._format._mdtools import ToolParameter as ToolParameter
    from skilldeck._format._mdtools import parse_declared_tools as parse_declared_tools
    from skilldeck._format._scaffold import RESOURCE_FOLDERS as RESOURCE_FOLDERS
    from skilldeck._format._scaffold import scaffold_skill as scaffold_skill
    from skilldeck._format._skillmd import DEFAULT_MAX_BYTES as DEFAULT_MAX_BYTES
    from skilldeck._format._skillmd import FRONTMATTER_LIMIT as FRONTMATTER_LIMIT
    from skilldeck._format._skillmd import ParsedSkillMd as ParsedSkillMd
    from skilldeck._format._skillmd import parse_skill_md as parse_skill_md
    from skilldeck._format._skillmd import read_skill_md as read_skill_md
    from skilldeck._format._validate import ValidationReport as ValidationReport
    from skilldeck._format._validate import find_skill_dirs as find_skill_dirs
    from skilldeck._format._validate import locate_skill_md as locate_skill_md
    from skilldeck._format._validate import validate_skill as validate_skill

# public name -> the module defining it
_EXPORTS: dict[str, str] = {
    "NAME_RE": "skilldeck._format._manifest",
    "check_name": "skilldeck._format._manifest",
    "Invocation": "skilldeck._format._invocation",
    "listing_description": "skilldeck._format._invocation",
    "model_invocable": "skilldeck._format._invocation",
    "model_invocable_frontmatter": "skilldeck._format._invocation",
    "compile_linear": "skilldeck._format._linear",
    "pattern_problem": "skilldeck._format._linear",
    "estimate_tokens": "skilldeck._format._links",
    "linked_paths": "skilldeck._format._links",
    "lint_skill": "skilldeck._format._lint",
    "EXTENSION_FIELDS": "skilldeck._format._manifest",
    "SPEC_FIELDS": "skilldeck._format._manifest",
    "Manifest": "skilldeck._format._manifest",
    "Requirements": "skilldeck._format._manifest",
    "ToolPattern": "skilldeck._format._manifest",
    "Triggers": "skilldeck._format._manifest",
    "parse_allowed_tools": "skilldeck._format._manifest",
    "is_skill_name": "skilldeck._format._manifest",
    "ArgTemplate": "skilldeck._format._mdtools",
    "CommandTemplate": "skilldeck._format._mdtools",
    "DeclaredTool": "skilldeck._format._mdtools",
    "Literal": "skilldeck._format._mdtools",
    "ParamType": "skilldeck._format._mdtools",
    "Placeholder": "skilldeck._format._mdtools",
    "ToolParameter": "skilldeck._format._mdtools",
    "parse_declared_tools": "skilldeck._format._mdtools",
    "RESOURCE_FOLDERS": "skilldeck._format._scaffold",
    "scaffold_skill": "skilldeck._format._scaffold",
    "DEFAULT_MAX_BYTES": "skilldeck._format._skillmd",
    "FRONTMATTER_LIMIT": "skilldeck._format._skillmd",
    "ParsedSkillMd": "skilldeck._format._skillmd",
    "parse_skill_md": "skilldeck._format._skillmd",
    "read_skill_md": "skilldeck._format._skillmd",
    "ValidationReport": "skilldeck._format._validate",
    "find_skill_dirs": "skilldeck._format._validate",
    "locate_skill_md": "skilldeck._format._validate",
    "validate_skill": "skilldeck._format._validate",
}

__all__ = [
    "DEFAULT_MAX_BYTES",
    "EXTENSION_FIELDS",
    "FRONTMATTER_LIMIT",
    "NAME_RE",
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
    "check_name",
    "compile_linear",
    "estimate_tokens",
    "find_skill_dirs",
    "is_skill_name",
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


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skilldeck._format' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
