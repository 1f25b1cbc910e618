"""MCP server benchmark: start-up, ``skills/list`` of N skills, ``skills_load``, sessions.

Usage::

    python bench/mcp.py [--skills 2000] [--repeat 5] [--json]
    python bench/mcp.py --startup [--skills 2000] [--repeat 3]
    python bench/mcp.py --sessions 1000

``--startup``: from spawning the server (stdio, a fresh process) to the first
complete ``skills/list`` (every page) of N real skills copied from
``../shared/corpus`` (generated ones when it is absent), cold (empty caches) and
warm (the caches of a previous start), in interleaved rounds; next to the floor
(the interpreter importing the MCP SDK and exiting) and agentskills-mcp-server
started over stdio on the same folders.

``--sessions N``: a ``serve --transport http`` process with a 5 s session
timeout; N clients each open a session (handshake era, ``Mcp-Session-Id``) and
load a skill, then go silent. Reports the server's RSS before, with N open
sessions and after they idled out, twice: a second round that does not grow the
RSS shows the first round's memory was freed. A new client is served after each.

Generates N skill folders (a SKILL.md and one reference file each), then reports
the best (minimum) of ``--repeat`` runs, as the other benchmarks do:

- ``index``: building the server's snapshot (catalog scan, file index, digests) cold;
- ``rescan``: ``SkillServer.refresh()`` when nothing changed (what a watch event costs);
- ``list``: a full ``skills/list`` (every page, 100 entries each):
  ``server`` = time inside the server's request pipeline plus the JSON encoding of
  the result (a timing middleware; the sum over the pages), ``in-memory`` = round
  trip through the SDK's in-process client, ``stdio`` = round trip to a
  ``skilldeck serve`` subprocess;
- ``skills_load``: one ``tools/call`` of ``skills_load``, the same three ways.

Side by side: agentskills-mcp-server (which needs Python 3.12) serving the same
folders, measured the same way in its own interpreter. Point
``SKILLDECK_BENCH_AGENTSKILLS_PYTHON`` at a Python 3.12 that has
``agentskills-mcp-server`` and ``agentskills-fs`` installed (else ``python3.12`` on
PATH is tried); without one that column says why it is missing. It serves no
tools, so its ``skills_load`` column is empty.

Target (issue 7): a full ``skills/list`` of 2,000 skills in <= 50 ms server-side.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# This file is named like the SDK's package: keep its folder off the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp_types import PaginatedRequestParams  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402

from skilldeck.mcp import ListSkillsRequest, create_server  # noqa: E402

TARGET_LIST_SERVER_MS = 50.0


def make_skills(root: Path, n: int) -> None:
    for i in range(n):
        folder = root / f"skill-{i:05d}"
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:05d}\ndescription: Generated skill number {i}; use it for "
            f"task {i} when the user asks about topic {i % 97}.\nlicense: MIT\n"
            f"metadata:\n  version: '1.{i % 10}'\n---\n\n# Skill {i}\n\n"
            + "Follow these steps carefully.\n"
            * 20,
            encoding="utf-8",
        )
        (folder / "references" / "guide.md").write_text(f"Guide {i}\n" * 40, encoding="utf-8")


class Timer:
    """A server middleware that records how long each request spends in the server."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        started = time.perf_counter()
        result = await call_next(ctx)
        json.dumps(result)  # the wire encoding is server work too
        self.times.setdefault(ctx.method, []).append(time.perf_counter() - started)
        return result

    def take(self, method: str) -> float:
        return sum(self.times.pop(method, []))


_RAW: TypeAdapter[dict[str, Any]] = TypeAdapter(dict)


async def list_all(client: Client) -> int:
    """Page through skills/list; results stay plain JSON (as in the agentskills run)."""
    cursor: str | None = None
    count = 0
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        raw = await client.session.send_request(ListSkillsRequest(params=params), _RAW)
        count += len(raw["skills"])
        cursor = raw.get("nextCursor")
        if cursor is None:
            return count


async def timed(fn: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    started = time.perf_counter()
    value = await fn()
    return time.perf_counter() - started, value


def best_ms(values: list[float]) -> float:
    """The minimum: on a shared machine the least-disturbed run is the best estimate."""
    return round(min(values) * 1000, 2)


async def bench_skilldeck(root: Path, n: int, repeat: int) -> dict[str, Any]:
    started = time.perf_counter()
    server = create_server(roots=[root], cache_ttl_ms=0)
    index_s = time.perf_counter() - started
    timer = Timer()
    server.middleware.append(timer)
    out: dict[str, Any] = {"index_ms": round(index_s * 1000, 1)}
    refresh_s = []
    for _ in range(repeat):
        elapsed, changed = await timed(server.refresh)
        assert not changed
        refresh_s.append(elapsed)
    out["refresh_ms"] = best_ms(refresh_s)
    target = f"skill-{n // 2:05d}"
    server_list, rt_list, server_load, rt_load = [], [], [], []
    async with Client(server) as client:
        assert await list_all(client) == n
        await client.call_tool("skills_load", {"name": target})
        timer.times.clear()
        for _ in range(repeat):
            elapsed, count = await timed(lambda: list_all(client))
            assert count == n
            rt_list.append(elapsed)
            server_list.append(timer.take("skills/list"))
            elapsed, result = await timed(lambda: client.call_tool("skills_load", {"name": target}))
            assert result.structured_content["ok"]
            rt_load.append(elapsed)
            server_load.append(timer.take("tools/call"))
    out["list_server_ms"] = best_ms(server_list)
    out["list_inmemory_ms"] = best_ms(rt_list)
    out["load_server_ms"] = best_ms(server_load)
    out["load_inmemory_ms"] = best_ms(rt_load)

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "skilldeck", "serve", "--no-watch", "--root", str(root)],
        env=dict(os.environ),
    )
    stdio_list, stdio_load = [], []
    async with Client(params) as client:
        await list_all(client)
        for _ in range(repeat):
            elapsed, _count = await timed(lambda: list_all(client))
            stdio_list.append(elapsed)
            elapsed, _res = await timed(lambda: client.call_tool("skills_load", {"name": target}))
            stdio_load.append(elapsed)
    out["list_stdio_ms"] = best_ms(stdio_list)
    out["load_stdio_ms"] = best_ms(stdio_load)
    return out


# Run by a Python 3.12 interpreter that has agentskills-mcp-server: builds that server
# over the same folders and times a full skills/list the same way (server and in-memory).
_AGENTSKILLS = r"""
import asyncio, json, sys, time
from mcp import Client
from mcp_types import PaginatedRequestParams, Request
from agentskills_core import Skill
from agentskills_fs import LocalFileSystemSkillProvider
from agentskills_mcp_server import create_mcp_server
from pydantic import TypeAdapter

RAW = TypeAdapter(dict)

root, n, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
times = {}

async def timer(ctx, call_next):
    t = time.perf_counter()
    result = await call_next(ctx)
    json.dumps(result)  # the wire encoding is server work too
    times.setdefault(ctx.method, []).append(time.perf_counter() - t)
    return result

async def main():
    from pathlib import Path
    t = time.perf_counter()
    provider = LocalFileSystemSkillProvider(Path(root))
    handles = [Skill(i, provider) for i in await provider.discover()]
    server = await create_mcp_server(handles, max_skills=max(n, 1), page_size=100)
    index_ms = (time.perf_counter() - t) * 1000
    server.middleware.append(timer)

    async def list_all(client):
        cursor, count = None, 0
        while True:
            params = {"cursor": cursor} if cursor else {}
            raw = await client.session.send_request(
                Request[dict, str](method="skills/list", params=params), RAW
            )
            count += len(raw["skills"])
            cursor = raw.get("nextCursor")
            if not cursor:
                return count

    server_list, rt_list = [], []
    async with Client(server) as client:
        assert await list_all(client) == n
        times.clear()
        for _ in range(repeat):
            t = time.perf_counter()
            assert await list_all(client) == n
            rt_list.append(time.perf_counter() - t)
            server_list.append(sum(times.pop("skills/list", [])))
    ms = lambda v: round(min(v) * 1000, 2)
    print(json.dumps({"index_ms": round(index_ms, 1), "list_server_ms": ms(server_list),
                      "list_inmemory_ms": ms(rt_list)}))

asyncio.run(main())
"""


def find_agentskills_python() -> tuple[str | None, str]:
    candidates = [os.environ.get("SKILLDECK_BENCH_AGENTSKILLS_PYTHON"), shutil.which("python3.12")]
    for python in filter(None, candidates):
        probe = subprocess.run(
            [
                python,
                "-c",
                "import agentskills_mcp_server, agentskills_fs, sys; print(sys.version)",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0:
            return python, probe.stdout.strip()
    return None, (
        "agentskills-mcp-server needs Python 3.12; set SKILLDECK_BENCH_AGENTSKILLS_PYTHON to a "
        "3.12 interpreter with agentskills-mcp-server and agentskills-fs installed"
    )


def bench_agentskills(root: Path, n: int, repeat: int) -> dict[str, Any]:
    python, info = find_agentskills_python()
    if python is None:
        return {"available": False, "reason": info}
    run = subprocess.run(
        [python, "-c", _AGENTSKILLS, str(root), str(n), str(repeat)],
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    if run.returncode != 0:
        return {"available": False, "reason": run.stderr.strip().splitlines()[-1:]}
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    result.update(available=True, python=info.split()[0])
    return result


REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"


def _corpus_name(md: Path) -> str | None:
    """The skill's name when its frontmatter is one every server accepts, else ``None``."""
    import re

    import yaml

    text = md.read_text(encoding="utf-8", errors="replace")
    if not text.startswith("---\n"):
        return None
    try:
        data = yaml.safe_load(text.split("\n---", 1)[0][4:])
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    description = data.get("description")
    if not isinstance(description, str) or not 0 < len(description.strip()) <= 1024:
        return None  # agentskills-mcp-server applies the specification strictly
    if (
        not isinstance(data.get("compatibility", ""), str)
        or len(data.get("compatibility", "")) > 500
    ):
        return None
    try:
        json.dumps(data)  # agentskills-mcp-server refuses dates and other YAML-only types
    except (TypeError, ValueError):
        return None
    if not isinstance(data.get("allowed-tools", ""), str):
        return None  # ... a YAML list of allowed tools
    meta = data.get("metadata", {})
    if not isinstance(meta, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in meta.items()
    ):
        return None  # ... and metadata that is not string to string
    name = data.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name):
        return None
    return name if len(name) <= 64 else None


def copy_corpus(root: Path, n: int) -> int:
    """Copy up to ``n`` real skill folders from the corpus, each under its own name
    (links kept as links): the skills whose frontmatter every compared server accepts."""
    root.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    for md in sorted(CORPUS.rglob("SKILL.md")) if CORPUS.is_dir() else []:
        name = _corpus_name(md)
        if name is None or name in taken:
            continue
        taken.add(name)
        shutil.copytree(md.parent, root / name, symlinks=True)
        if len(taken) >= n:
            break
    return len(taken)


def _stdio(args: list[str], env: dict[str, str]) -> StdioServerParameters:
    return StdioServerParameters(command=args[0], args=args[1:], env=env)


async def start_to_list(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Seconds from spawning a stdio server to the end of its first full skills/list."""
    started = time.perf_counter()
    async with Client(_stdio(args, env)) as client:
        count = await list_all(client)
        elapsed = time.perf_counter() - started
    return elapsed, count


def _floor_s() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp.server.mcpserver"], check=True)
    return time.perf_counter() - started


def agentskills_command(root: Path) -> tuple[list[str] | None, str]:
    python, info = find_agentskills_python()
    if python is None:
        return None, info
    code = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from agentskills_core import Skill\n"
        "from agentskills_fs import LocalFileSystemSkillProvider\n"
        "from agentskills_mcp_server import create_mcp_server\n"
        "async def build():\n"
        "    p = LocalFileSystemSkillProvider(Path(sys.argv[1]))\n"
        "    hs = [Skill(i, p) for i in await p.discover()]\n"
        "    return await create_mcp_server(hs, max_skills=100000, page_size=100)\n"
        "asyncio.run(build()).run('stdio')\n"
    )
    return [python, "-c", code, str(root)], info


def bench_startup(n: int, repeat: int) -> dict[str, Any]:
    """Start to first complete skills/list, cold and warm, in fresh processes."""
    tmp = Path(tempfile.mkdtemp(prefix="skilldeck-bench-start-"))
    try:
        root = tmp / "skills"
        copied = copy_corpus(root, n)
        origin = f"{copied} corpus skills"
        if copied == 0:
            make_skills(root, n)
            origin = f"{n} generated skills (no corpus)"
        home = tmp / "home"
        env = {**os.environ, "SKILLDECK_HOME": str(home)}
        ours = [sys.executable, "-m", "skilldeck", "serve", "--no-watch", "--root", str(root)]
        theirs, why = agentskills_command(root)
        cold, warm, peer, floor = [], [], [], []
        served = 0
        for _ in range(repeat):  # interleaved rounds
            floor.append(_floor_s())
            shutil.rmtree(home, ignore_errors=True)
            elapsed, served = anyio.run(start_to_list, ours, env)
            cold.append(elapsed)
            elapsed, _count = anyio.run(start_to_list, ours, env)
            warm.append(elapsed)
            if theirs is not None:
                elapsed, _count = anyio.run(start_to_list, theirs, dict(os.environ))
                peer.append(elapsed)
        out: dict[str, Any] = {
            "skills": origin,
            "served": served,
            "floor_ms": best_ms(floor),
            "cold_ms": best_ms(cold),
            "warm_ms": best_ms(warm),
        }
        if peer:
            out["agentskills_ms"] = best_ms(peer)
        else:
            out["agentskills"] = why
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_HTTP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
}


def _rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def _open_session(http: Any, url: str, skill: str) -> str:
    """Handshake, then load a skill; returns the Mcp-Session-Id (left open, silent)."""
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    response = await http.post(url, json=init, headers=_HTTP_HEADERS)
    session = response.headers["mcp-session-id"]
    headers = {**_HTTP_HEADERS, "Mcp-Session-Id": session}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    await http.post(url, json=note, headers=headers)
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "skills_load", "arguments": {"name": skill}},
    }
    loaded = await http.post(url, json=call, headers=headers)
    assert '"ok":true' in loaded.text.replace(" ", ""), loaded.text[:300]
    return session


def bench_sessions(count: int, timeout_s: float = 5.0) -> dict[str, Any]:
    import httpx2

    tmp = Path(tempfile.mkdtemp(prefix="skilldeck-bench-sessions-"))
    root = tmp / "skills"
    make_skills(root, 50)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    env = {**os.environ, "SKILLDECK_HOME": str(tmp / "home")}
    cmd = [sys.executable, "-m", "skilldeck", "serve", "--transport", "http", "--no-watch"]
    cmd += ["--port", str(port), "--root", str(root), "--session-timeout", str(timeout_s)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)

        async def run() -> dict[str, Any]:
            out: dict[str, Any] = {"sessions": count, "session_timeout_s": timeout_s}
            limits = httpx2.Limits(max_connections=20)
            async with httpx2.AsyncClient(timeout=60, limits=limits) as http:
                await _open_session(http, url, "skill-00000")  # warm the server up
                await anyio.sleep(timeout_s + 2)
                out["rss_before_kib"] = _rss_kib(proc.pid)
                gate = anyio.Semaphore(20)

                async def one(i: int) -> None:
                    async with gate:
                        await _open_session(http, url, f"skill-{i % 50:05d}")

                # a second round shows the first round's memory was freed and reused
                for round_ in ("", "_2"):
                    started = time.perf_counter()
                    async with anyio.create_task_group() as tg:
                        for i in range(count):
                            tg.start_soon(one, i)
                    out["open_s" + round_] = round(time.perf_counter() - started, 2)
                    out["rss_open_kib" + round_] = _rss_kib(proc.pid)
                    await anyio.sleep(timeout_s * 2 + 2)
                    await _open_session(http, url, "skill-00001")  # still served afterwards
                    out["rss_after_idle_kib" + round_] = _rss_kib(proc.pid)
            per = (out["rss_open_kib"] - out["rss_before_kib"]) / max(count, 1)
            out["kib_per_open_session"] = round(per, 1)
            return out

        return anyio.run(run)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--startup", action="store_true", help="start to first skills/list")
    parser.add_argument("--sessions", type=int, default=0, help="open N sessions, idle out")
    args = parser.parse_args()
    if args.startup or args.sessions:
        result: dict[str, Any] = {}
        if args.startup:
            result["startup"] = bench_startup(args.skills, min(args.repeat, 5))
        if args.sessions:
            result["sessions"] = bench_sessions(args.sessions)
        print(json.dumps(result, indent=2))
        return

    tmp = Path(tempfile.mkdtemp(prefix="skilldeck-bench-mcp-"))
    os.environ.setdefault("SKILLDECK_HOME", str(tmp / "home"))
    try:
        root = tmp / "skills"
        make_skills(root, args.skills)
        ours = anyio.run(bench_skilldeck, root, args.skills, args.repeat)
        theirs = bench_agentskills(root, args.skills, args.repeat)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    report = {"skills": args.skills, "skilldeck": ours, "agentskills_mcp_server": theirs}
    report["target_list_server_ms"] = TARGET_LIST_SERVER_MS
    report["target_met"] = ours["list_server_ms"] <= TARGET_LIST_SERVER_MS
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"MCP server, {args.skills} skills (best of {args.repeat})")
    rows = [
        ("index build (cold)", "index_ms"),
        ("rescan, nothing changed", "refresh_ms"),
        ("skills/list, all pages: server", "list_server_ms"),
        ("skills/list, all pages: in-memory round trip", "list_inmemory_ms"),
        ("skills/list, all pages: stdio round trip", "list_stdio_ms"),
        ("skills_load: server", "load_server_ms"),
        ("skills_load: in-memory round trip", "load_inmemory_ms"),
        ("skills_load: stdio round trip", "load_stdio_ms"),
    ]
    print(f"{'':46} {'skilldeck':>12} {'agentskills':>12}")
    for label, key in rows:
        other = theirs.get(key, "-") if theirs.get("available") else "-"
        print(f"{label:46} {ours[key]:>10} ms {other!s:>9} ms")
    if not theirs.get("available"):
        print(f"agentskills-mcp-server: not run ({theirs['reason']})")
    verdict = "met" if report["target_met"] else "MISSED"
    print(f"target: skills/list <= {TARGET_LIST_SERVER_MS:.0f} ms server-side: {verdict}")


if __name__ == "__main__":
    main()
