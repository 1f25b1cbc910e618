"""PydanticAI integration: a skilldeck runtime as a ``pydantic_ai`` toolset.

::

    from pydantic_ai import Agent
    from skilldeck import SkillRuntime
    from skilldeck.integrations.pydantic_ai import SkillsToolset

    runtime = SkillRuntime.from_roots(["./skills"])
    agent = Agent("openai:gpt-5", toolsets=[SkillsToolset(runtime)])

:class:`SkillsToolset` is an ``AbstractToolset``. Each run step it asks the
runtime for the tools of its session (``runtime.tool_specs``), so the tools a
skill declares appear after ``skills_load`` and allowed-tools contractions hide
tools at once; every call goes through ``runtime.call`` and returns the
runtime's envelope as the tool result. Policies, governance, approvals, events
and the trace are the runtime's; this module only translates shapes. The skill list
(``<available_skills>``) is the toolset's instructions; with ``preflight=True``
the pre-flight hint for the user's latest message (``runtime.preflight``: the
few skills that confidently fit it, or nothing) is added after the skill list.

Approvals: by default a call that needs the user's confirmation returns the
runtime's ``TOOL_CONFIRMATION_REQUIRED`` envelope (or the runtime's ``confirm``
callback answers it). With ``deferred_approvals=True`` it becomes PydanticAI's
human-in-the-loop flow instead: the run ends with ``DeferredToolRequests``, and
when the host resumes it with the call approved in ``DeferredToolResults``,
the toolset records the approval in the session (``session.approve``) and runs
the call through the runtime again.

Requires the ``pydantic-ai`` extra (``pip install 'skilldeck[pydantic-ai]'``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio.to_thread
from pydantic_ai import ApprovalRequired, RunContext, ToolDefinition
from pydantic_ai.messages import ModelRequest, UserPromptPart
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from skilldeck import Session, SkillRuntime
from skilldeck.integrations._shared import (
    AdapterFormat,
    Instructions,
    join_blocks,
    preflight_text,
    resolve_instructions,
    text_of,
)

__all__ = ["SkillsToolset"]

# The runtime validates arguments against the tool's schema (INVALID_ARGUMENTS in
# the envelope, with the field at fault), so PydanticAI only needs a JSON object.
_ARGS = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))

_CONFIRMATION = "TOOL_CONFIRMATION_REQUIRED"

#: A session, or ``fn(ctx) -> Session`` picking one per run (e.g. from ``ctx.deps``).
SessionSource = Session | Callable[[RunContext[Any]], Session] | None


class SkillsToolset(AbstractToolset[Any]):
    """The tools of a ``SkillRuntime`` session, for a ``pydantic_ai.Agent``.

    - ``session``: the session the calls belong to (skills loaded, policy,
      approvals, trace). A ``Session``, a callable ``fn(ctx) -> Session`` (for
      example one kept in ``ctx.deps``), or ``None`` for a session made now and
      kept for every run of this toolset (one conversation).
    - ``instructions``: ``True`` (the skill list of the session's skills, the default),
      ``False`` (none), a string, or ``fn(session) -> str``; ``list_format`` and
      ``list_budget`` shape the skill list.
    - ``preflight``: add ``runtime.preflight(latest user prompt)`` to the
      instructions when a skill confidently fits it (nothing otherwise), so the
      model considers that skill before answering.
    - ``sequential``: run the skill tools one at a time in the order the model
      asked (default), as the runtime's own loop does: ``skills_load`` changes
      what the next call may do.
    - ``deferred_approvals``: see the module docstring.
    - ``max_retries``: PydanticAI's retry budget for malformed calls (arguments
      that are not a JSON object); an error envelope is a normal result, not a retry.
    """

    def __init__(
        self,
        runtime: SkillRuntime,
        *,
        session: SessionSource = None,
        instructions: Instructions = True,
        list_format: AdapterFormat = "xml",
        list_budget: int | None = None,
        preflight: bool = False,
        sequential: bool = True,
        deferred_approvals: bool = False,
        max_retries: int = 1,
        id: str | None = "skilldeck",
    ) -> None:
        self.runtime = runtime
        self._session_source: Callable[[RunContext[Any]], Session] | None = None
        self._session: Session | None = None
        if isinstance(session, Session):
            self._session = session
        elif session is None:
            self._session = runtime.session()
        else:
            self._session_source = session
        self.instructions = instructions
        self.list_format: AdapterFormat = list_format
        self.list_budget = list_budget
        self.preflight = preflight
        self._hint: tuple[Session, str, str] | None = None  # (session, prompt, hint)
        self.sequential = sequential
        self.deferred_approvals = deferred_approvals
        self.max_retries = max_retries
        self._id = id

    @property
    def id(self) -> str | None:
        return self._id

    @property
    def session(self) -> Session | None:
        """The fixed session (``None`` when sessions come from a callable)."""
        return self._session

    def session_for(self, ctx: RunContext[Any]) -> Session:
        """The session of this run."""
        if self._session_source is not None:
            return self._session_source(ctx)
        assert self._session is not None
        return self._session

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        session = self.session_for(ctx)
        skill_list = resolve_instructions(
            self.instructions,
            self.runtime,
            session,
            format=self.list_format,
            budget=self.list_budget,
        )
        if not self.preflight:
            return skill_list
        return join_blocks(skill_list, await self._preflight(session, _latest_prompt(ctx)))

    async def _preflight(self, session: Session, prompt: str) -> str:
        """The hint for ``prompt``, computed once per prompt (instructions are asked
        for again at every step of a run)."""
        known = self._hint
        if known is not None and known[0] is session and known[1] == prompt:
            return known[2]
        hint: str = await anyio.to_thread.run_sync(preflight_text, self.runtime, session, prompt)
        self._hint = (session, prompt, hint)
        return hint

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        session = self.session_for(ctx)
        tools: dict[str, ToolsetTool[Any]] = {}
        for spec in self.runtime.tool_specs(session):
            plain = spec.to_dict()
            tools[spec.name] = ToolsetTool(
                toolset=self,
                tool_def=ToolDefinition(
                    name=plain["name"],
                    description=plain["description"],
                    parameters_json_schema=plain["parameters"],
                    sequential=self.sequential,
                    metadata={
                        "skilldeck": {
                            "key": spec.key,
                            "origin": spec.origin,
                            "read_only": spec.read_only,
                        }
                    },
                ),
                max_retries=self.max_retries,
                args_validator=_ARGS,
            )
        return tools

    async def call_tool(
        self,
        name: str,
        tool_args: dict[str, Any],
        ctx: RunContext[Any],
        tool: ToolsetTool[Any],
    ) -> dict[str, Any]:
        session = self.session_for(ctx)
        envelope = await self._call(session, name, tool_args)
        if not self.deferred_approvals or _code(envelope) != _CONFIRMATION:
            return envelope
        confirmation_id = envelope["error"].get("confirmation_id")
        if not ctx.tool_call_approved or not confirmation_id:
            raise ApprovalRequired(
                metadata={
                    "confirmation_id": confirmation_id,
                    "message": envelope["error"].get("message"),
                }
            )
        # the user approved this exact call through PydanticAI: record it, then retry
        session.approve(confirmation_id)
        return await self._call(session, name, tool_args)

    async def _call(self, session: Session, name: str, args: dict[str, Any]) -> dict[str, Any]:
        # runtime.call may run a script: keep the event loop free while it does
        result: dict[str, Any] = await anyio.to_thread.run_sync(
            self.runtime.call, session, name, args
        )
        return result


def _latest_prompt(ctx: RunContext[Any]) -> str:
    """The text of the user's latest prompt in the run's messages (else the run's prompt)."""
    for message in reversed(ctx.messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart):
                    return text_of(part.content)
    return text_of(ctx.prompt)


def _code(envelope: dict[str, Any]) -> str | None:
    if envelope.get("ok"):
        return None
    error = envelope.get("error")
    return error.get("code") if isinstance(error, dict) else None
