"""The snapshot of a stored skill takes its files' digests from the store's file rows
(``PostgresStore.file_facts``) instead of reading every file, with exactly the
digests, sizes and text flags that reading the bytes gives."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from skilldeck import skill_digest
from skilldeck.catalog import Catalog, Source
from skilldeck.postgres import (
    SCHEMA_VERSION,
    Database,
    PostgresStore,
    create_tenant,
    init_store,
    store_catalog,
)

from ._util import make_skill

# text, binary (NUL), invalid UTF-8, empty, valid UTF-8 beyond ASCII, unknown extension
_FILES: dict[str, bytes] = {
    "references/guide.md": b"# Guide\n",
    "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "assets/latin1.txt": "caf\xe9\n".encode("latin-1"),
    "assets/empty.dat": b"",
    "scripts/run.py": "print('h\u00e9llo \u2603')\n".encode(),
    "data/blob": b"no extension, but text\n",
    "data/nul": b"text with a \x00 inside",
}


def _skill(root: Path, name: str) -> Path:
    folder = make_skill(root, name)
    for rel, data in _FILES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    return folder


class _Reading(PostgresStore):
    """The same store without ``file_facts`` (``StoreBase``'s default): the snapshot
    reads every file."""

    def file_facts(self, name: str, digest: str) -> None:
        return None


def _listed(catalog: Catalog) -> dict[str, list[tuple[str, int, Any]]]:
    snap = catalog.snapshot()
    return {
        e.name: [(f.path, f.size, f.digest) for f in e.files] for e in snap.entries if e.readable
    }


def _expected(folder: Path) -> list[tuple[str, int, str, bool]]:
    out = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        try:
            data.decode("utf-8")
            text = b"\x00" not in data
        except UnicodeDecodeError:
            text = False
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        out.append((path.relative_to(folder).as_posix(), len(data), digest, text))
    return sorted(out, key=lambda f: (f[0] != "SKILL.md", f[0]))


def test_snapshot_digests_from_file_rows_equal_those_of_reading(
    store_url: str, tmp_path: Path
) -> None:
    create_tenant(store_url, "acme")
    folders = {n: _skill(tmp_path, n) for n in ("alpha", "beta")}
    for folder in folders.values():
        PostgresStore(store_url, "acme").publish(folder, scan="off")

    store = PostgresStore(store_url, "acme")
    facts = _listed(store_catalog(store))
    assert store.fetches == 0  # not one file's bytes were read to list them
    reading = _Reading(store_url, "acme")
    wrapped = Catalog([Source.of("store", "root", store=reading)], cache=False)
    read = _listed(wrapped)
    assert reading.fetches > 0
    assert facts == read
    for name, folder in folders.items():
        got = [(p, n, d.digest, d.text) for p, n, d in facts[name]]
        assert got == _expected(folder)
    assert {p: d.text for p, _n, d in facts["alpha"]}["data/nul"] is False


def test_the_mcp_index_serves_the_digests_of_the_bytes(store_url: str, tmp_path: Path) -> None:
    from skilldeck.mcp import create_server

    create_tenant(store_url, "acme")
    folder = _skill(tmp_path, "alpha")
    PostgresStore(store_url, "acme").publish(folder, scan="off")
    store = PostgresStore(store_url, "acme")
    server = create_server(store_catalog(store), snapshot_cache=False)
    served = {ref.relpath: (ref.size, ref.digest, ref.mime) for ref in server.index.files.values()}
    assert store.fetches == 0
    for rel, size, digest, _text in _expected(folder):
        assert served[rel][:2] == (size, digest)
    assert served["data/blob"][2] == "text/plain"
    assert served["data/nul"][2] == "application/octet-stream"


def test_only_the_current_version_has_facts(store_url: str, tmp_path: Path) -> None:
    create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    first = store.publish(_skill(tmp_path, "alpha"), scan="off")
    store.list_skills()
    assert store.file_facts("alpha", first.digest) is not None
    assert store.file_facts("alpha", "sha256:" + "0" * 64) is None
    assert store.file_facts("nope", first.digest) is None
    (tmp_path / "alpha" / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: alpha does one careful thing for tests.\n---\n\nNew.\n"
    )
    second = store.publish(tmp_path / "alpha", scan="off")
    store.list_skills()
    assert store.file_facts("alpha", first.digest) is None
    facts = store.file_facts("alpha", second.digest)
    assert facts is not None and len(facts) == len(_FILES) + 1


def test_rows_published_before_the_flag_are_read(store_url: str, tmp_path: Path) -> None:
    """A file row without ``is_text`` (published by an older skilldeck): that file is
    read for its flag, the others are not, and the snapshot is the same."""
    create_tenant(store_url, "acme")
    folder = _skill(tmp_path, "alpha")
    PostgresStore(store_url, "acme").publish(folder, scan="off")
    db = Database(store_url)
    with db.admin() as conn:  # the tables' owner: a superuser here, past the policies
        conn.execute(
            "UPDATE skilldeck_version_files SET is_text = NULL WHERE relpath = 'data/blob'"
        )
    db.close()
    store = PostgresStore(store_url, "acme")
    facts = _listed(store_catalog(store))
    assert store.fetches == 1  # data/blob (and what read-ahead brought along)
    got = [(p, n, d.digest, d.text) for p, n, d in facts["alpha"]]
    assert got == _expected(folder)
    init_store(store_url)  # store init fills the flag in
    again = PostgresStore(store_url, "acme")
    assert _listed(store_catalog(again)) == facts and again.fetches == 0


def test_a_version_2_store_migrates_and_its_versions_list_the_same(
    empty_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Versions published under schema 2 (no ``is_text``): ``store init`` migrates the
    store and records their files' text flags from their bytes, so they are listed
    without reading them, with the same digests."""
    import psycopg

    from skilldeck.postgres._db import _MIGRATIONS

    folder = _skill(tmp_path, "alpha")
    files = [p for p in folder.rglob("*") if p.is_file()]
    data = {p.relative_to(folder).as_posix(): p.read_bytes() for p in files}
    digests = {rel: "sha256:" + hashlib.sha256(b).hexdigest() for rel, b in data.items()}
    with psycopg.connect(empty_url) as conn:  # rows as a schema-2 skilldeck wrote them
        conn.execute(
            "CREATE TABLE skilldeck_migrations (version integer PRIMARY KEY,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for version, sql in _MIGRATIONS[:2]:
            conn.execute(sql)
            conn.execute("INSERT INTO skilldeck_migrations (version) VALUES (%s)", (version,))
        conn.execute("INSERT INTO skilldeck_tenants (tenant) VALUES ('acme')")
        conn.execute("SET LOCAL ROLE skilldeck_tenant")
        conn.execute("SELECT set_config('skilldeck.tenant', 'acme', true)")
        for rel, b in data.items():
            conn.execute(
                "INSERT INTO skilldeck_blobs (tenant, digest, size, data) VALUES "
                "('acme', %s, %s, %s) ON CONFLICT DO NOTHING",
                (digests[rel], len(b), b),
            )
        row = conn.execute(
            "INSERT INTO skilldeck_versions (tenant, name, digest) VALUES ('acme', 'alpha', %s) "
            "RETURNING id",
            (skill_digest(folder),),
        ).fetchone()
        assert row is not None
        for rel, b in data.items():
            conn.execute(
                "INSERT INTO skilldeck_version_files (version_id, tenant, relpath, digest, size) "
                "VALUES (%s, 'acme', %s, %s, %s)",
                (row[0], rel, digests[rel], len(b)),
            )
    from skilldeck.postgres import _db

    monkeypatch.setattr(_db, "_FILL_BATCH", 3)  # several batches for these 8 files
    assert init_store(empty_url) == (2, SCHEMA_VERSION)  # and fills in the text flags
    with psycopg.connect(empty_url) as conn:
        flags = dict(conn.execute("SELECT relpath, is_text FROM skilldeck_version_files"))
    assert flags == {rel: text for rel, _n, _d, text in _expected(folder)}
    store = PostgresStore(empty_url, "acme")
    facts = _listed(store_catalog(store))
    got = [(p, n, d.digest, d.text) for p, n, d in facts["alpha"]]
    assert got == _expected(folder)
    assert store.fetches == 0


def test_store_init_fills_in_every_tenant_s_flags(store_url: str, tmp_path: Path) -> None:
    folder = _skill(tmp_path, "alpha")
    for tenant in ("acme", "beta"):
        create_tenant(store_url, tenant)
        PostgresStore(store_url, tenant).publish(folder, scan="off")
    db = Database(store_url)
    with db.admin() as conn:
        conn.execute("UPDATE skilldeck_version_files SET is_text = NULL")
    init_store(db)
    with db.admin() as conn:
        rows = conn.execute("SELECT tenant, relpath, is_text FROM skilldeck_version_files")
        flags = {(t, rel): text for t, rel, text in rows}
    db.close()
    want = {rel: text for rel, _n, _d, text in _expected(folder)}
    assert flags == {(t, rel): text for t in ("acme", "beta") for rel, text in want.items()}
