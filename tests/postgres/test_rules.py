"""What a store refuses or keeps: approvals of unpublished versions, names never served,
partial publishes reported, one transaction per migration, a schema one version ahead."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from skilldeck import ConfigError, InstallError, SkillNotFoundError
from skilldeck.postgres import (
    SCHEMA_VERSION,
    Database,
    PostgresApprovalStore,
    PostgresStore,
    create_tenant,
    init_store,
)

from ._util import make_skill
from .test_cli import sk


def test_an_approval_of_an_unpublished_version_is_refused(store_url: str, tmp_path: Path) -> None:
    create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    first = store.publish(make_skill(tmp_path / "a", "pdf-tools", body="one"))
    second = store.publish(make_skill(tmp_path / "b", "pdf-tools", body="two"))
    approvals = PostgresApprovalStore(store_url, "acme")
    store.unpublish("pdf-tools")  # the second version is taken back
    with pytest.raises(SkillNotFoundError, match="unpublished"):
        approvals.grant("pdf-tools", second.digest, trust="user")
    assert approvals.list() == []
    kept = approvals.grant("pdf-tools", first.digest, trust="user")  # current again: fine
    assert approvals.get("pdf-tools") == kept
    # publishing the unpublished content again asks again: no approval of it survived
    again = store.publish(make_skill(tmp_path / "c", "pdf-tools", body="two"))
    assert again.digest == second.digest
    assert approvals.get("pdf-tools").digest == first.digest  # type: ignore[union-attr]


def test_a_grant_waits_for_an_unpublish_of_its_version(store_url: str, tmp_path: Path) -> None:
    """The race: the unpublish holds the name's lock while the yes is being stored."""
    import threading

    create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    made = store.publish(make_skill(tmp_path / "a", "pdf-tools"))
    approvals = PostgresApprovalStore(store_url, "acme")
    db = Database(store_url)
    outcome: list[BaseException | None] = []
    with db.tenant("acme") as conn:  # the unpublish's transaction, caught in the middle
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", ("acme/pdf-tools",))
        conn.execute(
            "UPDATE skilldeck_versions SET unpublished_at = now() WHERE number = %s",
            (made.version,),
        )

        def grant() -> None:
            try:
                approvals.grant("pdf-tools", made.digest)
                outcome.append(None)
            except SkillNotFoundError as exc:
                outcome.append(exc)

        worker = threading.Thread(target=grant)
        worker.start()
        worker.join(1.0)
        assert worker.is_alive()  # it waits for the unpublish to end
    worker.join(30)
    assert isinstance(outcome[0], SkillNotFoundError)
    assert approvals.list() == []


@pytest.mark.parametrize("name", ["Bad_Name", "pdf--tools", "-pdf", "pdfｔools"])
def test_publish_refuses_names_never_served(store_url: str, tmp_path: Path, name: str) -> None:
    create_tenant(store_url, "acme")
    folder = tmp_path / "skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: A skill whose name breaks the rule.\n---\n\nBody.\n"
    )
    with pytest.raises(InstallError) as err:
        PostgresStore(store_url, "acme").publish(folder)
    assert "specification" in err.value.message
    assert err.value.hint


def test_publish_json_reports_what_was_committed_before_an_invalid_folder(
    store_url: str, tmp_path: Path
) -> None:
    create_tenant(store_url, "acme")
    good = [make_skill(tmp_path, f"good-{i}") for i in range(2)]
    bad = tmp_path / "broken"
    bad.mkdir()
    (bad / "SKILL.md").write_text("no frontmatter at all\n")
    late = make_skill(tmp_path, "late-one")
    args = [str(p) for p in (*good, bad, late)]
    proc = sk("publish", *args, "--store", store_url, "--tenant", "acme", "--json", check=False)
    assert proc.returncode == 1
    out = json.loads(proc.stdout)
    assert out["ok"] is False
    assert [p["name"] for p in out["data"]["published"]] == ["good-0", "good-1"]
    assert out["error"]["code"] == "INSTALL_FAILED"
    assert out["data"]["not_published"] == [str(bad), str(late)]
    names = {m.name for m in PostgresStore(store_url, "acme").list_skills()}
    assert names == {"good-0", "good-1"}


def test_each_migration_commits_on_its_own(empty_url: str) -> None:
    init_store(empty_url)
    with psycopg.connect(empty_url) as conn:
        rows = conn.execute(
            "SELECT version, applied_at FROM skilldeck_migrations ORDER BY version"
        ).fetchall()
    assert [r[0] for r in rows] == list(range(1, SCHEMA_VERSION + 1))
    # now() is the transaction's start: one transaction each, so each has its own
    assert len({r[1] for r in rows}) == SCHEMA_VERSION


def test_a_replica_serves_a_store_one_schema_version_ahead(store_url: str) -> None:
    """Rolling upgrades: the new release migrates, the old replicas keep serving."""
    create_tenant(store_url, "acme")
    with psycopg.connect(store_url) as conn:
        conn.execute(
            "INSERT INTO skilldeck_migrations (version) VALUES (%s)", (SCHEMA_VERSION + 1,)
        )
    db = Database(store_url)
    with db.tenant("acme") as conn:
        conn.execute("SELECT 1")
    assert db.schema_version == SCHEMA_VERSION + 1
    db.close()
    with psycopg.connect(store_url) as conn:
        conn.execute(
            "INSERT INTO skilldeck_migrations (version) VALUES (%s)", (SCHEMA_VERSION + 2,)
        )
    with pytest.raises(ConfigError, match="newer than this skilldeck"), Database(store_url).admin():
        pass


def test_credentials_are_never_printed() -> None:

    for url in (
        "postgresql://u:p@ss@h/db",
        "postgresql:///db?host=/s&password=sekret9",
        "host=h password=sekret9 user=u",
        "host=h password='sek ret9' user=u",
    ):
        shown = repr(Database(url))
        assert "sekret9" not in shown and "sek ret9" not in shown and "p@ss" not in shown


def test_version_numbers_are_counted_per_tenant(store_url: str, tmp_path: Path) -> None:
    """A tenant's numbers say nothing of how much other tenants publish."""
    for tenant in ("acme", "globex"):
        create_tenant(store_url, tenant)
    acme, globex = PostgresStore(store_url, "acme"), PostgresStore(store_url, "globex")
    got = [
        acme.publish(make_skill(tmp_path / "1", "notes", body="one")).version,
        globex.publish(make_skill(tmp_path / "2", "notes", body="one")).version,
        globex.publish(make_skill(tmp_path / "3", "other", body="one")).version,
        acme.publish(make_skill(tmp_path / "4", "notes", body="two")).version,
        acme.publish(make_skill(tmp_path / "5", "other", body="two")).version,
    ]
    assert got == [1, 1, 2, 2, 3]
    assert [h[0] for h in acme.history("notes")] == [2, 1]
    assert acme.version("notes").number == 2 and acme.verify()[0][1] == 2
    gone = acme.unpublish("notes", 1)  # named by its number
    assert (gone.version, gone.current) == (1, 2)
    assert acme.publish(make_skill(tmp_path / "6", "notes", body="three")).version == 4


def test_migrating_numbers_the_versions_of_each_tenant(empty_url: str) -> None:
    from skilldeck.postgres._db import _MIGRATIONS

    with psycopg.connect(empty_url) as conn:  # a store of schema 3, versions interleaved
        conn.execute(
            "CREATE TABLE skilldeck_migrations (version integer PRIMARY KEY,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for version, sql in _MIGRATIONS[:3]:
            conn.execute(sql)
            conn.execute("INSERT INTO skilldeck_migrations (version) VALUES (%s)", (version,))
        for tenant in ("acme", "globex"):
            conn.execute("INSERT INTO skilldeck_tenants (tenant) VALUES (%s)", (tenant,))
        for tenant in ("acme", "globex", "acme", "globex", "acme"):
            conn.execute(
                "INSERT INTO skilldeck_versions (tenant, name, digest) VALUES (%s, 'x', 'd')",
                (tenant,),
            )
    assert init_store(empty_url) == (3, SCHEMA_VERSION)
    with psycopg.connect(empty_url) as conn:
        rows = conn.execute("SELECT tenant, number FROM skilldeck_versions ORDER BY id").fetchall()
    assert rows == [("acme", 1), ("globex", 1), ("acme", 2), ("globex", 2), ("acme", 3)]


def test_token_and_audit_ids_are_counted_per_tenant(store_url: str, tmp_path: Path) -> None:
    """What a tenant is shown of its tokens and its audit log says nothing of others."""
    import threading

    from skilldeck.postgres import (
        PostgresAuditSink,
        create_token,
        list_tokens,
        read_audit,
        revoke_token,
        rotate_token,
    )

    create_tenant(store_url, "acme")
    create_tenant(store_url, "globex")
    acme, globex = PostgresStore(store_url, "acme"), PostgresStore(store_url, "globex")
    for i in range(3):  # the tenants' rows interleaved
        create_token(store_url, "globex")
        globex.publish(make_skill(tmp_path / f"g{i}", f"g-{i}"))
        acme.publish(make_skill(tmp_path / f"a{i}", f"a-{i}"))
    info, _token = create_token(store_url, "acme", label="ci")
    assert [t.id for t in list_tokens(store_url, "acme")] == [1, 2] and info.id == 2
    assert [t.id for t in list_tokens(store_url, "globex")] == [1, 2, 3, 4]
    assert revoke_token(store_url, "acme", 2).id == 2
    new, _t, revoked = rotate_token(store_url, "acme")
    assert (new.id, revoked) == (3, [1])
    rows = read_audit(store_url, tenant="acme", limit=1000)
    assert [r.id for r in rows] == list(range(1, 8)) and [r.number for r in rows] == [
        r.id for r in rows
    ]
    kinds = [(r.kind, r.event.get("token_id")) for r in rows]
    assert kinds[0] == ("tenant_created", 1) and kinds[-3:] == [
        ("token_created", 2),
        ("token_revoked", 2),
        ("token_rotated", 3),
    ]
    assert rows[-1].event["revoked"] == [1]
    page = read_audit(store_url, tenant="acme", after=4, limit=2)  # paged by its own ids
    assert [r.id for r in page] == [5, 6]
    everything = read_audit(store_url, limit=1000)  # the store-wide reader: row ids
    assert [r.id for r in everything] == sorted(r.id for r in everything)
    acme_rows = [r for r in everything if r.tenant == "acme"]
    assert [r.number for r in acme_rows] == list(range(1, 8))
    assert [r.id for r in acme_rows] != [r.number for r in acme_rows]  # globex's came between
    # events written at once by several connections still get distinct numbers in order
    sink = PostgresAuditSink(store_url, "globex")
    before = len(read_audit(store_url, tenant="globex", limit=1000))

    def emit() -> None:
        from skilldeck.events import SearchPerformed

        for _ in range(10):
            sink.emit(SearchPerformed(session_id="s", query="q", limit=1, results=()))

    threads = [threading.Thread(target=emit) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    numbers = [r.id for r in read_audit(store_url, tenant="globex", limit=1000)]
    assert numbers == list(range(1, before + 41))


def test_migrating_numbers_tokens_and_audit_rows_per_tenant(empty_url: str) -> None:
    """Schema 6 numbers the rows a store already has, and rows the previous release
    writes (no number) are numbered too."""
    from skilldeck.postgres._db import _MIGRATIONS

    with psycopg.connect(empty_url) as conn:  # a store of schema 5, rows interleaved
        conn.execute(
            "CREATE TABLE skilldeck_migrations (version integer PRIMARY KEY,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for version, sql in _MIGRATIONS[:5]:
            conn.execute(sql)
            conn.execute("INSERT INTO skilldeck_migrations (version) VALUES (%s)", (version,))
        for tenant in ("acme", "globex"):
            conn.execute("INSERT INTO skilldeck_tenants (tenant) VALUES (%s)", (tenant,))
        for i, tenant in enumerate(("acme", "globex", "acme", "globex", "acme")):
            conn.execute(
                "INSERT INTO skilldeck_tokens (tenant, token_sha256) VALUES (%s, %s)",
                (tenant, bytes([i]) * 32),
            )
            conn.execute("SELECT set_config('skilldeck.tenant', %s, false)", (tenant,))
            conn.execute(
                "INSERT INTO skilldeck_audit (tenant, kind, event) VALUES (%s, 'x', '{}')",
                (tenant,),
            )
    assert init_store(empty_url) == (5, SCHEMA_VERSION)
    want = [("acme", 1), ("globex", 1), ("acme", 2), ("globex", 2), ("acme", 3)]
    with psycopg.connect(empty_url) as conn:
        got = conn.execute("SELECT tenant, number FROM skilldeck_tokens ORDER BY id").fetchall()
        assert got == want
        for tenant in ("acme", "globex"):
            conn.execute("SELECT set_config('skilldeck.tenant', %s, false)", (tenant,))
            # as a replica of the previous release writes them: no number given
            conn.execute(
                "INSERT INTO skilldeck_audit (tenant, kind, event) VALUES (%s, 'x', '{}')",
                (tenant,),
            )
            conn.execute(
                "INSERT INTO skilldeck_tokens (tenant, token_sha256) VALUES (%s, %s)",
                (tenant, tenant.encode().ljust(32, b"-")),
            )
        got = conn.execute("SELECT tenant, number FROM skilldeck_tokens ORDER BY id").fetchall()
        assert got == [*want, ("acme", 4), ("globex", 3)]
        audit = []
        for tenant in ("acme", "globex"):  # the table's policies hold for its owner too
            conn.execute("SELECT set_config('skilldeck.tenant', %s, false)", (tenant,))
            audit += conn.execute(
                "SELECT tenant, number FROM skilldeck_audit WHERE tenant = %s ORDER BY id",
                (tenant,),
            ).fetchall()
    assert audit == [(t, n) for t, last in (("acme", 4), ("globex", 3)) for n in range(1, last + 1)]
