"""User-invocable skills as MCP prompts: clients that turn prompts into slash
commands offer ``/skill-name``.

One prompt per visible skill that a user may invoke (``user-invocable`` is not
false), named after the skill, with one optional ``arguments`` argument whose
description is the skill's ``argument-hint``. Getting it returns the skill's body
with the arguments substituted (``skilldeck.tools.substitute_arguments``) as a user
message. Skills with ``disable-model-invocation`` are included: a prompt is the
user's choice, not the model's. The set follows the catalog on every refresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.prompts.base import Prompt, PromptArgument

if TYPE_CHECKING:
    from skilldeck.mcp._server import SkillServer

__all__ = ["sync"]

_RESERVED = frozenset({"skills_catalog"})


def _prompt(server: SkillServer, meta: Any) -> Prompt:
    name = str(meta.name)
    hint = getattr(meta, "argument_hint", None)
    catalog: Any = server.catalog

    def render(arguments: Any = "", **_ignored: Any) -> str:
        from skilldeck import InvalidArgumentsError
        from skilldeck.mcp._wire import INVALID_PARAMS, protocol_error
        from skilldeck.tools import substitute_arguments

        loaded = catalog.load(name)
        names = loaded.manifest.arguments if loaded.manifest is not None else ()
        folder = loaded.path
        try:
            return substitute_arguments(
                loaded.body,
                "" if arguments is None else str(arguments),
                names=names,
                skill_dir=str(folder) if folder is not None else None,
            )
        except InvalidArgumentsError as exc:  # the SDK would hide it behind "Error rendering"
            raise protocol_error(
                INVALID_PARAMS, exc.message, envelope=exc.code, hint=exc.hint, field="arguments"
            ) from None

    # built directly, from values of the declared types (str, a list of one argument):
    # Prompt.from_function costs a pydantic model per skill and validating each
    # prompt two models, for thousands of skills at start-up
    argument = PromptArgument.model_construct(
        name="arguments",
        description=str(hint) if hint else "what to pass to the skill ($ARGUMENTS)",
        required=False,
    )
    return Prompt.model_construct(
        name=name,
        title=None,
        description=str(meta.description),
        arguments=[argument],
        fn=render,
        context_kwarg=None,
    )


def sync(
    server: SkillServer,
    registered: dict[str, tuple[Any, ...]],
    names: set[str] | None = None,
) -> dict[str, tuple[Any, ...]]:
    """Make the server's skill prompts match the catalog: only prompts whose skill
    came, went or changed its description or hint are removed or added. ``names``
    limits the check to those skills (the ones whose catalog entries changed;
    ``None``: all). Returns what is now registered (name -> what its prompt was
    made from)."""
    catalog: Any = server.catalog
    if names is None:
        metas = list(catalog.list())
        check = set(registered) | {str(m.name) for m in metas}
    else:
        check = set(names)
        metas = [m for m in (_visible(catalog, n) for n in sorted(check)) if m is not None]
    wanted: dict[str, Any] = {}
    for meta in metas:
        name = str(meta.name)
        if getattr(meta, "user_invocable", True) and name not in _RESERVED:
            wanted.setdefault(name, meta)
    now = dict(registered)
    for name in check - wanted.keys():
        if now.pop(name, None) is not None:
            server.remove_prompt(name)
    for name, meta in wanted.items():
        made = (str(meta.description), getattr(meta, "argument_hint", None))
        if now.get(name) == made:
            continue
        if name in now:
            server.remove_prompt(name)
        now[name] = made
        server.add_prompt(_prompt(server, meta))
    return now


def _visible(catalog: Any, name: str) -> Any:
    """The metadata of the visible skill ``name``, or ``None``."""
    from skilldeck import SkillError, SkillStatus

    try:
        entry = catalog.get(name)
    except SkillError:
        return None
    return entry.metadata if entry.status is SkillStatus.ENABLED else None
