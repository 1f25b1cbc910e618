"""LangChain integration: a skilldeck runtime session as LangChain tools.

::

    from skilldeck import SkillRuntime
    from skilldeck.integrations.langchain import SkillsToolkit

    toolkit = SkillsToolkit.for_runtime(SkillRuntime.from_roots(["./skills"]))
    agent_model = toolkit.wrap_model(chat_model)    # the skill list + this turn's tools
    messages = [HumanMessage("...")]
    while True:
        reply = agent_model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages.extend(toolkit.run_tool_calls(reply))

- :class:`SkillTool` is a ``BaseTool`` whose ``args_schema`` is the runtime's JSON
  Schema; running it is ``runtime.call(session, name, arguments)``. The
  ``ToolMessage`` content is the envelope as JSON; on success the envelope dict is
  also the message's ``artifact``; a failed envelope gives ``status="error"``.
- :class:`SkillsToolkit` (a ``BaseToolkit``) holds the runtime and one session.
  ``get_tools()`` is what the runtime exposes *now*: ask again each turn, since
  a ``skills_load`` adds the skill's declared tools and allowed-tools may hide
  others. ``run_tool_calls(ai_message)`` runs every call of a reply through the
  runtime, including names no longer offered (the runtime answers those with
  ``TOOL_NOT_ALLOWED`` and an event).
- The skill list: ``system_message()``, ``inject(messages)`` (adds it to the first system
  message, or prepends one), and ``wrap_model(model)``, a runnable that injects
  the skill list and binds the current tools on every call.
- Pre-flight (``preflight=True``): ``inject`` also adds ``runtime.preflight`` for
  the latest ``HumanMessage`` (the few skills that confidently fit it, or
  nothing) after the skill list, so the model considers them before answering.

Policies, governance, approvals, events and the trace are the runtime's; nothing
here decides anything. Requires the ``langchain`` extra
(``pip install 'skilldeck[langchain]'``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.tools import BaseTool, BaseToolkit, ToolException
from pydantic import ConfigDict, Field, model_validator

from skilldeck import Session, SkillRuntime
from skilldeck.integrations._shared import (
    AdapterFormat,
    Instructions,
    join_blocks,
    preflight_text,
    resolve_instructions,
    text_of,
)

__all__ = ["SkillTool", "SkillsToolkit"]


class SkillTool(BaseTool):
    """One runtime tool as a LangChain tool (built by :class:`SkillsToolkit`)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    runtime: SkillRuntime = Field(exclude=True)
    session: Session = Field(exclude=True)
    response_format: str = "content_and_artifact"  # type: ignore[assignment]
    handle_tool_error: bool = True

    def _run(self, **arguments: Any) -> tuple[str, dict[str, Any]]:
        envelope: dict[str, Any] = self.runtime.call(self.session, self.name, arguments)
        content = json.dumps(envelope, ensure_ascii=False)
        if not envelope.get("ok"):
            # LangChain's way to report a failed call: a ToolMessage with status="error"
            raise ToolException(content)
        return content, envelope


class SkillsToolkit(BaseToolkit):
    """The runtime's tools for one session, plus the skill list for the prompt.

    ``session`` defaults to a new ``runtime.session()``. ``instructions``,
    ``list_format`` and ``list_budget`` shape the skill-list text as in the
    PydanticAI toolset (``True`` = the skill list of the skills this session sees).
    ``preflight=True`` adds the pre-flight hint for the latest user message.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    runtime: SkillRuntime
    session: Session
    instructions: Instructions = True
    list_format: AdapterFormat = "xml"
    list_budget: int | None = None
    preflight: bool = False

    @model_validator(mode="before")
    @classmethod
    def _default_session(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("session") is None and "runtime" in data:
            data = {**data, "session": data["runtime"].session()}
        return data

    @classmethod
    def for_runtime(
        cls,
        runtime: SkillRuntime,
        *,
        session: Session | None = None,
        instructions: Instructions = True,
        list_format: AdapterFormat = "xml",
        list_budget: int | None = None,
        preflight: bool = False,
    ) -> SkillsToolkit:
        """A toolkit over ``runtime`` (keyword arguments as the fields)."""
        return cls(
            runtime=runtime,
            session=session if session is not None else runtime.session(),
            instructions=instructions,
            list_format=list_format,
            list_budget=list_budget,
            preflight=preflight,
        )

    # --- tools ---------------------------------------------------------------

    def get_tools(self) -> list[BaseTool]:
        """The tools the runtime offers this session now (ask again every turn)."""
        return [self._tool(spec.to_dict()) for spec in self.runtime.tool_specs(self.session)]

    def tool(self, name: str) -> SkillTool:
        """A tool for ``name`` whether or not it is offered now; the runtime decides."""
        for spec in self.runtime.tool_specs(self.session):
            if spec.name == name:
                return self._tool(spec.to_dict())
        return self._tool({"name": name, "description": name, "parameters": _ANY_OBJECT})

    def run_tool_calls(self, message: AIMessage) -> list[ToolMessage]:
        """Run each tool call of ``message`` in order; one ``ToolMessage`` per call."""
        out: list[ToolMessage] = []
        for call in message.tool_calls:
            out.append(self.tool(call["name"]).invoke(call))
        return out

    async def arun_tool_calls(self, message: AIMessage) -> list[ToolMessage]:
        """``run_tool_calls`` for async hosts (each call in order, off the event loop)."""
        out: list[ToolMessage] = []
        for call in message.tool_calls:
            out.append(await self.tool(call["name"]).ainvoke(call))
        return out

    def _tool(self, spec: dict[str, Any]) -> SkillTool:
        return SkillTool(
            name=spec["name"],
            description=spec["description"] or spec["name"],
            args_schema=spec["parameters"],
            runtime=self.runtime,
            session=self.session,
        )

    # --- the skill list ------------------------------------------------------

    def skill_list(self) -> str:
        """The instructions text (the skill list by default; ``""`` when there is none)."""
        text = resolve_instructions(
            self.instructions,
            self.runtime,
            self.session,
            format=self.list_format,
            budget=self.list_budget,
        )
        return text or ""

    def preflight_hint(self, messages: Sequence[BaseMessage]) -> str:
        """``runtime.preflight`` for the text of the latest ``HumanMessage`` in
        ``messages`` (``""`` when no skill confidently fits, or there is none)."""
        for message in reversed(messages):
            if isinstance(message, HumanMessage):
                return preflight_text(self.runtime, self.session, text_of(message.content))
        return ""

    def system_message(self) -> SystemMessage:
        """The skill list as a ``SystemMessage``."""
        return SystemMessage(self.skill_list())

    def inject(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """``messages`` with the skill list (and, with ``preflight``, the hint for the latest
        user message) added: appended to a leading system message, else prepended as
        one. Messages are not modified in place."""
        hint = self.preflight_hint(messages) if self.preflight else ""
        text = join_blocks(self.skill_list(), hint) or ""
        out = list(messages)
        if not text:
            return out
        if out and isinstance(out[0], SystemMessage) and isinstance(out[0].content, str):
            first = out[0]
            merged = f"{first.content}\n\n{text}" if first.content else text
            out[0] = first.model_copy(update={"content": merged})
        else:
            out.insert(0, SystemMessage(text))
        return out

    def wrap_model(self, model: BaseChatModel, **bind_kwargs: Any) -> Runnable[Any, Any]:
        """A runnable ``messages -> AIMessage`` that injects the skill list and binds the tools
        offered at that moment, so each turn sees the session's current surface."""

        def invoke(messages: Sequence[BaseMessage]) -> Any:
            bound = model.bind_tools(self.get_tools(), **bind_kwargs)
            return bound.invoke(self.inject(messages))

        async def ainvoke(messages: Sequence[BaseMessage]) -> Any:
            bound = model.bind_tools(self.get_tools(), **bind_kwargs)
            return await bound.ainvoke(self.inject(messages))

        return RunnableLambda(invoke, afunc=ainvoke, name="skilldeck_model")


_ANY_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}
