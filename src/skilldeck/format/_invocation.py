"""Invocation controls: the frontmatter fields Claude Code adds to Agent Skills.

Who may start a skill and how it runs, read as typed values:

- ``disable-model-invocation: true``: the model never sees or loads the skill on
  its own (deploys, messages: side effects); the user and the host still can.
- ``user-invocable: false``: not offered to the user as a command (background
  knowledge the model loads itself).
- ``when_to_use``: more "use when" text, appended to the description wherever the
  model is shown skills (the two together are capped at ``LISTING_CAP``).
- ``argument-hint`` and ``arguments``: what a user types after ``/name``; the body's
  ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N`` and ``$name`` are replaced with it.
- ``context: fork`` (with ``agent``): run in a sub-session of its own;
  ``model``, ``effort`` and ``hooks`` are passed to the host unchanged.

They are extensions, not part of the specification: strict validation reports them
as such (SK213), lenient reading (the default) uses them. An unusable value is an
SK217 warning and is ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skilldeck._frozen import field, value
from skilldeck._names import is_parameter_name
from skilldeck.format._checks import scalar_text, typename

if TYPE_CHECKING:
    from skilldeck.format._extensions import Extensions

__all__ = [
    "EFFORTS",
    "INVOCATION_FIELDS",
    "LISTING_CAP",
    "Invocation",
    "listing_description",
    "listing_text",
    "model_invocable",
    "model_invocable_frontmatter",
    "read_invocation",
]

#: The frontmatter keys (as Claude Code spells them) this module reads.
INVOCATION_FIELDS = frozenset(
    {
        "disable-model-invocation",
        "user-invocable",
        "when_to_use",
        "argument-hint",
        "arguments",
        "context",
        "agent",
        "model",
        "effort",
        "hooks",
    }
)
EFFORTS = ("low", "medium", "high", "xhigh", "max")
#: Description plus ``when_to_use`` are cut to this many characters in listings.
LISTING_CAP = 1536
MAX_ARGUMENTS = 32


@value
class Invocation:
    """The invocation controls of one skill (defaults: anyone may invoke it)."""

    disable_model_invocation: bool = False
    user_invocable: bool = True
    when_to_use: str | None = None
    argument_hint: str | None = None
    arguments: tuple[str, ...] = ()
    context: str | None = None
    agent: str | None = None
    model: str | None = None
    effort: str | None = None
    hooks: Mapping[str, Any] | None = field(default=None)


def _text(ext: Extensions, key: str, hint: str) -> str | None:
    value, where = ext._get(key)
    if value is None:
        return None
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = scalar_text(value).strip()
        return text or None
    ext._bad(where or key, f"'{key}' must be a string, not {typename(value)}", hint)
    return None


def _hint(ext: Extensions) -> str | None:
    value = ext._get("argument-hint")[0]
    # 'argument-hint: [issue-number]' unquoted is a YAML list: keep what the author meant
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return " ".join(f"[{scalar_text(v)}]" for v in value) or None
    return _text(ext, "argument-hint", "argument-hint: '[issue-number] [priority]'")


def _arguments(ext: Extensions) -> tuple[str, ...]:
    value, where = ext._get("arguments")
    if value is None:
        return ()
    items: list[Any]
    if isinstance(value, str):
        items = value.split()
    elif isinstance(value, list):
        items = value
    else:
        items = [value]
    names: list[str] = []
    for item in items:
        if not is_parameter_name(item):
            ext._bad(
                where or "arguments",
                f"argument name {item!r} must be letters, digits and underscores",
                "arguments: [issue, branch]",
            )
            return ()
        if item not in names:
            names.append(item)
    if len(names) > MAX_ARGUMENTS:
        ext._bad(
            where or "arguments",
            f"{len(names)} arguments; at most {MAX_ARGUMENTS} are read",
            "name the arguments a user types, in order",
        )
        return tuple(names[:MAX_ARGUMENTS])
    return tuple(names)


def _choice(ext: Extensions, key: str, allowed: tuple[str, ...]) -> str | None:
    value, where = ext._get(key)
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in allowed:
        return value.strip().lower()
    ext._bad(
        where or key,
        f"'{key}' must be one of {', '.join(allowed)}, not {scalar_text(value)!r}",
        f"{key}: {allowed[0]}",
    )
    return None


def _hooks(ext: Extensions) -> Mapping[str, Any] | None:
    value, where = ext._get("hooks")
    if value is None:
        return None
    if isinstance(value, dict):
        return value
    ext._bad(
        where or "hooks",
        f"'hooks' must be a mapping of events to handlers, not {typename(value)}",
        "hooks: {PreToolUse: [...]}",
    )
    return None


def read_invocation(ext: Extensions) -> Invocation:
    """The invocation controls of a frontmatter (top level, else under ``metadata``)."""
    if INVOCATION_FIELDS.isdisjoint(ext.data) and INVOCATION_FIELDS.isdisjoint(ext.metadata):
        return NO_CONTROLS
    user = ext._get("user-invocable")[0]
    user_invocable = True
    if user is not None:  # a bad value is reported and leaves the default
        boolish = isinstance(user, bool) or str(user).lower() in {"true", "false", "yes", "no"}
        user_invocable = ext.flag("user-invocable") or not boolish
    return Invocation(
        disable_model_invocation=ext.flag("disable-model-invocation"),
        user_invocable=user_invocable,
        when_to_use=_text(ext, "when_to_use", "when_to_use: Use when the user asks to …"),
        argument_hint=_hint(ext),
        arguments=_arguments(ext),
        context=_choice(ext, "context", ("fork",)),
        agent=_text(ext, "agent", "agent: Explore"),
        model=_text(ext, "model", "model: a model name the host knows"),
        effort=_choice(ext, "effort", EFFORTS),
        hooks=_hooks(ext),
    )


NO_CONTROLS = Invocation()
"""The controls of a skill that sets none: ``read_invocation`` returns this object."""


def model_invocable(skill: Any) -> bool:
    """May the model see and load ``skill`` on its own? (False: ``disable-model-invocation``.)

    Works on catalog metadata (``model_invocable``), manifests and loaded skills.
    """
    flag = getattr(skill, "model_invocable", None)
    if isinstance(flag, bool):
        return flag
    manifest = getattr(skill, "manifest", skill)
    return not bool(getattr(manifest, "disable_model_invocation", False))


def model_invocable_frontmatter(frontmatter: Mapping[str, Any]) -> bool:
    """``model_invocable`` read from a raw frontmatter mapping (as published over MCP).

    The same rule as ``read_invocation``: the top-level key, else the one under
    ``metadata``; ``true``/``yes`` (any case) hide the skill, anything else does not.
    """
    value = frontmatter.get("disable-model-invocation")
    if value is None:
        metadata = frontmatter.get("metadata")
        value = metadata.get("disable-model-invocation") if isinstance(metadata, dict) else None
    if isinstance(value, bool):
        return not value
    return not (isinstance(value, str) and value.strip().lower() in {"true", "yes"})


def listing_description(skill: Any, cap: int = LISTING_CAP) -> str:
    """What a listing shows the model for ``skill``: description plus ``when_to_use``."""
    return listing_text(str(skill.description), getattr(skill, "when_to_use", None), cap)


def listing_text(description: str, when_to_use: str | None, cap: int = LISTING_CAP) -> str:
    """The description with ``when_to_use`` appended, cut to ``cap`` characters."""
    text = description.strip()
    if when_to_use:
        text = f"{text} {when_to_use.strip()}" if text else when_to_use.strip()
    if len(text) > cap:
        text = text[: cap - 1].rstrip() + "…"
    return text
