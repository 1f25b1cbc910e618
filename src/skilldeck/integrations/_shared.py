"""What both framework adapters share: the skill-list text of a session and the
pre-flight hint.

The adapters translate shapes only; the skills a session may see and the tool
surface come from the runtime. This module renders the skill list for the skills the
session can list, so a forked (scoped) session's prompt shows only its subset,
and the pre-flight hint (``runtime.preflight``) for the user's latest message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from skilldeck import Session, SkillRuntime, render_skills
from skilldeck.adapters import render_compact_manifest
from skilldeck.disclosure import SkillListFormat

__all__ = [
    "AdapterFormat",
    "Instructions",
    "join_blocks",
    "preflight_text",
    "resolve_instructions",
    "skill_list_text",
    "text_of",
]

#: The user's message is cut to this many characters before it is searched.
MAX_PREFLIGHT_MESSAGE = 4000

AdapterFormat = SkillListFormat | Literal["compact"]
"""The skill-list formats of ``skilldeck.disclosure``, plus ``compact`` (the compact
manifest, which lists the tools a session is offered now)."""

#: What an adapter puts in the system prompt: ``True`` (the skill list, the default),
#: ``False``/``None`` (nothing), a fixed string, or ``fn(session) -> str``.
Instructions = bool | str | Callable[[Session], str] | None


def skill_list_text(
    runtime: SkillRuntime,
    session: Session,
    *,
    format: AdapterFormat = "xml",
    budget: int | None = None,
) -> str:
    """The skill list of what ``session`` can see, in ``format`` (``""`` when there are none)."""
    metas = runtime.visible_skills(session)
    if format == "compact":
        return _compact(runtime, session, metas, budget)
    return render_skills(metas, format=format, budget=budget, search_tool=_finder(runtime, session))


def _finder(runtime: SkillRuntime, session: Session) -> str:
    """The exposed name of the tool the skill list's "N more" line should point at."""
    specs = {s.key: s.name for s in runtime.tool_specs(session)}
    return specs.get("skills_search") or specs.get("skills_list") or "skills_search"


def _compact(runtime: SkillRuntime, session: Session, metas: list[Any], budget: int | None) -> str:
    """The compact manifest: the tools offered now, a loaded skill's exposed tools
    under its name, the other skills as themselves."""
    specs = runtime.tool_specs(session)
    exposed = {s.name: s for s in specs}
    declared = {
        loaded.name: [exposed[t] for t in loaded.declared_tools if t in exposed]
        for loaded in session.loaded
    }
    native = [s for s in specs if not s.origin.startswith("skill:")]
    finder = {s.key: s.name for s in specs}.get("skills_search", "skills_search")
    return render_compact_manifest(
        metas, declared=declared, native_tools=native, budget=budget, search_tool=finder
    )


def resolve_instructions(
    instructions: Instructions,
    runtime: SkillRuntime,
    session: Session,
    *,
    format: AdapterFormat,
    budget: int | None,
) -> str | None:
    """The text for ``instructions`` (see :data:`Instructions`), or ``None`` for none."""
    if instructions is None or instructions is False:
        return None
    if instructions is True:
        text = skill_list_text(runtime, session, format=format, budget=budget)
    elif isinstance(instructions, str):
        text = instructions
    else:
        text = instructions(session)
    return text or None


def text_of(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a list of
    parts (LangChain ``{"type": "text", "text": ...}`` dicts, PydanticAI strings);
    images, files and anything else are left out."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list | tuple):
        return ""
    parts: list[str] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and part.get("type") == "text":
            text = part.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "\n".join(parts)


def preflight_text(runtime: SkillRuntime, session: Session, message: str) -> str:
    """``runtime.preflight`` for the user's ``message`` in ``session`` (``""`` when no
    skill confidently fits, or the message has no text)."""
    message = message[:MAX_PREFLIGHT_MESSAGE]
    if not message.strip():
        return ""
    return runtime.preflight(message, session=session)


def join_blocks(*blocks: str | None) -> str | None:
    """The non-empty blocks separated by a blank line, or ``None`` when all are empty."""
    text = "\n\n".join(b for b in blocks if b)
    return text or None
