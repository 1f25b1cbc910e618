"""A replica holds no file bytes of its own: reads go to the database through a
bounded cache, and a reader going through the skills in order is served by
read-ahead (few queries), against a real PostgreSQL."""

from __future__ import annotations

import random
from pathlib import Path

import anyio
import pytest

import skilldeck
from skilldeck.postgres import Database, PostgresStore, create_tenant, store_catalog

from ._util import make_skill


def _seed(url: str, tmp: Path, n: int) -> PostgresStore:
    create_tenant(url, "acme")
    store = PostgresStore(url, "acme")
    for i in range(n):
        files = {f"references/r{j}.md": f"skill {i} file {j}\n" * 40 for j in range(2)}
        store.publish(make_skill(tmp, f"skill-{i:03d}", files=files), scan="off")
    return store


def test_reads_in_order_are_read_ahead_and_the_cache_is_bounded(
    store_url: str, tmp_path: Path
) -> None:
    _seed(store_url, tmp_path, 120)
    db = Database(store_url, cache_bytes=256 * 1024)
    store = PostgresStore(db, "acme")
    names = [m.name for m in store.list_skills()]
    assert len(names) == 120 and db.blobs.size == 0  # a scan keeps no file bytes
    for name in names:  # in order, every file, as the MCP index builder reads them
        assert b"name: " + name.encode() in store.skill_md_bytes(name).data
        for rel in store.files(name):
            assert store.read_file(name, rel).startswith(
                f"skill {name[-3:].lstrip('0') or 0}".encode()
            )
    assert store.fetches <= 12, store.fetches  # 360 files in a dozen queries or fewer
    assert 0 < db.blobs.size <= 256 * 1024
    before = store.fetches
    db.blobs.clear()
    rng = random.Random(3)
    picks = rng.sample(names, 20)
    for name in picks:  # random reads: one query each, only the file asked for
        store.read_file(name, "references/r1.md")
    assert store.fetches - before <= 21
    assert len(db.blobs) <= 21
    db.close()


def test_building_the_mcp_index_reads_ahead(store_url: str, tmp_path: Path) -> None:
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    from skilldeck.mcp import create_server

    store = _seed(store_url, tmp_path, 60)
    server = create_server(store_catalog(store), snapshot_cache=False)
    anyio.run(server.refresh)
    assert store.fetches <= 10, store.fetches


def test_bytes_gone_from_the_database_are_a_coded_error(store_url: str, tmp_path: Path) -> None:
    store = _seed(store_url, tmp_path, 2)
    store.list_skills()
    db = Database(store_url)
    with db.admin() as conn:  # behind skilldeck's back
        conn.execute(
            "ALTER TABLE skilldeck_version_files DROP CONSTRAINT "
            "skilldeck_version_files_tenant_digest_fkey"
        )
        conn.execute("DELETE FROM skilldeck_blobs")
    db.close()
    with pytest.raises(skilldeck.FileNotFoundInSkillError):
        store.read_file("skill-001", "references/r0.md")
    with pytest.raises(skilldeck.FileNotFoundInSkillError):
        store.load_skill("skill-000")
