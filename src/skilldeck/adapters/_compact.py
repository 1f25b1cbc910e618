"""The compact tool manifest: the skill list for small local models.

Small function-calling models (FunctionGemma and the like) are prompted with a
plain list of functions rather than XML or JSON Schema::

    You are a model that can do function calling with the following functions:

    [Native Tools]
    - skills_load: Load a skill's full instructions

    [Skills]
    - git_status: Show git working tree status
    - notes: Take notes in Markdown

``render_compact_manifest`` is a pure function of the skills' metadata, the
body-declared tools known for them, and the host's own ("native") tools. A
skill with declared tools contributes one line per tool (skills *are*
tools); a skill without them contributes one line of its own, so ordinary Agent
Skills stay visible. Each description is one line, cut to ``max_description``
characters; with a ``budget`` the lines that do not fit are counted in a final
line naming the search tool, never dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from skilldeck._errors import SkillError
from skilldeck.format import model_invocable, parse_declared_tools

__all__ = ["COMPACT_HEADER", "render_compact_catalog", "render_compact_manifest"]

#: The first line of the compact manifest.
COMPACT_HEADER = "You are a model that can do function calling with the following functions:"

_SPACE = re.compile(r"\s+")


def _one_line(text: str | None, limit: int | None) -> str:
    line = _SPACE.sub(" ", text or "").strip()
    if limit is not None and len(line) > limit:
        line = line[: max(limit - 1, 0)].rstrip() + "…"
    return line


def _name_and_description(item: Any) -> tuple[str, str]:
    if isinstance(item, Mapping):
        return str(item["name"]), str(item.get("description") or "")
    if isinstance(item, tuple):
        return str(item[0]), str(item[1] if len(item) > 1 else "")
    return str(item.name), str(getattr(item, "description", "") or "")


def _line(name: str, description: str, limit: int | None) -> str:
    text = _one_line(description, limit)
    return f"- {name}: {text}" if text else f"- {name}"


def render_compact_manifest(
    skills: Sequence[Any],
    *,
    declared: Mapping[str, Iterable[Any]] | None = None,
    native_tools: Iterable[Any] = (),
    header: str | None = COMPACT_HEADER,
    max_description: int | None = 120,
    budget: int | None = None,
    search_tool: str = "skills_search",
) -> str:
    """The compact manifest text (``""`` when there is nothing to list).

    - ``skills``: metadata-like objects (``name``, ``description``), in the order
      to list them.
    - ``declared``: skill name -> its body-declared tools (objects or mappings with
      ``name`` and ``description``, e.g. ``DeclaredTool``); a skill absent from
      it is listed as itself.
    - ``native_tools``: the host's tools, as objects with ``name``/``description``
      (``ToolSpec``), mappings, or ``(name, description)`` pairs. Names in
      ``declared`` are not repeated here.
    - ``max_description``: characters per description (``None``: no cut).
    - ``budget``: characters for the whole text; skill lines that do not fit are
      left out and counted in a last line pointing at ``search_tool``.
    """
    declared = declared or {}
    skills = [s for s in skills if model_invocable(s)]  # the model never sees those
    skill_lines: list[str] = []
    declared_names: set[str] = set()
    for skill in skills:
        name, description = _name_and_description(skill)
        tools = list(declared.get(name, ()))
        if not tools:
            skill_lines.append(_line(name, description, max_description))
            continue
        for tool in tools:
            tool_name, tool_description = _name_and_description(tool)
            declared_names.add(tool_name)
            skill_lines.append(_line(tool_name, tool_description, max_description))
    native_lines = []
    for tool in native_tools:
        tool_name, tool_description = _name_and_description(tool)
        if tool_name not in declared_names:
            native_lines.append(_line(tool_name, tool_description, max_description))
    if not skill_lines and not native_lines:
        return ""

    head: list[str] = [header, ""] if header else []
    if native_lines:
        head += ["[Native Tools]", *native_lines, ""]
    if not skill_lines:
        return "\n".join(head).rstrip("\n")
    head.append("[Skills]")
    kept = skill_lines
    omitted = 0
    if budget is not None:
        kept, omitted = _fit(head, skill_lines, budget, search_tool)
    lines = head + kept
    if omitted:
        lines.append(_omitted(omitted, search_tool))
    return "\n".join(lines)


def _omitted(count: int, search_tool: str) -> str:
    return f"- ({count} more not shown: find them with {search_tool})"


def _fit(head: list[str], lines: list[str], budget: int, search_tool: str) -> tuple[list[str], int]:
    used = sum(len(h) + 1 for h in head)
    if used + sum(len(s) + 1 for s in lines) <= budget:
        return lines, 0
    reserve = len(_omitted(len(lines), search_tool)) + 1
    kept: list[str] = []
    for line in lines:
        if used + len(line) + 1 + reserve > budget:
            break
        kept.append(line)
        used += len(line) + 1
    return kept, len(lines) - len(kept)


class _CatalogLike(Protocol):
    def list(self) -> Sequence[Any]: ...

    def load(self, name: str) -> Any: ...


def render_compact_catalog(
    catalog: _CatalogLike,
    *,
    native_tools: Iterable[Any] = (),
    budget: int | None = None,
    max_description: int | None = 120,
) -> str:
    """The compact manifest of a catalog's visible skills, their declared tools included.

    Each skill's body is loaded to find the tools it declares, so this
    costs more than the other skill-list formats. A skill that cannot be loaded now
    is listed as itself.
    """
    skills = [m for m in catalog.list() if model_invocable(m)]
    declared: dict[str, tuple[Any, ...]] = {}
    for meta in skills:
        try:
            loaded = catalog.load(meta.name)
        except SkillError:
            continue
        tools, _ = parse_declared_tools(loaded.body)
        if tools:
            declared[meta.name] = tools
    return render_compact_manifest(
        skills,
        declared=declared,
        native_tools=native_tools,
        budget=budget,
        max_description=max_description,
    )
