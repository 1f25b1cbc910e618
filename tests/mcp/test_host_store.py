"""A host's own store with exactly the documented methods, served over MCP through
the official SDK client: listed with digests, readable, its tools working."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from tests._skills import HostStore

from skilldeck import Catalog, Source
from skilldeck.mcp import create_server

pytestmark = pytest.mark.anyio

SKILL_MD = "---\nname: notes\ndescription: Takes notes. Use for host store tests.\n---\n# Notes\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_host_store_is_published_and_served(h: Any) -> None:
    store = HostStore({"notes": (SKILL_MD, {"references/style.md": b"be brief\n"})})
    catalog = Catalog([Source("host", "extra", store=store)], cache=False)
    server = create_server(catalog=catalog)
    async with Client(server) as client:
        entries, _ = await h.list_all(client)
        (entry,) = entries
        assert entry.uri == "skill://notes/SKILL.md"
        files = await h.verify_entry(client, entry)  # sizes and digests match the bytes
        assert files["skill://notes/references/style.md"] == b"be brief\n"
        assert files[entry.uri].decode().endswith("# Notes\n")

        loaded = await client.call_tool("skills_load", {"name": "notes"})
        assert loaded.structured_content["ok"] is True
        assert loaded.structured_content["data"]["digest"] == catalog.digest("notes")
        read = await client.call_tool(
            "skills_read_file", {"name": "notes", "path": "references/style.md"}
        )
        assert read.structured_content["data"]["content"] == "be brief\n"
