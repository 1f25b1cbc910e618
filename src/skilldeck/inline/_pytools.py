"""Python tools of inline skills: ``SkillTool``, schemas from signatures, and the
provider that offers a loaded skill's tools to the runtime (its ``skill_tools`` hook)."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import inspect
import types
import typing
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal

from typing_extensions import TypeVar

from skilldeck._errors import InvalidArgumentsError, ScriptFailedError, SkillError
from skilldeck._names import is_tool_name
from skilldeck.events import Event
from skilldeck.inline._errors import SkillValidationError
from skilldeck.tools import ToolResult, value_data

if TYPE_CHECKING:
    from skilldeck.inline._skill import InlineSkill
    from skilldeck.tools import Session, SkillRuntime, Tool

__all__ = ["INLINE_SOURCE", "InlineToolProvider", "SkillTool", "ToolContext", "make_runtime"]

#: The catalog source name (and ``SOURCE:`` prefix) of inline skills.
INLINE_SOURCE = "inline"


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a tool function may ask for with a ``context`` parameter."""

    skill: str
    tool: str
    session_id: str | None = None
    emit: Callable[[Event], None] | None = None


P = TypeVar("P", default=Any)
R = TypeVar("R", default=Any)


# not slots=True: a frozen slotted dataclass cannot take the attribute that
# ``SkillTool[P, R](...)`` sets on the instance
@dataclass(frozen=True)
class SkillTool(Generic[P, R]):
    """A Python tool of an inline skill.

    ``SkillTool[Params, Result](name=..., description=..., handler=...)`` is also
    accepted (the generic form other Python skill frameworks use for their
    ``Tool``); the type parameters only document the handler.

    ``handler`` is called with the model's arguments as keyword arguments (or,
    when its one parameter is annotated with a dataclass, with an instance of
    it); a parameter named ``context`` receives a :class:`ToolContext`.
    ``parameters`` is the JSON Schema of the arguments, derived from the
    signature's annotations when not given. The return value becomes the
    result's ``data``: a mapping as is, a dataclass as its fields (plus
    ``message`` when it has a ``render()`` method), anything else as
    ``{"result": value}``; a ``ToolResult(message=..., value=...)`` as
    ``ToolResult.resolved_data`` (``success=False`` fails the call). A
    ``SkillError`` it raises keeps its code; any other exception becomes
    ``SCRIPT_FAILED`` with the exception's message.
    """

    name: str
    description: str
    handler: Callable[..., Any]
    parameters: Mapping[str, Any] | None = None
    read_only: bool = False

    def __post_init__(self) -> None:
        if not is_tool_name(self.name, "python"):
            raise SkillValidationError(
                f"invalid tool name {self.name!r}",
                hint="use letters, digits, '_' or '-' (at most 64 characters)",
            )
        if not callable(self.handler):
            raise SkillValidationError(f"the handler of tool {self.name!r} is not callable")
        if self.parameters is None:
            object.__setattr__(self, "parameters", _signature_schema(self.handler))

    @classmethod
    def of(
        cls,
        fn: Callable[..., Any] | SkillTool,
        *,
        name: str | None = None,
        description: str | None = None,
        parameters: Mapping[str, Any] | None = None,
        read_only: bool = False,
    ) -> SkillTool:
        """A tool from a function: name from ``__name__``, description from the docstring."""
        if isinstance(fn, SkillTool):
            return fn
        doc = inspect.getdoc(fn) or ""
        summary = doc.strip().split("\n\n", 1)[0].replace("\n", " ")
        return cls(
            name or str(getattr(fn, "__name__", "tool")),
            description or summary or f"Tool {getattr(fn, '__name__', 'tool')}",
            fn,
            parameters,
            read_only,
        )

    @property
    def schema(self) -> Mapping[str, Any]:
        return self.parameters or {"type": "object", "properties": {}}

    def invoke(self, arguments: Mapping[str, Any], context: ToolContext) -> dict[str, Any]:
        """Call the handler with ``arguments``; returns the result's ``data``."""
        sig = _signature(self.handler)
        packed = _dataclass_param(self.handler)
        kwargs: dict[str, Any] = dict(arguments)
        try:
            if packed is not None:
                kwargs = {packed[0]: _from_json(packed[1], dict(arguments))}
            else:
                hints = _hints(self.handler)
                kwargs = {k: _from_json(hints.get(k, Any), v) for k, v in kwargs.items()}
            if sig is not None and "context" in sig.parameters:
                kwargs["context"] = context
            if sig is not None:
                sig.bind(**kwargs)
        except TypeError as exc:
            raise InvalidArgumentsError(
                f"arguments do not fit tool {self.name!r}: {exc}",
                skill=context.skill,
                hint=f"see the parameters of {self.name!r}",
            ) from None
        try:
            value = self.handler(**kwargs)
        except SkillError:
            raise
        except Exception as exc:
            raise ScriptFailedError(
                f"tool {self.name!r} of skill {context.skill!r} failed: "
                f"{type(exc).__name__}: {exc}",
                skill=context.skill,
                hint="check the arguments; the error comes from the skill's Python code",
            ) from exc
        return _as_data(value, self.name, context.skill)


def _signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """Resolved annotations; one that cannot be resolved (a name local to a
    function, under ``from __future__ import annotations``) is left out."""
    with contextlib.suppress(Exception):
        return typing.get_type_hints(fn)
    out: dict[str, Any] = {}
    scope = dict(getattr(fn, "__globals__", {}))
    for name, raw in getattr(fn, "__annotations__", {}).items():
        if not isinstance(raw, str):
            out[name] = raw
            continue
        with contextlib.suppress(Exception):
            out[name] = eval(raw, scope)  # noqa: S307 - the host's own annotation text
    return out


def _dataclass_param(fn: Callable[..., Any]) -> tuple[str, type[Any]] | None:
    """``(name, cls)`` when the function takes its arguments as one dataclass."""
    sig = _signature(fn)
    if sig is None:
        return None
    params = [p for p in sig.parameters.values() if p.name != "context"]
    if len(params) != 1:
        return None
    hint = _hints(fn).get(params[0].name)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return params[0].name, hint
    return None


def _signature_schema(fn: Callable[..., Any]) -> dict[str, Any]:
    packed = _dataclass_param(fn)
    if packed is not None:
        return _type_schema(packed[1])
    sig = _signature(fn)
    props: dict[str, Any] = {}
    required: list[str] = []
    closed = sig is not None
    if sig is not None:
        hints = _hints(fn)
        for p in sig.parameters.values():
            if p.kind is p.VAR_KEYWORD:
                closed = False
            if p.name == "context" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            if p.kind is p.POSITIONAL_ONLY:
                continue
            props[p.name] = _type_schema(hints.get(p.name, Any))
            if p.default is p.empty:
                required.append(p.name)
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    if closed:
        out["additionalProperties"] = False
    return out


_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _type_schema(tp: Any) -> dict[str, Any]:
    """JSON Schema of a Python annotation (the common cases; anything else is open)."""
    if tp in _SCALARS:
        return {"type": _SCALARS[tp]}
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if len(members) == 1:
            return _type_schema(members[0])
        return {"anyOf": [_type_schema(a) for a in members]}
    if origin is tuple and args and args[-1] is not Ellipsis and args != ((),):
        # a fixed tuple: each position its own type, and exactly that many items
        n = len(args)
        prefix = [_type_schema(a) for a in args]
        return {"type": "array", "prefixItems": prefix, "minItems": n, "maxItems": n}
    if origin in (list, tuple, set, frozenset, Sequence, Collection) or tp in (list, tuple):
        item = args[0] if args and args[0] is not Ellipsis else Any
        return {"type": "array", "items": _type_schema(item)}
    if origin in (dict, Mapping) or tp in (dict, Mapping):
        return {"type": "object"}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [m.value for m in tp]}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        props = {f.name: _type_schema(hints.get(f.name, Any)) for f in dataclasses.fields(tp)}
        required = [
            f.name
            for f in dataclasses.fields(tp)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
        out: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            out["required"] = required
        out["additionalProperties"] = False
        return out
    return {}


def _from_json(tp: Any, value: Any) -> Any:
    """``value`` decoded from JSON shaped as the annotation ``tp`` asks.

    JSON has only lists and objects: a ``tuple[str, ...]``, ``frozenset`` or nested
    dataclass field gets its own type, so a frozen parameters object stays hashable.
    Values that do not fit are passed as they are (the call then says what is wrong).
    """
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        return _from_json(members[0], value) if len(members) == 1 and value is not None else value
    if isinstance(value, list):
        if origin is tuple or tp is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(_from_json(args[0], v) for v in value)
            if args and len(args) == len(value):
                return tuple(_from_json(a, v) for a, v in zip(args, value, strict=True))
            return tuple(value)
        item = args[0] if args else Any
        if origin in (set, frozenset) or tp in (set, frozenset):
            kind = frozenset if (origin or tp) is frozenset else set
            return kind(_from_json(item, v) for v in value)
        if origin in (list, Sequence, Collection) or tp is list:
            return [_from_json(item, v) for v in value]
        return value
    if isinstance(value, dict) and isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{k: _from_json(hints.get(k, Any), v) for k, v in value.items()})
    if isinstance(tp, type) and issubclass(tp, enum.Enum) and not isinstance(value, tp):
        with contextlib.suppress(ValueError):
            return tp(value)
    return value


def _as_data(value: Any, tool: str, skill: str) -> dict[str, Any]:
    if isinstance(value, ToolResult):
        if not value.success:
            raise ScriptFailedError(
                f"tool {tool!r} of skill {skill!r} failed: {value.message or 'no message'}",
                skill=skill,
                hint="the tool reported the failure itself; check its arguments",
            )
        return value.resolved_data()
    return value_data(value)


class InlineToolProvider:
    """Gives, for a session, the Python tools of the inline skills loaded in it.

    A tool is offered only while its skill is loaded from the ``inline`` source
    (a same-name skill from another source unlocks nothing).
    """

    def __init__(self, skills: Sequence[InlineSkill], *, source: str = INLINE_SOURCE) -> None:
        self.source = source
        self._skills = {s.name: s for s in skills if s.has_tools}
        self.emit: Callable[[Event], None] | None = None

    def tools(self, session: Session) -> list[Tool]:
        from skilldeck.tools import Tool, ToolSpec

        out: list[Tool] = []
        for loaded in session.loaded:
            skill = self._skills.get(loaded.name)
            if skill is None or (loaded.source or "") != self.source:
                continue
            for tool in skill.skill_tools:
                spec = ToolSpec(
                    tool.name,
                    f"{tool.description} (tool of skill {skill.name})",
                    tool.schema,
                    origin=f"skill:{skill.name}",
                    read_only=tool.read_only,
                )
                out.append(Tool(spec, self._handler(skill, tool)))
        return out

    def _handler(self, skill: InlineSkill, tool: SkillTool) -> Callable[[Any], Any]:
        from skilldeck.tools import ToolResult

        def run(call: Any) -> ToolResult:
            ctx = ToolContext(skill.name, tool.name, call.session.id, self.emit)
            return ToolResult(tool.invoke(dict(call.arguments), ctx))

        return run


def make_runtime(catalog: Any, provider: InlineToolProvider, **options: Any) -> SkillRuntime:
    from skilldeck.tools import SkillRuntime

    runtime = SkillRuntime(catalog, skill_tools=provider.tools, **options)
    provider.emit = runtime.emit
    return runtime
