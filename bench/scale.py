"""Scale benchmark: skills/list and resources/read against 1, 2, 3 ``serve --store``
replicas on one PostgreSQL, next to one ``serve --root`` on the filesystem store.

Usage::

    python bench/scale.py [--skills 10000] [--tenants 10] [--replicas 1,2,3]
                          [--clients 10] [--requests 40] [--json]

A private PostgreSQL (initdb + pg_ctl on a Unix socket, as the ``postgres`` user
when run as root) is seeded with ``--tenants`` tenants of ``--skills`` skills each:
real SKILL.md files sampled from ``../shared/corpus``, their ``name:`` rewritten,
written with one bulk transaction per tenant (the rows ``publish`` writes). The
filesystem contender is a root of the same ``--skills`` folders served by one
replica. Every replica is a fresh ``skilldeck serve`` process on 127.0.0.1; the
clients are the official MCP SDK over streamable HTTP. Each client (tenants and
replicas assigned round robin) sends ``--requests`` ``skills/list`` (first page)
and as many ``resources/read`` of a random skill's SKILL.md. The first request of
each tenant on each replica (building that tenant's index) is timed apart as
"warm-up". Printed: p50 / p99 in ms per operation, requests per second, each
replica's RSS (idle before any request, and after the run: the difference over
the tenants is the memory one tenant costs a replica), and the seconds from a
publish, then from unpublishing that skill, to ``list_changed`` on every replica.

``--warmup`` measures instead what one tenant's warm-up costs a replica in CPU:
one tenant of ``--skills`` skills (with ``--with-files``, each a whole corpus skill
folder: SKILL.md and its bundled files) is seeded, then, in fresh processes, rounds
interleaved (``--rounds``, min and median printed): the catalog's first scan of the
tenant (``load``) and building the tenant's MCP server on it (``index``), CPU time of
the replica process only, next to the same skills served from a folder (``--root``,
the in-process peer: its index build reads and hashes the files).

``--churn SECONDS`` measures search under publish churn: one tenant of ``--skills``
corpus skills, one replica, ``--clients`` clients each calling ``skills_search`` (a
random corpus word pair) in a loop; first SECONDS without publishes (the baseline),
then SECONDS with a new version of a random skill published every second. Printed per
phase: searches, search p50 / p99 / max, errors, the replica's RSS at the start and
end of the phase and its CPU seconds, and how many publishes were made; and, side by
side for the two phases, every ``--window`` seconds (default 60): the searches that
ended in that window, their p99 and the replica's RSS at its end. Extra replica
environment (``--replica-env NAME=VALUE``, repeatable) compares allocator settings.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import glob
import hashlib
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# bench/mcp.py would shadow the MCP SDK's package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
CORPUS = REPO.parent / "shared" / "corpus"


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def is_text(data: bytes) -> bool:
    """What publish records of a file: UTF-8 text without NUL."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in data


def skill_digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for rel, digest in sorted((r, sha(b)) for r, b in files.items()):
        h.update(f"{rel}\0{digest}\n".encode())
    return "sha256:" + h.hexdigest()


def corpus_texts(limit: int = 400) -> list[str]:
    from skilldeck.format import parse_skill_md

    texts = []
    for path in sorted(glob.glob(str(CORPUS / "**" / "SKILL.md"), recursive=True)):
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        if len(text) > 30_000:
            continue
        parsed = parse_skill_md(text)
        if parsed.ok and parsed.manifest is not None:
            texts.append(text)
        if len(texts) >= limit:
            break
    if not texts:
        sys.exit("no corpus skills found under ../shared/corpus")
    return texts


def corpus_folders(limit: int = 400) -> list[dict[str, bytes]]:
    """Whole corpus skill folders (SKILL.md and every non-hidden file, at most 200
    files of 1 MiB each), as ``relpath -> bytes``."""
    from skilldeck.format import parse_skill_md

    out = []
    for path in sorted(glob.glob(str(CORPUS / "**" / "SKILL.md"), recursive=True)):
        folder = Path(path).parent
        md = Path(path).read_bytes()
        if len(md) > 30_000 or not parse_skill_md(md).ok:
            continue
        files = {"SKILL.md": md}
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for fn in sorted(filenames):
                full = Path(dirpath) / fn
                rel = full.relative_to(folder).as_posix()
                if fn.startswith(".") or rel == "SKILL.md" or full.is_symlink():
                    continue
                if full.is_file() and full.stat().st_size <= 1 << 20 and len(files) < 200:
                    files[rel] = full.read_bytes()
        out.append(files)
        if len(out) >= limit:
            break
    if not out:
        sys.exit("no corpus skills found under ../shared/corpus")
    return out


def renamed(text: str, name: str) -> str:
    return re.sub(r"(?m)^name:.*$", f"name: {name}", text, count=1)


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or [
        p for p in [shutil.which("initdb")] if p
    ]
    if not found:
        sys.exit("PostgreSQL is not installed (apt-get install postgresql)")
    bindir = Path(found[-1]).parent
    prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    folder = Path(tempfile.mkdtemp(prefix="skilldeck-bench-pg-"))
    os.chmod(folder, 0o755)
    sock = folder / "sock"
    sock.mkdir()
    if prefix:
        shutil.chown(folder, "postgres")
        shutil.chown(sock, "postgres")
    data = folder / "data"
    subprocess.run(
        [
            *prefix,
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-U",
            "skilldeck",
            "-A",
            "trust",
            "--no-sync",
        ],
        check=True,
        capture_output=True,
    )
    opts = f"-k {sock} -c listen_addresses='' -c max_connections=300 -c shared_buffers=256MB"
    subprocess.run(
        [
            *prefix,
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            opts,
            "-l",
            str(folder / "log"),
            "-w",
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql:///postgres?host={sock}&user=skilldeck"
    finally:
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(folder, ignore_errors=True)


#: corpus SKILL.md texts (``corpus_texts``) or whole folders (``corpus_folders``)
Corpus = Sequence[str | dict[str, bytes]]


def skill_files(folders: Corpus, i: int, t: int = 0) -> dict[str, bytes]:
    """Skill ``i``'s files (tenant ``t``): a corpus SKILL.md or folder, ``name:`` rewritten."""
    got = folders[(i * 7 + t) % len(folders)]
    files = {"SKILL.md": got.encode()} if isinstance(got, str) else dict(got)
    name = f"skill-{i:06d}"
    files["SKILL.md"] = renamed(files["SKILL.md"].decode("utf-8"), name).encode()
    return files


def seed(url: str, tenants: int, skills: int, folders: Corpus) -> dict[str, str]:
    from skilldeck.postgres import Database, create_tenant, init_store

    init_store(url)
    db = Database(url)
    with db.admin() as conn:  # the column publish writes since schema 3 (an older run: none)
        flag = conn.execute(
            "SELECT 1 FROM information_schema.columns WHERE table_name = "
            "'skilldeck_version_files' AND column_name = 'is_text'"
        ).fetchone()
    tokens = {}
    for t in range(tenants):
        tenant = f"tenant-{t:02d}"
        tokens[tenant] = create_tenant(db, tenant)
        blobs: dict[str, bytes] = {}
        versions = []
        for i in range(skills):
            files = skill_files(folders, i, t)
            blobs.update((sha(b), b) for b in files.values())
            versions.append((f"skill-{i:06d}", files))
        with db.tenant(tenant) as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO skilldeck_blobs (tenant, digest, size, data) VALUES (%s,%s,%s,%s) "
                "ON CONFLICT DO NOTHING",
                [(tenant, d, len(b), b) for d, b in blobs.items()],
            )
            for name, files in versions:
                cur.execute(
                    "INSERT INTO skilldeck_versions (tenant, name, digest) VALUES (%s,%s,%s) "
                    "RETURNING id",
                    (tenant, name, skill_digest(files)),
                )
                row = cur.fetchone()
                assert row is not None
                cur.executemany(
                    "INSERT INTO skilldeck_version_files (version_id, tenant, relpath, digest, "
                    f"size{', is_text' if flag else ''}) VALUES (%s,%s,%s,%s,%s"
                    f"{',%s' if flag else ''})",
                    [
                        (row[0], tenant, r, sha(b), len(b), *([is_text(b)] if flag else []))
                        for r, b in files.items()
                    ],
                )
    db.close()
    return tokens


def write_root(root: Path, skills: int, folders: Corpus) -> None:
    for i in range(skills):
        folder = root / f"skill-{i:06d}"
        for rel, data in skill_files(folders, i).items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(args: list[str], env: dict[str, str] | None = None) -> Iterator[tuple[str, int]]:
    port = free_port()
    cmd = [sys.executable, "-m", "skilldeck", "serve", "--transport", "http", "--port", str(port)]
    proc = subprocess.Popen(
        [*cmd, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    try:
        deadline = time.monotonic() + 600
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


async def publish_latency(
    url: str, replicas: list[str], token: str, tenant: str, tmp: Path, *, unpublish: bool = False
) -> list[float]:
    """Seconds from a publish's commit (or, with ``unpublish``, from taking that skill
    back) to list_changed on each replica's client."""
    import anyio
    import anyio.to_thread
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import ResourceListChangedNotification

    from skilldeck.mcp import ListSkillsRequest, ListSkillsResult
    from skilldeck.postgres import PostgresStore

    notified: dict[int, float] = {}
    ready = anyio.Event()
    done = anyio.Event()
    connected = 0

    async def watch(i: int, rep: str) -> None:
        nonlocal connected

        async def on_message(message: Any) -> None:
            if isinstance(message, ResourceListChangedNotification):
                notified.setdefault(i, time.monotonic())

        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=600) as http,
            Client(
                streamable_http_client(rep, http_client=http),
                mode="legacy",
                message_handler=on_message,
            ) as client,
        ):
            await client.session.send_request(ListSkillsRequest(), ListSkillsResult)
            connected += 1
            if connected == len(replicas):
                ready.set()
            await done.wait()

    folder = tmp / "bench-new-skill"
    folder.mkdir(exist_ok=True)
    (folder / "SKILL.md").write_text(
        "---\nname: bench-new-skill\ndescription: A skill published during the benchmark.\n"
        f"---\n\nPublished at {time.time()}.\n"
    )
    async with anyio.create_task_group() as tg:
        for i, rep in enumerate(replicas):
            tg.start_soon(watch, i, rep)
        await ready.wait()
        await anyio.sleep(0.5)
        store = PostgresStore(url, tenant)
        if unpublish:
            await anyio.to_thread.run_sync(lambda: store.unpublish("bench-new-skill"))
        else:
            await anyio.to_thread.run_sync(lambda: store.publish(folder, scan="off"))
        committed = time.monotonic()
        with anyio.move_on_after(120):
            while len(notified) < len(replicas):
                await anyio.sleep(0.005)
        done.set()
    return [round(notified.get(i, float("inf")) - committed, 3) for i in range(len(replicas))]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] * 1000 if s else float("nan")


async def drive(
    targets: list[tuple[str, str | None]], clients: int, requests: int, skills: int
) -> dict[str, Any]:
    """targets: (url, token) pairs, every one warmed first; client i then uses
    replica i % replicas and tenant i % tenants, so the clients are spread over both."""
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from skilldeck.mcp import ListSkillsRequest, ListSkillsResult

    times: dict[str, list[float]] = {"warmup": [], "skills/list": [], "resources/read": []}
    rng = random.Random(7)

    async def one(i: int) -> None:
        urls = sorted({u for u, _t in targets})
        tokens = sorted({t or "" for _u, t in targets})
        url, token = urls[i % len(urls)], tokens[i % len(tokens)] or None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=600) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            start = time.perf_counter()
            await client.session.send_request(ListSkillsRequest(), ListSkillsResult)
            times["warmup"].append(time.perf_counter() - start)
            for _ in range(requests):
                start = time.perf_counter()
                await client.session.send_request(ListSkillsRequest(), ListSkillsResult)
                times["skills/list"].append(time.perf_counter() - start)
                name = f"skill-{rng.randrange(skills):06d}"
                start = time.perf_counter()
                await client.read_resource(f"skill://{name}/SKILL.md")
                times["resources/read"].append(time.perf_counter() - start)

    # warm every (replica, tenant) first, one client each, so building is not mixed in
    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for i in range(len(targets)):
            tg.start_soon(one_warm, targets[i], times)
    warm = time.perf_counter() - started
    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for i in range(clients):
            tg.start_soon(one, i)
    wall = time.perf_counter() - started
    n = len(times["skills/list"]) + len(times["resources/read"])
    return {
        "warmup_s": round(warm, 2),
        "list_p50_ms": round(pct(times["skills/list"], 0.5), 1),
        "list_p99_ms": round(pct(times["skills/list"], 0.99), 1),
        "read_p50_ms": round(pct(times["resources/read"], 0.5), 1),
        "read_p99_ms": round(pct(times["resources/read"], 0.99), 1),
        "requests_per_s": round(n / wall, 1),
    }


async def one_warm(target: tuple[str, str | None], times: dict[str, list[float]]) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from skilldeck.mcp import ListSkillsRequest, ListSkillsResult

    url, token = target
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=900) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        await client.session.send_request(ListSkillsRequest(), ListSkillsResult)


def warm_child(kind: str, target: str) -> None:
    """One fresh process: load the catalog (``load``), then build the MCP server (``index``)."""
    from skilldeck.catalog import Catalog
    from skilldeck.mcp import create_server

    store: Any = None
    cpu0 = time.process_time()
    if kind == "postgres":
        from skilldeck.postgres import PostgresStore, store_catalog

        store = PostgresStore(target, "tenant-00")
        catalog = store_catalog(store)
    else:
        catalog = Catalog.from_roots([target], cache=False)
    catalog.entries()
    cpu1 = time.process_time()
    server = create_server(catalog, snapshot_cache=False)
    cpu2 = time.process_time()
    out = {
        "load": cpu1 - cpu0,
        "index": cpu2 - cpu1,
        "skills": len(server.index.skills),
        "files": len(server.index.files),
        "fetches": store.fetches if store is not None else 0,
    }
    print(json.dumps(out))


def warmup(args: argparse.Namespace) -> None:
    """``--warmup``: CPU of one tenant's warm-up, store against folder, fresh processes."""
    folders: Corpus = corpus_folders() if args.with_files else corpus_texts()
    runs: dict[str, list[dict[str, Any]]] = {"postgres store": [], "folder (--root)": []}
    with tempfile.TemporaryDirectory(prefix="skilldeck-bench-warm-") as tmp, postgres() as url:
        root = Path(tmp) / "skills"
        write_root(root, args.skills, folders)
        seed(url, 1, args.skills, folders)
        targets = {"postgres store": ("postgres", url), "folder (--root)": ("root", str(root))}
        for _ in range(args.rounds):
            for key, (kind, target) in targets.items():
                cmd = [sys.executable, __file__, "--child", kind, target]
                got = subprocess.run(cmd, check=True, capture_output=True, text=True)
                runs[key].append(json.loads(got.stdout.strip().splitlines()[-1]))
    rows = {}
    for key, rs in runs.items():
        rows[key] = {
            "skills": rs[0]["skills"],
            "files": rs[0]["files"],
            "fetches": rs[0]["fetches"],
            **{
                f"{part}_cpu_{how}": round(fn(r[part] for r in rs), 3)
                for part in ("load", "index")
                for how, fn in (("min", min), ("median", statistics.median))
            },
        }
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    files = "whole corpus folders" if args.with_files else "SKILL.md only"
    print(f"warm-up of one tenant of {args.skills} skills ({files}), {args.rounds} rounds")
    print(f"{'contender':<18} {'files':>7} {'load CPU s':>16} {'index CPU s':>16} {'queries':>8}")
    for key, r in rows.items():
        load = f"{r['load_cpu_min']} / {r['load_cpu_median']}"
        index = f"{r['index_cpu_min']} / {r['index_cpu_median']}"
        print(f"{key:<18} {r['files']:>7} {load:>16} {index:>16} {r['fetches']:>8}")
    print("(min / median; queries: those fetching file bytes)")


async def churn_phase(
    url: str,
    replica: tuple[str, int],
    token: str,
    tenant: str,
    seconds: float,
    clients: int,
    publish: bool,
    skills: int,
    texts: Corpus,
    window: float,
) -> dict[str, Any]:
    """One phase of ``--churn``: searches in a loop, with or without a publish a second;
    figures for the whole phase and for each ``window`` seconds of it."""
    import threading

    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from skilldeck.postgres import PostgresStore

    rep, pid = replica
    words = sorted({w.lower() for t in texts[:200] for w in re.findall(r"[A-Za-z]{5,}", str(t))})
    rng = random.Random(11)
    times: list[tuple[float, float]] = []  # (when it ended, seconds)
    errors = 0
    published = 0
    stop = threading.Event()

    def publisher() -> None:
        nonlocal published
        store = PostgresStore(url, tenant)
        tmp = Path(tempfile.mkdtemp(prefix="skilldeck-churn-"))
        n = 0
        while not stop.is_set():
            began = time.monotonic()
            i = rng.randrange(skills)
            files = skill_files(texts, i)
            folder = tmp / f"v{n}" / f"skill-{i:06d}"
            folder.mkdir(parents=True)
            for rel, data in files.items():
                (folder / rel).write_bytes(data + f"\n\nRevision {n}.\n".encode())
            try:
                store.publish(folder, scan="off")
                published += 1
            except Exception as exc:
                print(f"publish failed: {exc}", file=sys.stderr)
            n += 1
            stop.wait(max(0.0, 1.0 - (time.monotonic() - began)))
        store.db.close()
        shutil.rmtree(tmp, ignore_errors=True)

    async def client() -> None:
        nonlocal errors
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=120) as http,
            Client(streamable_http_client(rep, http_client=http)) as c,
        ):
            while time.monotonic() < end:
                query = f"{rng.choice(words)} {rng.choice(words)}"
                began = time.perf_counter()
                try:
                    got = await c.call_tool("skills_search", {"query": query, "limit": 5})
                    errors += bool(got.is_error)
                except Exception:
                    errors += 1
                times.append((time.monotonic(), time.perf_counter() - began))

    cpu = cpu_s(pid)
    rss = [rss_mb(pid)]
    began = time.monotonic()
    end = began + seconds
    windows: list[dict[str, Any]] = []
    thread = threading.Thread(target=publisher) if publish else None
    if thread is not None:
        thread.start()

    def close_window(start: float, stop_at: float) -> None:
        took = [t for at, t in times if start <= at < stop_at]
        windows.append(
            {
                "at_s": round(stop_at - began),
                "searches": len(took),
                "search_p99_ms": round(pct(took, 0.99), 1),
                "rss_mb": rss_mb(pid),
                "publishes": published,
            }
        )

    try:
        async with anyio.create_task_group() as tg:
            for _ in range(clients):
                tg.start_soon(client)
            opened = began
            while time.monotonic() < end:
                await anyio.sleep(min(2.0, max(0.0, end - time.monotonic())))
                rss.append(rss_mb(pid))
                if time.monotonic() - opened >= window - 0.5:
                    close_window(opened, time.monotonic())
                    opened = time.monotonic()
    finally:
        stop.set()
        if thread is not None:
            thread.join()
    took = [t for _at, t in times]
    return {
        "searches": len(took),
        "search_p50_ms": round(pct(took, 0.5), 1),
        "search_p99_ms": round(pct(took, 0.99), 1),
        "search_max_ms": round(max(took, default=0.0) * 1000, 1),
        "errors": errors,
        "publishes": published,
        "rss_mb_start_end_max": [rss[0], rss[-1], max(rss)],
        "replica_cpu_s": round(cpu_s(pid) - cpu, 1),
        "windows": windows,
    }


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def churn(args: argparse.Namespace) -> None:
    import anyio

    texts = corpus_texts(2000)
    with postgres() as url:
        tokens = seed(url, 1, args.skills, texts)
        tenant, token = next(iter(tokens.items()))
        extra = dict(item.split("=", 1) for item in args.replica_env)
        with serve(["--store", url], env=extra) as replica:
            began = time.perf_counter()
            anyio.run(warm_search, replica[0], token)
            first = round(time.perf_counter() - began, 2)
            out: dict[str, Any] = {"skills": args.skills, "first_search_s": first}
            for phase, publish in (("quiet", False), ("publish every second", True)):
                out[phase] = anyio.run(
                    churn_phase,
                    url,
                    replica,
                    token,
                    tenant,
                    args.churn,
                    args.clients,
                    publish,
                    args.skills,
                    texts,
                    args.window,
                )
                print(phase, out[phase], file=sys.stderr)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    quiet, busy = out["quiet"], out["publish every second"]
    print(
        f"search under publish churn: {args.skills} skills, {args.clients} clients, "
        f"{args.churn:g} s per phase (first search {first} s)"
    )
    print(f"{'':>6} | {'no publishes':^28} | {'a publish every second':^36}")
    head = f"{'searches':>8} {'p99 ms':>8} {'RSS MB':>8}"
    print(f"{'at s':>6} | {head:>28} | {head} {'publishes':>9}")
    for a, b in zip(quiet["windows"], busy["windows"], strict=False):
        print(
            f"{a['at_s']:>6} | {a['searches']:>8} {a['search_p99_ms']:>8} {a['rss_mb']:>8}"
            f"   | {b['searches']:>8} {b['search_p99_ms']:>8} {b['rss_mb']:>8} {b['publishes']:>9}"
        )
    for name, r in (("no publishes", quiet), ("a publish every second", busy)):
        start, last, peak = r["rss_mb_start_end_max"]
        print(
            f"{name}: {r['searches']} searches, p50 {r['search_p50_ms']} ms, "
            f"p99 {r['search_p99_ms']} ms, max {r['search_max_ms']} ms, {r['errors']} errors, "
            f"{r['publishes']} publishes; RSS {start} -> {last} MB (max {peak}); "
            f"replica CPU {r['replica_cpu_s']} s"
        )


async def warm_search(rep: str, token: str) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=600) as http,
        Client(streamable_http_client(rep, http_client=http)) as c,
    ):
        await c.call_tool("skills_search", {"query": "pdf", "limit": 5})


def main() -> None:
    import anyio

    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        warm_child(sys.argv[2], sys.argv[3])
        return

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--tenants", type=int, default=10)
    parser.add_argument("--replicas", default="1,2,3")
    parser.add_argument("--clients", type=int, default=10)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--warmup", action="store_true", help="only one tenant's warm-up CPU")
    parser.add_argument("--with-files", action="store_true", help="whole corpus skill folders")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--churn", type=float, default=0.0, help="seconds per churn phase")
    parser.add_argument(
        "--window", type=float, default=60.0, help="seconds per row of the churn table"
    )
    parser.add_argument(
        "--replica-env", action="append", default=[], metavar="NAME=VALUE", help="churn only"
    )
    args = parser.parse_args()
    if args.churn:
        churn(args)
        return
    if args.warmup:
        warmup(args)
        return
    texts = corpus_texts()
    results: dict[str, Any] = {"skills": args.skills, "tenants": args.tenants}
    with tempfile.TemporaryDirectory(prefix="skilldeck-bench-fs-") as tmp:
        root = Path(tmp) / "skills"
        write_root(root, args.skills, texts)
        with serve(["--root", str(root), "--no-watch"]) as (url, pid):
            results["filesystem, 1 replica"] = anyio.run(
                drive, [(url, None)], args.clients, args.requests, args.skills
            )
            results["filesystem, 1 replica"]["rss_mb"] = [rss_mb(pid)]
            print("filesystem, 1 replica", results["filesystem, 1 replica"], file=sys.stderr)
    with postgres() as url:
        started = time.perf_counter()
        tokens = seed(url, args.tenants, args.skills, texts)
        results["seed_s"] = round(time.perf_counter() - started, 1)
        for n in [int(x) for x in args.replicas.split(",")]:
            with contextlib.ExitStack() as stack:
                served = [stack.enter_context(serve(["--store", url])) for _ in range(n)]
                urls = [u for u, _pid in served]
                idle = [rss_mb(pid) for _u, pid in served]
                # every tenant warmed on every replica; clients spread over both
                targets = [(u, tokens[t]) for u in urls for t in sorted(tokens)]
                key = f"postgres, {n} replica{'s' if n > 1 else ''}"
                results[key] = anyio.run(drive, targets, args.clients, args.requests, args.skills)
                results[key]["rss_mb"] = [rss_mb(pid) for _u, pid in served]
                results[key]["idle_rss_mb"] = idle
                results[key]["rss_per_tenant_mb"] = round(
                    (sum(results[key]["rss_mb"]) - sum(idle)) / n / len(tokens), 1
                )
                first = sorted(tokens)[0]
                tmp = Path(tempfile.mkdtemp())
                results[key]["publish_to_list_changed_s"] = anyio.run(
                    publish_latency, url, urls, tokens[first], first, tmp
                )
                results[key]["unpublish_to_list_changed_s"] = anyio.run(
                    functools.partial(publish_latency, unpublish=True),
                    url,
                    urls,
                    tokens[first],
                    first,
                    tmp,
                )
                print(key, results[key], file=sys.stderr)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{args.skills} skills per tenant, {args.tenants} tenants, {args.clients} clients")
    print(
        f"{'contender':<24} {'warm-up s':>9} {'list p50':>9} {'list p99':>9} "
        f"{'read p50':>9} {'read p99':>9} {'req/s':>7}"
    )
    for key, r in results.items():
        if isinstance(r, dict):
            print(
                f"{key:<24} {r['warmup_s']:>9} {r['list_p50_ms']:>9} {r['list_p99_ms']:>9} "
                f"{r['read_p50_ms']:>9} {r['read_p99_ms']:>9} {r['requests_per_s']:>7}"
            )
    for key, r in results.items():
        if isinstance(r, dict):
            extra = r.get("publish_to_list_changed_s")
            back = r.get("unpublish_to_list_changed_s")
            print(
                f"{key}: RSS MB per replica {r['rss_mb']}"
                + (
                    f" (idle {r['idle_rss_mb']}, {r['rss_per_tenant_mb']} per tenant)"
                    if "idle_rss_mb" in r
                    else ""
                )
                + (f", publish -> list_changed s {extra}" if extra else "")
                + (f", unpublish -> list_changed s {back}" if back else "")
            )
    print(f"seeding the store: {results.get('seed_s')} s")


if __name__ == "__main__":
    main()
