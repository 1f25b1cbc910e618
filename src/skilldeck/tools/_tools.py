"""Tool specs, tools, and the tool surface built by composition.

A *surface* answers two questions for a session: which tools does the model
see (``tools``: exposure) and which tool runs for a name (``resolve``:
execution). The runtime stacks small wrappers around one base surface instead
of spreading ``if`` chains through the handlers::

    AllowedToolsGate(            # skills' allowed-tools: hide, and block with TOOL_NOT_ALLOWED
      Validated(                 # arguments against the schema: INVALID_ARGUMENTS
        Governed(                # the host's hook: TOOL_POLICY_DENIED / _CONFIRMATION_REQUIRED
          Composite(
            Renamed(builtin skills_* tools, prefix / rename map),
            body-declared tools of loaded skills,
            host tools))))

Each wrapper implements both questions, so exposure and enforcement can never
disagree. ``ToolSpec.key`` keeps a tool's original name when it was renamed;
the baseline tools of allowed-tools are recognised by key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from skilldeck._json import json_safe
from skilldeck.tools._envelope import ToolResult

if TYPE_CHECKING:
    from skilldeck.tools._session import Session

__all__ = [
    "CompositeSurface",
    "FilteredSurface",
    "HostTool",
    "ListSurface",
    "RenamedSurface",
    "Tool",
    "ToolCall",
    "ToolSpec",
    "ToolSurface",
    "WrappingSurface",
]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A neutral tool definition: name, description, JSON Schema ``parameters``.

    ``key`` is the tool's original name (before a prefix or rename), ``origin``
    says where it comes from (``skills``, ``skill:<name>`` for a body-declared
    tool, ``host``), ``read_only`` is a hint for hosts and governance.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    key: str = ""
    origin: str = "skills"
    read_only: bool = False

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", self.name)

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "description", "parameters"}`` — what adapters translate."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": json_safe(self.parameters),
        }


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call as a handler sees it."""

    session: Session
    name: str
    arguments: Mapping[str, Any]
    spec: ToolSpec


Handler = Callable[[ToolCall], ToolResult]


@dataclass(frozen=True, slots=True)
class Tool:
    spec: ToolSpec
    handler: Handler

    def __call__(self, call: ToolCall) -> ToolResult:
        return self.handler(call)

    def wrap(self, outer: Callable[[ToolCall, Handler], ToolResult]) -> Tool:
        """The same tool with ``outer(call, inner_handler)`` in front of its handler."""
        inner = self.handler
        return Tool(self.spec, lambda call: outer(call, inner))


@dataclass(frozen=True, slots=True)
class HostTool:
    """A host's own tool, offered through the runtime so skills' policies cover it.

    ``handler(arguments)`` returns a JSON-able value (a dict becomes ``data``,
    anything else ``{"result": value}``) or a ``ToolResult``; a ``SkillError`` it
    raises becomes the envelope's error, any other exception ``INTERNAL``.
    """

    name: str
    description: str
    handler: Callable[[Mapping[str, Any]], Any]
    parameters: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    read_only: bool = False

    def as_tool(self) -> Tool:
        spec = ToolSpec(
            self.name, self.description, self.parameters, origin="host", read_only=self.read_only
        )
        fn = self.handler

        def run(call: ToolCall) -> ToolResult:
            value = fn(dict(call.arguments))
            if isinstance(value, ToolResult):
                return value
            if isinstance(value, Mapping):
                return ToolResult(dict(value))
            return ToolResult({"result": value})

        return Tool(spec, run)


class ToolSurface(Protocol):
    """Exposure (``tools``) and execution (``resolve``) for one session."""

    def tools(self, session: Session) -> list[Tool]: ...

    def resolve(self, session: Session, name: str) -> Tool | None: ...


class ListSurface:
    """A fixed list of tools, or a function of the session that makes one."""

    def __init__(self, tools: Iterable[Tool] | Callable[[Session], Iterable[Tool]]) -> None:
        self._static: tuple[Tool, ...] | None = None
        self._dynamic: Callable[[Session], Iterable[Tool]] | None = None
        if callable(tools):
            self._dynamic = tools
        else:
            self._static = tuple(tools)

    def tools(self, session: Session) -> list[Tool]:
        if self._dynamic is not None:
            return list(self._dynamic(session))
        return list(self._static or ())

    def resolve(self, session: Session, name: str) -> Tool | None:
        for tool in self.tools(session):
            if tool.spec.name == name:
                return tool
        return None


class CompositeSurface:
    """Several surfaces as one; on a name clash the earlier surface wins."""

    def __init__(self, *surfaces: ToolSurface) -> None:
        self.surfaces: tuple[ToolSurface, ...] = surfaces

    def tools(self, session: Session) -> list[Tool]:
        seen: set[str] = set()
        out: list[Tool] = []
        for surface in self.surfaces:
            for tool in surface.tools(session):
                if tool.spec.name not in seen:
                    seen.add(tool.spec.name)
                    out.append(tool)
        return out

    def resolve(self, session: Session, name: str) -> Tool | None:
        for surface in self.surfaces:
            tool = surface.resolve(session, name)
            if tool is not None:
                return tool
        return None


class WrappingSurface:
    """Base for wrappers: override ``expose`` and/or ``guard``."""

    def __init__(self, inner: ToolSurface) -> None:
        self.inner = inner

    def expose(self, session: Session, tool: Tool) -> Tool | None:
        """The tool as exposed, or ``None`` to hide it."""
        return tool

    def guard(self, session: Session, tool: Tool) -> Tool:
        """The tool as executed (typically ``tool.wrap(check)``)."""
        return tool

    def tools(self, session: Session) -> list[Tool]:
        out: list[Tool] = []
        for tool in self.inner.tools(session):
            shown = self.expose(session, tool)
            if shown is not None:
                out.append(shown)
        return out

    def resolve(self, session: Session, name: str) -> Tool | None:
        tool = self.inner.resolve(session, name)
        return None if tool is None else self.guard(session, tool)


class FilteredSurface(WrappingSurface):
    """Only the tools ``keep(session, spec)`` accepts exist (hidden *and* unknown)."""

    def __init__(self, inner: ToolSurface, keep: Callable[[Session, ToolSpec], bool]) -> None:
        super().__init__(inner)
        self.keep = keep

    def expose(self, session: Session, tool: Tool) -> Tool | None:
        return tool if self.keep(session, tool.spec) else None

    def resolve(self, session: Session, name: str) -> Tool | None:
        tool = self.inner.resolve(session, name)
        return tool if tool is not None and self.keep(session, tool.spec) else None


class RenamedSurface(WrappingSurface):
    """Exposes tools under ``renames[key]`` or ``prefix + name``; ``key`` keeps the original.

    ``parameters[key]`` renames that tool's parameters (``{"name": "skill_name"}``):
    the schema shows the new names, and a call's arguments are given back their
    original names before the tool sees them.
    """

    def __init__(
        self,
        inner: ToolSurface,
        *,
        prefix: str = "",
        renames: Mapping[str, str] | None = None,
        parameters: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        super().__init__(inner)
        self.prefix = prefix
        self.renames = dict(renames or {})
        self.parameters = {k: dict(v) for k, v in (parameters or {}).items() if v}

    def exposed_name(self, spec: ToolSpec) -> str:
        return self.renames.get(spec.key, self.prefix + spec.name)

    def expose(self, session: Session, tool: Tool) -> Tool | None:
        spec = replace(tool.spec, name=self.exposed_name(tool.spec))
        renamed = self.parameters.get(tool.spec.key)
        if not renamed:
            return Tool(spec, tool.handler)
        inner, original = tool.handler, tool.spec
        back = {new: old for old, new in renamed.items()}

        def handler(call: ToolCall) -> ToolResult:
            arguments = {back.get(k, k): v for k, v in call.arguments.items()}
            return inner(replace(call, arguments=arguments, spec=original))

        return Tool(replace(spec, parameters=_renamed_schema(spec.parameters, renamed)), handler)

    def resolve(self, session: Session, name: str) -> Tool | None:
        for tool in self.tools(session):
            if tool.spec.name == name:
                return tool
        return None


def _renamed_schema(schema: Mapping[str, Any], renamed: Mapping[str, str]) -> dict[str, Any]:
    """A tool's JSON Schema with its top-level parameters renamed."""
    out = dict(schema)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        out["properties"] = {renamed.get(k, k): v for k, v in properties.items()}
    required = schema.get("required")
    if isinstance(required, list | tuple):
        out["required"] = [renamed.get(k, k) for k in required]
    return out
