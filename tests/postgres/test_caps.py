"""What one tenant's client can make a shared replica send or hold is capped: a prompt
whose body repeats its argument, and completions of a skill with many files, against a
real ``serve --store`` replica (the replica serves every tenant, so a cap missing here
lets one tenant exhaust it for all)."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import ResourceTemplateReference

from skilldeck.postgres import PostgresStore, create_tenant

from ._util import make_skill
from .test_replicas import replica

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def test_a_tenant_cannot_inflate_prompts_or_completions(
    store_url: str, tmp_path: Path
) -> None:
    token = create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    store.publish(make_skill(tmp_path, "echo", body="$0 " * 1500))
    files = {f"references/f{i:03d}.md": f"{i}\n" for i in range(150)}
    store.publish(make_skill(tmp_path, "wide", files=files))
    store.db.close()
    with replica(store_url) as (proc, url):
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            small = await client.get_prompt("echo", {"arguments": "hi"})
            assert str(small.messages[0].content.text).count("hi") == 1500  # type: ignore[union-attr]
            before = _rss_mb(proc.pid)
            for _ in range(3):  # 1,500 x 64 KiB would be a 94 MiB answer each time
                with pytest.raises(MCPError, match="KiB") as refused:
                    await client.get_prompt("echo", {"arguments": "x" * 64 * 1024})
                assert refused.value.error.data["code"] == "INVALID_ARGUMENTS"
                assert refused.value.error.data["hint"] == "pass shorter arguments"
            assert _rss_mb(proc.pid) - before < 50
            ref = ResourceTemplateReference(type="ref/resource", uri="skill://{skill}/{+path}")
            got = await client.complete(
                ref, {"name": "path", "value": "references/"}, context_arguments={"skill": "wide"}
            )
            assert len(got.completion.values) == 100
            assert got.completion.has_more and got.completion.total == 150
            # the replica still answers the tenant
            assert (await client.get_prompt("echo", {"arguments": "ok"})).messages
