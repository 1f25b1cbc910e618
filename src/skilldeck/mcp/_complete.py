"""``completion/complete``: skill names and file paths for ``skill://`` URIs, prompt budgets.

The server lists one resource template, ``skill://{skill}/{+path}`` (reads of
its URIs are the ordinary ``skill://`` resources):

- ``skill`` completes to the first segment of every served skill path: the
  visible skills' names, and the source prefixes of shadowed skills;
- ``path`` completes to the files under ``skill://<skill>/`` (the ``skill``
  argument comes from the request's ``context.arguments``), nested folders
  included, so a shadowed skill completes as ``NAME/SKILL.md``.

The ``skills_catalog`` prompt's ``budget`` completes to a few typical budgets.
Values are sorted, filtered by the typed prefix and capped at 100 (with
``total`` and ``hasMore``), as the specification allows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final
from urllib.parse import unquote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp_types import (
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

from skilldeck.mcp import _uris
from skilldeck.mcp._index import SkillIndex
from skilldeck.mcp._prompt import PROMPT_NAME

__all__ = ["TEMPLATE", "register"]

TEMPLATE: Final = "skill://{skill}/{+path}"
_BUDGETS: Final = ("1000 tokens", "2000 tokens", "4000", "8000", "16000")
_MAX_VALUES: Final = 100


def register(server: MCPServer[object], index: Callable[[], SkillIndex]) -> None:
    """List the ``skill://`` template and answer ``completion/complete`` for it."""

    @server.resource(
        TEMPLATE,
        name="skill-file",
        description="A file of a served skill: skill://<skill>/<path>",
    )
    def skill_file(skill: str, path: str) -> str:  # served by the server's read_resource
        raise ResourceError(f"skill://{skill}/{path} is not served")

    @server.completion()  # type: ignore[no-untyped-call, untyped-decorator]  # untyped in mcp 2.3
    async def complete(
        ref: PromptReference | ResourceTemplateReference,
        argument: CompletionArgument,
        context: CompletionContext | None,
    ) -> Completion | None:
        known = dict(context.arguments or {}) if context is not None else {}
        if isinstance(ref, ResourceTemplateReference) and ref.uri == TEMPLATE:
            if argument.name == "skill":
                return _matching(_skill_segments(index()), argument.value)
            if argument.name == "path":
                return _matching(_paths(index(), known.get("skill", "")), argument.value)
        is_prompt = isinstance(ref, PromptReference) and ref.name == PROMPT_NAME
        if is_prompt and argument.name == "budget":
            return _matching(_BUDGETS, argument.value)
        return None


def _skill_segments(index: SkillIndex) -> list[str]:
    firsts = {unquote(r.root[len(_uris.SCHEME) :].split("/", 1)[0]) for r in index.skills}
    return sorted(firsts)


def _paths(index: SkillIndex, skill: str) -> list[str]:
    try:
        prefix = _uris.join(skill) + "/" if skill else ""
    except UnicodeEncodeError:  # a lone surrogate: no served skill has it
        return []
    if not prefix:
        return []
    return [unquote(u[len(prefix) :]) for u in index.file_uris if u.startswith(prefix)]


def _matching(values: tuple[str, ...] | list[str], typed: str) -> Completion:
    hits = [v for v in values if v.startswith(typed)]
    return Completion(values=hits[:_MAX_VALUES], total=len(hits), has_more=len(hits) > _MAX_VALUES)
