"""A user (or the host) invoking a skill by name: ``/deploy staging``.

The model's own path to a skill is ``skills_load``; a skill with
``disable-model-invocation`` never reaches it. The user's path is
``runtime.invoke(session, name, arguments)``: the host calls it when the user
types a command (a slash command, an MCP prompt), so it works for such skills,
and refuses skills marked ``user-invocable: false``.

Arguments are substituted into the body as Claude Code does:

- ``$ARGUMENTS``: everything the user typed after the name;
- ``$ARGUMENTS[N]`` and ``$N``: the N-th argument (from 0), split like a shell
  does (quotes group words);
- ``$name``: the argument at the position of ``name`` in the skill's ``arguments``;
- ``${CLAUDE_SKILL_DIR}`` and ``${CLAUDE_SESSION_ID}``: the skill folder and the
  session id.

Other ``$words`` (``$HOME`` in a shell example) are left alone. When the body uses
none of the argument forms and the user typed something, ``ARGUMENTS: …`` is
appended so the text is not lost.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from skilldeck._errors import InvalidArgumentsError

__all__ = ["Invoked", "split_arguments", "substitute_arguments"]

_PLACEHOLDER = re.compile(
    r"\$\{CLAUDE_SKILL_DIR\}|\$\{CLAUDE_SESSION_ID\}"
    r"|\$ARGUMENTS\[(\d{1,3})\]|\$ARGUMENTS\b|\$(\d{1,3})\b|\$([A-Za-z_][A-Za-z0-9_]*)"
)
MAX_ARGUMENT_TEXT = 64 * 1024
#: how much the arguments may add to a body: a body repeating ``$0`` 1,500 times with
#: one 64 KiB argument made a 93 MiB prompt (MCP ``prompts/get``, ``skilldeck prompt``)
MAX_EXPANSION = 1024 * 1024


def split_arguments(text: str) -> list[str]:
    """The arguments as a shell would split them (plain whitespace split if quotes are
    unbalanced)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def substitute_arguments(
    body: str,
    arguments: str | Sequence[str] = "",
    *,
    names: Sequence[str] = (),
    skill_dir: str | None = None,
    session_id: str | None = None,
) -> str:
    """``body`` with the argument placeholders replaced (see the module docstring).

    ``arguments`` is the text the user typed, or a list of already split arguments.
    Arguments that would add more than ``MAX_EXPANSION`` characters (a body that
    repeats them) are ``InvalidArgumentsError``.
    """
    if isinstance(arguments, str):
        raw = arguments[:MAX_ARGUMENT_TEXT].strip()
        parts = split_arguments(raw)
    else:
        parts = [str(a) for a in arguments]
        raw = " ".join(shlex.quote(p) for p in parts)
    position = {name: i for i, name in enumerate(names)}
    used = False
    grown = 0

    def nth(i: int) -> str:
        return parts[i] if i < len(parts) else ""

    def replace(m: re.Match[str]) -> str:
        nonlocal grown
        text = expand(m)
        grown += len(text) - len(m.group(0))
        if grown > MAX_EXPANSION:
            raise InvalidArgumentsError(
                f"the arguments would add more than {MAX_EXPANSION // 1024} KiB to the "
                "skill's text (it repeats them)",
                field="arguments",
                hint="pass shorter arguments",
            )
        return text

    def expand(m: re.Match[str]) -> str:
        nonlocal used
        found = m.group(0)
        if found == "${CLAUDE_SKILL_DIR}":
            return skill_dir if skill_dir is not None else found
        if found == "${CLAUDE_SESSION_ID}":
            return session_id if session_id is not None else found
        if m.group(1) is not None:
            used = True
            return nth(int(m.group(1)))
        if m.group(2) is not None:
            used = True
            return nth(int(m.group(2)))
        name = m.group(3)
        if name is None:  # $ARGUMENTS
            used = True
            return raw
        if name in position:
            used = True
            return nth(position[name])
        return found

    out = _PLACEHOLDER.sub(replace, body)
    if raw and not used:
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {raw}\n"
    return out


@dataclass(frozen=True, slots=True)
class Invoked:
    """A skill a user invoked: the prompt to run and where to run it.

    ``prompt`` is the body with the arguments substituted. ``session`` is where
    the skill is now loaded: the caller's session, or for ``context: fork`` a
    child made with ``Session.fork`` (``forked`` is then true). ``agent``,
    ``model``, ``effort`` and ``hooks`` are the skill's fields, for the host to
    apply; ``data`` is what ``skills_load`` returned.
    """

    name: str
    prompt: str
    session: Any
    forked: bool = False
    arguments: tuple[str, ...] = ()
    agent: str | None = None
    model: str | None = None
    effort: str | None = None
    hooks: Mapping[str, Any] | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "prompt": self.prompt,
            "session_id": self.session.id,
            "forked": self.forked,
            "arguments": list(self.arguments),
        }
        for key in ("agent", "model", "effort"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.hooks is not None:
            out["hooks"] = dict(self.hooks)
        return out
