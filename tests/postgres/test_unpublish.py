"""Unpublishing a version: the previous one is current again, its approval is gone,
its unused bytes are deleted, and it is audited (real PostgreSQL, real CLI)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import skilldeck
from skilldeck.postgres import (
    Database,
    PostgresApprovalStore,
    PostgresAuditSink,
    PostgresStore,
    create_tenant,
    store_catalog,
)

from ._util import make_skill
from .test_cli import sk


def _blob_count(url: str, tenant: str) -> int:
    db = Database(url)
    try:
        with db.tenant(tenant) as conn:
            return int(conn.execute("SELECT count(*) FROM skilldeck_blobs").fetchone()[0])
    finally:
        db.close()


def test_unpublish_makes_the_previous_version_current(store_url: str, tmp_path: Path) -> None:
    create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    folder = make_skill(tmp_path, "notes", body="first", files={"references/shared.md": "same\n"})
    v1 = store.publish(folder)
    make_skill(tmp_path, "notes", body="second", files={"references/new.md": "only in v2\n"})
    v2 = store.publish(folder)
    approvals = PostgresApprovalStore(store_url, "acme")
    approvals.grant("notes", v2.digest)
    blobs = _blob_count(store_url, "acme")  # v1 SKILL.md, v2 SKILL.md, shared.md, new.md
    assert blobs == 4
    catalog = store_catalog(store)
    assert "second" in catalog.load("notes").body

    gone = store.unpublish("notes")
    assert (gone.version, gone.digest) == (v2.version, v2.digest)
    assert (gone.current, gone.current_digest) == (v1.version, v1.digest)
    assert gone.approval_revoked and approvals.get("notes") is None
    assert gone.files_freed == 2  # v2's SKILL.md and new.md; shared.md is v1's too
    assert _blob_count(store_url, "acme") == 2
    catalog.refresh()
    assert "first" in catalog.load("notes").body
    assert catalog.digest("notes") == v1.digest
    assert [h[0] for h in store.history("notes")] == [v1.version]
    with pytest.raises(skilldeck.FileNotFoundInSkillError):
        catalog.read_file("notes", "references/new.md")
    assert catalog.read_file("notes", "references/shared.md") == b"same\n"
    # publishing v2's content again is a new version, and it is not approved
    again = store.publish(folder)
    assert again.created and again.digest == v2.digest and again.version > v2.version
    assert approvals.get("notes") is None
    rows = [
        e for e in PostgresAuditSink(store_url, "acme").read() if e["event"] == "skill_unpublished"
    ]
    assert len(rows) == 1 and rows[0]["version"] == v2.version
    assert rows[0]["current"] == v1.version and rows[0]["approval_revoked"] is True


def test_unpublish_by_id_or_digest_and_the_last_version(store_url: str, tmp_path: Path) -> None:
    create_tenant(store_url, "acme")
    create_tenant(store_url, "globex")
    store = PostgresStore(store_url, "acme")
    folder = make_skill(tmp_path, "tool", body="one")
    v1 = store.publish(folder)
    make_skill(tmp_path, "tool", body="two")
    v2 = store.publish(folder)
    old = store.unpublish("tool", v1.version)  # an old version: the current one stays
    assert old.current == v2.version and not old.approval_revoked
    with pytest.raises(skilldeck.SkillNotFoundError, match="no published version"):
        store.unpublish("tool", v1.version)  # once only
    with pytest.raises(skilldeck.SkillNotFoundError):
        PostgresStore(store_url, "globex").unpublish("tool")  # another tenant's skill
    last = store.unpublish("tool", v2.digest)
    assert last.current is None and last.current_digest is None
    assert store.list_skills() == []
    with pytest.raises(skilldeck.SkillNotFoundError):
        store.unpublish("tool")
    assert _blob_count(store_url, "acme") == 0


def test_unpublish_on_the_command_line(store_url: str, tmp_path: Path) -> None:
    sk("tenant", "create", "acme", "--store", store_url)
    args = ["--store", store_url, "--tenant", "acme"]
    folder = make_skill(tmp_path, "runner", files={"scripts/hi.py": "print('v1')\n"})
    first = json.loads(sk("publish", str(folder), *args, "--json").stdout)["data"]["published"][0]
    (folder / "scripts/hi.py").write_text("print('v2')\n")
    second = json.loads(sk("publish", str(folder), *args, "--json").stdout)["data"]["published"][0]
    assert "v2" in sk("run", "runner", "scripts/hi.py", "--yes", *args).stdout  # approved
    assert "v2" in sk("run", "runner", "scripts/hi.py", *args).stdout  # no question

    out = sk("unpublish", "runner", *args)
    assert f"unpublished runner version {second['version']}" in out.stdout
    assert f"current: runner version {first['version']} {first['digest']}" in out.stdout
    assert "approval was revoked" in out.stderr
    refused = sk("run", "runner", "scripts/hi.py", *args, check=False)
    assert refused.returncode == 1 and "APPROVAL_REQUIRED" in refused.stderr
    assert "v1" in sk("run", "runner", "scripts/hi.py", "--yes", *args).stdout

    data = json.loads(sk("unpublish", f"runner@{first['digest']}", *args, "--json").stdout)["data"]
    assert data["current"] is None and data["version"] == first["version"]
    for bad in ("runner@", "runner@latest", "@3", "runner@sha256:zz"):
        got = sk("unpublish", bad, *args, check=False)
        assert got.returncode == 2 and "Traceback" not in got.stderr, bad
    missing = sk("unpublish", "runner", *args, check=False)
    assert missing.returncode == 1 and "SKILL_NOT_FOUND" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_unpublish_racing_publishes_never_breaks_a_version(store_url: str, tmp_path: Path) -> None:
    """Each round, alpha's version holds a file no other version uses; then alpha is
    unpublished (deleting that file's bytes) while beta is published with the same
    file. No publish or unpublish fails on a byte deleted under it, and every current
    version verifies: the tenant's blob lock puts one after the other."""
    import threading

    create_tenant(store_url, "acme")
    rounds = 15
    barrier = threading.Barrier(2, timeout=60)
    errors: list[BaseException] = []

    def shared(i: int) -> dict[str, str]:
        return {"references/common.md": f"round {i}: the same bytes in both skills\n" * 20}

    def publishing() -> None:
        store = PostgresStore(store_url, "acme")
        try:
            for i in range(rounds):
                folder = make_skill(tmp_path / f"b{i}", "beta", body=f"beta {i}", files=shared(i))
                barrier.wait()
                store.publish(folder, scan="off")
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()

    alpha = PostgresStore(store_url, "acme")
    worker = threading.Thread(target=publishing)
    worker.start()
    try:
        for i in range(rounds):
            folder = make_skill(tmp_path / f"a{i}", "alpha", body=f"a {i}", files=shared(i))
            alpha.publish(folder, scan="off")
            barrier.wait()
            alpha.unpublish("alpha")
    except threading.BrokenBarrierError:
        pass  # the publishing thread failed: its error is asserted below
    finally:
        worker.join(120)
    assert errors == []
    assert not worker.is_alive()
    problems = [(n, p) for n, _v, p in PostgresStore(store_url, "acme").verify() if p]
    assert problems == []
    assert [m.name for m in PostgresStore(store_url, "acme").list_skills()] == ["beta"]
