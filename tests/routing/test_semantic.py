"""The optional semantic backend: embeddings the host supplies, fused with the lexical
ranking, behind the same search interface. The embedder here is a small word-vector
table the test makes (no model is downloaded)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

import skilldeck
from skilldeck.search import SearchDocument, SearchIndex

np = pytest.importorskip("numpy", reason="semantic search is the skilldeck[semantic] extra")

from skilldeck.search import SemanticIndex  # noqa: E402

# three concepts; words a request and a skill use for the same thing share one
CONCEPTS = {
    "storage": ("usb", "thumb", "drive", "stick", "plugged", "device", "removable"),
    "money": ("invoice", "invoices", "invoicing", "bill", "paid", "payment", "payments", "pay"),
    "calendar": ("meeting", "calendar", "schedule", "offsite", "event", "monday"),
}
AXES = list(CONCEPTS)


class WordVectors:
    """``fn(texts) -> vectors``: the mean of each known word's concept axis."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        out = []
        for text in texts:
            vec = [0.0] * len(AXES)
            for word in re.findall(r"[a-z]+", text.lower()):
                for axis, words in enumerate(CONCEPTS.values()):
                    if word in words:
                        vec[axis] += 1.0
            out.append(vec)
        return out


DOCS = [
    SearchDocument("usb-history", "Investigate removable device connections from the registry."),
    SearchDocument("invoicing", "Create invoices and track payments."),
    SearchDocument("calendar-insert", "Add an event to a calendar."),
    SearchDocument("release-notes", "Write release notes from the git log."),
]


def test_a_goal_phrased_request_reaches_the_skill_lexical_search_misses() -> None:
    query = "someone plugged a thumb stick into the finance PC"
    lexical = SearchIndex(DOCS)
    assert [h.name for h in lexical.search(query)][:1] != ["usb-history"]
    embed = WordVectors()
    index = SemanticIndex(lexical, embed)
    hits = index.search(query, limit=3)
    assert hits[0].name == "usb-history" and hits[0].confident
    assert hits[0].description == DOCS[0].listing
    # the skills are embedded once, then only the request
    index.search("when was the bill paid", limit=3)
    assert embed.calls == [len(DOCS), 1, 1]
    assert index.search("when was the bill paid")[0].name == "invoicing"


def test_lexical_matches_keep_their_rank_and_confidence() -> None:
    index = SemanticIndex(SearchIndex(DOCS), WordVectors())
    hit = index.search("release notes from the git log")[0]
    assert hit.name == "release-notes" and hit.confident and "releas" in hit.matched
    assert index.search("invoicing")[0].confidence == 1.0  # names the skill
    # nothing similar and nothing lexical: not confident
    assert index.search("how tall is Mount Everest") == []  # nothing similar, no word


def test_similarity_maps_to_confidence() -> None:
    index = SemanticIndex(SearchIndex(DOCS), WordVectors(), similarity=(0.9, 0.99))
    hit = index.search("plugged a thumb stick in")[0]
    assert hit.name == "usb-history"
    assert math.isclose(hit.confidence, 1.0)  # cosine 1 for the same concept
    weightless = SemanticIndex(SearchIndex(DOCS), WordVectors(), weight=0.0)
    assert [h.name for h in weightless.search("release notes")] == [
        h.name for h in SearchIndex(DOCS).search("release notes")
    ]


@pytest.mark.parametrize(
    ("embedder", "message"),
    [
        (lambda texts: [[1.0, 0.0]], "shape"),  # one vector for many texts
        (lambda texts: 1 / 0, "ZeroDivisionError"),
        (lambda texts: "not vectors", "not a list of vectors"),
        (lambda texts: [[]] * len(texts), "shape"),
        (lambda texts: [["a", "b"]] * len(texts), "not a list of vectors"),
    ],
)
def test_a_bad_embedder_leaves_lexical_search(
    embedder: object, message: str, caplog: pytest.LogCaptureFixture
) -> None:
    lexical = SearchIndex(DOCS)
    index = SemanticIndex(lexical, embedder)  # type: ignore[arg-type]
    for _ in range(2):
        hits = index.search("release notes from the git log")
        assert hits == lexical.search("release notes from the git log")
        assert index.error is not None and message in index.error
    warned = [r for r in caplog.records if r.name == "skilldeck.search"]
    assert len(warned) == 1 and message in warned[0].getMessage()  # once per reason


def test_a_failing_embedder_and_its_recovery() -> None:
    state = {"down": True}

    def flaky(texts: Sequence[str]) -> list[list[float]]:
        if state["down"]:
            raise RuntimeError("model not loaded")
        return WordVectors()(texts)

    rt_index = SemanticIndex(SearchIndex(DOCS), flaky)
    assert rt_index.search("a thumb stick")[:1] == SearchIndex(DOCS).search("a thumb stick")[:1]
    assert rt_index.error == "RuntimeError: model not loaded"
    state["down"] = False
    assert rt_index.search("a thumb stick")[0].name == "usb-history"
    assert rt_index.error is None


def test_non_finite_vectors_count_as_no_similarity() -> None:
    def nan_for_invoices(texts: Sequence[str]) -> list[list[float]]:
        rows = WordVectors()(texts)
        nan = [math.nan] * 3
        return [nan if "invoice" in t.lower() else r for t, r in zip(texts, rows, strict=True)]

    index = SemanticIndex(SearchIndex(DOCS), nan_for_invoices)
    assert [h.name for h in index.search("thumb drive")][:1] == ["usb-history"]


def test_bad_options() -> None:
    lexical = SearchIndex(DOCS)
    for options in ({"similarity": (0.5, 0.5)}, {"weight": -1.0}, {"depth": 0}):
        with pytest.raises(ValueError):
            SemanticIndex(lexical, WordVectors(), **options)  # type: ignore[arg-type]


def write(root: Path, name: str, front: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\n{front}---\n# {name}\n")


def test_the_runtime_uses_the_embedder_and_still_hides_what_the_model_must_not_see(
    tmp_path: Path,
) -> None:
    root = tmp_path / "skills"
    write(root, "usb-history", "description: Investigate removable device connections.\n")
    write(root, "invoicing", "description: Create invoices and track payments.\n")
    write(
        root,
        "pay-vendor",
        "description: Pay a vendor's bill now.\ndisable-model-invocation: true\n",
    )
    rt = skilldeck.SkillRuntime(
        skilldeck.Catalog.from_roots([root], cache=tmp_path / "cache"), embedder=WordVectors()
    )
    assert isinstance(rt.search_index(), SemanticIndex)
    found = rt.call(rt.session(), "skills_search", {"query": "a thumb stick was plugged in"})
    assert found["data"]["results"][0]["name"] == "usb-history"
    for query in ("pay the bill", "pay-vendor"):
        found = rt.call(rt.session(), "skills_search", {"query": query, "limit": 10})
        assert "pay-vendor" not in json.dumps(found["data"]["results"])
        assert all(s.name != "pay-vendor" for s in rt.suggest(query, limit=None))
    assert "usb-history" in rt.preflight("someone plugged a thumb drive in")
    # a model that fails leaves lexical search, through the tool too
    broken = skilldeck.SkillRuntime(
        skilldeck.Catalog.from_roots([root], cache=False), embedder=lambda texts: 1 / 0
    )
    found = broken.call(broken.session(), "skills_search", {"query": "invoices"})
    assert found["ok"] and found["data"]["results"][0]["name"] == "invoicing"
    assert "invoicing" in broken.preflight("create invoices and track payments")
    # the default stays lexical
    plain = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    assert type(plain.search_index()) is SearchIndex
