"""The host's governance hook: allow, deny or confirm any tool call.

``governance(request) -> decision`` is called twice per tool and turn:

- at exposure (``request.phase == "expose"``, ``arguments is None``): ``deny``
  hides the tool from the list sent to the model; ``allow`` and ``confirm``
  keep it;
- at execution (``phase == "call"``, arguments validated): ``deny`` fails the
  call with ``TOOL_POLICY_DENIED``; ``confirm`` needs a yes first.

Order: exposure is contracted by the skills' allowed-tools first,
then filtered by the hook; a call is checked against allowed-tools
(``TOOL_NOT_ALLOWED``), then its arguments are validated, then the hook runs.

A decision is a :class:`Decision`, a :class:`Verdict` (decision + reason), the
strings ``"allow"``/``"deny"``/``"confirm"``, ``True``/``False``, or ``None``
(allow). A hook that raises denies (fail closed).

``confirm``: the call goes ahead when this session already holds an approval
for the same tool and arguments (``session.approve(confirmation_id)``, or
``session.approve_tool(name)`` for every call of a tool), or when the
runtime's ``confirm`` callback returns true (a human, asked by the host).
Without either the call fails with ``TOOL_CONFIRMATION_REQUIRED`` and the
error carries ``confirmation_id`` so the host can approve and retry. A callback
that says no gives ``TOOL_POLICY_DENIED`` (reason ``declined``).
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "ConfirmCallback",
    "Decision",
    "GovernanceHook",
    "GovernanceRequest",
    "Verdict",
    "confirmation_id",
    "normalise_decision",
]


class Decision(enum.StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    CONFIRM = "confirm"


@dataclass(frozen=True, slots=True)
class Verdict:
    decision: Decision
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class GovernanceRequest:
    """What the hook sees. ``constraints`` are the argument parts of the active
    allowed-tools patterns naming this tool (``git:*`` for ``Bash(git:*)``).
    ``skill_trusted`` is False when those patterns come from an untrusted skill:
    they may narrow what the hook allows, never widen it."""

    tool: str
    key: str
    origin: str
    phase: Literal["expose", "call"]
    session_id: str
    arguments: Mapping[str, Any] | None = None
    skill: str | None = None
    constraints: tuple[str, ...] = ()
    read_only: bool = False
    skill_trusted: bool = True


GovernanceHook = Callable[[GovernanceRequest], "Decision | Verdict | str | bool | None"]
ConfirmCallback = Callable[[GovernanceRequest], bool]


def normalise_decision(value: object) -> Verdict:
    """Any accepted hook answer as a ``Verdict``; unknown answers deny."""
    if isinstance(value, Verdict):
        return value
    if value is None or value is True:
        return Verdict(Decision.ALLOW)
    if value is False:
        return Verdict(Decision.DENY)
    if isinstance(value, str):
        try:
            return Verdict(Decision(value.lower()))
        except ValueError:
            return Verdict(Decision.DENY, f"unknown governance decision {value!r}")
    return Verdict(Decision.DENY, f"unknown governance decision {value!r}")


def confirmation_id(tool: str, arguments: Mapping[str, Any] | None) -> str:
    """A stable id for one tool + arguments, to approve and retry."""
    blob = json.dumps(
        {"tool": tool, "arguments": arguments or {}}, sort_keys=True, default=str
    ).encode()
    return "confirm-" + hashlib.sha256(blob).hexdigest()[:16]
