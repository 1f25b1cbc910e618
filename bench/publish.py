"""Publish latency: from a publish's commit to ``list_changed`` at a client, with
``--skills`` skills in the tenant, and the memory one tenant costs a replica.

Usage::

    python bench/publish.py [--skills 10000] [--publishes 10] [--replicas 1] [--json]

A private PostgreSQL (as ``bench/scale.py`` starts it) is seeded with one tenant of
``--skills`` real corpus skills. ``--replicas`` ``skilldeck serve --store`` replicas
run in fresh processes; one MCP SDK client (streamable HTTP) is connected to each.
Each of ``--publishes`` publishes (alternately a new skill and a new version of the
previous one) is timed from its commit to ``notifications/resources/list_changed``
at the last of the clients; the next publish waits until then.

Memory: the replica's RSS before the tenant's first request and after it (the
tenant's catalog, store snapshot and MCP index), and, in a separate fresh
process, what building the MCP server for the tenant allocates
(``tracemalloc``: the MCP index and prompts, on top of the loaded catalog).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # bench/mcp.py
_spec = importlib.util.spec_from_file_location("bench_scale", HERE / "scale.py")
assert _spec is not None and _spec.loader is not None
scale: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scale)


def index_memory(url: str, tenant: str) -> dict[str, float]:
    """MB allocated by building the tenant's MCP server over an already loaded catalog."""
    from skilldeck.mcp import create_server
    from skilldeck.postgres import PostgresStore, store_catalog

    store = PostgresStore(url, tenant)
    catalog = store_catalog(store)
    catalog.entries()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    started = time.perf_counter()
    server = create_server(catalog, snapshot_cache=False)
    built = time.perf_counter() - started
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert len(server.index.skills) > 0
    return {"mcp_index_mb": round((after - before) / 2**20, 1), "build_s": round(built, 2)}


async def latencies(
    url: str, replicas: list[str], token: str, tenant: str, publishes: int, tmp: Path
) -> list[float]:
    import anyio
    import anyio.to_thread
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import ResourceListChangedNotification

    from skilldeck.mcp import ListSkillsRequest, ListSkillsResult
    from skilldeck.postgres import PostgresStore

    got = anyio.Event()
    seen: dict[int, float] = {}
    ready = anyio.Event()
    done = anyio.Event()
    connected = 0

    async def watch(n: int, replica: str) -> None:
        nonlocal connected

        async def on_message(message: Any) -> None:
            if isinstance(message, ResourceListChangedNotification):
                seen.setdefault(n, time.monotonic())
                if len(seen) == len(replicas):
                    got.set()

        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=600) as http,
            Client(
                streamable_http_client(replica, http_client=http),
                mode="legacy",
                message_handler=on_message,
            ) as client,
        ):
            await client.session.send_request(ListSkillsRequest(), ListSkillsResult)
            connected += 1
            if connected == len(replicas):
                ready.set()
            await done.wait()

    store = PostgresStore(url, tenant)
    out: list[float] = []
    async with anyio.create_task_group() as tg:
        for n, replica in enumerate(replicas):
            tg.start_soon(watch, n, replica)
        await ready.wait()
        await anyio.sleep(0.5)
        for i in range(publishes):
            name = f"bench-published-{i // 2}"
            folder = tmp / f"{name}-{i}"
            folder.mkdir()
            (folder / "SKILL.md").write_text(
                f"---\nname: {name}\ndescription: Published during the benchmark ({i}).\n"
                f"---\n\nVersion {i}.\n"
            )
            got = anyio.Event()
            seen.clear()
            await anyio.to_thread.run_sync(lambda f=folder: store.publish(f, scan="off"))
            committed = time.monotonic()
            with anyio.move_on_after(60):
                await got.wait()
            last = max(seen.values()) if len(seen) == len(replicas) else float("inf")
            out.append(round(last - committed, 3))
            await anyio.sleep(1.0)
        done.set()
    return out


def main() -> None:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--publishes", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--index-memory", nargs=2, metavar=("URL", "TENANT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.index_memory:
        print(json.dumps(index_memory(*args.index_memory)))
        return
    texts = scale.corpus_texts()
    results: dict[str, Any] = {"skills": args.skills, "replicas": args.replicas}
    with scale.postgres() as url:
        tokens = scale.seed(url, 1, args.skills, texts)
        tenant, token = next(iter(tokens.items()))
        child = subprocess.run(
            [sys.executable, __file__, "--index-memory", url, tenant],
            capture_output=True,
            text=True,
            check=True,
        )
        results.update(json.loads(child.stdout.strip().splitlines()[-1]))
        with contextlib.ExitStack() as stack:
            served = [
                stack.enter_context(scale.serve(["--store", url])) for _ in range(args.replicas)
            ]
            replicas = [u for u, _pid in served]
            pid = served[0][1]
            idle = scale.rss_mb(pid)
            started = time.perf_counter()
            for replica in replicas:
                anyio.run(scale.one_warm, (replica, token), {"warmup": []})
            results["tenant_load_s"] = round((time.perf_counter() - started) / len(replicas), 2)
            results["rss_idle_mb"] = idle
            results["rss_tenant_mb"] = scale.rss_mb(pid)
            with tempfile.TemporaryDirectory(prefix="skilldeck-bench-pub-") as tmp:
                lat = anyio.run(latencies, url, replicas, token, tenant, args.publishes, Path(tmp))
            results["publish_to_list_changed_s"] = lat
            results["rss_after_mb"] = scale.rss_mb(pid)
    lat = sorted(results["publish_to_list_changed_s"])
    results["p50_s"] = lat[len(lat) // 2]
    results["max_s"] = lat[-1]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{args.skills} skills, {args.replicas} replica(s), {args.publishes} publishes")
    print(f"publish -> list_changed: p50 {results['p50_s']} s, max {results['max_s']} s")
    print(f"  each: {results['publish_to_list_changed_s']}")
    print(
        f"replica RSS: {results['rss_idle_mb']} MB idle, {results['rss_tenant_mb']} MB with the "
        f"tenant (loaded in {results['tenant_load_s']} s), {results['rss_after_mb']} MB after"
    )
    print(
        f"MCP server build over the loaded catalog: {results['mcp_index_mb']} MB allocated, "
        f"{results['build_s']} s"
    )


if __name__ == "__main__":
    main()
