"""One file-set rule for every store: a skill published to PostgreSQL lists and serves
exactly the files its folder does (the same index, the same readable set, the same
bytes and digest), for real published corpus skills and for a skill whose body links
files outside the bundled folders."""

from __future__ import annotations

from pathlib import Path

import pytest

import skilldeck
from skilldeck.catalog import Catalog
from skilldeck.postgres import PostgresStore, create_tenant, store_catalog

from ._util import make_skill

_REPOS = ("anthropics__skills", "obra__superpowers")


def _same(folder: Catalog, stored: Catalog, name: str) -> None:
    for index in ("bundled", "all"):
        listed = folder.load(name, index=index).files  # type: ignore[arg-type]
        assert stored.load(name, index=index).files == listed, (name, index)  # type: ignore[arg-type]
    every = folder.files(name, index="all")
    for rel in ("SKILL.md", *every):
        got = folder.read_bundled(name, rel, index="all").data
        assert stored.read_bundled(name, rel, index="all").data == got, (name, rel)
    # the default index bounds reads in both, alike
    for rel in every:
        outcomes = []
        for cat in (folder, stored):
            try:
                outcomes.append(cat.read_file(name, rel))
            except skilldeck.PathNotAllowedError:
                outcomes.append(None)
        assert outcomes[0] == outcomes[1], (name, rel)
        assert (outcomes[0] is not None) == (rel in folder.load(name).files), (name, rel)
    assert stored.digest(name) == folder.digest(name)


def test_a_body_linked_file_is_listed_and_readable_from_both(
    store_url: str, tmp_path: Path
) -> None:
    create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    folder = make_skill(
        tmp_path,
        "deep-notes",
        body="See [the notes](references/deep/notes.md) and [patterns](patterns/).",
        files={
            "references/deep/notes.md": "notes\n",
            "patterns/a.md": "a\n",
            "other/x.md": "x\n",
            "scripts/run.py": "print(1)\n",
        },
    )
    store.publish(folder, scan="off")
    local = Catalog.from_roots([folder])
    stored = store_catalog(store)
    assert stored.load("deep-notes").files == (
        "patterns/a.md",
        "references/deep/notes.md",
        "scripts/run.py",
    )
    _same(local, stored, "deep-notes")
    for cat in (local, stored):
        with pytest.raises(skilldeck.PathNotAllowedError, match="not in the file index"):
            cat.read_file("deep-notes", "other/x.md")


def test_published_corpus_skills_list_and_serve_the_same_files(
    store_url: str, corpus: Path
) -> None:
    create_tenant(store_url, "acme")
    store = PostgresStore(store_url, "acme")
    published: dict[str, Path] = {}
    for repo in _REPOS:
        for folder in skilldeck.find_skill_dirs(corpus / repo):
            try:
                result = store.publish(folder, scan="off")
            except skilldeck.SkillError:
                continue  # invalid, over the limits or a template placeholder: not published
            published[result.name] = folder  # the newest publish is current
    assert len(published) > 20
    stored = store_catalog(store)
    for name, folder in sorted(published.items()):
        _same(Catalog.from_roots([folder]), stored, name)
