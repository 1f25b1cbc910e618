"""The saved search index: the first search of a new process loads it instead of
building; any change to a skill makes a new one; a damaged file is rebuilt."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import skilldeck
from skilldeck.search._store import load_index


def write(root: Path, name: str, description: str, body: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n{body or f'# {name}'}\n"
    )
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write(root, "pdf", "Extract text and tables from PDF files.", "# PDF\n\n## Merge files\n")
    write(root, "slides", "Create presentation decks.", "# Slides\n\nSpeaker notes too.\n")
    for i in range(30):
        write(root, f"filler-{i}", f"Filler skill number {i} about gardening and soil.")
    return root


def runtime(root: Path, cache: Path) -> skilldeck.SkillRuntime:
    return skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=cache))


def names(rt: skilldeck.SkillRuntime, query: str) -> list[str]:
    envelope = rt.call(rt.session(), "skills_search", {"query": query, "limit": 5})
    return [h["name"] for h in envelope["data"]["results"]]


def saved(cache: Path) -> list[Path]:
    """The saved indexes (each holds its evidence index)."""
    return sorted((cache / "search").glob("*.msgpack"))


def test_a_new_process_loads_the_saved_index(root: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = runtime(root, cache)
    built = first.search_index()
    assert names(first, "merge files") == ["pdf"]  # from a heading
    (path,) = saved(cache)
    script = textwrap.dedent(
        f"""
        import skilldeck, skilldeck.tools._runtime as r
        from skilldeck import search
        rt = skilldeck.SkillRuntime(
            skilldeck.Catalog.from_roots([{str(root)!r}], cache={str(cache)!r}))
        index = rt.search_index()
        print(type(index.fielded.fields[-1][2]).__name__)
        for q in ("merge files", "speaker notes", "gardening soil 7", "pdf"):
            print([(h.name, round(h.score, 6), h.confidence) for h in index.search(q, limit=5)])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert out[0] == "memoryview"  # loaded (mapped), not built
    queries = ("merge files", "speaker notes", "gardening soil 7", "pdf")
    for line, q in zip(out[1:], queries, strict=True):
        fresh = [(h.name, round(h.score, 6), h.confidence) for h in built.search(q, limit=5)]
        assert line == str(fresh)  # the same ranking, scores and confidence
    assert saved(cache) == [path]


def test_changes_make_a_new_index(root: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    runtime(root, cache).search_index()
    (before,) = saved(cache)
    # a body edit that leaves the frontmatter as it was
    write(root, "slides", "Create presentation decks.", "# Slides\n\n## Keynote export\n")
    rt = runtime(root, cache)
    assert names(rt, "keynote export") == ["slides"]
    assert len(saved(cache)) == 2 and before in saved(cache)
    # a new skill
    write(root, "weather", "Weather forecasts for a city.")
    assert names(runtime(root, cache), "weather forecast") == ["weather"]
    # an index with headings off is another index
    plain = skilldeck.SkillRuntime(
        skilldeck.Catalog.from_roots([root], cache=tmp_path / "cache"), search_headings=False
    )
    assert names(plain, "keynote export") == []


def test_no_cache_no_file(root: Path, tmp_path: Path) -> None:
    rt = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    assert names(rt, "merge files") == ["pdf"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:10],
        lambda b: b[: len(b) // 2],
        lambda b: b"XXXX" + b[4:],
        lambda b: b[:4] + (2**31).to_bytes(4, "little") + b[8:],
        lambda b: b[:8] + b"\xff" * 32 + b[40:],
        lambda b: b"",
        # posting lists pointing past the documents: checked when unpacked
        lambda b: b[: len(b) - 200] + b"\xff" * 200,
    ],
)
def test_a_damaged_index_is_rebuilt(root: Path, tmp_path: Path, damage: object) -> None:
    cache = tmp_path / "cache"
    runtime(root, cache).search_index()
    (path,) = saved(cache)
    key = path.stem
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    rt = runtime(root, cache)
    got = names(rt, "merge files")
    assert got in (["pdf"], [])  # never an error; rebuilt or read what is sound
    envelope = rt.call(rt.session(), "skills_search", {"query": "gardening soil pdf tables"})
    assert envelope["ok"]
    loaded = load_index(cache / "search", key)
    assert loaded is None or loaded.n == 32


def test_old_files_are_pruned(root: Path, tmp_path: Path) -> None:
    from skilldeck.search._store import MAX_FILES

    cache = tmp_path / "cache"
    for i in range(MAX_FILES + 3):
        write(root, "changing", f"Version {i} of a changing skill.")
        runtime(root, cache).search_index()
    assert len(list((cache / "search").glob("*.msgpack"))) == MAX_FILES
    assert not list((cache / "search").glob(".search.*"))  # no temp files left
    assert os.access(saved(cache)[0], os.R_OK)


def test_a_change_reads_only_the_changed_skills(root: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = runtime(root, cache)
    first.search_index()
    assert first._search.documents_made == 32
    write(root, "slides", "Create presentation decks.", "# Slides\n\n## Keynote export\n")
    write(root, "weather", "Weather forecasts for a city.")
    rt = runtime(root, cache)  # a new process's runtime: the saved terms, not the bodies
    index = rt.search_index()
    assert rt._search.documents_made == 2  # the edited skill and the new one
    fresh = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    for q in ("keynote export", "merge files", "weather forecast", "gardening soil 7"):
        want = [(h.name, h.score, h.confidence) for h in fresh.search_index().search(q)]
        assert [(h.name, h.score, h.confidence) for h in index.search(q)] == want
    assert names(rt, "keynote export") == ["slides"]
    # a damaged terms file only costs the reuse
    from skilldeck.search._store import TERMS_FILE

    (cache / "search" / TERMS_FILE).write_bytes(b"\x93\x07\x81\xc4")
    write(root, "weather", "Weather forecasts for a town.")
    again = runtime(root, cache)
    assert names(again, "weather forecast") == ["weather"]
    assert again._search.documents_made == 33


def test_saved_terms_come_back_as_they_were(tmp_path: Path) -> None:
    """Each skill's terms are read back equal, whatever the text (accents, dotless
    i, compounds, digits, a name kept whole), one string per term shared by every
    skill that has it (a string per skill and term doubled a rebuild's memory); a
    file cut short is not reused."""
    from skilldeck.search import SearchDocument, doc_terms
    from skilldeck.search._store import TERMS_FILE, load_terms, save_terms

    docs = [
        SearchDocument("pdf-tools", "Extract tables from PDFs, don't guess.", ("pdf", "ocr")),
        SearchDocument("ıstanbul", "Présentation naïve 2024 K8s ünïcode tables"),
        SearchDocument("x", "", when_to_use="When the user's pdf_tools break."),
    ]
    rows = [
        (bytes([i]), doc_terms(d, body=["Some", "body", "words,", "re-used"]), ("A", "B"))
        for i, d in enumerate(docs)
    ]
    folder = tmp_path / "search"
    save_terms(folder, rows)
    got = load_terms(folder)
    assert got == {key: (terms, headings) for key, terms, headings in rows}
    strings = {}
    for terms, _headings in got.values():
        for _f, names, _counts in terms.fields:
            for name in names:
                assert strings.setdefault(name, name) is name
    assert "tabl" in strings
    data = (folder / TERMS_FILE).read_bytes()
    (folder / TERMS_FILE).write_bytes(data[:-3])
    assert load_terms(folder) == {}


def test_the_key_takes_the_scans_stamps_and_stats_the_rest(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's key uses the stat signature the catalog's scan validated each
    SKILL.md with; a SKILL.md that is a link is stat'ed (its target may change
    while the link does not)."""
    import time
    from dataclasses import replace

    from skilldeck.catalog import _fs, sig_of

    monkeypatch.setattr(_fs, "_RACY_NS", 20_000_000)  # settled after 20 ms (1 s otherwise)

    kites = root / "kites"
    kites.mkdir()
    (kites / "source.md").write_text(
        "---\nname: kites\ndescription: Building kites from paper.\n---\n# Kites\n"
    )
    (kites / "SKILL.md").symlink_to("source.md")
    time.sleep(0.05)
    cache = tmp_path / "cache"
    catalog = skilldeck.Catalog.from_roots([root], cache=cache)
    metas = catalog.list()
    stamps = catalog.skill_md_stamps(metas)
    assert len(metas) == 33
    for meta, stamp in zip(metas, stamps, strict=True):
        if meta.name == "kites":
            assert stamp is None
        else:
            assert stamp == sig_of(os.stat(os.path.join(meta.folder, meta.md_name)))
    assert catalog.skill_md_stamps([replace(metas[0])]) == [None]  # another listing's
    assert names(runtime(root, cache), "kites") == ["kites"]
    # the link's target gains a heading: a new index, which finds it
    (kites / "source.md").write_text(
        "---\nname: kites\ndescription: Building kites from paper.\n---\n# Kites\n\n"
        "## Repairing torn sails\n"
    )
    assert names(runtime(root, cache), "torn sails") == ["kites"]
    assert len(saved(cache)) == 2


def test_a_built_index_is_written_as_it_answers(tmp_path: Path) -> None:
    """A built index keeps each term's postings where the build put them; the file
    holds them flat. Loaded, it has the same terms, documents and counts, and
    ranks to the last bit alike (postings written a piece at a time included)."""
    from skilldeck.search import SearchDocument, SearchIndex, _terms
    from skilldeck.search._store import save_index

    docs = [
        SearchDocument(
            f"skill-{i}",
            f"Tool {i} for {'pdf tables' if i % 3 else 'slides'} and report {i % 7}.",
            tags=(f"tag-{i % 5}",),
            headings=(f"Step {i % 4}",),
            body=" ".join(f"word{j % (i + 2)} body-{j % 3}" for j in range(40)),
            usage="Use when exporting tables" if i % 2 else "",
        )
        for i in range(300)
    ]
    built = SearchIndex(docs)
    old = _terms._PIECE
    _terms._PIECE = 7  # many pieces per field
    try:
        save_index(tmp_path, "k", built.fielded)
    finally:
        _terms._PIECE = old
    loaded = load_index(tmp_path, "k")
    assert loaded is not None
    for f in range(len(_terms.FIELDS)):
        terms = built.fielded.field_terms(f)
        assert list(loaded.field_terms(f)) == list(terms)
        assert terms or _terms.FIELDS[f] == "when_to_use"
        for term in terms:
            want = built.fielded.get(f, term)
            got = loaded.get(f, term)
            assert want is not None and got is not None
            assert (list(got[0]), list(got[1])) == (list(want[0]), list(want[1]))
        assert list(loaded.lengths[f]) == list(built.fielded.lengths[f])
    assert list(loaded.meta_lengths) == list(built.fielded.meta_lengths)
    again = SearchIndex(docs, _fielded=loaded)
    for q in ("pdf tables", "slides report 3", "word5 body", "exporting", "tag-2 step"):
        want = [(h.name, h.score, h.confidence, h.matched) for h in built.search(q)]
        assert [(h.name, h.score, h.confidence, h.matched) for h in again.search(q)] == want
