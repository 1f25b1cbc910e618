"""A runtime session per client: tools that appear when a skill is loaded, for that client only."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ToolListChangedNotification

import skilldeck
from skilldeck.mcp import HANDLE_META_KEY, SkillServer, create_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server(root: Path, **kwargs: Any) -> SkillServer:
    catalog = skilldeck.Catalog.from_roots([root])
    runtime = skilldeck.SkillRuntime(
        catalog, scripts=True, declared_tools=True, allowed_tools_enforcement="enforce"
    )
    return create_server(catalog, runtime=runtime, allow_exec=True, **kwargs)


class Inbox:
    """Collects ``tools/list_changed`` notifications one client receives."""

    def __init__(self) -> None:
        self.changed = 0
        self.event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            self.changed += 1
            self.event.set()

    async def wait(self) -> None:
        with anyio.fail_after(10):
            await self.event.wait()
        self.event = anyio.Event()


async def _names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools()).tools}


async def test_loaded_tools_reach_only_the_loading_client(tool_root: Path) -> None:
    server = _server(tool_root)
    inbox_a, inbox_b = Inbox(), Inbox()
    async with (
        Client(server, mode="legacy", message_handler=inbox_a) as a,
        Client(server, mode="legacy", message_handler=inbox_b) as b,
    ):
        base = await _names(a)
        assert "say" not in base and "skills_search" in base
        loaded = await a.call_tool("skills_load", {"name": "echo"})
        assert loaded.structured_content["data"]["tools"] == ["say"]
        await inbox_a.wait()
        assert await _names(a) == base | {"say"}
        ran = await a.call_tool("say", {"word": "hello; rm -rf /"})
        assert ran.structured_content["ok"] is True, ran.structured_content
        assert ran.structured_content["data"]["output"].strip() == "hello; rm -rf /"

        assert await _names(b) == base  # B: nothing loaded, nothing new
        with pytest.raises(MCPError) as err:
            await b.call_tool("say", {"word": "x"})
        assert err.value.error.code == -32602
        assert "no tool named 'say'" in err.value.error.message
        assert err.value.error.data["code"] == "TOOL_NOT_ALLOWED"

        # allowed-tools of the next skill narrows A's list, and only A's
        await a.call_tool("skills_load", {"name": "narrow"})
        await inbox_a.wait()
        assert await _names(a) == {
            "skills_list",
            "skills_load",
            "skills_read_file",
            "skills_search",
        }
        assert await _names(b) == base
        assert inbox_b.changed == 0


async def test_unknown_tool_is_a_protocol_error_without_exec(tree: dict[str, Path]) -> None:
    server = create_server(roots=[tree["high"]])
    async with Client(server) as client:
        with pytest.raises(MCPError) as err:
            await client.call_tool("no_such_tool", {})
        assert err.value.error.code == -32602
        assert err.value.error.message == "there is no tool named 'no_such_tool'"
        assert err.value.error.data["code"] == "TOOL_NOT_ALLOWED"
        assert err.value.error.data["reason"] == "unknown_tool"
        disabled = await client.call_tool("skills_run_script", {"name": "alpha", "script": "x"})
        assert disabled.structured_content["error"]["reason"] == "exec_disabled"


async def test_modern_listen_stream_hears_only_its_own_client(tool_root: Path) -> None:
    """2026-07-28 without a connection: a session handle the client echoes."""
    server = _server(tool_root)
    async with Client(server) as a, Client(server) as b:
        base = await _names(a)
        loaded = await a.call_tool("skills_load", {"name": "echo"})
        handle = (loaded.meta or {})[HANDLE_META_KEY]
        assert isinstance(handle, str) and handle.startswith("h-")
        assert await _names(a) == base  # no handle echoed: stateless, as the protocol says
        again = await a.call_tool("say", {"word": "hi"}, meta={HANDLE_META_KEY: handle})
        assert again.structured_content["data"]["output"].strip() == "hi"
        with pytest.raises(MCPError):
            await b.call_tool("say", {"word": "hi"}, meta={HANDLE_META_KEY: "h-forged"})


async def test_sessions_idle_out_and_are_capped(tool_root: Path) -> None:
    server = _server(tool_root, session_timeout=1.5, max_sessions=3)
    # the timeout leaves a loaded machine time to list tools after the load
    fallback = server.tools
    assert fallback is not None
    async with Client(server, mode="legacy") as a:
        await a.call_tool("skills_load", {"name": "echo"})
        assert "say" in await _names(a)
        assert len(fallback.sessions) == 1
        await anyio.sleep(1.8)
        assert fallback.sessions.sweep() == 0
        assert "say" not in await _names(a)  # a fresh session after the idle timeout
    async with AsyncExitStack() as stack:
        for _ in range(5):
            client = await stack.enter_async_context(Client(server, mode="legacy"))
            await client.list_tools()
        assert len(fallback.sessions) == 3  # the least recently used went first
    assert len(fallback.sessions) == 0  # a closed connection ends its session


async def test_governance_sees_each_client_as_its_own_session(tool_root: Path) -> None:
    seen: dict[str, set[str]] = {"expose": set(), "call": set()}
    narrowed: set[str] = set()

    def governance(request: skilldeck.GovernanceRequest) -> str:
        seen[request.phase].add(request.session_id)
        if request.phase == "call" and request.tool == "skills_load":
            narrowed.add(request.session_id)  # whoever loads a skill loses search
        if request.tool == "skills_search" and request.session_id in narrowed:
            return "deny"
        return "allow"

    catalog = skilldeck.Catalog.from_roots([tool_root])
    runtime = skilldeck.SkillRuntime(catalog, governance=governance)
    server = create_server(catalog, runtime=runtime)
    async with Client(server, mode="legacy") as a, Client(server, mode="legacy") as b:
        assert "skills_search" in await _names(a) and "skills_search" in await _names(b)
        assert len(seen["expose"]) == 2  # two clients, two sessions
        await a.call_tool("skills_load", {"name": "echo"})
        assert "skills_search" not in await _names(a)
        assert "skills_search" in await _names(b)
        denied = await a.call_tool("skills_search", {"query": "echo"})
        assert denied.structured_content["error"]["code"] == "TOOL_POLICY_DENIED"
        allowed = await b.call_tool("skills_search", {"query": "echo"})
        assert allowed.structured_content["ok"] is True


async def test_without_exec_no_other_tool_reaches_the_runtime(tool_root: Path) -> None:
    """A hook that hides a tool from the list but would allow the call cannot
    open a way around the reading-tools-only rule."""
    ran: list[str] = []
    host = skilldeck.HostTool("note", "Write a note", lambda args: ran.append("note") or {})

    def hide_at_exposure(request: skilldeck.GovernanceRequest) -> str:
        return "deny" if request.tool == "note" and request.phase == "expose" else "allow"

    catalog = skilldeck.Catalog.from_roots([tool_root])
    shown = create_server(catalog, runtime=skilldeck.SkillRuntime(catalog, host_tools=[host]))
    hidden = create_server(
        catalog,
        runtime=skilldeck.SkillRuntime(catalog, host_tools=[host], governance=hide_at_exposure),
    )
    async with Client(shown) as client:
        assert "note" not in await _names(client)
        refused = await client.call_tool("note", {})
        assert refused.structured_content["error"]["reason"] == "exec_disabled"
    async with Client(hidden) as client:
        with pytest.raises(MCPError) as err:
            await client.call_tool("note", {})
        assert err.value.error.code == -32602
    assert ran == []
