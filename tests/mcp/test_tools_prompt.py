"""The tool fallback and the skill-list prompt, through the SDK's in-memory client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_types import ElicitRequestParams, ElicitResult

from skilldeck.mcp import READ_TOOLS, create_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_read_tools_only_without_exec(tree: dict[str, Path]) -> None:
    server = create_server(roots=[tree["high"]])
    async with Client(server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == set(READ_TOOLS)
        result = await client.call_tool(
            "skills_run_script", {"name": "alpha", "script": "scripts/run.py"}
        )
        assert result.is_error
        assert result.structured_content["error"]["code"] == "TOOL_NOT_ALLOWED"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_envelopes_are_structured_content(tree: dict[str, Path], mode: str) -> None:
    server = create_server(roots=[tree["low"], tree["high"]])
    async with Client(server, mode=mode) as client:
        listed = await client.call_tool("skills_list", {})
        assert not listed.is_error
        envelope = listed.structured_content
        assert envelope["ok"] is True
        assert json.loads(listed.content[0].text) == envelope
        assert {s["name"] for s in envelope["data"]["skills"]} == {"alpha", "beta"}

        loaded = await client.call_tool("skills_load", {"name": "alpha"})
        assert loaded.structured_content["ok"] is True
        assert loaded.structured_content["data"]["description"] == "Alpha wins"

        shadowed = await client.call_tool("skills_load", {"name": "root1:alpha"})
        assert shadowed.structured_content["data"]["description"] == "Alpha from the low root"

        read = await client.call_tool(
            "skills_read_file", {"name": "alpha", "path": "references/guide.md"}
        )
        assert read.structured_content["ok"] is True

        missing = await client.call_tool("skills_load", {"name": "nope"})
        assert missing.is_error
        assert missing.structured_content["error"]["code"] == "SKILL_NOT_FOUND"


async def test_prompt_is_skill_list(tree: dict[str, Path]) -> None:
    server = create_server(roots=[tree["low"], tree["high"]])
    async with Client(server) as client:
        prompts = {p.name for p in (await client.list_prompts()).prompts}
        assert "skills_catalog" in prompts
        got = await client.get_prompt("skills_catalog")
        text = got.messages[0].content.text
        assert "<available_skills>" in text
        assert "Alpha wins" in text and "Beta does beta things" in text
        assert "Alpha from the low root" not in text  # shadowed skills are not in the skill list
        small = await client.get_prompt("skills_catalog", {"budget": "120"})
        assert len(small.messages[0].content.text) < len(text)


def _exec_tree(tmp_path: Path, h: Any) -> Path:
    root = tmp_path / "exec"
    h.write_skill(
        root, "runner", "Runs a script", {"scripts/hello.py": "print('hello from runner')\n"}
    )
    return root


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_run_script_asks_through_elicitation(tmp_path: Path, h: Any, mode: str) -> None:
    server = create_server(roots=[_exec_tree(tmp_path, h)], allow_exec=True)
    asked: list[str] = []

    async def yes(ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"approve": True})

    async with Client(server, mode=mode, elicitation_callback=yes) as client:
        assert "skills_run_script" in {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool(
            "skills_run_script", {"name": "runner", "script": "scripts/hello.py"}
        )
        assert result.structured_content["ok"] is True, result.structured_content
        assert "hello from runner" in result.structured_content["data"]["output"]
        assert len(asked) == 1 and "runner" in asked[0] and "sha256:" in asked[0]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_run_script_refused_when_user_declines_or_cannot_be_asked(
    tmp_path: Path, h: Any, mode: str
) -> None:
    server = create_server(roots=[_exec_tree(tmp_path, h)], allow_exec=True)

    async def no(ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        return ElicitResult(action="decline")

    async with Client(server, mode=mode, elicitation_callback=no) as client:
        result = await client.call_tool(
            "skills_run_script", {"name": "runner", "script": "scripts/hello.py"}
        )
        assert result.is_error
        assert result.structured_content["error"]["code"] == "APPROVAL_REQUIRED"
    async with Client(server, mode=mode) as client:  # no elicitation capability
        result = await client.call_tool(
            "skills_run_script", {"name": "runner", "script": "scripts/hello.py"}
        )
        assert result.structured_content["error"]["code"] == "APPROVAL_REQUIRED"


async def test_run_script_preapproved_needs_no_question(tmp_path: Path, h: Any) -> None:
    from click.testing import CliRunner

    from skilldeck.cli import main

    root = _exec_tree(tmp_path, h)
    approved = CliRunner().invoke(main, ["approve", "runner", "--root", str(root)])
    assert approved.exit_code == 0, approved.output
    server = create_server(roots=[root], allow_exec=True)

    async def never(ctx: Any, params: ElicitRequestParams) -> ElicitResult:
        raise AssertionError("a pre-approved run must not ask")

    async with Client(server, elicitation_callback=never) as client:
        result = await client.call_tool(
            "skills_run_script", {"name": "runner", "script": "scripts/hello.py"}
        )
        assert result.structured_content["ok"] is True, result.structured_content
    (root / "runner/scripts/hello.py").write_text("print('changed')\n")  # approval lapses
    async with Client(server) as client:
        result = await client.call_tool(
            "skills_run_script", {"name": "runner", "script": "scripts/hello.py"}
        )
        assert result.structured_content["error"]["code"] == "APPROVAL_REQUIRED"


async def test_a_skill_prompt_cannot_be_inflated_by_its_arguments(tmp_path: Path, h: Any) -> None:
    # 1,500 $0 placeholders and one 64 KiB argument made a 93 MiB prompts/get answer
    from mcp.shared.exceptions import MCPError

    root = tmp_path / "skills"
    folder = h.write_skill(root, "echoer", "Repeats what it is given")
    (folder / "SKILL.md").write_text(
        "---\nname: echoer\ndescription: Repeats what it is given\n---\n\n" + "$0 " * 1500,
        encoding="utf-8",
    )
    server = create_server(roots=[root], snapshot_cache=False)
    async with Client(server) as client:
        small = await client.get_prompt("echoer", {"arguments": "hi"})
        assert small.messages[0].content.text.count("hi") == 1500  # type: ignore[union-attr]
        with pytest.raises(MCPError) as err:
            await client.get_prompt("echoer", {"arguments": "x" * 64 * 1024})
    assert len(str(err.value)) < 10_000
