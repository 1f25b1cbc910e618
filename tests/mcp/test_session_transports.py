"""Per-client sessions over real transports: ``skilldeck serve`` over stdio and HTTP,
driven by the official SDK client and by FastMCP's client."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import ToolListChangedNotification

from skilldeck.mcp import HANDLE_META_KEY

pytestmark = pytest.mark.anyio

SERVE_FLAGS = ("--allow-exec", "--allowed-tools", "enforce", "--no-watch")
BASE = {"skills_list", "skills_load", "skills_read_file", "skills_search", "skills_run_script"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Inbox:
    def __init__(self) -> None:
        self.changed = 0
        self.event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, ToolListChangedNotification):
            self.changed += 1
            self.event.set()

    async def wait(self) -> None:
        with anyio.fail_after(20):
            await self.event.wait()
        self.event = anyio.Event()


async def _names(client: Client) -> set[str]:
    return {t.name for t in (await client.list_tools()).tools}


def _stdio(root: Path) -> StdioServerParameters:
    args = ["-m", "skilldeck", "serve", "--root", str(root), *SERVE_FLAGS]
    return StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))


async def _a_loads_and_calls(a: Client, inbox: Inbox | None) -> None:
    assert await _names(a) == BASE
    if inbox is None:  # 2026-07-28: change events ride a listen stream
        async with a.listen(tools_list_changed=True) as sub:
            await a.call_tool("skills_load", {"name": "echo"})
            with anyio.fail_after(20):
                async for _event in sub:
                    break
    else:
        await a.call_tool("skills_load", {"name": "echo"})
        await inbox.wait()
    assert await _names(a) == BASE | {"say"}
    ran = await a.call_tool("say", {"word": "from A"})
    assert ran.structured_content["data"]["output"].strip() == "from A", ran.structured_content


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_stdio_client_sees_and_calls_the_loaded_tool(tool_root: Path, mode: str) -> None:
    inbox = Inbox() if mode == "legacy" else None
    async with Client(_stdio(tool_root), mode=mode, message_handler=inbox) as a:
        await _a_loads_and_calls(a, inbox)
        await a.call_tool("skills_load", {"name": "narrow"})
        assert await _names(a) == BASE - {"skills_run_script"}


async def test_http_sessions_are_separate(tool_root: Path, h: Any) -> None:
    port = h.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with h.serve_http([tool_root], port, *SERVE_FLAGS):
        inbox_a, inbox_b = Inbox(), Inbox()
        async with (
            Client(url, mode="legacy", message_handler=inbox_a) as a,
            Client(url, mode="legacy", message_handler=inbox_b) as b,
        ):
            await _a_loads_and_calls(a, inbox_a)
            assert await _names(b) == BASE
            with pytest.raises(MCPError) as err:
                await b.call_tool("say", {"word": "from B"})
            assert err.value.error.code == -32602
            assert err.value.error.data["code"] == "TOOL_NOT_ALLOWED"
            await a.call_tool("skills_load", {"name": "narrow"})
            await inbox_a.wait()
            assert await _names(a) == BASE - {"skills_run_script"}
            assert await _names(b) == BASE
            assert inbox_b.changed == 0
        # 2026-07-28 over HTTP has no session: a handle the client echoes keeps one
        async with Client(url, mode="2026-07-28") as c:
            loaded = await c.call_tool("skills_load", {"name": "echo"})
            handle = (loaded.meta or {})[HANDLE_META_KEY]
            assert await _names(c) == BASE
            ran = await c.call_tool("say", {"word": "by handle"}, meta={HANDLE_META_KEY: handle})
            assert ran.structured_content["data"]["output"].strip() == "by handle"


async def test_a_client_holding_every_session_does_not_lock_out_the_next(
    tool_root: Path, h: Any
) -> None:
    # the SDK refused a new session (503) while --max-sessions were open, until one
    # idled out: one client that opened that many locked every other out for 30 minutes
    port = h.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    headers = {"accept": "application/json, text/event-stream"}
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
    hello["clientInfo"] = {"name": "greedy", "version": "0"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    with h.serve_http([tool_root], port, *SERVE_FLAGS, "--max-sessions", "3"):
        async with httpx.AsyncClient(timeout=30) as raw:
            greedy = []
            for _ in range(3):
                opened = await raw.post(url, json=init, headers=headers)
                assert opened.status_code == 200
                greedy.append(opened.headers["mcp-session-id"])
            async with Client(url, mode="legacy") as other:
                assert await _names(other) == BASE
            pinged = []
            for session in greedy:
                with_session = {**headers, "mcp-session-id": session}
                answer = await raw.post(url, json=ping, headers=with_session)
                pinged.append(answer.status_code)
        # the least recently used session ended for the new one; the others are served
        assert pinged == [404, 200, 200]


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_default_sdk_client_gets_the_unlocked_tools(
    tool_root: Path, h: Any, transport: str
) -> None:
    # no mode, no _meta handle, no listen stream: what an ordinary client does
    inbox = Inbox()
    if transport == "stdio":
        async with Client(_stdio(tool_root), message_handler=inbox) as client:
            await _loads_and_sees(client)
        return
    port = h.free_port()
    with h.serve_http([tool_root], port, *SERVE_FLAGS):
        url = f"http://127.0.0.1:{port}/mcp"
        async with Client(url, message_handler=inbox) as client, Client(url) as other:
            await _loads_and_sees(client)
            await inbox.wait()  # told on its own session: the SDK evicts its cached list
            assert await _names(other) == BASE  # the other client's list is its own


async def _loads_and_sees(client: Client) -> None:
    assert await _names(client) == BASE
    loaded = await client.call_tool("skills_load", {"name": "echo"})
    assert loaded.structured_content["ok"] is True
    assert await _names(client) == BASE | {"say"}
    ran = await client.call_tool("say", {"word": "unlocked"})
    assert ran.structured_content["data"]["output"].strip() == "unlocked", ran.structured_content


async def test_fastmcp_client_independent_sessions(tool_root: Path, h: Any) -> None:
    fastmcp = pytest.importorskip("fastmcp", reason="FastMCP's client is a dev dependency")
    from fastmcp.client.messages import MessageHandler

    class Changes(MessageHandler):
        def __init__(self) -> None:
            self.count = 0

        async def on_tool_list_changed(self, notification: Any) -> None:
            self.count += 1

    port = h.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    seen_a, seen_b = Changes(), Changes()
    with h.serve_http([tool_root], port, *SERVE_FLAGS):
        async with (
            fastmcp.Client(url, message_handler=seen_a, mode="legacy") as a,
            fastmcp.Client(url, message_handler=seen_b, mode="legacy") as b,
        ):
            before = {t.name for t in await a.list_tools()}
            assert before == BASE
            await a.call_tool("skills_load", {"name": "echo"})
            with anyio.fail_after(20):
                while seen_a.count == 0:
                    await anyio.sleep(0.02)
            assert {t.name for t in await a.list_tools()} == BASE | {"say"}
            ran = await a.call_tool("say", {"word": "fastmcp"})
            assert ran.structured_content["data"]["output"].strip() == "fastmcp"
            assert {t.name for t in await b.list_tools()} == BASE
            assert seen_b.count == 0


async def test_fifty_concurrent_clients_no_cross_talk(tmp_path: Path, h: Any) -> None:
    from click.testing import CliRunner

    from skilldeck.cli import main

    root = tmp_path / "fifty"
    for i in range(50):
        h.write_tool_skill(root, f"skill-{i:02d}", f"tool_{i:02d}")
    for i in range(50):
        done = CliRunner().invoke(main, ["approve", f"skill-{i:02d}", "--root", str(root)])
        assert done.exit_code == 0, done.output
    port = h.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    failures: list[str] = []

    async def one(i: int) -> None:
        inbox = Inbox()
        mine = f"tool_{i:02d}"
        async with Client(url, mode="legacy", message_handler=inbox) as client:
            await client.call_tool("skills_load", {"name": f"skill-{i:02d}"})
            await inbox.wait()
            for _ in range(2):
                names = await _names(client)
                extra = {n for n in names if n.startswith("tool_")}
                if extra != {mine}:
                    failures.append(f"client {i} sees {sorted(extra)}")
                await anyio.sleep(0.05)  # let the others load in between
            ran = await client.call_tool(mine, {"word": str(i)})
            if ran.structured_content["data"]["output"].strip() != str(i):
                failures.append(f"client {i}: {ran.structured_content}")

    with h.serve_http([root], port, *SERVE_FLAGS):
        with anyio.fail_after(100):
            async with anyio.create_task_group() as tg:
                for i in range(50):
                    tg.start_soon(one, i)
    assert failures == []
