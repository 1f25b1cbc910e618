"""Tier 1 as an MCP prompt: ``skills_catalog`` injects the ``<available_skills>`` block."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.prompts import Prompt

if TYPE_CHECKING:
    from skilldeck.mcp._server import SkillServer

__all__ = ["PROMPT_NAME", "register"]

PROMPT_NAME = "skills_catalog"


def register(server: SkillServer) -> None:
    """Add the ``skills_catalog`` prompt, rendered from the server's current catalog."""

    def skills_catalog(budget: str = "") -> str:
        """The skills this server offers, as an <available_skills> block for the system prompt."""
        limit = int(budget) if budget.strip().isdigit() else None
        return render(server, limit)

    server.add_prompt(Prompt.from_function(skills_catalog, name=PROMPT_NAME))


def render(server: SkillServer, budget: int | None) -> str:
    """The tier-1 block of the catalog's visible skills (within ``budget`` characters)."""
    from skilldeck._disclosure import render_available_skills

    return render_available_skills(_visible(server), budget=budget)


def _visible(server: SkillServer) -> list[Any]:
    return [s for s in server.index.skills if s.status == "enabled"]
