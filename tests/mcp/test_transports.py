"""Real transports: a ``skilldeck serve`` subprocess over stdio and over streamable HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceListChangedNotification

from skilldeck.cli import main

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _stdio(roots: list[Path], *extra: str) -> StdioServerParameters:
    args = ["-m", "skilldeck", "serve"]
    for root in roots:
        args += ["--root", str(root)]
    return StdioServerParameters(command=sys.executable, args=[*args, *extra], env=dict(os.environ))


def test_stdio_answers_a_request_its_parser_refuses(tree: dict[str, Path]) -> None:
    # a lone surrogate (JSON.stringify writes "\\ud800" for one) or deep nesting: the
    # SDK dropped the line, so the client waited forever for the reply to its id
    argv = [sys.executable, "-m", "skilldeck", "serve", "--root", str(tree["high"]), "--no-watch"]
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    lines = [
        json.dumps(init),
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
        '"params": {"name": "skills_load", "arguments": {"name": "\\ud800"}}}',
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "skills_load", '
        '"arguments": {"name": "alpha", "x": ' + "[" * 5000 + "]" * 5000 + "}}}",
        '{"jsonrpc": "2.0", "id": 4, "method": "tools/list"}',
    ]
    replies: dict[Any, Any] = {}
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        while 4 not in replies:  # stdin stays open: EOF would end the session first
            reply = json.loads(proc.stdout.readline())
            replies[reply.get("id")] = reply
        proc.stdin.close()
        proc.wait(30)
    assert replies[2]["error"]["code"] == -32700
    assert replies[2]["error"]["data"]["code"] == "INVALID_ARGUMENTS"
    # too deep for the SDK's parser: answered to its id where Python's json reads it
    # (3.13 reads 5,000 levels), to no id where even that gives up (3.11)
    deep = replies[3] if 3 in replies else replies[None]
    assert deep["error"]["code"] == -32700
    assert set(replies) <= {1, 2, 3, 4, None} and len(replies) == 4
    assert [t["name"] for t in replies[4]["result"]["tools"]][:1] == ["skills_list"]


async def _snapshot(client: Client, h: Any) -> dict[str, str]:
    """uri -> digest of every file, each read and checked against its entry."""
    entries, _ = await h.list_all(client)
    out: dict[str, str] = {}
    for entry in entries:
        got = await h.get_skill(client, entry.uri)
        assert got.skill.model_dump() == entry.model_dump()
        files = await h.verify_entry(client, entry)
        out.update({uri: h.sha(data) for uri, data in files.items()})
    return out


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_stdio_subprocess(tree: dict[str, Path], h: Any, mode: str) -> None:
    async with Client(_stdio([tree["low"], tree["high"]]), mode=mode) as client:
        snapshot = await _snapshot(client, h)
        assert "skill://alpha/assets/logo.bin" in snapshot
        root = await h.read_dir(client, "skill://alpha")
        assert any(r.mime_type == "inode/directory" for r in root.resources)
        result = await client.call_tool("skills_load", {"name": "beta"})
        assert result.structured_content["ok"] is True
        with pytest.raises(MCPError) as err:
            await h.get_skill(client, "skill://nope/SKILL.md")
        assert err.value.error.code == -32602
        if mode == "auto":  # 2026-07-28: a listen stream reports the change
            await _change_is_notified(client, tree["high"], h)


async def _change_is_notified(client: Client, high: Path, h: Any) -> None:
    uri = "skill://beta/references/b.md"
    async with client.listen(resources_list_changed=True) as sub:
        (high / "beta/references/b.md").write_text("b, second edition\n")
        with anyio.fail_after(20):
            async for _event in sub:
                break
    entry = (await h.get_skill(client, "skill://beta/SKILL.md")).skill
    data, _, _ = await h.read_bytes(client, uri)
    assert data == b"b, second edition\n"
    assert next(r.digest for r in entry.resources if r.uri == uri) == h.sha(data)


async def test_http_fifty_concurrent_clients(tmp_path: Path, h: Any) -> None:
    root = tmp_path / "small"
    h.write_skill(root, "one", "First", {"references/a.md": "a\n"})
    h.write_skill(root, "two", "Second", {"assets/b.bin": b"\x00\xff"})
    port = h.free_port()
    with h.serve_http([root], port):
        url = f"http://127.0.0.1:{port}/mcp"
        results: list[dict[str, str]] = []

        async def one(mode: str, http: httpx2.AsyncClient) -> None:
            # 50 MCP sessions; one HTTP connection pool (TLS-context setup is the client's cost).
            async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                results.append(await _snapshot(client, h))

        limits = httpx2.Limits(max_connections=100)
        async with (
            httpx2.AsyncClient(timeout=60, limits=limits) as http,
            anyio.create_task_group() as tg,
        ):
            for i in range(50):
                tg.start_soon(one, "legacy" if i % 5 == 0 else "auto", http)
        assert len(results) == 50
        assert all(r == results[0] for r in results)
        assert len(results[0]) == 4


async def test_http_bearer_token(tree: dict[str, Path], h: Any) -> None:
    port = h.free_port()
    env = {"SKILLDECK_MCP_TOKEN": "s3cret-token"}
    with h.serve_http([tree["high"]], port, env=env):
        url = f"http://127.0.0.1:{port}/mcp"
        async with httpx2.AsyncClient() as raw:
            response = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert response.status_code == 401
        headers = {"Authorization": "Bearer s3cret-token"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            entries, _ = await h.list_all(client)
            assert {e.uri for e in entries} == {"skill://alpha/SKILL.md", "skill://beta/SKILL.md"}


def test_refuses_public_bind_without_token(tree: dict[str, Path]) -> None:
    result = CliRunner().invoke(
        main, ["serve", "--transport", "http", "--host", "0.0.0.0", "--root", str(tree["high"])]
    )
    assert result.exit_code == 1
    assert "without a bearer token" in result.output


def test_a_port_in_use_is_an_error_not_an_announced_server(tree: dict[str, Path]) -> None:
    # uvicorn logged "[Errno 98] ... address already in use" after the server had been
    # announced as serving, and exited 3
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        argv = ["serve", "--transport", "http", "--port", port, "--root", str(tree["high"])]
        result = CliRunner().invoke(main, argv)
    assert result.exit_code == 1, result.output
    assert f"error: cannot listen on 127.0.0.1:{port}: Address already in use" in result.output
    assert "[CONFIG_INVALID]" in result.output and "pick --port" in result.output
    assert "serving MCP" not in result.output


async def test_http_changes_reach_both_eras(tree: dict[str, Path], h: Any) -> None:
    port = h.free_port()
    guide = tree["high"] / "alpha/references/guide.md"
    with h.serve_http([tree["high"]], port):
        url = f"http://127.0.0.1:{port}/mcp"
        notified = anyio.Event()

        async def on_message(message: Any) -> None:
            if isinstance(message, ResourceListChangedNotification):
                notified.set()

        async with Client(url, mode="legacy", message_handler=on_message) as client:
            await client.list_resources()
            guide.write_text("edited over http, handshake era\n")
            with anyio.fail_after(20):
                await notified.wait()
        modern = Client(url, mode="2026-07-28")  # auto speaks the handshake here (sessions)
        async with modern as client, client.listen(resources_list_changed=True) as sub:
            guide.write_text("edited over http, 2026-07-28\n")
            with anyio.fail_after(20):
                async for _event in sub:
                    break
            entry = (await h.get_skill(client, "skill://alpha/SKILL.md")).skill
            await h.verify_entry(client, entry)
