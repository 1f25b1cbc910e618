"""Diagnostic codes of the reading/parsing (SK1xx) and specification (SK2xx) rules."""

from __future__ import annotations

from skilldeck._diagnostics import Severity, register_code
from skilldeck._tree import _discover

E, W = Severity.ERROR, Severity.WARNING

# SK1xx: reading and parsing SKILL.md
MISSING_FRONTMATTER = register_code("SK101", E, "SKILL.md does not start with a frontmatter block")
UNCLOSED_FRONTMATTER = register_code("SK102", E, "frontmatter is never closed")
EMPTY_FRONTMATTER = register_code("SK103", E, "frontmatter is empty")
NOT_A_MAPPING = register_code("SK104", E, "frontmatter is not a mapping of keys to values")
INVALID_YAML = register_code("SK105", E, "frontmatter is not valid YAML")
YAML_TOO_COMPLEX = register_code(
    "SK106", E, "frontmatter nests or expands aliases beyond the limit"
)
FRONTMATTER_TOO_LARGE = register_code("SK107", E, "frontmatter is larger than the read bound")
DUPLICATE_KEY = register_code("SK108", W, "a key appears twice in one mapping")
CASE_DUPLICATE_KEY = register_code("SK109", W, "two keys differ only by letter case")
RECOVERED_COLON = register_code("SK110", W, "an unquoted value containing ': ' was recovered")
NOT_UTF8 = register_code("SK111", W, "SKILL.md is not valid UTF-8")
LEADING_BLANK_LINES = register_code("SK112", W, "blank lines before the opening '---'")
UNREADABLE = register_code("SK113", E, "SKILL.md cannot be read")
NON_STRING_KEY = register_code("SK114", W, "a frontmatter key is not a string")

# SK2xx: the Agent Skills specification
NO_SKILL_MD = register_code("SK201", E, "no SKILL.md in the skill folder")
NAME_MISSING = register_code("SK202", E, "the required 'name' field is missing")
NAME_INVALID = register_code("SK203", E, "the name breaks the naming rule")
NAME_MISMATCH = register_code("SK204", E, "the name differs from the folder name")
NAME_UNICODE = register_code("SK205", E, "the name uses non-ASCII lowercase letters")
DESCRIPTION_MISSING = register_code(
    "SK206", E, "the required 'description' field is missing or empty"
)
DESCRIPTION_TOO_LONG = register_code("SK207", E, "the description is longer than 1024 characters")
COMPATIBILITY_LENGTH = register_code("SK208", E, "compatibility must be 1-500 characters")
METADATA_NOT_MAPPING = register_code("SK209", E, "'metadata' is not a mapping")
METADATA_NOT_STRING = register_code("SK210", E, "a 'metadata' value is not a string")
ALLOWED_TOOLS_TYPE = register_code("SK211", E, "'allowed-tools' is not a space-separated string")
ALLOWED_TOOLS_COMMAS = register_code("SK212", W, "'allowed-tools' is separated by commas")
UNKNOWN_FIELD = register_code("SK213", E, "a top-level field outside the specification")
SKILL_MD_ESCAPES = _discover.SKILL_MD_ESCAPES  # SK214: found by discovery, one place
LOWERCASE_SKILL_MD = register_code("SK215", E, "the file is named skill.md, not SKILL.md")
WRONG_TYPE = register_code("SK216", E, "a field has the wrong type")
EXTENSION_INVALID = register_code("SK217", W, "an extension field has an invalid value")
ALLOWED_TOOLS_ALIAS = register_code("SK218", W, "'allowed_tools' is spelled with an underscore")
PLACEHOLDER = _discover.PLACEHOLDER  # SK219: the catalog and install leave such skills out
