"""Tenant tokens (several per tenant, hashed, revocable) and the store-wide audit
reader, through the API and the command line, against a real PostgreSQL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

import skilldeck
from skilldeck.postgres import (
    Database,
    PostgresAuditSink,
    PostgresStore,
    create_tenant,
    create_token,
    describe_tenants,
    list_tokens,
    read_audit,
    revoke_token,
    rotate_token,
    tenant_for_token,
)

from ._util import make_skill
from .test_cli import sk


def test_tokens_can_be_added_listed_revoked_and_rotated(store_url: str) -> None:
    first = create_tenant(store_url, "acme")
    create_tenant(store_url, "globex")
    info, second = create_token(store_url, "acme", label="ci runner")
    assert info.tenant == "acme" and info.label == "ci runner" and info.revoked_at is None
    assert tenant_for_token(store_url, first) == tenant_for_token(store_url, second) == "acme"
    tokens = list_tokens(store_url, "acme")
    assert [t.id for t in tokens] == [1, info.id] and all(t.created_at for t in tokens)
    with Database(store_url).admin() as conn:  # only hashes are stored
        stored = {bytes(r[0]) for r in conn.execute("SELECT token_sha256 FROM skilldeck_tokens")}
    assert len(stored) == 3 and all(first.encode() not in h for h in stored)

    gone = revoke_token(store_url, "acme", 1)
    assert gone.revoked_at is not None
    assert tenant_for_token(store_url, first) is None
    assert tenant_for_token(store_url, second) == "acme"
    assert revoke_token(store_url, "acme", 1).revoked_at == gone.revoked_at  # idempotent
    with pytest.raises(skilldeck.InvalidArgumentsError, match="no such token"):
        revoke_token(store_url, "globex", info.id)  # acme's token, asked as globex
    for bad in (0, -1, "nope", True, 10**6):
        with pytest.raises(skilldeck.InvalidArgumentsError):
            revoke_token(store_url, "acme", bad)  # type: ignore[arg-type]
    with pytest.raises(skilldeck.InvalidArgumentsError, match="no tenant"):
        create_token(store_url, "initech")
    for label in ("x" * 201, "two\nlines", "\x1b[31mred"):
        with pytest.raises(skilldeck.InvalidArgumentsError):
            create_token(store_url, "acme", label=label)

    new_info, third, revoked = rotate_token(store_url, "acme", second)  # by the token itself
    assert revoked == [info.id] and new_info.label == "ci runner"
    assert tenant_for_token(store_url, second) is None
    assert tenant_for_token(store_url, third) == "acme"
    _i, fourth, revoked = rotate_token(store_url, "acme")  # every valid token
    assert revoked == [new_info.id]
    assert [t.revoked_at is None for t in list_tokens(store_url, "acme")] == [
        False,
        False,
        False,
        True,
    ]
    assert tenant_for_token(store_url, fourth) == "acme"
    kinds = [e["event"] for e in PostgresAuditSink(store_url, "acme").read()]
    assert kinds == [
        "tenant_created",
        "token_created",
        "token_revoked",
        "token_rotated",
        "token_rotated",
    ]
    tenants = {t.tenant: t for t in describe_tenants(store_url)}
    assert (tenants["acme"].tokens, tenants["globex"].tokens) == (1, 1)


def test_tokens_on_the_command_line(store_url: str, tmp_path: Path) -> None:
    first = sk("tenant", "create", "acme", "--store", store_url).stdout.strip()
    made = json.loads(
        sk(
            "tenant", "token", "create", "acme", "--label", "laptop", "--json", "--store", store_url
        ).stdout
    )["data"]
    assert made["token"].startswith("sdk_") and made["label"] == "laptop"
    listed = sk("tenant", "token", "list", "acme", "--store", store_url).stdout
    assert "laptop" in listed and first not in listed and made["token"] not in listed
    out = sk("tenant", "token", "revoke", "acme", first, "--store", store_url)
    assert "revoked: token 1 of tenant acme" in out.stderr
    assert tenant_for_token(store_url, first) is None
    rotated = json.loads(
        sk(
            "tenant", "token", "rotate", "acme", str(made["id"]), "--json", "--store", store_url
        ).stdout
    )["data"]
    assert rotated["revoked"] == [made["id"]] and rotated["label"] == "laptop"
    PostgresStore(store_url, "acme").publish(make_skill(tmp_path, "one"))
    tenants = json.loads(sk("tenant", "list", "--json", "--store", store_url).stdout)["data"][
        "tenants"
    ]
    assert [(t["tenant"], t["tokens"], t["skills"]) for t in tenants] == [("acme", 1, 1)]
    for args in (
        ("tenant", "token", "revoke", "acme", "latest"),
        ("tenant", "token", "revoke", "acme", "99"),
        ("tenant", "token", "create", "nobody"),
        ("tenant", "token", "list", "Bad Name"),
    ):
        got = sk(*args, "--store", store_url, check=False)
        assert got.returncode in (1, 2) and "Traceback" not in got.stderr, args


def test_the_store_wide_audit_reader(store_url: str, tmp_path: Path) -> None:
    for tenant in ("acme", "globex"):
        create_tenant(store_url, tenant)
        store = PostgresStore(store_url, tenant)
        for i in range(3):
            store.publish(make_skill(tmp_path / tenant, f"{tenant}-{i}"))
    everything = read_audit(store_url, limit=1000)
    assert [r.id for r in everything] == sorted(r.id for r in everything)
    assert {r.tenant for r in everything} == {"acme", "globex"} and len(everything) == 8
    pages, after = [], 0
    while True:
        page = read_audit(store_url, after=after, limit=3)
        if not page:
            break
        pages.append(page)
        after = page[-1].id
    assert [r.id for p in pages for r in p] == [r.id for r in everything]
    assert [len(p) for p in pages] == [3, 3, 2]
    mine = read_audit(store_url, tenant="globex", kinds=("skill_published",))
    assert [r.event["skill"] for r in mine] == ["globex-0", "globex-1", "globex-2"]
    future = datetime.now(UTC) + timedelta(hours=1)
    assert read_audit(store_url, since=future) == []
    assert len(read_audit(store_url, since=datetime.now(UTC) - timedelta(hours=1))) == 8
    for bad in ({"limit": 0}, {"limit": 10_001}, {"after": -1}):
        with pytest.raises(skilldeck.InvalidArgumentsError):
            read_audit(store_url, **bad)  # type: ignore[arg-type]
    # the auditor role reads the audit log and nothing else
    db = Database(store_url)
    with pytest.raises(psycopg.errors.InsufficientPrivilege), db.auditor() as conn:
        conn.execute("SELECT count(*) FROM skilldeck_versions")
    with pytest.raises(psycopg.errors.InsufficientPrivilege), db.auditor() as conn:
        conn.execute("INSERT INTO skilldeck_audit (tenant, kind, event) VALUES ('acme','x','{}')")
    db.close()

    args = ["--store", store_url]
    text = sk("audit", *args, "--limit", "5")
    assert len(text.stdout.splitlines()) == 5 and "more rows: add --after" in text.stderr
    assert "acme" in text.stdout and "skill_published" in text.stdout
    data = json.loads(sk("audit", *args, "--json", "--limit", "5").stdout)["data"]
    assert data["next_after"] == data["rows"][-1]["id"]
    rest = json.loads(sk("audit", *args, "--json", "--after", str(data["next_after"])).stdout)[
        "data"
    ]
    assert [r["id"] for r in data["rows"] + rest["rows"]] == [r.id for r in everything]
    assert rest["next_after"] is None
    one = json.loads(sk("audit", *args, "--tenant", "acme", "--json", "--since", "1h").stdout)[
        "data"
    ]
    assert {r["tenant"] for r in one["rows"]} == {"acme"} and len(one["rows"]) == 4
    later = json.loads(sk("audit", *args, "--json", "--since", "2999-01-01").stdout)["data"]
    assert later["rows"] == []
    for bad in (("--since", "yesterday"), ("--limit", "0"), ("--after", "-3"), ("--tenant", "A B")):
        got = sk("audit", *args, *bad, check=False)
        assert got.returncode in (1, 2) and "Traceback" not in got.stderr, bad


def test_a_user_without_the_grants_gets_coded_errors(store_url: str, tmp_path: Path) -> None:
    """What the database refuses (a missing grant) is a coded error, never a traceback."""
    create_tenant(store_url, "acme")
    PostgresStore(store_url, "acme").publish(make_skill(tmp_path, "one"))
    db = Database(store_url)
    with db.admin() as conn:
        conn.execute("CREATE ROLE weak_user LOGIN")
        conn.execute("GRANT SELECT ON skilldeck_migrations TO weak_user")
        conn.execute("GRANT skilldeck_tenant TO weak_user")
    db.close()
    weak = ["--store", store_url.replace("user=skilldeck", "user=weak_user")]
    for args in (
        ("tenant", "list"),
        ("tenant", "token", "revoke", "acme", "1"),
        ("tenant", "token", "rotate", "acme"),
        ("tenant", "create", "globex"),
        ("audit",),  # not a member of skilldeck_auditor
        ("audit", "--json"),
    ):
        got = sk(*args, *weak, check=False)
        assert got.returncode == 1, (args, got.stderr)
        assert "Traceback" not in got.stderr, args
        assert "CONFIG_INVALID" in got.stderr + got.stdout, args
    listed = sk("list", *weak, "--tenant", "acme", check=False)  # the tenant role suffices
    assert listed.returncode == 0 and "one" in listed.stdout
    assert tenant_for_token(store_url, "sdk_x") is None
