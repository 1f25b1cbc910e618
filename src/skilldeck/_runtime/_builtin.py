"""The model-facing ``skills_*`` tools and the body-declared tools of loaded skills.

Parameters (a skill may always be addressed as ``SOURCE:NAME``):

- ``skills_list {offset?, limit?}`` — metadata of the visible skills;
- ``skills_load {name}`` — tier 2: the body, digest and bundled-file index; marks
  the skill as loaded in the session and updates the allowed-tools policy;
- ``skills_read_file {name, path}`` — tier 3: one bundled file;
- ``skills_search {query, limit?}`` — ranked search (for catalogs too large to list);
- ``skills_run_script {name, script, args?}`` — a bundled script, through the executor;
- ``skills_validate {name}`` / ``skills_lint {name}`` — behind an option.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from skilldeck._runtime._envelope import ToolResult, ToolWarning
from skilldeck._runtime._tools import Tool, ToolCall, ToolSpec

if TYPE_CHECKING:
    from skilldeck._runtime._runtime import SkillRuntime

__all__ = ["SKILL_TOOL_KEYS", "builtin_tools"]

SKILL_TOOL_KEYS = (
    "skills_list",
    "skills_load",
    "skills_read_file",
    "skills_search",
    "skills_run_script",
    "skills_validate",
    "skills_lint",
)

_NAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "description": "Skill name as listed (or SOURCE:NAME for a shadowed copy).",
}


def _obj(props: Mapping[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(props),
        "required": required,
        "additionalProperties": False,
    }


SPECS: dict[str, ToolSpec] = {
    "skills_list": ToolSpec(
        "skills_list",
        "List the available skills (name and description). Load one with skills_load "
        "when it fits the task.",
        _obj(
            {
                "offset": {"type": "integer", "minimum": 0, "description": "Skip this many."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000},
            },
            [],
        ),
        read_only=True,
    ),
    "skills_load": ToolSpec(
        "skills_load",
        "Load a skill's full instructions (SKILL.md body) and the list of its bundled "
        "files. Do this before following a skill.",
        _obj({"name": _NAME}, ["name"]),
        read_only=True,
    ),
    "skills_read_file": ToolSpec(
        "skills_read_file",
        "Read one file bundled with a skill, e.g. references/guide.md or scripts/run.py, "
        "as listed by skills_load.",
        _obj(
            {
                "name": _NAME,
                "path": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 1024,
                    "description": "Path relative to the skill folder.",
                },
            },
            ["name", "path"],
        ),
        read_only=True,
    ),
    "skills_search": ToolSpec(
        "skills_search",
        "Search the skills by what they do (names, descriptions, tags, headings); "
        "best matches first.",
        _obj(
            {
                "query": {"type": "string", "minLength": 1, "maxLength": 500},
                "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 5},
            },
            ["query"],
        ),
        read_only=True,
    ),
    "skills_run_script": ToolSpec(
        "skills_run_script",
        "Run a script bundled with a skill (from its scripts/ folder) with arguments; "
        "no shell is involved. The host may ask for approval first.",
        _obj(
            {
                "name": _NAME,
                "script": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 1024,
                    "description": "e.g. scripts/extract.py",
                },
                "args": {
                    "type": "array",
                    "items": {"type": "string", "maxLength": 100_000},
                    "maxItems": 256,
                    "default": [],
                },
            },
            ["name", "script"],
        ),
    ),
    "skills_validate": ToolSpec(
        "skills_validate",
        "Validate a skill's SKILL.md against the Agent Skills specification.",
        _obj({"name": _NAME}, ["name"]),
        read_only=True,
    ),
    "skills_lint": ToolSpec(
        "skills_lint",
        "Lint a skill (style and quality findings beyond validation).",
        _obj({"name": _NAME}, ["name"]),
        read_only=True,
    ),
}


def builtin_tools(runtime: SkillRuntime) -> list[Tool]:
    """The enabled ``skills_*`` tools, bound to ``runtime``."""
    o = runtime.options
    handlers: dict[str, Callable[[ToolCall], ToolResult]] = {
        "skills_list": runtime._tool_list,
        "skills_load": runtime._tool_load,
        "skills_read_file": runtime._tool_read_file,
    }
    if o.search:
        handlers["skills_search"] = runtime._tool_search
    if o.scripts:
        handlers["skills_run_script"] = runtime.scripts.run_script
    if o.validate_tools:
        handlers["skills_validate"] = runtime._tool_validate
        handlers["skills_lint"] = runtime._tool_lint
    return [Tool(SPECS[key], fn) for key, fn in handlers.items()]


def file_payload(data: bytes) -> tuple[str, str]:
    """``(encoding, content)``: UTF-8 text when it decodes cleanly, else base64."""
    if b"\x00" not in data:
        try:
            return "utf-8", data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    return "base64", base64.b64encode(data).decode("ascii")


def truncated_warning(what: str, limit: int | None) -> ToolWarning:
    size = f" at {limit} bytes" if limit else ""
    return ToolWarning("CONTENT_TRUNCATED", f"{what} was cut{size}; the rest is not shown")
