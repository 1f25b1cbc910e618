"""The policy wrappers of the tool surface: allowed-tools, validation, governance.

Each one hides at exposure what it would refuse at execution, and refuses with
its own code; see :mod:`skilldeck.tools._tools` for how they stack.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from skilldeck._errors import (
    ToolConfirmationRequiredError,
    ToolNotAllowedError,
    ToolPolicyDeniedError,
)
from skilldeck.events import Event
from skilldeck.tools._envelope import ToolResult
from skilldeck.tools._schema import validate_arguments
from skilldeck.tools._session import Session
from skilldeck.tools._tools import Handler, Tool, ToolCall, ToolSurface, WrappingSurface

if TYPE_CHECKING:  # a runtime without a governance hook never imports its classes
    from skilldeck.tools._governance import (
        ConfirmCallback,
        GovernanceHook,
        GovernanceRequest,
        Verdict,
    )

__all__ = ["AllowedToolsGate", "GovernedSurface", "ValidatedSurface"]

Emit = Callable[[Event], None]


class AllowedToolsGate(WrappingSurface):
    """Contracts the surface to the session's allowed-tools policy (``TOOL_NOT_ALLOWED``)."""

    def __init__(self, inner: ToolSurface, *, emit: Emit) -> None:
        super().__init__(inner)
        self.emit = emit

    def expose(self, session: Session, tool: Tool) -> Tool | None:
        return tool if session.permits(tool.spec) else None

    def guard(self, session: Session, tool: Tool) -> Tool:
        def check(call: ToolCall, inner: Handler) -> ToolResult:
            policy = call.session.policy
            reason = call.session.refusal(call.spec)
            if reason is not None:
                from skilldeck.events import ToolCallBlocked  # only a refusal builds its class

                self.emit(
                    ToolCallBlocked(
                        session_id=call.session.id,
                        tool=call.spec.name,
                        code=ToolNotAllowedError.code,
                        reason=reason,
                        skill=policy.skill,
                        arguments=dict(call.arguments),
                    )
                )
                allowed = " ".join(p.raw for p in policy.patterns) or "(baseline only)"
                raise ToolNotAllowedError(
                    f"tool {call.spec.name!r} is {reason}",
                    skill=policy.skill,
                    hint=f"allowed now: skills_list, skills_load, skills_read_file and {allowed}; "
                    "loading another skill changes the policy",
                    reason="allowed_tools",
                )
            return inner(call)

        return tool.wrap(check)


class ValidatedSurface(WrappingSurface):
    """Checks arguments against the tool's schema (``INVALID_ARGUMENTS`` with ``field``)."""

    def guard(self, session: Session, tool: Tool) -> Tool:
        def check(call: ToolCall, inner: Handler) -> ToolResult:
            validate_arguments(call.spec.parameters, dict(call.arguments), tool=call.spec.name)
            return inner(call)

        return tool.wrap(check)


class GovernedSurface(WrappingSurface):
    """Asks the host's hook about every tool: hide or refuse on deny, ask on confirm."""

    def __init__(
        self,
        inner: ToolSurface,
        *,
        hook: GovernanceHook,
        confirm: ConfirmCallback | None,
        emit: Emit,
    ) -> None:
        super().__init__(inner)
        self.hook = hook
        self.confirm = confirm
        self.emit = emit

    def _ask(self, request: GovernanceRequest) -> Verdict:
        from skilldeck.tools._governance import Decision, Verdict, normalise_decision

        try:
            return normalise_decision(self.hook(request))
        except Exception as exc:  # a broken hook must not open the gate
            return Verdict(Decision.DENY, f"the governance hook failed ({type(exc).__name__})")

    def _request(
        self, session: Session, tool: Tool, phase: str, arguments: dict[str, object] | None
    ) -> GovernanceRequest:
        from skilldeck.tools._governance import GovernanceRequest

        policy = session.policy
        return GovernanceRequest(
            tool=tool.spec.name,
            key=tool.spec.key,
            origin=tool.spec.origin,
            phase="call" if phase == "call" else "expose",
            session_id=session.id,
            arguments=arguments,
            skill=policy.skill if policy.enforced else _last_loaded(session),
            constraints=policy.constraints_for(tool.spec),
            read_only=tool.spec.read_only,
            skill_trusted=policy.trusted,
        )

    def expose(self, session: Session, tool: Tool) -> Tool | None:
        from skilldeck.tools._governance import Decision

        if not session.permits(tool.spec):
            # contracted by allowed-tools first: the hook is not asked about it
            return None
        verdict = self._ask(self._request(session, tool, "expose", None))
        return None if verdict.decision is Decision.DENY else tool

    def guard(self, session: Session, tool: Tool) -> Tool:
        from skilldeck.tools._governance import Decision

        def check(call: ToolCall, inner: Handler) -> ToolResult:
            request = self._request(call.session, tool, "call", dict(call.arguments))
            verdict = self._ask(request)
            if verdict.decision is Decision.ALLOW:
                return inner(call)
            if verdict.decision is Decision.DENY:
                self._blocked(call, ToolPolicyDeniedError.code, verdict.reason or "denied")
                raise ToolPolicyDeniedError(
                    f"the host's policy denies {call.spec.name!r}"
                    + (f": {verdict.reason}" if verdict.reason else ""),
                    hint="use another tool or ask the user",
                    reason=verdict.reason,
                )
            return self._confirm(call, inner, request, verdict)

        return tool.wrap(check)

    def _confirm(
        self, call: ToolCall, inner: Handler, request: GovernanceRequest, verdict: Verdict
    ) -> ToolResult:
        from skilldeck.tools._governance import confirmation_id

        cid = confirmation_id(call.spec.name, call.arguments)
        from skilldeck.events import ApprovalAsked, ApprovalDenied, ApprovalGranted

        if call.session.is_approved(call.spec.name, cid):
            return inner(call)
        sid, skill, target = call.session.id, request.skill, call.spec.name
        if self.confirm is None:
            self.emit(
                ApprovalAsked(session_id=sid, skill=skill, target=target, reason=verdict.reason)
            )
            self._blocked(call, ToolConfirmationRequiredError.code, verdict.reason or "confirm")
            raise ToolConfirmationRequiredError(
                f"{call.spec.name!r} needs the user's confirmation before it runs"
                + (f" ({verdict.reason})" if verdict.reason else ""),
                hint="the host approves with session.approve(confirmation_id) and retries",
                confirmation_id=cid,
            )
        self.emit(ApprovalAsked(session_id=sid, skill=skill, target=target, reason=verdict.reason))
        try:
            granted = bool(self.confirm(request))
        except Exception:
            granted = False
        if granted:
            self.emit(ApprovalGranted(session_id=sid, skill=skill, target=target))
            return inner(call)
        self.emit(ApprovalDenied(session_id=sid, skill=skill, target=target, reason="declined"))
        self._blocked(call, ToolPolicyDeniedError.code, "declined")
        raise ToolPolicyDeniedError(
            f"the user declined {call.spec.name!r}",
            hint="do not retry the same call; ask the user what to do instead",
            reason="declined",
        )

    def _blocked(self, call: ToolCall, code: str, reason: str) -> None:
        from skilldeck.events import ToolCallBlocked

        policy = call.session.policy
        self.emit(
            ToolCallBlocked(
                session_id=call.session.id,
                tool=call.spec.name,
                code=code,
                reason=reason,
                skill=policy.skill if policy.enforced else None,
                arguments=dict(call.arguments),
            )
        )


def _last_loaded(session: Session) -> str | None:
    loaded = session.loaded
    return loaded[-1].name if loaded else None
