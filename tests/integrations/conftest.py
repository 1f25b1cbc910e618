"""Skills and a runtime shared by the framework-integration tests."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from skilldeck import HostTool, SkillRuntime


def write_skill(root: Path, name: str, frontmatter: str, body: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    text = f"---\nname: {name}\n{textwrap.dedent(frontmatter).strip()}\n---\n\n"
    (folder / "SKILL.md").write_text(text + textwrap.dedent(body).lstrip(), encoding="utf-8")
    return folder


ECHOER_BODY = """\
# Echoer

Repeat what the user said with the `shout` tool.

### shout

Print the given text.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| text | string | yes | What to print. |

#### Command

```bash
echo {{text}}
```
"""


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    """Three skills: ``notes`` (allowed-tools: save_note), ``echoer`` (a declared
    ``shout`` tool), ``plain`` (no allowed-tools)."""
    root = tmp_path / "skills"
    notes = write_skill(
        root,
        "notes",
        """
        description: Take notes in Markdown. Use when the user asks to write notes down.
        allowed-tools: save_note
        """,
        "# Notes\n\nWrite notes as short bullets, then call save_note. See references/style.md.\n",
    )
    (notes / "references").mkdir()
    (notes / "references" / "style.md").write_text("Use short bullets.\n", encoding="utf-8")
    write_skill(
        root,
        "echoer",
        """
        description: Echo text back. Use when the user wants text repeated.
        read_only: true
        """,
        ECHOER_BODY,
    )
    write_skill(
        root,
        "plain",
        "description: A skill with no tool restrictions. Use for anything plain.",
        "# Plain\n\nJust answer.\n",
    )
    return root


class HostCalls:
    """The host's own tools, recording what really ran."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, dict[str, Any]]] = []

    def tool(self, name: str, description: str) -> HostTool:
        def handler(arguments: Mapping[str, Any]) -> dict[str, Any]:
            self.ran.append((name, dict(arguments)))
            return {"done": name, "arguments": dict(arguments)}

        return HostTool(
            name,
            description,
            handler,
            parameters={
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": False,
            },
        )


@pytest.fixture
def host() -> HostCalls:
    return HostCalls()


@pytest.fixture
def make_runtime(
    skills_root: Path, host: HostCalls
) -> Callable[..., tuple[SkillRuntime, list[Any]]]:
    """``make_runtime(**options) -> (runtime, events)`` over ``skills_root`` with two
    host tools (``save_note``, ``delete_all``) and allowed-tools enforced."""

    def make(**options: Any) -> tuple[SkillRuntime, list[Any]]:
        events: list[Any] = []
        options.setdefault("allowed_tools_enforcement", "enforce")
        runtime = SkillRuntime.from_roots(
            [skills_root],
            host_tools=[
                host.tool("save_note", "Save a note."),
                host.tool("delete_all", "Delete every note."),
            ],
            sinks=[events.append],
            **options,
        )
        return runtime, events

    return make
