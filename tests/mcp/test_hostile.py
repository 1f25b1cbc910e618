"""What a hostile or broken client sends gets a prompt, bounded JSON-RPC error.

Long URIs through the official SDK client over stdio; what the SDK will not send
(batches, malformed envelopes) from a raw peer writing JSON lines to a real
``skilldeck serve``.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_uri_of_many_segments_is_refused_at_once(tree: dict[str, Path], h: Any) -> None:
    # 200,000 segments: the lookup used to walk up one segment at a time, copying the
    # rest each step (a minute of the event loop: no other client was answered), and
    # the error repeated the 400 KB back twice
    uri = "skill://alpha/" + "a/" * 200_000 + "x.md"
    argv = ["-m", "skilldeck", "serve", "--no-watch", "--root", str(tree["high"])]
    params = StdioServerParameters(command=sys.executable, args=argv, env=dict(os.environ))
    async with Client(params) as client:
        await client.list_tools()  # started
        for call, code in [
            (client.read_resource(uri), "FILE_NOT_FOUND"),
            (h.read_dir(client, uri), "FILE_NOT_FOUND"),
            (h.get_skill(client, uri), "SKILL_NOT_FOUND"),
        ]:
            started = time.monotonic()
            with pytest.raises(MCPError) as err:
                await call
            assert time.monotonic() - started < 10
            error = err.value.error
            assert error.code == -32602
            assert error.data["code"] == code
            assert len(error.message) < 400
            assert error.data["uri"].endswith(f"... ({len(uri):,} characters)")
            assert error.data["uri"].startswith("skill://alpha/a/a/")
        # a URI as long as a served one can be is still looked up
        long_name = "skill://alpha/" + "b" * 200
        with pytest.raises(MCPError) as err:
            await client.read_resource(long_name)
        assert err.value.error.data["uri"] == long_name


INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def _exchange(
    root: Path, lines: list[bytes], replies: int, *, initialise: bool = True
) -> tuple[list[dict[str, Any]], str]:
    """Initialise (unless told not to), write ``lines``, read ``replies`` reply lines
    (20 s at most), close stdin; the replies and the server's stderr."""
    argv = ["serve", "--no-watch", "--root", str(root)]
    with subprocess.Popen(
        [sys.executable, "-m", "skilldeck", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,  # unbuffered: a line read never hides the next from select()
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        if initialise:
            proc.stdin.write(json.dumps(INIT).encode() + b"\n")
            proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["id"] == "init"
        for line in lines:
            proc.stdin.write(line + b"\n")
        proc.stdin.flush()
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + 20
        while len(got) < replies:
            ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
            line = proc.stdout.readline() if ready else b""
            if not line:
                break
            got.append(json.loads(line))
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        stderr = proc.stderr.read().decode() if proc.stderr is not None else ""
    return got, stderr


def _line(message: Any) -> bytes:
    return json.dumps(message).encode()


def test_every_request_the_sdk_refuses_is_answered(tree: dict[str, Path]) -> None:
    # the SDK drops a line it cannot read as one message: a client waited forever for
    # the replies to a batch, to a request whose params are not an object or that
    # lacks "jsonrpc", and to one whose id the SDK cannot keep (it became a notification)
    def ping(request_id: Any) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}

    lines = [
        _line([ping(1), ping(2), {"jsonrpc": "2.0", "method": "notifications/progress"}]),
        _line({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": [1, 2]}),
        _line({"id": 4, "method": "ping"}),
        _line(ping(None)),
        _line(ping(1.5)),
        _line(ping({"a": 1})),
        _line([]),
        _line({"jsonrpc": "2.0", "id": 99, "result": {}}),  # a stray response: no reply
        _line(ping(5)),
    ]
    replies, stderr = _exchange(tree["high"], lines, 9)
    assert [r["id"] for r in replies] == [1, 2, 3, 4, None, None, None, None, 5]
    for reply in replies[:-1]:
        assert reply["error"]["code"] == -32600, reply
        assert reply["error"]["data"]["code"] == "INVALID_ARGUMENTS"
        assert reply["error"]["data"]["hint"]
    assert "batch" in replies[0]["error"]["message"]
    assert "params" in replies[2]["error"]["message"]
    assert replies[-1]["result"] == {}
    assert "Traceback" not in stderr


def test_a_message_over_the_limit_is_refused_without_being_held(tree: dict[str, Path]) -> None:
    # a line was kept whole however long it was (300 MB held a gigabyte of the
    # server's memory) and then served; HTTP refuses a body over 4 MiB with 413
    limit = 4 * 1024 * 1024
    padding = "a" * (limit + 10)
    ping = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
    lines = [
        _line({**ping, "params": {"_meta": {"x": padding}}}),  # id first, as SDKs write
        _line({"params": {"_meta": {"x": padding}}, **ping}),  # id after the large part
        _line({**ping, "params": {"_meta": {"x": "a" * (limit - 100)}}}),  # within it
        _line({**ping, "id": 8}),
    ]
    replies, stderr = _exchange(tree["high"], lines, 4)
    assert [r.get("id") for r in replies] == [7, None, 7, 8]
    for reply in replies[:2]:
        error = reply["error"]
        assert error["code"] == -32600, error
        assert error["data"] == {
            "code": "INVALID_ARGUMENTS",
            "hint": error["data"]["hint"],
            "limit": limit,
        }
        assert "4,194,304 bytes" in error["message"]
    assert replies[2]["result"] == {} and replies[3]["result"] == {}
    assert "Traceback" not in stderr


def test_a_client_that_never_reads_fills_its_pipe_not_the_servers_memory(
    tree: dict[str, Path],
) -> None:
    # every request read became a task holding its reply until the client read it:
    # a client writing requests without reading grew the server by 8 MB a second
    count = 8_000
    argv = ["serve", "--no-watch", "--root", str(tree["high"])]
    with subprocess.Popen(
        [sys.executable, "-m", "skilldeck", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(_line(INIT) + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == "init"
        written = [0]

        def write() -> None:
            assert proc.stdin is not None
            for i in range(count):
                proc.stdin.write(_line({"jsonrpc": "2.0", "id": i, "method": "ping"}) + b"\n")
                proc.stdin.flush()
                written[0] += 1

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        seen = [-1]
        while writer.is_alive() and seen[-1] != written[0] and len(seen) < 15:
            seen.append(written[0])
            time.sleep(2)
        stalled = writer.is_alive() and seen[-1] == written[0]
        ids = [json.loads(proc.stdout.readline())["id"] for _ in range(count)]
        writer.join(30)
        proc.stdin.close()
        proc.wait(timeout=30)
    assert stalled, seen  # the server read no more while its replies went unread
    assert sorted(ids) == list(range(count))  # and answered every request once read


def test_params_that_fail_the_schema_name_the_field(tree: dict[str, Path]) -> None:
    # the SDK answered these "Invalid request parameters" with empty data: no code, no
    # field, nothing a client or its user could act on
    def call(request_id: int, method: str, params: dict[str, Any]) -> bytes:
        return _line({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})

    lines = [
        call(1, "tools/call", {"name": "skills_load", "arguments": [1]}),
        call(2, "logging/setLevel", {"level": "verbose"}),
        call(3, "skills/get", {}),
        call(4, "tools/call", {"name": "skills_list", "_meta": {"progressToken": {"a": 1}}}),
        call(5, "skills/list", {"cursor": "x" * 100_000}),
    ]
    replies, stderr = _exchange(tree["high"], lines, 5)
    by_id = {r["id"]: r["error"] for r in replies}
    fields = {1: "arguments", 2: "level", 3: "uri", 4: "_meta.progressToken", 5: "cursor"}
    for request_id, field in fields.items():
        error = by_id[request_id]
        assert error["code"] == -32602, error
        assert error["data"]["code"] == "INVALID_ARGUMENTS", error
        assert error["data"]["field"] == field
        assert error["data"]["hint"]
        assert len(error["message"]) < 600
    assert "Traceback" not in stderr


def test_an_unknown_method_is_named_with_the_methods_served(tree: dict[str, Path]) -> None:
    # the SDK's -32601 carried the method's name as its data: no code, no hint
    lines = [
        _line({"jsonrpc": "2.0", "id": 1, "method": "tools/lisst"}),
        _line({"jsonrpc": "2.0", "id": 2, "method": "x" * 10_000}),
    ]
    replies, stderr = _exchange(tree["high"], lines, 2)
    by_id = {r["id"]: r["error"] for r in replies}
    for error in by_id.values():
        assert error["code"] == -32601
        assert error["data"]["code"] == "INVALID_ARGUMENTS"
        assert error["data"]["field"] == "method"
        assert "tools/call" in error["data"]["hint"]
        assert len(error["message"]) < 400
    assert by_id[1]["message"] == "there is no method 'tools/lisst'"
    assert by_id[1]["data"]["hint"].startswith("did you mean tools/list? ")
    assert "Traceback" not in stderr


def test_a_request_before_initialize_says_so(tree: dict[str, Path]) -> None:
    ping = _line({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    listing = _line({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    replies, _ = _exchange(tree["high"], [listing, ping], 2, initialise=False)
    by_id = {r["id"]: r for r in replies}
    error = by_id[1]["error"]
    assert error["code"] == -32602
    assert error["data"]["code"] == "INVALID_ARGUMENTS"
    assert "initialize" in error["data"]["hint"]
    assert by_id[2]["result"] == {}  # ping needs no handshake


def test_a_client_that_stops_reading_ends_the_server_quietly(tree: dict[str, Path]) -> None:
    # the client closed its end of our stdout: writing the next reply failed, and the
    # server printed a traceback (which a host shows its user) and exited 1
    argv = ["serve", "--no-watch", "--root", str(tree["high"])]
    with subprocess.Popen(
        [sys.executable, "-m", "skilldeck", *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(_line(INIT) + b"\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == "init"
        proc.stdout.close()
        proc.stdin.write(_line({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + b"\n")
        proc.stdin.flush()
        try:
            returncode = proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        stderr = proc.stderr.read().decode() if proc.stderr is not None else ""
    assert returncode == 0, stderr
    assert "Traceback" not in stderr


async def test_other_schemes_and_odd_completions_get_the_envelope(tree: dict[str, Path]) -> None:
    from mcp_types import ResourceTemplateReference

    from skilldeck.mcp import create_server

    # another scheme was the SDK's "Unknown resource" with no code; a completion of a
    # skill with a lone surrogate (a Python host can send one) failed to quote it
    server = create_server(roots=[tree["high"]], snapshot_cache=False)
    async with Client(server) as client:
        for uri in ["file:///etc/passwd", "https://example.com/" + "x" * 10_000]:
            with pytest.raises(MCPError) as err:
                await client.read_resource(uri)
            assert err.value.error.code == -32602
            assert err.value.error.data["code"] == "FILE_NOT_FOUND"
            assert "skill://" in err.value.error.data["hint"]
            assert len(err.value.error.message) < 400
        template = ResourceTemplateReference(type="ref/resource", uri="skill://{skill}/{+path}")
        done = await client.complete(template, {"name": "path", "value": ""}, {"skill": "\ud800"})
        assert done.completion.values == []
