"""A tenant's search index follows its catalog: a publish re-reads only what changed."""

from __future__ import annotations

from pathlib import Path

from skilldeck import SkillRuntime
from skilldeck.postgres import PostgresStore, create_tenant, store_catalog

from ._util import make_skill


def test_a_publish_costs_search_work_for_what_changed(store_url: str, tmp_path: Path) -> None:
    create_tenant(store_url, "acme")
    publisher = PostgresStore(store_url, "acme")
    for i in range(30):
        publisher.publish(make_skill(tmp_path / "v0", f"skill-{i}", body=f"# Topic {i}\n"))
    catalog = store_catalog(PostgresStore(store_url, "acme"))
    runtime = SkillRuntime(catalog)
    assert runtime.search_index().search("skill-7")[0].name == "skill-7"
    search = runtime._search
    assert search.documents_made == 30
    publisher.publish(make_skill(tmp_path / "v1", "skill-3", body="# Zebra crossing\n"))
    publisher.publish(make_skill(tmp_path / "v1", "skill-new", body="# Walrus\n"))
    publisher.unpublish("skill-9")
    first = runtime.search_index()
    catalog.refresh()
    index = runtime.search_index()
    assert index is first  # followed in place: two out, two in
    assert index.moved > 0
    assert index.search("zebra crossing")[0].name == "skill-3"  # the new body's heading
    assert index.search("walrus")[0].name == "skill-new"
    assert "skill-9" not in {d.name for d in index.documents}
    assert len(index) == 30
    assert search.documents_made == 32  # the two new versions' bodies, nothing else
    # exactly what a fresh replica builds over the same versions
    fresh = SkillRuntime(store_catalog(PostgresStore(store_url, "acme"))).search_index()
    assert type(fresh) is type(index)
    for query in ("zebra crossing", "walrus", "topic 12", "skill-3", "skill", "topic"):
        got = [(h.name, h.score, h.confidence) for h in index.search(query)]
        assert got == [(h.name, h.score, h.confidence) for h in fresh.search(query)]


def test_a_server_answers_searches_while_its_index_follows_a_publish(
    store_url: str, tmp_path: Path
) -> None:
    import time

    create_tenant(store_url, "acme")
    publisher = PostgresStore(store_url, "acme")
    for i in range(20):
        publisher.publish(make_skill(tmp_path / "v0", f"skill-{i}", body=f"# Topic {i}\n"))
    catalog = store_catalog(PostgresStore(store_url, "acme"))
    runtime = SkillRuntime(catalog)
    search = runtime._search
    search.background = True  # as a store replica's tenant servers do
    first = runtime.search_index()  # the first build is waited for
    assert first.search("zebra crossing") == []
    publisher.publish(make_skill(tmp_path / "v1", "skill-4", body="# Zebra crossing\n"))
    catalog.refresh()
    assert runtime.search_index() is first  # answered at once; updated in a thread, in place
    deadline = time.monotonic() + 60
    while not first.search("zebra crossing"):
        assert time.monotonic() < deadline, "the update never landed"
        time.sleep(0.05)
    assert first.search("zebra crossing")[0].name == "skill-4"
    while search._rebuilding:
        time.sleep(0.01)
    made = search.documents_made
    assert runtime.search_index() is first
    assert search.documents_made == made and not search._rebuilding  # nothing changed since


def test_replicas_share_each_versions_terms(store_url: str, tmp_path: Path) -> None:
    create_tenant(store_url, "acme")
    publisher = PostgresStore(store_url, "acme")
    for i in range(30):
        publisher.publish(make_skill(tmp_path / "v0", f"skill-{i}", body=f"# Topic {i}\n"))

    def replica() -> SkillRuntime:
        store = PostgresStore(store_url, "acme")
        runtime = SkillRuntime(store_catalog(store))
        runtime._search.terms_store = store  # as a store replica's tenant servers do
        return runtime

    first = replica()
    queries = ("topic 7", "skill-12", "zebra crossing")
    want = [
        [(h.name, h.score, h.confidence) for h in first.search_index().search(q)] for q in queries
    ]
    assert first._search.documents_made == 30  # read the bodies, kept their terms
    second = replica()  # another replica's first search: no body read
    index = second.search_index()
    assert second._search.documents_made == 0
    assert [[(h.name, h.score, h.confidence) for h in index.search(q)] for q in queries] == want
    publisher.publish(make_skill(tmp_path / "v1", "skill-3", body="# Zebra crossing\n"))
    for runtime in (first, second):
        runtime.catalog.refresh()
        assert runtime.search_index().search("zebra crossing")[0].name == "skill-3"
    # the publish cost one body between the two replicas (whichever read it first)
    assert first._search.documents_made + second._search.documents_made == 31
    third = replica()
    assert third.search_index().search("zebra crossing")[0].name == "skill-3"
    assert third._search.documents_made == 0
