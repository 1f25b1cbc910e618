"""The values of body-declared command tools: parameters and command templates."""

from __future__ import annotations

import enum
import re
from typing import Any

from skilldeck._frozen import field, value

__all__ = [
    "ArgTemplate",
    "CommandTemplate",
    "DeclaredTool",
    "Literal",
    "ParamType",
    "Placeholder",
    "ToolParameter",
]

_URL_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


class ParamType(enum.StrEnum):
    """The five parameter types of a declared tool."""

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    ARRAY = "array"

    @property
    def json_schema(self) -> dict[str, Any]:
        if self is ParamType.ARRAY:
            return {"type": "array", "items": {"type": "string"}}
        return {"type": self.value}


@value
class ToolParameter:
    """One row of a ``#### Parameters`` table."""

    name: str
    type: ParamType
    required: bool
    description: str = ""
    default: Any = None


@value
class Literal:
    """Literal text inside an argv entry."""

    text: str


@value
class Placeholder:
    """``{{name}}`` or ``{{name:modifier}}`` inside an argv entry."""

    name: str
    modifier: str | None = None


@value
class ArgTemplate:
    """One argv entry of the template: literal text and placeholders, in order."""

    fragments: tuple[Literal | Placeholder, ...]

    @property
    def is_literal(self) -> bool:
        return all(isinstance(f, Literal) for f in self.fragments)

    @property
    def sole_placeholder(self) -> Placeholder | None:
        """The placeholder when the entry is exactly one ``{{...}}`` and nothing else."""
        if len(self.fragments) == 1 and isinstance(self.fragments[0], Placeholder):
            return self.fragments[0]
        return None

    @property
    def is_url(self) -> bool:
        """The entry starts with a literal ``scheme://`` (placeholders get percent-encoded)."""
        first = self.fragments[0] if self.fragments else None
        return isinstance(first, Literal) and bool(_URL_PREFIX.match(first.text))

    def placeholders(self) -> tuple[Placeholder, ...]:
        return tuple(f for f in self.fragments if isinstance(f, Placeholder))

    def text(self) -> str:
        """The entry as written (placeholders in ``{{...}}`` form)."""
        parts = []
        for frag in self.fragments:
            if isinstance(frag, Literal):
                parts.append(frag.text)
            elif frag.modifier is None:
                parts.append("{{" + frag.name + "}}")
            else:
                parts.append("{{" + frag.name + ":" + frag.modifier + "}}")
        return "".join(parts)


@value
class CommandTemplate:
    """A command split once into a literal program and argv templates."""

    program: str
    args: tuple[ArgTemplate, ...]
    raw: str

    def placeholder_names(self) -> frozenset[str]:
        return frozenset(p.name for a in self.args for p in a.placeholders())


@value
class DeclaredTool:
    """A command tool declared in a SKILL.md body."""

    name: str
    description: str
    parameters: tuple[ToolParameter, ...]
    command: CommandTemplate
    line: int | None = None
    path: str | None = field(default=None, compare=False)

    def input_schema(self) -> dict[str, Any]:
        """A JSON Schema (draft 2020-12 subset) for the tool's arguments."""
        props: dict[str, Any] = {}
        for p in self.parameters:
            prop = dict(p.type.json_schema)
            if p.description:
                prop["description"] = p.description
            if p.default is not None:
                prop["default"] = p.default
            props[p.name] = prop
        return {
            "type": "object",
            "properties": props,
            "required": [p.name for p in self.parameters if p.required],
            "additionalProperties": False,
        }
