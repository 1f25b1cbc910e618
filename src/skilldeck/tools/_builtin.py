"""The model-facing ``skills_*`` tools and the body-declared tools of loaded skills.

Parameters (a skill may always be addressed as ``SOURCE:NAME``):

- ``skills_list {offset?, limit?}`` — metadata of the visible skills;
- ``skills_load {name}`` — the instructions: the body, digest and bundled-file index; marks
  the skill as loaded in the session and updates the allowed-tools policy;
- ``skills_read_file {name, path}`` — one bundled file;
- ``skills_search {query, limit?}`` — ranked search (for catalogs too large to list);
- ``skills_run_script {name, script, args?}`` — a bundled script, through the executor;
- ``skills_validate {name}`` / ``skills_lint {name}`` — behind an option.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skilldeck._errors import FileTooLargeError, SkillUnavailableError, ToolNotAllowedError
from skilldeck._tree import is_text
from skilldeck.config import TOOL_KEYS
from skilldeck.events import SearchPerformed
from skilldeck.format import listing_description
from skilldeck.tools._envelope import ToolResult, ToolWarning
from skilldeck.tools._policy import decide_policy
from skilldeck.tools._session import LoadedSkill
from skilldeck.tools._tools import Tool, ToolCall, ToolSpec

if TYPE_CHECKING:
    from skilldeck.tools._runtime import SkillRuntime

__all__ = ["SKILL_TOOL_KEYS", "builtin_tools"]

SKILL_TOOL_KEYS = TOOL_KEYS  # the names [runtime] tool_names may rename, in order

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
    builtin = runtime.builtin
    handlers: dict[str, Callable[[ToolCall], ToolResult]] = {
        "skills_list": builtin.list_skills,
        "skills_load": builtin.load,
        "skills_read_file": builtin.read_file,
    }
    if o.search:
        handlers["skills_search"] = builtin.search
    if o.scripts:
        handlers["skills_run_script"] = runtime.scripts.run_script
    if o.validate_tools:
        handlers["skills_validate"] = builtin.validate
        handlers["skills_lint"] = builtin.lint
    return [Tool(SPECS[key], fn) for key, fn in handlers.items()]


def file_payload(data: bytes) -> tuple[str, str]:
    """``(encoding, content)``: UTF-8 text when it decodes cleanly, else base64."""
    if is_text(data):
        return "utf-8", data.decode("utf-8")
    return "base64", base64.b64encode(data).decode("ascii")


def truncated_warning(what: str, limit: int | None) -> ToolWarning:
    size = f" at {limit} bytes" if limit else ""
    return ToolWarning("CONTENT_TRUNCATED", f"{what} was cut{size}; the rest is not shown")


class BuiltinTools:
    """The handlers of the ``skills_*`` tools (beside ``ScriptTools``), over one runtime.

    They use only the runtime's named API (``catalog``, ``options``, ``emit``,
    ``resolve_skill``, ``is_trusted``, ``base_tools``, ...).
    """

    def __init__(self, runtime: SkillRuntime) -> None:
        self.rt = runtime

    def list_skills(self, call: ToolCall) -> ToolResult:
        offset = int(call.arguments.get("offset", 0))
        limit = int(call.arguments.get("limit", self.rt.options.list_limit))
        metas = self.rt.visible_skills(call.session)
        page = metas[offset : offset + limit]
        skills = []
        for meta in page:
            item: dict[str, Any] = {"name": meta.name, "description": listing_description(meta)}
            if getattr(meta, "source", None):
                item["source"] = meta.source
            _about(item, meta)
            if self.rt.options.include_location and getattr(meta, "location", None):
                item["location"] = meta.location
            skills.append(item)
        data: dict[str, Any] = {"skills": skills, "count": len(skills), "total": len(metas)}
        if offset + limit < len(metas):
            data["next_offset"] = offset + limit
            data["hint"] = "more skills exist: page with offset, or use skills_search"
        return ToolResult(data)

    def load(self, call: ToolCall) -> ToolResult:
        return self.load_skill(call, by_host=False)

    def load_skill(self, call: ToolCall, *, by_host: bool) -> ToolResult:
        from skilldeck.events import (
            AllowedToolsPolicyChanged,
            SkillLoaded,
        )  # (a search never builds them)
        from skilldeck.format import cut_text  # (a run from the index never parses SKILL.md)

        name = str(call.arguments["name"])
        self.rt.resolve_skill(name, call.session, by_host=by_host)
        # the limit is the body's: the frontmatter does not count against it, and the
        # tools the body declares after the cut are still the skill's
        limit = self.rt.options.max_body_bytes
        skill = self.rt.catalog.load(name)
        body, cut = cut_text(skill.body, limit)
        truncated = skill.body_truncated or cut
        digest = self.rt.catalog.digest(name)
        manifest = skill.manifest
        warnings: list[ToolWarning] = []
        if truncated:
            warnings.append(truncated_warning(f"the body of {skill.name!r}", limit))
        declared = self.rt.scripts.declare(name, skill) if self.rt.options.declared_tools else {}
        data: dict[str, Any] = {
            "name": skill.name,
            "description": skill.description,
            "source": skill.source or None,
            "digest": digest,
            "body": body,
            "files": list(skill.files),
        }
        if declared:
            data["tools"] = sorted(declared)
        if manifest is not None and manifest.allowed_tools:
            data["allowed_tools"] = [p.raw for p in manifest.allowed_tools]
        if self.rt.options.include_location and skill.location:
            data["location"] = skill.location
        # the load succeeded: only now does allowed-tools change
        previous = call.session.policy
        call.session.mark_loaded(
            LoadedSkill(
                name=skill.name,
                key=name,
                source=skill.source or None,
                digest=digest,
                body=body,
                body_truncated=truncated,
                path=str(skill.path) if skill.path is not None else None,
                declared_tools=tuple(sorted(declared)),
            ),
            declared,
        )
        outcome = decide_policy(
            previous,
            mode=self.rt.options.allowed_tools_enforcement,
            invalid_allowlist=self.rt.options.allowed_tools_invalid_allowlist,
            skill=skill.name,
            patterns=manifest.allowed_tools if manifest is not None else None,
            available=[t.spec for t in self.rt.base_tools(call.session)],
            trusted=self.rt.is_trusted(name),
            honor_untrusted=self.rt.options.honor_untrusted_allowed_tools,
        )
        self.rt.emit(
            SkillLoaded(
                session_id=call.session.id,
                skill=skill.name,
                source=skill.source or None,
                digest=digest,
                body_bytes=len(body.encode("utf-8")),
                body_truncated=truncated,
            )
        )
        if outcome.error is not None:
            raise ToolNotAllowedError(
                outcome.error,
                skill=skill.name,
                hint="fix the skill's allowed-tools or set allowed_tools_invalid_allowlist "
                "to 'ignore' or 'enforce'",
                reason="invalid_allowlist",
            )
        call.session.apply_policy(outcome.policy)
        if outcome.action is not None:
            self.rt.emit(
                AllowedToolsPolicyChanged(
                    session_id=call.session.id,
                    action=outcome.action,
                    skill=skill.name,
                    mode=outcome.policy.mode,
                    allow_set_count=outcome.policy.allow_set_count,
                    patterns=tuple(p.raw for p in outcome.policy.patterns),
                    reason=outcome.policy.ignored_reason,
                )
            )
        warnings.extend(outcome.warnings)
        return ToolResult(data, tuple(warnings))

    def read_file(self, call: ToolCall) -> ToolResult:
        from skilldeck.events import FileRead

        name = str(call.arguments["name"])
        relpath = str(call.arguments["path"])
        meta = self.rt.resolve_skill(name, call.session)
        try:
            data = self.rt.catalog.read_file(
                name, relpath, max_bytes=self.rt.options.max_file_bytes
            )
        except FileTooLargeError as exc:
            # the reader's hint is for a caller that can pass another limit; the model
            # calling this tool cannot
            exc.hint = (
                "this tool reads files of at most "
                f"{self.rt.options.max_file_bytes} bytes: read the smaller files the "
                "skill lists instead, or ask the user to raise the host's max_file_bytes"
            )
            raise
        encoding, content = file_payload(data)
        self.rt.emit(
            FileRead(
                session_id=call.session.id,
                skill=meta.name,
                path=relpath,
                size=len(data),
            )
        )
        return ToolResult(
            {
                "name": meta.name,
                "path": relpath,
                "encoding": encoding,
                "size": len(data),
                "content": content,
            }
        )

    def search(self, call: ToolCall) -> ToolResult:
        query = str(call.arguments["query"])
        limit = int(call.arguments.get("limit", 5))
        index = self.rt.search_index()
        if call.session.scope is None:
            hits = index.search(query, limit=limit)
        else:  # a forked session: rank everything, keep its own skills
            ranked = index.search(query, limit=max(len(index), 1))
            hits = [h for h in ranked if call.session.can_see(h.name)][:limit]
        self.rt.emit(
            SearchPerformed(
                session_id=call.session.id,
                query=query,
                limit=limit,
                results=tuple(h.key or h.name for h in hits),
            )
        )
        return ToolResult(
            {"query": query, "results": [h.to_dict() for h in hits], "indexed": len(index)}
        )

    def validate(self, call: ToolCall) -> ToolResult:
        from skilldeck.format import validate_skill

        return self._report(call, validate_skill)

    def lint(self, call: ToolCall) -> ToolResult:
        from skilldeck.format import lint_skill

        return self._report(call, lint_skill)

    def _report(self, call: ToolCall, check: Callable[[Path], Any]) -> ToolResult:
        name = str(call.arguments["name"])
        meta = self.rt.resolve_skill(name, call.session)
        if getattr(meta, "path", None) is None:
            raise SkillUnavailableError(
                f"skill {name!r} has no folder to check", skill=name, hint="only on-disk skills"
            )
        report = check(Path(meta.path))
        return ToolResult(
            {
                "name": meta.name,
                "valid": bool(report.valid),
                "diagnostics": [d.to_dict() for d in report.diagnostics],
            }
        )


def _about(item: dict[str, Any], meta: Any) -> None:
    """``version``, ``tags`` and ``author`` of a listed skill, when it has them (read
    from the cached metadata: listing never parses a manifest)."""
    version = getattr(meta, "version", None)
    if version:
        item["version"] = version
    tags = getattr(meta, "tags", ())
    if tags:
        item["tags"] = list(tags)
    author = getattr(meta, "author", None)
    if author:
        item["author"] = author
