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
