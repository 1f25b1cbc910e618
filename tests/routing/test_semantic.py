"""The optional semantic backend: embeddings the host supplies, fused with the lexical
ranking, behind the same search interface. The embedder here is a small word-vector
table the test makes (no model is downloaded)."""

from __future__ import annotations

import json
import math
import re
import time
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
#: an abstention model that goes by the best cosine alone (confident from 0.5 up)
COSINE_ONLY = (-4.0, 0.0, 8.0)


class WordVectors:
    """``fn(texts) -> vectors``: the mean of each known word's concept axis."""

    def __init__(self, abstention: tuple[float, float, float] | None = None) -> None:
        self.calls: list[int] = []
        if abstention is not None:
            self.abstention = abstention  # its fitted abstention, as a host states it

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
    index = SemanticIndex(lexical, embed, abstention=COSINE_ONLY)  # fitted for the model
    hits = index.search(query, limit=3)
    assert hits[0].name == "usb-history" and hits[0].confident
    assert hits[0].description == DOCS[0].listing
    # no fitted abstention: similarity ranks, and the hit is as confident as lexical's best
    unfitted = SemanticIndex(lexical, WordVectors()).search(query, limit=3)
    assert unfitted[0].name == "usb-history"
    best = lexical.search(query, limit=1)
    assert unfitted[0].confidence == (best[0].confidence if best else 0.0)
    assert not unfitted[0].confident
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


def test_the_fitted_abstention_uses_both_signals() -> None:
    """The request's confidence is one logistic model of the lexical confidence and
    the best cosine; the first hit has it and no later hit has more."""
    from skilldeck.search import fused_confidence

    index = SemanticIndex(SearchIndex(DOCS), WordVectors(), abstention=COSINE_ONLY)
    hit = index.search("plugged a thumb stick in")[0]
    assert hit.name == "usb-history"
    assert math.isclose(hit.confidence, fused_confidence(COSINE_ONLY, 0.0, 1.0), abs_tol=1e-4)
    # a lexical match with nothing similar: the model can take the confidence away
    lexical_only = (-1.0, 1.0, 0.0)
    sure = SearchIndex(DOCS).search("release notes from the git log")[0].confidence
    index = SemanticIndex(SearchIndex(DOCS), WordVectors(), abstention=lexical_only)
    hits = index.search("release notes from the git log")
    assert math.isclose(hits[0].confidence, fused_confidence(lexical_only, sure, 0.0), abs_tol=1e-4)
    assert all(h.confidence <= hits[0].confidence for h in hits)
    weightless = SemanticIndex(SearchIndex(DOCS), WordVectors(), weight=0.0)
    assert [h.name for h in weightless.search("release notes")] == [
        h.name for h in SearchIndex(DOCS).search("release notes")
    ]


def test_the_fusion_weighs_each_score_by_its_share_and_lexical_sureness() -> None:
    """A candidate scores ``(1 - weight)`` times its lexical score as a share of the
    best, times the request's lexical confidence, plus ``weight`` times its cosine as
    a share of the best cosine; weight 1 ranks as the model does."""
    lexical = SearchIndex(DOCS)
    query = "release notes for the invoice payments"
    lex = lexical.search(query, limit=10)
    assert len(lex) >= 2
    for weight in (0.25, 0.55, 0.9):
        index = SemanticIndex(lexical, WordVectors(), weight=weight)
        sims = index.similarities(query)
        best_cosine = float(sims.max())
        sure = min(1.0, lex[0].confidence)
        by_name = {h.name: h.score / lex[0].score for h in lex}
        for hit in index.search(query, limit=4):
            pos = [d.name for d in DOCS].index(hit.name)
            expected = (1 - weight) * sure * by_name.get(hit.name, 0.0)
            expected += weight * max(0.0, float(sims[pos])) / best_cosine
            assert math.isclose(hit.score, expected, abs_tol=1e-5), (weight, hit)
    dense = SemanticIndex(lexical, WordVectors(), weight=1.0)
    assert lex[0].name != "invoicing"  # lexical search puts another first
    assert dense.search(query, limit=1)[0].name == dense.dense_search(query, limit=1)[0].name


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
    bad = (
        {"abstention": (0.5, 0.5)},
        {"abstention": (0.5, 0.5, 0.5, 0.5, 0.5)},
        {"abstention": (0.0, math.nan, 1.0)},
        {"weight": -1.0},
        {"depth": 0},
        {"weight": 1.5},
        {"floor": math.nan},
    )
    for options in bad:
        with pytest.raises(ValueError):
            SemanticIndex(lexical, WordVectors(), **options)  # type: ignore[arg-type]


def test_the_abstention_goes_by_the_cosine_of_lexical_searchs_first_hit_too() -> None:
    """A fourth coefficient weighs how similar the request is to the skill lexical
    search puts first: the model agreeing with the lexical answer keeps it."""
    from skilldeck.search import fused_confidence

    query = "invoices for the usb drive"  # words of two skills; lexical puts invoicing first
    first = SearchIndex(DOCS).search(query)[0]
    assert first.name == "invoicing"
    agree = (-1.0, 0.0, 0.0, 4.0)
    index = SemanticIndex(SearchIndex(DOCS), WordVectors(), abstention=agree)
    sims = index.similarities(query)
    named = [d.name for d in DOCS].index("invoicing")
    hits = index.search(query)
    expected = fused_confidence(agree, first.confidence, float(sims.max()), float(sims[named]))
    assert math.isclose(hits[0].confidence, expected, abs_tol=1e-4)
    # (intercept, lexical, cosine) is the same model with no weight on it
    assert fused_confidence((-1.0, 0.5, 2.0), 0.7, 0.4) == fused_confidence(
        (-1.0, 0.5, 2.0, 0.0), 0.7, 0.4, 0.9
    )


class Slow(WordVectors):
    """Word vectors that wait for a gate before embedding more than one text (the
    skills), as a large catalog keeps a real model busy."""

    def __init__(self) -> None:
        super().__init__()
        import threading

        self.gate = threading.Event()
        self.entered = threading.Event()  # set once the skills' embedding has begun

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        if len(texts) > 1:
            self.entered.set()
            assert self.gate.wait(30)
        return super().__call__(texts)


def test_background_embedding_answers_lexically_until_the_vectors_are_ready() -> None:
    lexical = SearchIndex(DOCS)
    embed = Slow()
    index = SemanticIndex(lexical, embed, background=True)
    query = "someone plugged a thumb stick in"  # no word of any skill: lexical finds nothing
    assert index.search(query) == lexical.search(query) == []
    assert embed.entered.wait(30)  # the worker is embedding, held at the gate
    assert not index.ready and index.progress[0] == 0
    started = time.monotonic()
    assert index.search("release notes") == lexical.search("release notes")
    assert time.monotonic() - started < 10  # a search never waits for the embedding
    embed.gate.set()
    worker = index._worker
    assert worker is not None
    worker.join(30)
    assert index.ready and index.progress == (len(DOCS), len(DOCS))
    assert [h.name for h in index.search(query)][:1] == ["usb-history"]


def test_a_failing_background_embedding_is_kept_and_tried_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    state = {"down": True}

    def flaky(texts: Sequence[str]) -> list[list[float]]:
        if state["down"]:
            raise RuntimeError("model server unreachable")
        return WordVectors()(texts)

    lexical = SearchIndex(DOCS)
    index = SemanticIndex(lexical, flaky, background=True)
    index.prepare(background=True)
    assert index._worker is not None
    index._worker.join(30)
    assert not index.ready and index.error is not None and "unreachable" in index.error
    state["down"] = False
    # lexical answers at once, and the search starts the embedding again
    assert index.search("release notes") == lexical.search("release notes")
    assert index._worker is not None
    index._worker.join(30)
    assert index.ready
    assert [h.name for h in index.search("thumb stick")][:1] == ["usb-history"]


def test_prepare_search_in_the_foreground_reports_progress(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for doc in DOCS:
        write(root, doc.name, f"description: {doc.description}\n")
    runtime = skilldeck.SkillRuntime(
        skilldeck.Catalog.from_roots([root], cache=False), embedder=WordVectors()
    )
    seen: list[tuple[int, int]] = []
    index = runtime.prepare_search(progress=lambda done, total: seen.append((done, total)))
    assert isinstance(index, SemanticIndex) and index.ready
    assert seen == [(len(DOCS), len(DOCS))]
    lexical = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    assert not isinstance(lexical.prepare_search(), SemanticIndex)  # no model: nothing to embed


def test_the_model_embeds_each_skills_usage_sections_too(tmp_path: Path) -> None:
    """What a body says about when to use the skill is embedded with its listing,
    whether the runtime built its search index or loaded the saved one."""
    root = tmp_path / "skills"
    write(root, "usb-history", "description: Investigate device connections.\n")
    manifest = root / "usb-history" / "SKILL.md"
    manifest.write_text(
        manifest.read_text() + "\n## When to use\n\nSomeone plugged a thumb stick in.\n"
    )
    for _ in range(2):  # built, then loaded from the cache
        seen: list[str] = []

        def record(texts: Sequence[str], seen: list[str] = seen) -> list[list[float]]:
            seen.extend(texts)
            return WordVectors()(texts)

        catalog = skilldeck.Catalog.from_roots([root], cache=tmp_path / "cache")
        skilldeck.SkillRuntime(catalog, embedder=record).prepare_search()
        assert seen == [
            "usb history: Investigate device connections. Someone plugged a thumb stick in."
        ]


def test_compare_routers_measures_lexical_dense_and_fused_in_one_run(tmp_path: Path) -> None:
    from skilldeck.search import compare_routers, load_routing_cases

    rows = [
        {
            "query": "someone plugged a thumb stick in",
            "expected": ["usb-history"],
            "kind": "indirect",
        },
        {
            "query": "release notes from the git log",
            "expected": ["release-notes"],
            "kind": "direct",
        },
        {"query": "how tall is Mount Everest", "expected": []},
    ]
    (tmp_path / "set.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    cases = load_routing_cases(tmp_path / "set.jsonl")
    lexical = compare_routers(cases, SearchIndex(DOCS))
    assert list(lexical) == ["lexical"]
    reports = compare_routers(cases, SemanticIndex(SearchIndex(DOCS), WordVectors()))
    assert list(reports) == ["lexical", "dense", "fused"]
    top1 = {name: r.by_kind["indirect"].top1 for name, r in reports.items()}
    assert top1 == {"lexical": 0, "dense": 1, "fused": 1}
    assert reports["lexical"].by_kind["direct"].top1 == 1
    assert reports["fused"].by_kind["direct"].top1 == 1
    # the model alone: the cosine itself is the confidence when no abstention is fitted
    assert reports["dense"].abstained_right == 1  # nothing similar to Everest


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
        skilldeck.Catalog.from_roots([root], cache=tmp_path / "cache"),
        embedder=WordVectors(abstention=COSINE_ONLY),
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
    assert not isinstance(plain.search_index(), SemanticIndex)


# --- a model2vec static model, built here and loaded through static_embedder ---

pytest.importorskip("model2vec", reason="static models are the skilldeck[semantic] extra")

import skilldeck.search as search_api  # noqa: E402
from skilldeck.search import static_embedder  # noqa: E402

from . import tinymodel  # noqa: E402


@pytest.fixture
def model(tmp_path: Path) -> Path:
    return tinymodel.build(tmp_path / "tiny-model")


class Counting:
    """A loaded model, counting the texts it embeds (its identity passes through)."""

    def __init__(self, inner: search_api.StaticEmbedder) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.texts = 0

    def __call__(self, texts: Sequence[str]) -> object:
        self.texts += len(texts)
        return self.inner(texts)


def test_a_model_folder_loads_and_routes_a_goal_phrased_request(model: Path) -> None:
    embed = static_embedder(model)
    assert embed.dimensions == 4 and embed.source == str(model)
    rows = embed(["someone plugged a thumb stick in", "pay the bill", "nothing known here"])
    assert rows.shape == (3, 4)
    assert rows[0][0] > 0.99 and rows[1][1] > 0.99 and not rows[2].any()
    query = "someone plugged a thumb stick into the finance PC"
    index = SemanticIndex(SearchIndex(DOCS), embed)
    assert index.search(query)[0].name == "usb-history"
    assert index.search("when was the bill paid")[0].name == "invoicing"
    # the identity is the model's content, wherever the folder lies
    copy = model.parent / "moved"
    copy.mkdir()
    for item in model.iterdir():
        (copy / item.name).write_bytes(item.read_bytes())
    assert static_embedder(copy).identity == embed.identity
    other = tinymodel.build(model.parent / "other", concepts={"x": ("usb",), "y": ("bill",)})
    assert static_embedder(other).identity != embed.identity


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00not this file\xff" * 3)


def _empty(model: Path) -> Path:
    (model.parent / "empty").mkdir()
    return model.parent / "empty"


def _config_only(model: Path) -> Path:
    folder = _empty(model)
    (folder / "config.json").write_text("{}")
    return folder


def _without_tokenizer(model: Path) -> Path:
    (model / "tokenizer.json").unlink()
    return model


def _damaged(name: str) -> object:
    def damage(model: Path) -> Path:
        _garbage(model / name)
        return model

    return damage


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_empty, "no .onnx file, and config.json, tokenizer.json, model.safetensors missing"),
        (_config_only, "no .onnx file, and tokenizer.json, model.safetensors missing"),
        (_without_tokenizer, "no .onnx file, and tokenizer.json missing"),
        (_damaged("model.safetensors"), "is not a usable model2vec model"),
        (_damaged("tokenizer.json"), "is not a usable model2vec model"),
        (_damaged("config.json"), "is not a usable model2vec model"),
        (lambda model: model / "absent", "does not exist or is not a folder"),
        (lambda model: model / "config.json", "does not exist or is not a folder"),
    ],
)
def test_a_folder_that_is_not_a_model_is_a_coded_error(
    model: Path, make: object, message: str
) -> None:
    folder = make(model)  # type: ignore[operator]
    with pytest.raises(skilldeck.EmbedderUnavailableError) as err:
        static_embedder(folder)
    assert message in err.value.message, err.value.message
    assert err.value.code == "EMBEDDER_UNAVAILABLE"
    assert "model2vec" in (err.value.hint or "")
    assert err.value.path == str(folder)


def test_without_the_extra_the_error_names_the_pip_command(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "model2vec", None)  # as if it were not installed
    with pytest.raises(skilldeck.EmbedderUnavailableError) as err:
        static_embedder(model)
    # the command for this installation: this interpreter, this checkout, the extra
    assert "[semantic]'" in (err.value.hint or "") and sys.executable in (err.value.hint or "")


def test_an_id_not_installed_is_a_coded_error_and_nothing_is_fetched(tmp_path: Path) -> None:
    """An id is looked up among the installed models only: no hub is tried."""
    import os
    import subprocess
    import sys

    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"query": "a thumb drive", "expected": ["usb-history"]}\n')
    root = tmp_path / "skills"
    write(root, "usb-history", "description: Investigate removable device connections.\n")
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf")}
    env.pop("HF_HUB_CACHE", None)
    args = ["eval", "routing", str(cases), "--root", str(root), "--embedder", "someone/no-model"]
    proc = subprocess.run(
        [sys.executable, "-m", "skilldeck", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0
    assert "the embedding model someone/no-model is not installed on this machine" in proc.stderr
    assert "[EMBEDDER_UNAVAILABLE]" in proc.stderr and "Traceback" not in proc.stderr
    assert "path:" in proc.stderr  # the hint: name a folder
    assert not (tmp_path / "hf").exists()  # nothing fetched, no cache made


def _skills(root: Path) -> Path:
    write(root, "usb-history", "description: Investigate removable device connections.\n")
    write(root, "invoicing", "description: Create invoices and track payments.\n")
    write(root, "calendar-insert", "description: Add an event to a calendar.\n")
    write(root, "release-notes", "description: Write release notes from the git log.\n")
    return root


def test_skill_embeddings_are_saved_beside_the_index_and_reused(
    tmp_path: Path, model: Path
) -> None:
    root = _skills(tmp_path / "skills")
    cache = tmp_path / "cache"
    query = "someone plugged a thumb stick into the finance PC"
    embed = static_embedder(model)

    def runtime(embedder: object) -> skilldeck.SkillRuntime:
        catalog = skilldeck.Catalog.from_roots([root], cache=cache)  # a fresh process's
        return skilldeck.SkillRuntime(catalog, embedder=embedder)

    first = Counting(embed)
    index = runtime(first).search_index()
    assert isinstance(index, SemanticIndex)
    assert index.search(query)[0].name == "usb-history"
    assert first.texts == 4 + 1 and index.loaded_from is None
    saved = list((cache / "search").glob("*.embeddings.npz"))
    assert len(saved) == 1
    second = Counting(embed)
    index = runtime(second).search_index()
    assert isinstance(index, SemanticIndex)
    assert index.search(query)[0].name == "usb-history"
    assert second.texts == 1 and index.loaded_from == saved[0]  # only the request
    # a damaged, foreign or lying file is embedded again (and replaced)
    for damage in (_garbage, _truncated, _huge_header, _wrong_dtype, _pickled):
        damage(saved[0])
        third = Counting(embed)
        index = runtime(third).search_index()
        assert index.search(query)[0].name == "usb-history" and third.texts == 5
        assert index.loaded_from is None
    _save(saved[0], np.zeros((3, 4), dtype="float32"))  # another skill count
    assert runtime(Counting(embed)).search_index().search(query)[0].name == "usb-history"
    with np.load(saved[0]) as data:
        assert data["vectors"].shape == (4, 4) and data["digests"].shape == (4, 16)
    # another model, another file; a changed skill, another key
    other = static_embedder(tinymodel.build(tmp_path / "other", concepts={"s": ("usb",)}))
    runtime(other).search_index().search(query)
    assert len(list((cache / "search").glob("*.embeddings.npz"))) == 2
    write(root, "pay-vendor", "description: Pay a vendor's bill.\n")
    again = Counting(embed)
    runtime(again).search_index().search(query)
    assert again.texts == 1 + 1  # a new catalog state: only the new skill, then the request
    assert len(list((cache / "search").glob("*.embeddings.npz"))) == 3
    # a host function without an identity, or no cache: nothing saved
    before = sorted((cache / "search").glob("*.embeddings.npz"))
    runtime(WordVectors()).search_index().search(query)
    assert sorted((cache / "search").glob("*.embeddings.npz")) == before


def _save(path: Path, vectors: object, digests: object = None) -> None:
    rows = len(vectors)  # type: ignore[arg-type]
    if digests is None:
        digests = np.zeros((rows, 16), dtype=np.uint8)
    with open(path, "wb") as fh:
        np.savez(fh, digests=digests, vectors=vectors)


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-9])


def _huge_header(path: Path) -> None:
    import io
    import zipfile

    member = io.BytesIO()  # 4 rows of 10**9 floats claimed, 12 bytes given
    header = {"descr": "<f4", "fortran_order": False, "shape": (4, 10**9)}
    np.lib.format.write_array_header_1_0(member, header)
    member.write(b"\0" * 12)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("vectors.npy", member.getvalue())
        zf.writestr("digests.npy", member.getvalue())


def _wrong_dtype(path: Path) -> None:
    _save(path, np.ones((4, 4), dtype="float64"))


def _pickled(path: Path) -> None:
    with open(path, "wb") as fh:
        np.savez(fh, digests=np.array([{"a": 1}] * 4, dtype=object), vectors=np.ones((4, 4)))


def test_saved_files_are_pruned(tmp_path: Path, model: Path) -> None:
    kept = 8  # docs/routing.md: the 8 most recently used
    embed = static_embedder(model)
    folder = tmp_path / "search"
    for i in range(kept + 3):
        SemanticIndex(SearchIndex(DOCS), embed, store=(folder, f"key{i}")).search("usb")
    assert len(list(folder.glob("*.embeddings.npz"))) == kept


def _user_config(text: str) -> Path:
    path = skilldeck.config.config_path("user")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_user_config_switches_it_on(tmp_path: Path, model: Path) -> None:
    from skilldeck.search import configured_embedder

    assert configured_embedder() is None  # lexical is the default
    _user_config(f'[search]\nembedder = "{model}"\n')
    skilldeck.load_config()
    found = configured_embedder()
    assert found is not None and found.source == str(model)
    assert configured_embedder("off") is None  # the option wins over the file
    assert configured_embedder(str(model)) is not None
    # a relative path is taken from the config folder
    config_dir = skilldeck.config.config_path("user").parent
    tinymodel.build(config_dir / "models" / "tiny")
    _user_config('[search]\nembedder = "./models/tiny"\n')
    found = configured_embedder()
    assert found is not None and found.source == str(config_dir / "models" / "tiny")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[search]\nmodel = "x/y"\n', "search.model: unknown key"),
        ("[search]\nembedder = 3\n", "search.embedder: must be a model id or a path"),
        ('[search]\nembedder = " "\n', "search.embedder: must be a model id or a path"),
        ('search = "x"\n', "search: must be a table"),
    ],
)
def test_bad_search_settings_are_config_invalid(text: str, message: str) -> None:
    path = _user_config(text)
    with pytest.raises(skilldeck.ConfigError) as err:
        skilldeck.load_config()
    assert message in err.value.message and err.value.path == str(path)
    assert f"{path}:" in err.value.message  # with its line


def test_a_project_file_cannot_choose_the_model(tmp_path: Path, model: Path) -> None:
    import os
    import subprocess

    from skilldeck.search import configured_embedder

    repo = tmp_path / "repo"
    (repo / ".skilldeck").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".skilldeck" / "config.toml").write_text(f'[search]\nembedder = "{model}"\n')
    os.chdir(repo)
    config = skilldeck.load_config()
    assert config.untrusted is not None and "search.embedder" in config.untrusted.keys
    assert configured_embedder() is None
    skilldeck.config.trust_project_config()
    assert skilldeck.load_config().untrusted is None
    assert configured_embedder() is None  # trusted or not: only the user's file counts


def test_eval_routing_with_the_model(tmp_path: Path, model: Path) -> None:
    from click.testing import CliRunner

    from skilldeck.cli import main

    root = _skills(tmp_path / "skills")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps({"query": "someone plugged a thumb stick in", "expected": ["usb-history"]})
        + "\n"
    )
    args = ["eval", "routing", str(cases), "--root", str(root), "--json"]

    def top1(*extra: str) -> float:
        result = CliRunner().invoke(main, [*args, *extra])
        assert result.exit_code == 0, result.output
        return float(json.loads(result.output)["data"]["answerable"]["top1"])

    assert top1() == 0.0  # lexical: no word in common
    assert top1("--embedder", str(model)) == 1.0
    # lexical, dense and fused side by side, in one run
    both = CliRunner().invoke(main, [*args, "--embedder", str(model)])
    routers = json.loads(both.output)["data"]["routers"]
    assert {n: r["answerable"]["top1"] for n, r in routers.items()} == {
        "lexical": 0.0,
        "dense": 1.0,
        "fused": 1.0,
    }
    table = CliRunner().invoke(main, [*args[:-1], "--embedder", str(model)]).output.splitlines()
    assert [line.split()[0] for line in table[3:6]] == ["lexical", "dense", "fused"]
    assert table[3].split()[1:3] == ["0.0%", "0.0%"] and table[5].split()[1] == "100.0%"
    _user_config(f'[search]\nembedder = "{model}"\n')
    assert top1() == 1.0
    assert top1("--embedder", "off") == 0.0
    broken = CliRunner().invoke(main, [*args, "--embedder", str(tmp_path)])
    assert broken.exit_code != 0
    assert json.loads(broken.output)["error"]["code"] == "EMBEDDER_UNAVAILABLE"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_serve_with_the_model_from_the_user_config(tmp_path: Path, model: Path) -> None:
    """``skilldeck serve`` (a real subprocess, the MCP SDK client over stdio) ranks with
    the model the user's config names, once it has embedded the skills in the
    background (searches meanwhile answer lexically and never fail)."""
    import os
    import sys

    import anyio
    from mcp import Client, StdioServerParameters

    root = _skills(tmp_path / "skills")
    _user_config(f'[search]\nembedder = "{model}"\n')
    query = {"query": "someone plugged a thumb stick in"}

    async def first_hits(*extra: str, tries: int = 1) -> list[list[str]]:
        args = ["-m", "skilldeck", "serve", "--root", str(root), "--no-watch", *extra]
        server = StdioServerParameters(command=sys.executable, args=args, env=dict(os.environ))
        seen: list[list[str]] = []
        async with Client(server) as client:
            for _ in range(tries):
                result = await client.call_tool("skills_search", query)
                data = result.structured_content or {}
                assert data.get("ok") is True, data
                seen.append([hit["name"] for hit in data["data"]["results"]][:1])
                if seen[-1] == ["usb-history"]:
                    break
                await anyio.sleep(0.2)
        return seen

    seen = await first_hits(tries=300)
    assert seen[-1] == ["usb-history"]
    assert all(hits in ([], ["usb-history"]) for hits in seen)  # lexical until ready
    assert await first_hits("--embedder", "off") != [["usb-history"]]


def test_the_default_runtime_loads_the_configured_model(tmp_path: Path, model: Path) -> None:
    _skills(Path(skilldeck.config.config_path("user")).parent / "skills")  # the user's own skills
    query = "someone plugged a thumb stick in"
    lexical = skilldeck.SkillRuntime.default().search_index()
    assert type(lexical) is SearchIndex
    assert "usb-history" not in [h.name for h in lexical.search(query, limit=10)]
    _user_config(f'[search]\nembedder = "{model}"\n')
    index = skilldeck.SkillRuntime.default().search_index()
    assert isinstance(index, SemanticIndex)
    assert getattr(index.embedder, "source", None) == str(model)
    assert "usb-history" in [h.name for h in index.search(query, limit=3)]
    assert type(skilldeck.SkillRuntime.default(embedder=None).search_index()) is SearchIndex
    _user_config('[search]\nembedder = "./no-such-model"\n')
    with pytest.raises(skilldeck.EmbedderUnavailableError):
        skilldeck.SkillRuntime.default()


def test_a_rescan_embeds_only_the_skills_that_changed(tmp_path: Path, model: Path) -> None:
    root = _skills(tmp_path / "skills")
    embed = Counting(static_embedder(model))
    catalog = skilldeck.Catalog.from_roots([root], cache=False)
    runtime = skilldeck.SkillRuntime(catalog, embedder=embed)
    query = "someone plugged a thumb stick in"
    assert runtime.search_index().search(query)[0].name == "usb-history"
    assert embed.texts == 4 + 1
    write(root, "pay-vendor", "description: Pay a vendor's bill.\n")
    (root / "invoicing" / "SKILL.md").write_text(
        "---\nname: invoicing\ndescription: Send invoices for a USB drive.\n---\n"
    )
    for _ in range(3):  # rescans with no search in between keep no chain of indexes
        catalog.refresh()
        runtime.search_index()
    index = runtime.search_index()
    assert isinstance(index, SemanticIndex)
    assert [h.name for h in index.search("pay the bill", limit=2)][:1] == ["pay-vendor"]
    assert embed.texts == 4 + 1 + 2 + 1  # the new skill and the changed one, then the request
    rows = index.matrix()
    fresh = SemanticIndex(SearchIndex(list(index.documents)), static_embedder(model)).matrix()
    assert np.allclose(rows, fresh, atol=1e-6)  # the same vectors as embedding everything
    # another model's embeddings are never reused
    other = static_embedder(tinymodel.build(tmp_path / "other", concepts={"s": ("usb",)}))
    again = SemanticIndex(SearchIndex(list(index.documents)), other, reuse=index)
    assert again.matrix().shape == (5, 2)


# --- ids are not paths ---

POTION = "minishlab/potion-base-8M"


def _clone_with_a_model_folder(tmp_path: Path) -> Path:
    """A cloned repository that ships a folder named like a model id, holding a model."""
    import subprocess

    clone = tmp_path / "clone"
    clone.mkdir()
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    tinymodel.build(clone / POTION)
    _skills(clone / "skills")
    return clone


def _installed(home: Path, model_id: str) -> Path:
    """``model_id`` installed the way the Hugging Face cache lays it out."""
    repo = home / "hub" / ("models--" + model_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abcd")
    return tinymodel.build(repo / "snapshots" / "0123abcd")


def test_an_id_is_never_a_folder_of_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skilldeck.search import configured_embedder, load_embedder, model_location

    clone = _clone_with_a_model_folder(tmp_path)
    monkeypatch.chdir(clone)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    _user_config(f'[search]\nembedder = "{POTION}"\n')
    for load in (configured_embedder, lambda: configured_embedder(POTION)):
        with pytest.raises(skilldeck.EmbedderUnavailableError) as err:
            load()
        assert f"{POTION} is not installed on this machine" in err.value.message
        assert "path:" in (err.value.hint or "")
    with pytest.raises(skilldeck.EmbedderUnavailableError):
        static_embedder(POTION)
    # installed on the machine: that copy, never the clone's
    installed = _installed(tmp_path / "hf", POTION)
    assert model_location(POTION) == installed
    found = configured_embedder()
    assert found is not None and found.source == str(installed)
    # the clone's folder only when the user writes a path
    explicit = load_embedder(f"path:{POTION}")
    assert getattr(explicit, "source", None) == str(clone / POTION)
    assert getattr(load_embedder(f"./{POTION}"), "source", None) == str(clone / POTION)
    # in the user's file, a relative path form is from the config folder, not the clone
    _user_config(f'[search]\nembedder = "path:{POTION}"\n')
    with pytest.raises(skilldeck.EmbedderUnavailableError) as err:
        configured_embedder()
    assert str(skilldeck.config.config_path("user").parent / POTION) in err.value.message
    for bad in ("path:", "not an id", "a/b/c"):
        with pytest.raises(skilldeck.EmbedderUnavailableError):
            model_location(bad)


def test_eval_routing_in_a_clone_does_not_load_its_model_folder(tmp_path: Path) -> None:
    """Through the CLI in a fresh process, run from inside the clone."""
    import os
    import subprocess
    import sys

    clone = _clone_with_a_model_folder(tmp_path)
    cases = clone / "cases.jsonl"
    cases.write_text('{"query": "someone plugged a thumb stick in", "expected": ["usb-history"]}\n')
    env = {**os.environ, "HF_HOME": str(tmp_path / "hf")}
    env.pop("HF_HUB_CACHE", None)
    _user_config(f'[search]\nembedder = "{POTION}"\n')
    args = ["eval", "routing", str(cases), "--root", str(clone / "skills"), "--json"]
    for extra in ([], ["--embedder", POTION]):
        proc = subprocess.run(
            [sys.executable, "-m", "skilldeck", *args, *extra],
            capture_output=True,
            text=True,
            env=env,
            cwd=clone,
            timeout=120,
            check=False,
        )
        assert proc.returncode != 0, proc.stdout
        assert json.loads(proc.stdout)["error"]["code"] == "EMBEDDER_UNAVAILABLE"
        assert "is not installed on this machine" in proc.stdout
    # the project's own config cannot set it either (a guarded key, even when trusted)
    (clone / ".skilldeck").mkdir()
    (clone / ".skilldeck" / "config.toml").write_text(f'[search]\nembedder = "path:{POTION}"\n')
    _user_config("")
    proc = subprocess.run(
        [sys.executable, "-m", "skilldeck", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=clone,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["data"]["answerable"]["top1"] == 0.0  # lexical: no model loaded
