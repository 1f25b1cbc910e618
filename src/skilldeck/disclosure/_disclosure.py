"""Progressive disclosure: the skill list (what the model sees first), loaded skills, bundled files.

The renderers are pure functions of a list of metadata-like objects (anything
with ``name``, ``description`` and optionally ``location``), so the runtime,
the MCP server and the CLI produce the same text.

- The skill list: ``render_skills`` as the specification's ``<available_skills>`` XML,
  Markdown or JSON, within an optional budget (characters, or approximate
  tokens): descriptions are cut with an ellipsis, skills that do not fit are
  counted in a final line pointing at the ``skills_search`` tool, pinned
  skills come first. An empty list renders ``""`` (or the empty element).
- Loaded skills: ``skill_payload`` (the loaded skill as JSON-able data).
- Bundled files: ``read_skill_file`` (one bundled file: text, or base64 with a MIME
  type; over the size limit refused or truncated with a warning).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from skilldeck._errors import PathNotAllowedError
from skilldeck._tree import decode_text, mime_type
from skilldeck.catalog import (
    DEFAULT_FILE_LIMIT,
    FileData,
    IndexMode,
    Skill,
    SkillListPlan,
    clean_text,
    plan_skill_list,
)
from skilldeck.config import Budget
from skilldeck.format import model_invocable

__all__ = [
    "DEFAULT_FILE_LIMIT",
    "FileContent",
    "SkillListFormat",
    "model_facing",
    "omitted_message",
    "plan_skills",
    "read_skill_file",
    "render_json",
    "render_markdown",
    "render_skills",
    "render_xml",
    "skill_payload",
]

SkillListFormat = Literal["xml", "markdown", "json"]

# XML 1.0 forbids most C0 controls even when escaped, and discourages DEL and the C1
# controls, which a terminal reads as escape sequences (`skilldeck prompt`): all dropped.
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>])")


def xml_escape(text: str) -> str:
    if not text.isprintable():
        text = _XML_BAD.sub("", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_escape(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", text)


def omitted_message(count: int, search_tool: str = "skills_search") -> str:
    """The final line for skills left out of the skill list."""
    noun = "skill is" if count == 1 else "skills are"
    return (
        f"{count} more {noun} not listed here. "
        f"Call the {search_tool} tool with a few keywords to find them."
    )


def model_facing(skills: Sequence[Any]) -> Sequence[Any]:
    """``skills`` without those the model must never see (``disable-model-invocation``)."""
    if all(map(model_invocable, skills)):
        return skills
    return [s for s in skills if model_invocable(s)]


def _location(skill: Any) -> str | None:
    loc = getattr(skill, "location", None)
    return str(loc) if loc else None


class _Renderer(Protocol):
    def entry(self, skill: Any, description: str) -> str: ...

    def wrap(self, entries: list[str]) -> str: ...


@dataclass(frozen=True, slots=True)
class _Xml:
    location: bool

    def entry(self, skill: Any, description: str) -> str:
        loc = _location(skill) if self.location else None
        out = (
            f"  <skill>\n    <name>{xml_escape(str(skill.name))}</name>\n"
            f"    <description>{xml_escape(description)}</description>\n"
        )
        if loc:
            out += f"    <location>{xml_escape(loc)}</location>\n"
        return out + "  </skill>\n"

    def wrap(self, entries: list[str]) -> str:
        if not entries:
            return "<available_skills>\n</available_skills>"
        return "<available_skills>\n" + "".join(entries) + "</available_skills>"


@dataclass(frozen=True, slots=True)
class _Markdown:
    location: bool

    def entry(self, skill: Any, description: str) -> str:
        loc = _location(skill) if self.location else None
        line = f"- **{md_escape(str(skill.name))}**: {md_escape(description)}"
        if loc:
            line += f" (`{loc.replace('`', '')}`)"
        return line + "\n"

    def wrap(self, entries: list[str]) -> str:
        return "## Available skills\n\n" + "".join(entries).rstrip("\n")


@dataclass(frozen=True, slots=True)
class _Json:
    location: bool

    def item(self, skill: Any, description: str) -> dict[str, str]:
        obj = {"name": str(skill.name), "description": description}
        loc = _location(skill) if self.location else None
        if loc:
            obj["location"] = loc
        return obj

    def entry(self, skill: Any, description: str) -> str:
        return json.dumps(self.item(skill, description), ensure_ascii=False) + ", "

    def wrap(self, entries: list[str]) -> str:  # pragma: no cover - json renders itself
        raise NotImplementedError


def _renderer(fmt: str, location: bool) -> _Renderer:
    if fmt == "xml":
        return _Xml(location)
    if fmt == "markdown":
        return _Markdown(location)
    if fmt == "json":
        return _Json(location)
    raise ValueError(f"unknown skill-list format {fmt!r}: use xml, markdown or json")


def _budget_chars(budget: int | str | Budget | None) -> int | None:
    if budget is None:
        return None
    return Budget.parse(budget).chars


def plan_skills(
    skills: Sequence[Any],
    *,
    format: SkillListFormat = "xml",
    budget: int | str | Budget | None = None,
    pinned: Sequence[str] = (),
    include_location: bool = False,
    search_tool: str = "skills_search",
    max_description: int | None = None,
) -> SkillListPlan:
    """Which skills the skill list shows, and how much of each description, for this format.

    Skills with ``disable-model-invocation`` are never listed; ``when_to_use`` is
    appended to each description (the two cut to 1,536 characters together).
    """
    skills = model_facing(skills)
    r = _renderer(format, include_location)
    limit = _budget_chars(budget)
    overhead = len(r.wrap([])) if format != "json" else len('{"skills": []}')
    return plan_skill_list(
        skills,
        budget=limit,
        pinned=pinned,
        cost=lambda s, d: len(r.entry(s, d)),
        overhead=overhead,
        omitted_line=len(omitted_message(10**6, search_tool)) + 2,
        max_description=max_description,
    )


def render_skills(
    skills: Sequence[Any],
    *,
    format: SkillListFormat = "xml",
    budget: int | str | Budget | None = None,
    pinned: Sequence[str] = (),
    include_location: bool = False,
    empty: Literal["nothing", "element"] = "nothing",
    search_tool: str = "skills_search",
    max_description: int | None = None,
) -> str:
    """The skill list: the skills as ``format`` text, within ``budget``.

    ``budget`` is characters (int) or a ``Budget`` / ``"2000 tokens"``.
    ``include_location`` adds each SKILL.md's absolute path. With nothing to
    show the result is ``""`` unless ``empty="element"``. Skills with
    ``disable-model-invocation`` are left out: the skill list is what the model sees.
    """
    skills = model_facing(skills)
    if not skills and empty == "nothing":
        return ""
    plan = plan_skills(
        skills,
        format=format,
        budget=budget,
        pinned=pinned,
        include_location=include_location,
        search_tool=search_tool,
        max_description=max_description,
    )
    r = _renderer(format, include_location)
    note = omitted_message(len(plan.omitted), search_tool) if plan.omitted else None
    if isinstance(r, _Json):
        doc: dict[str, Any] = {"skills": [r.item(i.skill, i.description) for i in plan.items]}
        if plan.omitted:
            doc["omitted"] = len(plan.omitted)
            doc["note"] = note
        return json.dumps(doc, ensure_ascii=False)
    text = r.wrap([r.entry(i.skill, i.description) for i in plan.items])
    if note:
        text += "\n" + note
    return text


def render_xml(skills: Sequence[Any], **options: Any) -> str:
    """``render_skills(..., format="xml")``: the spec's ``<available_skills>`` block."""
    return render_skills(skills, format="xml", **options)


def render_markdown(skills: Sequence[Any], **options: Any) -> str:
    """``render_skills(..., format="markdown")``."""
    return render_skills(skills, format="markdown", **options)


def render_json(skills: Sequence[Any], **options: Any) -> str:
    """``render_skills(..., format="json")``: ``{"skills": [{"name", "description"}]}``."""
    return render_skills(skills, format="json", **options)


# ------------------------------------------------------------------------ loads


def skill_payload(skill: Skill, *, include_location: bool = True) -> dict[str, Any]:
    """A loaded skill as JSON-able data: name, description, body, truncation flag, files."""
    out: dict[str, Any] = {
        "name": skill.name,
        "description": clean_text(skill.description),
        "source": skill.source,
        "body": skill.body,
        "body_truncated": skill.body_truncated,
        "files": list(skill.files),
    }
    if include_location and skill.location:
        out["location"] = skill.location
    return out


# ----------------------------------------------------------------------- file reads


@dataclass(frozen=True, slots=True)
class FileContent:
    """One bundled file for the model: ``text`` is UTF-8 text or base64 (``encoding``)."""

    skill: str
    path: str
    size: int
    mime: str
    encoding: Literal["utf-8", "base64"]
    text: str
    truncated: bool = False
    warnings: tuple[Mapping[str, str], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "path": self.path,
            "size": self.size,
            "mime_type": self.mime,
            "encoding": self.encoding,
            "content": self.text,
            "truncated": self.truncated,
        }


class _Reader(Protocol):
    def read_bundled(
        self,
        name: str,
        relpath: str,
        *,
        max_bytes: int = ...,
        truncate: bool = ...,
        index: IndexMode | None = ...,
    ) -> FileData: ...


def read_skill_file(
    catalog: _Reader,
    name: str,
    relpath: str,
    *,
    max_bytes: int = DEFAULT_FILE_LIMIT,
    oversize: Literal["error", "truncate"] = "error",
    binary: Literal["base64", "refuse"] = "base64",
    index: IndexMode | None = None,
) -> FileContent:
    """Read one bundled file of skill ``name`` (a ``Catalog`` or a store).

    Every path rule of the store applies (no ``..``, absolute paths, NUL,
    backslashes, encoded traversal, links out, devices, folders, files outside
    the index). Over ``max_bytes``: ``FileTooLargeError`` or, with
    ``oversize="truncate"``, the first ``max_bytes`` and a ``CONTENT_TRUNCATED``
    warning. Binary files come back as base64 with a MIME type, or are refused.
    """
    fd = catalog.read_bundled(
        name, relpath, max_bytes=max_bytes, truncate=oversize == "truncate", index=index
    )
    text = decode_text(fd.data, truncated=fd.truncated)
    mime = mime_type(fd.relpath, text=text is not None)
    warnings: list[Mapping[str, str]] = []
    if fd.truncated:
        warnings.append(
            {
                "code": "CONTENT_TRUNCATED",
                "message": f"{fd.relpath} is {fd.size} bytes; only the first "
                f"{len(fd.data)} bytes are returned",
            }
        )
    if text is not None:
        return FileContent(
            name, fd.relpath, fd.size, mime, "utf-8", text, fd.truncated, tuple(warnings)
        )
    if binary == "refuse":
        raise PathNotAllowedError(
            f"{fd.relpath} is a binary file; binary files are not returned",
            skill=name,
            path=fd.relpath,
            hint="read a text file, or allow binary files (returned as base64)",
        )
    return FileContent(
        name,
        fd.relpath,
        fd.size,
        mime,
        "base64",
        base64.b64encode(fd.data).decode("ascii"),
        fd.truncated,
        tuple(warnings),
    )
