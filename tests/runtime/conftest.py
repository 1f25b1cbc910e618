"""Helpers for the runtime tests: real skill folders in tmp_path and envelope checks."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from tests._skills import write_files

from skilldeck import Catalog, HostTool, SkillRuntime, Source
from skilldeck.events import ListSink
from skilldeck.tools import ENVELOPE_SCHEMA

MakeSkill = Callable[..., Path]


def write_skill(
    root: Path,
    name: str,
    description: str | None = None,
    *,
    allowed_tools: str | None = None,
    body: str | None = None,
    files: Mapping[str, str | bytes] | None = None,
    extra: str = "",
) -> Path:
    """A skill folder ``root/name`` with a SKILL.md and bundled files."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    desc = description or f"Does {name} things. Use when the user needs {name}."
    front = f"---\nname: {name}\ndescription: {desc}\n"
    if allowed_tools is not None:
        front += f"allowed-tools: {allowed_tools}\n"
    front += extra
    text = front + "---\n\n" + (body if body is not None else f"# {name}\n\nFollow the steps.\n")
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    write_files(folder, files)
    return folder


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    root.mkdir()
    return root


@pytest.fixture
def make_skill(skills_root: Path) -> MakeSkill:
    def make(name: str, description: str | None = None, **kw: Any) -> Path:
        return write_skill(skills_root, name, description, **kw)

    return make


def check(envelope: Mapping[str, Any]) -> Mapping[str, Any]:
    """Validate an envelope against the published schema and return it."""
    jsonschema.validate(dict(envelope), ENVELOPE_SCHEMA)
    return envelope


def error_code(envelope: Mapping[str, Any]) -> str | None:
    check(envelope)
    return None if envelope["ok"] else str(envelope["error"]["code"])


def host_tools(
    *names: str, calls: list[tuple[str, dict[str, Any]]] | None = None
) -> list[HostTool]:
    """Host tools that record their calls and echo their arguments."""
    out = []
    for name in names:

        def run(args: Mapping[str, Any], _name: str = name) -> dict[str, Any]:
            if calls is not None:
                calls.append((_name, dict(args)))
            return {"tool": _name, "echo": dict(args)}

        out.append(
            HostTool(
                name,
                f"host tool {name}",
                run,
                {"type": "object", "properties": {"command": {"type": "string"}}},
            )
        )
    return out


@pytest.fixture
def events() -> ListSink:
    return ListSink()


def runtime_for(
    root: Path, *, sink: ListSink | None = None, untrusted: bool = False, **options: Any
) -> SkillRuntime:
    kind = "installed" if untrusted else "root"
    catalog = Catalog([Source.of("local", kind, [root])], cache=False)
    sinks = [sink] if sink is not None else []
    return SkillRuntime(catalog, sinks=sinks, **options)
