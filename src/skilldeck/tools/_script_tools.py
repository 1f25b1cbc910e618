"""``skills_run_script`` and the body-declared tools of loaded skills, over the executor.

The executor (``skilldeck.execution.Executor``) does the running, approval and isolation;
this module resolves the skill, passes its trust level and content digest, turns the
host's ``approver`` into approval events, and reports every run as a ``ScriptRun``
event. A non-zero exit is a result (``success: false``); refusals and timeouts raise
and become the envelope's error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from skilldeck._errors import Cancelled, SkillError
from skilldeck.tools._builtin import truncated_warning
from skilldeck.tools._envelope import ToolResult, ToolWarning
from skilldeck.tools._session import DeclaredBinding, Session
from skilldeck.tools._tools import Tool, ToolCall, ToolSpec

if TYPE_CHECKING:
    from skilldeck.execution import ApprovalRequest, Approver, Executor, RunResult
    from skilldeck.tools._runtime import SkillRuntime

__all__ = ["ScriptTools"]


class ScriptTools:
    """Runs scripts and declared tools for one runtime."""

    def __init__(
        self, runtime: SkillRuntime, executor: Executor | None, approver: Approver | None
    ) -> None:
        self.runtime = runtime
        self._executor = executor
        self.approver = approver

    def executor(self) -> Executor:
        """The executor (made on first use, in the runtime's mode)."""
        if self._executor is None:
            from skilldeck.execution import Executor

            self._executor = Executor(mode=self.runtime.options.mode)
        return self._executor

    # --- skills_run_script ---------------------------------------------------------

    def run_script(self, call: ToolCall) -> ToolResult:
        name = str(call.arguments["name"])
        script = str(call.arguments["script"])
        args = [str(a) for a in call.arguments.get("args", [])]
        self.runtime.resolve_skill(name, call.session)
        # skilldeck's catalog serves the run settings from its index while SKILL.md
        # is unchanged (the body is read only if the run needs it), as ``skilldeck
        # run`` does; a host's own catalog loads the skill
        catalog = self.runtime.catalog
        runnable = getattr(catalog, "runnable", None)
        skill = runnable(name) if runnable is not None else catalog.load(name)
        return self._execute(
            call,
            name,
            skill,
            script,
            lambda ex, **kw: ex.run_script(skill, script, args, **kw),
        )

    # --- declared tools ------------------------------------------------------------

    def declare(self, name: str, skill: Any) -> dict[str, DeclaredBinding]:
        """The command tools declared in a loaded skill's body, keyed by tool name."""
        from skilldeck.format import parse_declared_tools

        tools, _diags = parse_declared_tools(
            skill.body, path=str(skill.skill_md) if skill.skill_md else None
        )
        read_only = bool(getattr(skill.manifest, "read_only", False))
        return {t.name: DeclaredBinding(name, t, read_only) for t in tools}

    def declared_tools(self, session: Session) -> list[Tool]:
        """The declared tools of the skills loaded in ``session`` (a surface source)."""
        out: list[Tool] = []
        for tool_name, binding in session.declared_tools.items():
            spec = ToolSpec(
                tool_name,
                (binding.tool.description or f"Command tool of skill {binding.skill}")
                + f" (declared by skill {binding.skill})",
                binding.tool.input_schema(),
                origin=f"skill:{binding.skill}",
                read_only=binding.read_only,
            )
            out.append(Tool(spec, self._bind(binding)))
        return out

    def _bind(self, binding: DeclaredBinding) -> Callable[[ToolCall], ToolResult]:
        return lambda call: self._run_declared(call, binding)

    def _run_declared(self, call: ToolCall, binding: DeclaredBinding) -> ToolResult:
        skill = self.runtime.catalog.load(binding.skill)
        tool = binding.tool
        return self._execute(
            call,
            binding.skill,
            skill,
            tool.name,
            lambda ex, **kw: ex.run(skill, tool, arguments=dict(call.arguments), **kw),
        )

    # --- running -------------------------------------------------------------------

    def _execute(
        self,
        call: ToolCall,
        address: str,
        skill: Any,
        target: str,
        run: Callable[..., RunResult],
    ) -> ToolResult:
        catalog, emit = self.runtime.catalog, self.runtime.emit
        from skilldeck.events import ScriptRun  # (a run builds its class: a search never does)

        kwargs: dict[str, Any] = {"trust": catalog.trust(address)}
        if self.approver is not None:
            kwargs["approver"] = self._observed(call.session, self.approver)
        try:
            result = run(self.executor(), **kwargs)
        except SkillError as exc:
            emit(
                ScriptRun(
                    session_id=call.session.id,
                    skill=skill.name,
                    target=target,
                    success=False,
                    error=exc.code,
                )
            )
            raise
        data = result.to_dict()
        emit(
            ScriptRun(
                session_id=call.session.id,
                skill=skill.name,
                target=target,
                success=bool(data.get("success")),
                exit_code=data.get("exit_code"),
                duration_ms=data.get("duration_ms"),
                error=data.get("error"),
            )
        )
        warnings: tuple[ToolWarning, ...] = ()
        if data.get("truncated"):
            warnings = (truncated_warning(f"the output of {target!r}", None),)
        return ToolResult(data, warnings)

    def _observed(
        self, session: Session, approver: Approver
    ) -> Callable[[ApprovalRequest], bool | None]:
        """The host's approver, with the question and the answer emitted as events.

        An approver that reached nobody (``None``) asked nothing: no event, and the
        executor decides as without an approver (a stored approval may stand in).
        """
        emit = self.runtime.emit

        def ask(request: ApprovalRequest) -> bool | None:
            from skilldeck.events import ApprovalAsked, ApprovalDenied, ApprovalGranted

            common: dict[str, Any] = {
                "session_id": session.id,
                "skill": request.skill,
                "target": request.target,
                "digest": request.digest,
            }
            try:
                answer = approver(request)
            except Cancelled:  # a person's "no", said as the library understands it
                emit(ApprovalAsked(**common, reason=request.reason))
                emit(ApprovalDenied(**common, reason=request.reason))
                raise
            except Exception:  # a failing approver never approves
                answer = False
            if answer is None:
                return None
            emit(ApprovalAsked(**common, reason=request.reason))
            if answer:
                emit(ApprovalGranted(**common, reason=request.reason))
            else:
                emit(ApprovalDenied(**common, reason=request.reason))
            return bool(answer)

        return ask
