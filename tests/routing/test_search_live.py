"""A search index that follows its catalog in place (``LiveIndex``) answers exactly
as a fresh build over the same skills: same ranking, scores and confidences, after
rounds of skills removed, added and changed; and an update moves only the postings
of the skills that changed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from skilldeck.format import parse_skill_md
from skilldeck.search import (
    DocTerms,
    LiveIndex,
    SearchDocument,
    SearchIndex,
    body_parts,
    doc_terms,
)

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus"

Skill = tuple[SearchDocument, DocTerms]


def _skill(name: str, text: str) -> Skill | None:
    """One corpus SKILL.md as the runtime indexes it (``RuntimeSearch._analyse``)."""
    parsed = parse_skill_md(text)
    if not parsed.ok or parsed.manifest is None:
        return None
    manifest = parsed.manifest
    headings, prose, usage = body_parts(parsed.body)
    doc = SearchDocument(
        name=name,
        description=manifest.description,
        tags=tuple(manifest.tags),
        headings=headings,
        key=name,
        when_to_use=manifest.when_to_use,
    )
    return doc, doc_terms(doc, body=prose, usage=usage)


@pytest.fixture(scope="module")
def texts() -> list[tuple[str, str]]:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present (only beside a development checkout)")
    out = []
    for path in sorted(CORPUS.glob("*/**/SKILL.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if parse_skill_md(text).ok:
            out.append((path.parent.name, text))
    assert len(out) > 1000
    return out


def _queries() -> list[str]:
    out = []
    for name in ("routing.jsonl", "routing_heldout.jsonl", "routing_unseen.jsonl"):
        for line in (REPO / "bench" / "data" / name).read_text().splitlines():
            if line.strip():
                out.append(json.loads(line)["query"])
    # a skill's exact name, words found only as prefixes, a compound, nothing
    out += ["pdf", "docx", "spreadsh", "kuberne deploym", "git-commit", "zzzzqqq", ""]
    return out


def _ranked(index: SearchIndex, query: str) -> list[tuple[object, ...]]:
    return [
        (h.key, h.rank, h.score, h.confidence, h.matched, h.description)
        for h in index.search(query, limit=10)
    ]


def _same_as_fresh(live: LiveIndex, skills: list[Skill], queries: list[str]) -> None:
    fresh = SearchIndex([d for d, _ in skills], _terms=[t for _, t in skills])
    assert len(live) == len(fresh)
    for query in queries:
        assert _ranked(live, query) == _ranked(fresh, query), query


@pytest.mark.timeout(600)  # about 4,500 searches over real skills, on a loaded machine
def test_an_updated_index_ranks_as_a_fresh_build(texts: list[tuple[str, str]]) -> None:
    rng = random.Random(29)
    pool = [s for name, text in texts[:600] if (s := _skill(name, text)) is not None]
    names = {d.name for d, _ in pool}
    held, waiting = pool[:400], pool[400:]
    queries = _queries()
    for name, _text in texts[:12]:  # names of skills held and not held
        queries.append(name)
    live = LiveIndex([d for d, _ in held], [t for _, t in held])
    _same_as_fresh(live, held, queries)
    for round_ in range(4):
        removed = added = changed = 0
        for _ in range(rng.randint(1, 25)):  # unpublished
            held.pop(rng.randrange(len(held)))
            removed += 1
        for _ in range(rng.randint(1, 25)):  # published, at its place in the order
            held.insert(rng.randrange(len(held) + 1), waiting.pop())
            added += 1
        for _ in range(rng.randint(1, 25)):  # a new version: another corpus text, same name
            i = rng.randrange(len(held))
            other = rng.choice(texts)[1]
            new = _skill(held[i][0].name, other)
            assert new is not None
            held[i] = new
            changed += 1
        if round_ == 2:  # a duplicated skill (ties must keep catalog order)
            held.insert(0, _skill("copy-of-" + held[5][0].name, texts[5][1]) or held[5])
            added += 1
        got = live.update([d for d, _ in held], [t for _, t in held])
        assert got[0] <= removed + changed and got[1] <= added + changed
        assert got[0] >= 1 and got[1] >= 1
        _same_as_fresh(live, held, queries)
    assert names  # the pool had real names


@pytest.mark.timeout(600)  # 1,350 real skills indexed, on a loaded machine
def test_an_update_moves_only_the_changed_postings(texts: list[tuple[str, str]]) -> None:
    small = [s for name, text in texts[:150] if (s := _skill(name, text)) is not None]
    large = [s for name, text in texts[:1200] if (s := _skill(name, text)) is not None]
    moved = []
    for skills in (small, large):
        live = LiveIndex([d for d, _ in skills], [t for _, t in skills])
        live.search("merge pdf files")
        docs, terms = [d for d, _ in skills], [t for _, t in skills]
        old = terms[7]
        new = _skill(docs[7].name, texts[300][1])
        assert new is not None
        docs[7], terms[7] = new
        assert live.update(docs, terms) == (1, 1)
        postings = sum(len(ts) for _f, ts, _c in old.fields) + sum(
            len(ts) for _f, ts, _c in terms[7].fields
        )
        assert live.moved == postings  # the old version's postings out, the new one's in
        moved.append(live.moved)
        assert live.update(docs, terms) == (0, 0) and live.moved == 0
        now = list(zip(docs, terms, strict=True))
        _same_as_fresh(live, now, ["merge pdf files", docs[7].name])
    assert moved[0] == moved[1]  # the same change costs the same in 8x the skills


def test_every_skill_replaced_and_the_same_terms_twice() -> None:
    docs = [SearchDocument(name=f"s{i}", description=f"alpha beta {i} gamma") for i in range(20)]
    terms = [doc_terms(d) for d in docs]
    live = LiveIndex(docs, terms)
    shared = doc_terms(SearchDocument(name="s0", description="delta epsilon"))
    others = [SearchDocument(name="s0", description="delta epsilon")] * 3
    assert live.update(others, [shared] * 3) == (20, 3)  # one terms object held twice
    _same_as_fresh(live, list(zip(others, [shared] * 3, strict=True)), ["delta", "s0", "alpha"])
    assert live.update([], []) == (3, 0)
    assert live.search("delta") == [] and len(live) == 0
    assert live.update(docs, terms) == (0, 20)
    _same_as_fresh(live, list(zip(docs, terms, strict=True)), ["alpha", "gamma 7", "s3"])
    with pytest.raises(ValueError, match="one terms object per document"):
        live.update(docs, terms[:3])
