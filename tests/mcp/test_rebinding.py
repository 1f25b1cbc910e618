"""DNS-rebinding protection on every address served without a token."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import httpx2
import pytest

from skilldeck.mcp import rebinding_settings

pytestmark = pytest.mark.anyio

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


HOSTS = [
    "127.0.0.1",
    "127.0.0.2",
    "127.42.0.9",
    "localhost",
    pytest.param(
        "::1",
        marks=pytest.mark.skipif(not _has_ipv6_loopback(), reason="no IPv6 loopback here"),
    ),
]


@pytest.mark.parametrize("host", HOSTS)
async def test_foreign_host_or_origin_is_refused(tree: dict[str, Path], h: Any, host: str) -> None:
    port = h.free_port()
    literal = f"[{host}]" if ":" in host else host
    url = f"http://{literal}:{port}/mcp"
    with h.serve_http([tree["high"]], port, host=host):
        async with httpx2.AsyncClient(timeout=30) as http:
            ok = await http.post(url, json=INIT, headers=HEADERS)
            assert ok.status_code == 200, ok.text
            same_origin = {**HEADERS, "Origin": f"http://{literal}:{port}"}
            assert (await http.post(url, json=INIT, headers=same_origin)).status_code == 200
            for bad_host in ("attacker.example", f"attacker.example:{port}", "127.0.0.1.nip.io"):
                rebound = {**HEADERS, "Host": bad_host}
                got = await http.post(url, json=INIT, headers=rebound)
                assert got.status_code == 421, (bad_host, got.status_code)
            for origin in ("http://attacker.example", f"http://attacker.example:{port}", "null"):
                foreign = {**HEADERS, "Origin": origin}
                got = await http.post(url, json=INIT, headers=foreign)
                assert got.status_code == 403, (origin, got.status_code)


def test_allowed_hosts_cover_every_loopback_spelling() -> None:
    hosts = rebinding_settings("127.0.0.2").allowed_hosts
    for name in ("127.0.0.2", "127.0.0.1", "localhost", "localhost.", "[::1]"):
        assert name in hosts and f"{name}:*" in hosts
    assert "attacker.example" not in hosts
    six = rebinding_settings("0:0:0:0:0:0:0:1").allowed_hosts
    assert "[0:0:0:0:0:0:0:1]:*" in six and "[::1]:*" in six
    assert rebinding_settings("LOCALHOST.").allowed_hosts[:2] == ["localhost.", "localhost.:*"]


async def test_loopback_with_a_token_still_checks_the_host(tree: dict[str, Path], h: Any) -> None:
    port = h.free_port()
    env = {"SKILLDECK_MCP_TOKEN": "t0ken-t0ken"}
    with h.serve_http([tree["high"]], port, env=env, host="127.0.0.3"):
        url = f"http://127.0.0.3:{port}/mcp"
        headers = {**HEADERS, "Authorization": "Bearer t0ken-t0ken"}
        async with httpx2.AsyncClient(timeout=30) as http:
            assert (await http.post(url, json=INIT, headers=headers)).status_code == 200
            rebound = {**headers, "Host": "attacker.example"}
            assert (await http.post(url, json=INIT, headers=rebound)).status_code == 421
