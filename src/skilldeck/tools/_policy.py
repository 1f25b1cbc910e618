"""The ``allowed-tools`` policy of a session, in full.

- Mode ``off`` (default) changes nothing; ``enforce`` contracts the tool
  surface after a successful ``skills_load``.
- Scope: the session. Last wins: the most recently loaded skill decides; a
  skill without ``allowed-tools`` lifts the contraction again.
- Baseline tools (``skills_list``, ``skills_load``, ``skills_read_file``, by
  key, so renamed ones count) are always allowed.
- Matching: exact names and globs (``*``, ``?``, ``[``); ``.`` is read as
  ``_`` on both sides. Claude-style ``Bash(git:*)`` matches by its name part
  (``Bash``); the argument part is passed to the host's governance hook as a
  *constraint* (``GovernanceRequest.constraints``); skilldeck does not
  interpret it.
- A non-empty list matching no non-baseline tool is an *invalid allowlist*:
  ``ignore`` (default: no contraction, ``ALLOWED_TOOLS_IGNORED`` with reason
  ``no_matches``), ``enforce`` (baseline only) or ``error`` (the call raises
  ``ToolNotAllowedError`` with ``reason="invalid_allowlist"``: the run fails).
- allowed-tools is only ever a restriction here: it takes tools away from the
  surface and never pre-approves a call or skips a confirmation. That is why
  it applies to skills from untrusted sources too (ignoring it would give such
  a skill *more* tools, not fewer); their policy carries ``trusted=False`` and
  the governance hook sees ``skill_trusted=False``, so a host never reads an
  untrusted list as a grant (the MCP Skills extension forbids treating remote
  ``allowed-tools`` as pre-approval). A host that prefers to ignore untrusted
  lists sets ``honor_untrusted_allowed_tools=False`` (``ALLOWED_TOOLS_IGNORED``,
  reason ``untrusted_source``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from skilldeck.tools._envelope import ToolWarning
from skilldeck.tools._tools import ToolSpec

if TYPE_CHECKING:  # annotations only: a search never imports the manifest's classes
    from skilldeck.format import ToolPattern

__all__ = [
    "BASELINE_TOOLS",
    "AllowedToolsPolicy",
    "PolicyOutcome",
    "decide_policy",
]

BASELINE_TOOLS: frozenset[str] = frozenset({"skills_list", "skills_load", "skills_read_file"})

EnforcementMode = Literal["off", "enforce"]
InvalidAllowlist = Literal["ignore", "enforce", "error"]


def _matches(pattern: ToolPattern, spec: ToolSpec) -> bool:
    return pattern.matches(spec.name) or (spec.key != spec.name and pattern.matches(spec.key))


@dataclass(frozen=True, slots=True)
class AllowedToolsPolicy:
    """The session's allowed-tools state; ``OFF`` when nothing contracts the surface."""

    mode: str = "off"
    enforced: bool = False
    skill: str | None = None
    patterns: tuple[ToolPattern, ...] = ()
    allow_set_count: int = 0
    ignored_reason: str | None = None
    baseline_only: bool = False
    trusted: bool = True

    def allows(self, spec: ToolSpec) -> bool:
        if not self.enforced or spec.key in BASELINE_TOOLS:
            return True
        if self.baseline_only:
            return False
        return any(_matches(p, spec) for p in self.patterns)

    def constraints_for(self, spec: ToolSpec) -> tuple[str, ...]:
        """Argument parts (``git:*`` of ``Bash(git:*)``) of the patterns naming ``spec``."""
        if not self.enforced:
            return ()
        return tuple(p.argument for p in self.patterns if p.argument and _matches(p, spec))

    def trace(self) -> dict[str, Any]:
        """The ``skills_allowed_tools`` trace section."""
        return {
            "mode": self.mode,
            "enforced": self.enforced,
            "skill_name": self.skill,
            "allow_set_count": self.allow_set_count,
            "ignored_reason": self.ignored_reason,
        }


@dataclass(frozen=True, slots=True)
class PolicyOutcome:
    policy: AllowedToolsPolicy
    action: str | None  # activated / deactivated / ignored / None (no change worth an event)
    warnings: tuple[ToolWarning, ...] = ()
    error: str | None = None  # set when the invalid-allowlist policy is "error"


def decide_policy(
    previous: AllowedToolsPolicy,
    *,
    mode: EnforcementMode,
    invalid_allowlist: InvalidAllowlist,
    skill: str,
    patterns: tuple[ToolPattern, ...] | None,
    available: Sequence[ToolSpec],
    trusted: bool,
    honor_untrusted: bool,
) -> PolicyOutcome:
    """The policy after ``skill`` loaded successfully (last wins)."""
    if mode != "enforce":
        return PolicyOutcome(AllowedToolsPolicy(mode=mode), None)
    off = AllowedToolsPolicy(mode=mode, skill=skill)
    deactivated = "deactivated" if previous.enforced else None
    if not patterns:
        return PolicyOutcome(off, deactivated)
    raw = tuple(p.raw for p in patterns)
    if not trusted and not honor_untrusted:
        policy = AllowedToolsPolicy(
            mode=mode,
            skill=skill,
            patterns=patterns,
            ignored_reason="untrusted_source",
            trusted=False,
        )
        warning = ToolWarning(
            "ALLOWED_TOOLS_IGNORED",
            f"allowed-tools of {skill!r} ignored: the skill comes from an untrusted source "
            "and the host set honor_untrusted_allowed_tools=False",
        )
        return PolicyOutcome(policy, "ignored", (warning,))
    restriction = "" if trusted else " (a restriction only: the skill is untrusted)"

    matched = [
        s
        for s in available
        if s.key not in BASELINE_TOOLS and any(_matches(p, s) for p in patterns)
    ]
    if matched:
        policy = AllowedToolsPolicy(
            mode=mode,
            enforced=True,
            skill=skill,
            patterns=patterns,
            allow_set_count=len(matched),
            trusted=trusted,
        )
        names = ", ".join(s.name for s in matched[:20])
        warning = ToolWarning(
            "ALLOWED_TOOLS_ENFORCED",
            f"allowed-tools of {skill!r} now limits the tools to the baseline plus "
            f"{len(matched)} tool(s): {names}{restriction}",
        )
        return PolicyOutcome(policy, "activated", (warning,))
    # a non-empty allowlist that matches nothing we have
    if invalid_allowlist == "error":
        return PolicyOutcome(
            previous,
            None,
            error=f"allowed-tools of {skill!r} ({' '.join(raw)}) matches no available tool",
        )
    if invalid_allowlist == "enforce":
        policy = AllowedToolsPolicy(
            mode=mode,
            enforced=True,
            skill=skill,
            patterns=patterns,
            baseline_only=True,
            trusted=trusted,
        )
        warning = ToolWarning(
            "ALLOWED_TOOLS_ENFORCED",
            f"allowed-tools of {skill!r} matches no available tool; only the baseline "
            "skills tools stay allowed",
        )
        return PolicyOutcome(policy, "activated", (warning,))
    policy = AllowedToolsPolicy(
        mode=mode, skill=skill, patterns=patterns, ignored_reason="no_matches", trusted=trusted
    )
    warning = ToolWarning(
        "ALLOWED_TOOLS_IGNORED",
        f"allowed-tools of {skill!r} ({' '.join(raw)}) matches no available tool; "
        "it is not enforced",
    )
    return PolicyOutcome(policy, "ignored", (warning,))
