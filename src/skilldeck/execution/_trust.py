"""Trust levels, the approval decision and mode filtering.

- ``bundled``: ``read_only`` skills run (levels in ``auto_run_read_only``); others need a
  first-run approval, which is stored;
- ``user``: a first-run approval, stored;
- ``untrusted``: asked every run, with a warning; a stored approval (from
  ``skilldeck approve``) stands in only when there is no one to ask.

``always_ask: true`` asks every run whatever the trust; stored approvals do not
count. A stored approval counts only for the skill's current content digest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from skilldeck._frozen import value
from skilldeck.catalog import Trust

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "ApprovalDecision",
    "ApprovalRequest",
    "Approver",
    "coerce_trust",
    "decide_approval",
    "skill_visible_in_mode",
]


def coerce_trust(value: Trust | str | None) -> Trust:
    """A trust level from a string; unknown or missing means ``untrusted``."""
    if isinstance(value, Trust):
        return value
    try:
        return Trust(str(value).lower())
    except ValueError:
        return Trust.UNTRUSTED


@value
class ApprovalRequest:
    """What a human (or a host policy) is asked to approve before a run.

    ``reason`` says why the question comes up (``first_run``, ``changed``,
    ``always_ask``, ``untrusted``); ``persist`` says whether a yes is remembered
    for this content digest; ``warning`` is a banner for untrusted skills.
    """

    skill: str
    description: str | None
    trust: Trust
    digest: str
    kind: str
    target: str
    argv: tuple[str, ...]
    workdir: str
    isolation: Mapping[str, Any]
    reason: str
    persist: bool
    warning: str | None = None

    @property
    def preview(self) -> str:
        """The command as one line (quoted for reading, never for a shell)."""
        import shlex  # only when someone is asked: a run without a question needs none

        return shlex.join(self.argv)

    def to_dict(self) -> dict[str, Any]:
        return {
            "skill": self.skill,
            "description": self.description,
            "trust": self.trust.value,
            "digest": self.digest,
            "kind": self.kind,
            "target": self.target,
            "argv": list(self.argv),
            "preview": self.preview,
            "workdir": self.workdir,
            "isolation": dict(self.isolation),
            "reason": self.reason,
            "persist": self.persist,
            "warning": self.warning,
        }


#: A host's yes (``True``) or no (``False``) to a run; ``None`` when it could reach
#: nobody to ask (an MCP client without elicitation): the run is then decided as if
#: there were no approver, so an approval stored with ``skilldeck approve`` applies.
Approver = Callable[[ApprovalRequest], bool | None]


class ApprovalDecision:
    """Whether a run may start, must ask, and whether a yes is remembered.

    ``action`` is ``run`` or ``ask``; ``reason`` is one of ``auto_read_only``,
    ``approved``, ``first_run``, ``changed``, ``always_ask``, ``untrusted``;
    ``stored_fallback`` means a stored approval may stand in when no one can be asked.
    Never changed once made; not a dataclass (nothing compares or copies one, and
    making a dataclass costs every run's start-up about 4 M instructions).
    """

    __slots__ = ("action", "persist", "reason", "stored_fallback")

    def __init__(
        self, action: str, reason: str, persist: bool, stored_fallback: bool = False
    ) -> None:
        self.action = action
        self.reason = reason
        self.persist = persist
        self.stored_fallback = stored_fallback

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "reason": self.reason, "persist": self.persist}


def decide_approval(
    *,
    trust: Trust,
    read_only: bool,
    always_ask: bool,
    stored_digest: str | None,
    digest: str,
    auto_run_read_only: Iterable[str] = ("bundled",),
) -> ApprovalDecision:
    """The approval policy, bound to content digests."""
    if always_ask:
        return ApprovalDecision("ask", "always_ask", persist=False)
    if trust is Trust.UNTRUSTED:
        return ApprovalDecision(
            "ask", "untrusted", persist=False, stored_fallback=stored_digest == digest
        )
    if read_only and trust.value in set(auto_run_read_only):
        return ApprovalDecision("run", "auto_read_only", persist=False)
    if stored_digest == digest:
        return ApprovalDecision("run", "approved", persist=False)
    reason = "changed" if stored_digest is not None else "first_run"
    return ApprovalDecision("ask", reason, persist=True)


def skill_visible_in_mode(manifest: Any, mode: str | Iterable[str] | None) -> bool:
    """Is a skill available in the runtime's current mode(s)?

    A skill without ``modes`` (or whose modes include ``Global``) is always
    visible; with no current mode, every skill is visible. Names compare
    case-insensitively.
    """
    modes = getattr(manifest, "modes", None) if manifest is not None else None
    if not modes or mode is None:
        return True
    declared = {m.casefold() for m in modes}
    if "global" in declared:
        return True
    current = {mode.casefold()} if isinstance(mode, str) else {m.casefold() for m in mode}
    if not current:
        return True
    return bool(declared & current)
