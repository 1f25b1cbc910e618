"""The search index: tokens, ranking, quality on the labelled set, backend parity."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from skilldeck.search import SearchDocument, SearchIndex, extract_headings

from . import searchdata as sd

BUNDLED_ROOT = Path(__file__).resolve().parents[2] / "src" / "skilldeck" / "_bundled"
HAVE_BM25S = importlib.util.find_spec("bm25s") is not None


def _bundled_docs() -> list[SearchDocument]:
    import yaml

    docs = []
    for name in sd.BUNDLED:
        text = (BUNDLED_ROOT / name / "SKILL.md").read_text("utf-8")
        _, fm, body = text.split("---", 2)
        meta = yaml.safe_load(fm)
        docs.append(SearchDocument(meta["name"], meta["description"], (), extract_headings(body)))
    return docs


def _docs() -> list[SearchDocument]:
    return [SearchDocument(n, d, t, h) for n, d, t, h in sd.GENERATED] + _bundled_docs()


def recall(index: SearchIndex, k: int) -> float:
    hits = 0
    for query, answers in sd.QUERIES:
        names = [h.name for h in index.search(query, limit=k)]
        hits += bool(set(names) & set(answers))
    return hits / len(sd.QUERIES)


def test_tokenize_folds_case_plurals_and_keeps_hyphenated_whole() -> None:
    index = SearchIndex(
        [
            SearchDocument("pdf", "Extracting PDF-Tools tables, using Spreadsheets"),
            SearchDocument("other", "deploy a service to the cloud"),
        ]
    )

    def matched(query: str) -> tuple[str, ...]:
        hits = index.search(query)
        assert [h.name for h in hits] == ["pdf"], query
        return hits[0].matched

    assert matched("extract") == ("extract",)
    assert matched("PDF") == ("pdf",) and matched("tool") == ("tool",)
    assert matched("pdf-tools") == ("pdf", "tool", "pdf-tools")
    assert matched("table") == matched("tables") and matched("spreadsheet")
    assert index.search("using") == [] and index.search("use") == []  # stop words


def test_headings_skip_code_fences() -> None:
    body = "# Title\n\n```bash\n# not a heading\n```\n\n## Steps ##\ntext\n"
    assert extract_headings(body) == ("Title", "Steps")


def test_labelled_set_is_big_enough() -> None:
    assert len(sd.QUERIES) >= 30
    names = {n for n, *_ in sd.GENERATED} | set(sd.BUNDLED)
    for _q, answers in sd.QUERIES:
        assert set(answers) <= names


def test_recall_on_labelled_queries() -> None:
    index = SearchIndex(_docs())
    r5, r1 = recall(index, 5), recall(index, 1)
    assert r5 >= 0.95, r5
    assert r1 >= 0.85, r1


def test_exact_name_ranks_first_and_limit_is_kept() -> None:
    index = SearchIndex(_docs())
    hits = index.search("regex-check", limit=3)
    assert hits[0].name == "regex-check"
    assert len(hits) <= 3
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_prefix_of_an_indexed_word_still_finds() -> None:
    index = SearchIndex(_docs())
    assert index.search("spreadsh", limit=3)[0].name == "xlsx-editor"


def test_nothing_matches_gives_nothing() -> None:
    index = SearchIndex(_docs())
    assert index.search("zzqxj", limit=5) == []
    assert index.search("the and of", limit=5) == []
    assert index.search("pdf", limit=0) == []
    assert SearchIndex([]).search("pdf") == []


def test_hit_to_dict_names_key_and_source() -> None:
    idx = SearchIndex([SearchDocument("pdf", "PDF things", key="proj:pdf", source="proj")])
    assert idx.search("pdf")[0].to_dict() == {
        "name": "pdf",
        "description": "PDF things",
        "score": idx.search("pdf")[0].to_dict()["score"],
        "confidence": 1.0,  # the query names the skill
        "key": "proj:pdf",
        "source": "proj",
    }


@pytest.mark.skipif(not HAVE_BM25S, reason="bm25s (extra 'search') not installed")
def test_bm25s_backend_ranks_like_the_builtin_one() -> None:
    docs = _docs()
    ours, theirs = SearchIndex(docs), SearchIndex(docs, backend="bm25s")
    assert theirs.backend == "bm25s" and ours.backend == "builtin"
    for query, _ in sd.QUERIES:
        a = [h.name for h in ours.search(query, limit=5)]
        b = [h.name for h in theirs.search(query, limit=5)]
        assert a[0] == b[0], query
        assert set(a[:3]) & set(b[:3])


def test_bm25s_backend_missing_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bm25s", None)  # makes ``import bm25s`` fail
    with pytest.raises(ImportError, match=r"\[search\]'"):  # the command for this install
        SearchIndex(_docs(), backend="bm25s")
    assert SearchIndex(_docs(), backend="auto").search("pdf form")[0].name == "pdf-forms"


def test_ten_thousand_skills_answer_fast() -> None:
    import time

    docs = [SearchDocument(n, d, t, h) for n, d, t, h in sd.make_synthetic(10_000)]
    index = SearchIndex(docs)
    worst = 0.0
    for query in ("compress archive backup", "deploy pipeline rollback", "dashboard alert"):
        t0 = time.process_time()
        assert index.search(query, limit=10)
        worst = max(worst, time.process_time() - t0)
    # the target is 20 ms (bench/search.py measures it); CPU, with slack for a loaded
    # machine (wall time there measures the neighbours)
    assert worst < 0.2


def test_stemming_folds_word_families() -> None:
    families = [
        ("string", "strings"),
        ("embedded", "embedding"),
        ("test", "tests", "testing", "tested"),
        ("run", "running", "runs"),
        ("library", "libraries"),
        ("class", "classes"),
        ("call", "called", "calling"),
        ("status",),
        ("presentation", "presentations"),
    ]
    for family in families:
        # the skill holds the first word; each other word of the family finds it
        # through one shared stem (they are longer, so prefix fallback cannot help)
        index = SearchIndex([SearchDocument("x", family[0]), SearchDocument("y", "zebra")])
        stems = set()
        for word in family:
            hits = index.search(word)
            assert [h.name for h in hits] == ["x"], word
            stems.add(hits[0].matched)
        assert len(stems) == 1 and len(next(iter(stems))) == 1, (family, stems)
    status = SearchIndex([SearchDocument("x", "status")]).search("status")
    assert status[0].matched == ("status",)  # not cut to 'statu'
