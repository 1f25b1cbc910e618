"""The tenant router in-process: idle tenants are dropped and come back on demand."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from skilldeck.postgres import PostgresStore, create_tenant
from skilldeck.postgres._serve import TenantRouter

from ._util import make_skill

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


async def test_idle_tenants_are_dropped_and_rebuilt(store_url: str, tmp_path: Path) -> None:
    token = create_tenant(store_url, "acme")
    PostgresStore(store_url, "acme").publish(make_skill(tmp_path, "alpha"))
    router = TenantRouter(store_url, server_options={"session_timeout": 60.0})
    to_app, app_inbox = anyio.create_memory_object_stream[dict[str, Any]](4)
    app_outbox, from_app = anyio.create_memory_object_stream[dict[str, Any]](4)
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
    }

    async def post(http: httpx2.AsyncClient) -> int:
        response = await http.post("http://127.0.0.1/mcp", json=_INIT, headers=headers)
        return response.status_code

    async with to_app, app_inbox, app_outbox, from_app, anyio.create_task_group() as tg:
        tg.start_soon(router, {"type": "lifespan"}, app_inbox.receive, app_outbox.send)
        await to_app.send({"type": "lifespan.startup"})
        assert (await from_app.receive())["type"] == "lifespan.startup.complete"
        transport = httpx2.ASGITransport(app=router)
        async with httpx2.AsyncClient(transport=transport, timeout=60) as http:
            assert await post(http) == 200
            assert list(router._tenants) == ["acme"]
            assert router.reap() == []  # just used
            assert router.reap(time.monotonic() + 61) == ["acme"]
            assert router._tenants == {}
            assert await post(http) == 200  # built again on demand
            assert list(router._tenants) == ["acme"]
            bad = await http.post(
                "http://127.0.0.1/mcp", json=_INIT, headers={"Authorization": "Bearer x"}
            )
            assert bad.status_code == 401
            for hostile in (
                "Bearer " + "x" * 100_000,
                "Basic " + token,
                token,
                "Bearer ",
                "Bearer \u00ff\u00fe",
                f"Bearer {token}\u00e9",
            ):
                got = await http.post(
                    "http://127.0.0.1/mcp",
                    json=_INIT,
                    headers={"Authorization": hostile.encode("utf-8")},
                )
                assert got.status_code == 401, hostile[:20]
            assert list(router._tenants) == ["acme"]
        await to_app.send({"type": "lifespan.shutdown"})
        assert (await from_app.receive())["type"] == "lifespan.shutdown.complete"
