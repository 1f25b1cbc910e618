"""The skill list as an MCP prompt: ``skills_catalog`` injects the ``<available_skills>`` block.

The block is the runtime's own skill-list rendering (``skilldeck.render_skills``) of
the catalog's visible skills, pinned skills first, within an optional budget
(``"4000"`` characters or ``"1000 tokens"``; default: the configured one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.server.mcpserver.prompts import Prompt

from skilldeck import Budget
from skilldeck.mcp._wire import INVALID_PARAMS, protocol_error, shown

if TYPE_CHECKING:
    from skilldeck.mcp._server import SkillServer

__all__ = ["PROMPT_NAME", "register", "render"]

PROMPT_NAME = "skills_catalog"

_INTRO = (
    "These Agent Skills are available. When a task matches a skill's description, "
    "load it first (the skills_load tool, or read its skill://NAME/SKILL.md resource) "
    "and follow its instructions."
)


def register(server: SkillServer) -> None:
    """Add the ``skills_catalog`` prompt, rendered from the server's catalog when asked."""

    def skills_catalog(budget: str = "") -> str:
        """The skills this server offers as an <available_skills> block, for a system prompt."""
        text = budget.strip()
        if text:
            try:
                Budget.parse(text)
            except ValueError as exc:
                raise protocol_error(
                    INVALID_PARAMS,
                    f"invalid argument 'budget': {shown(str(exc))}",
                    envelope="INVALID_ARGUMENTS",
                    hint="a positive number of characters, e.g. '4000', or '1000 tokens'",
                    field="budget",
                ) from None
        return render(server, text or None)

    server.add_prompt(Prompt.from_function(skills_catalog, name=PROMPT_NAME))


def render(server: SkillServer, budget: str | None = None) -> str:
    """The intro line and the skill-list block of the catalog's visible skills."""
    import skilldeck

    catalog = server.catalog
    config = catalog.config
    block = skilldeck.render_skills(
        catalog.list(),
        budget=budget if budget is not None else config.budget,
        pinned=tuple(config.pinned),
        empty="element",
    )
    return f"{_INTRO}\n\n{block}"
