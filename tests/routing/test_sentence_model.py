"""Routing with a real sentence model: all-MiniLM-L6-v2 exported to ONNX, run with
onnxruntime + tokenizers (``../shared/models`` beside the checkout, as CI has it),
over real skills of the corpus. Skips with the reason when the model is absent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

import skilldeck

pytest.importorskip("numpy", reason="semantic search is the skilldeck[semantic] extra")
pytest.importorskip("onnxruntime", reason="sentence models need the skilldeck[semantic] extra")
pytest.importorskip("tokenizers", reason="sentence models need the skilldeck[semantic] extra")

from skilldeck.search import (
    FITTED_ABSTENTION,
    SemanticIndex,
    SentenceEmbedder,
    fused_confidence,
    load_embedder,
)

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO.parent / "shared" / "models"
INT8 = MODELS / "all-MiniLM-L6-v2-onnx-int8"
FP32 = MODELS / "all-MiniLM-L6-v2-onnx"
CORPUS = REPO.parent / "shared" / "corpus"
#: real skills of the corpus the tests route over
SKILLS = (
    "consciousness-council",
    "xlsx",
    "pdf",
    "docx",
    "pptx",
    "mcp-builder",
    "webapp-testing",
    "brainstorming",
    "systematic-debugging",
    "slack-gif-creator",
    "canvas-design",
    "algorithmic-art",
    "frontend-design",
    "theme-factory",
    "internal-comms",
    "skill-creator",
    "brand-guidelines",
    "doc-coauthoring",
)
#: requests no skill is for, on which lexical search abstains
OFF_DOMAIN = ("what's the weather in Paris", "tell me a joke", "how tall is Mount Everest")


@pytest.fixture(scope="module")
def minilm() -> SentenceEmbedder:
    if not INT8.is_dir():
        pytest.skip(f"{INT8} is not present (../shared/models beside the checkout)")
    embedder = load_embedder(f"path:{INT8}")
    assert isinstance(embedder, SentenceEmbedder)
    return embedder


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present (only beside a development checkout)")
    found: dict[str, Path] = {}
    for manifest in sorted(CORPUS.rglob("SKILL.md")):
        name = manifest.parent.name
        if name in SKILLS and name not in found:
            found[name] = manifest.parent
    assert set(found) == set(SKILLS)
    root = tmp_path_factory.mktemp("skills")
    for name, folder in found.items():
        shutil.copytree(folder, root / name, symlinks=True)
    return root


class Counting:
    """The model, counting the texts it embeds (identity and abstention pass through)."""

    def __init__(self, inner: SentenceEmbedder) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.abstention = inner.abstention
        self.texts = 0

    def __call__(self, texts: Sequence[str]) -> object:
        self.texts += len(texts)
        return self.inner(texts)


def test_the_model_embeds_sentences(minilm: SentenceEmbedder) -> None:
    rows = minilm(["merge two PDFs into one", "combine pdf files", "what's the weather in Paris"])
    assert rows.shape == (3, 384) and minilm.dimensions == 384
    same, unrelated = float(rows[0] @ rows[1]), float(rows[0] @ rows[2])
    assert same > 0.7 and unrelated < 0.3
    # a text's vector is its own, whatever it is embedded with (int8 weights quantise
    # activations per run, so each text has a run of its own)
    alone = minilm(["combine pdf files"])[0]
    assert float(alone @ rows[1]) > 0.99999
    assert minilm.threads == 1  # one thread per request by default
    # the fitted abstention is found by the model's identity, wherever it lies
    assert minilm.identity in FITTED_ABSTENTION and minilm.abstention is not None
    assert minilm([]).shape[0] == 0


def test_int8_and_fp32_are_one_model_with_two_identities(minilm: SentenceEmbedder) -> None:
    if not FP32.is_dir():
        pytest.skip(f"{FP32} is not present")
    full = load_embedder(str(FP32))  # an absolute path is a path
    assert isinstance(full, SentenceEmbedder) and full.identity != minilm.identity
    texts = ["extract the tables from this PDF file", "plan the team offsite"]
    a, b = minilm(texts), full(texts)
    assert float(a[0] @ b[0]) > 0.9 and float(a[1] @ b[1]) > 0.9


def test_fusion_finds_what_lexical_search_misses(skills: Path, minilm: SentenceEmbedder) -> None:
    lexical = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([skills], cache=False))
    fused = skilldeck.SkillRuntime(
        skilldeck.Catalog.from_roots([skills], cache=False), embedder=minilm
    )
    assert isinstance(fused.search_index(), SemanticIndex)
    query = "make an animated picture for our team chat"
    before = lexical.search_index().search(query, limit=3)
    assert not before[0].confident  # lexical: a tie, not sure
    after = fused.search_index().search(query, limit=3)
    assert after[0].name == "slack-gif-creator" and after[0].confident
    # a request that names the tool keeps its skill first
    assert fused.search_index().search("xlsx", limit=3)[0].name == "xlsx"
    found = fused.call(fused.session(), "skills_search", {"query": query})
    assert found["data"]["results"][0]["name"] == "slack-gif-creator"


def test_search_keeps_abstaining_where_lexical_search_abstains(
    skills: Path, minilm: SentenceEmbedder
) -> None:
    """With an embedder (fitted abstention or none), no hit of a request lexical search
    abstains on is confident, and no hit after the first is surer than the first."""
    runtime = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([skills], cache=False))
    lexical = runtime.search_index()
    unfitted = SemanticIndex(lexical, minilm, abstention=None)
    unfitted.abstention = None  # the embedder's own fitted model: not this one
    fitted = SemanticIndex(lexical, minilm)
    assert fitted.abstention == minilm.abstention
    for query in OFF_DOMAIN:
        assert not any(h.confident for h in lexical.search(query, limit=10))
        for index in (unfitted, fitted):
            hits = index.search(query, limit=10)
            assert not any(h.confident for h in hits), (query, hits[:3])
            assert all(h.confidence <= hits[0].confidence for h in hits)
    # unfitted: the request's confidence is exactly lexical search's
    query = "my app keeps crashing and I can't tell why"
    best = lexical.search(query, limit=1)[0].confidence
    hits = unfitted.search(query, limit=10)
    assert hits[0].confidence == best and all(h.confidence <= best for h in hits)
    # fitted: both signals; a lexical answer with nothing similar is taken back
    query = "book a table for two tonight"
    assert lexical.search(query, limit=1)[0].confident  # lexical answers (wrongly)
    hits = fitted.search(query, limit=10)
    cosine = float(fitted.similarities(query).max())
    sure = lexical.search(query, limit=1)[0].confidence
    expected = fused_confidence(minilm.abstention or (0, 0, 0), sure, cosine)
    assert abs(hits[0].confidence - expected) < 1e-3 and not hits[0].confident


def test_lexical_hits_after_the_first_are_never_surer(skills: Path) -> None:
    index = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([skills], cache=False))
    for query in ("book a table for two tonight", "never mind", "check the login page"):
        hits = index.search_index().search(query, limit=10)
        assert hits and all(h.confidence <= hits[0].confidence for h in hits[1:]), hits


def test_skill_vectors_are_saved_per_skill_and_reused(
    tmp_path: Path, skills: Path, minilm: SentenceEmbedder
) -> None:
    root = tmp_path / "skills"
    shutil.copytree(skills, root, symlinks=True)
    cache = tmp_path / "cache"
    query = "make an animated picture for our team chat"

    def first_search() -> tuple[Counting, SemanticIndex]:
        embed = Counting(minilm)
        runtime = skilldeck.SkillRuntime(
            skilldeck.Catalog.from_roots([root], cache=cache), embedder=embed
        )
        index = runtime.search_index()
        assert isinstance(index, SemanticIndex)
        assert index.search(query)[0].name == "slack-gif-creator"
        return embed, index

    embed, index = first_search()
    skills_seen = len(index)  # the ones the model may see
    assert skills_seen >= len(SKILLS) - 2
    assert embed.texts == skills_seen + 1 and index.embedded == skills_seen
    embed, index = first_search()  # a new process: only the request
    assert embed.texts == 1 and index.loaded_from is not None
    # one skill changed: a new catalog state, and only that skill is embedded again
    manifest = root / "pdf" / "SKILL.md"
    manifest.write_text(manifest.read_text().replace("description:", "description: Edit PDFs.", 1))
    embed, index = first_search()
    assert embed.texts == 1 + 1 and index.embedded == 1
    assert len(list((cache / "search").glob("*.embeddings.npz"))) == 2


def test_embedding_shows_progress_on_a_terminal_after_a_second(tmp_path: Path) -> None:
    """Slow embedding (a real pseudo-terminal as standard error) shows its progress;
    the same without a terminal prints nothing."""
    import pty

    script = (
        "import sys, time\n"
        "from skilldeck.search import SearchDocument, SearchIndex, SemanticIndex\n"
        "docs = [SearchDocument(f's{i}', f'skill number {i}') for i in range(600)]\n"
        "def slow(texts):\n"
        "    time.sleep(0.6)\n"
        "    return [[1.0, float(len(t))] for t in texts]\n"
        "SemanticIndex(SearchIndex(docs), slow).matrix()\n"
        "print('done')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    main, other = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", script],
            stdout=subprocess.PIPE,
            stderr=other,
            env=env,
            timeout=120,
            check=True,
        )
        os.close(other)
        seen = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(main)
    assert proc.stdout.strip() == b"done"
    assert b"embedding skills for search 512/600" in seen
    assert b"embedding skills for search 600/600" in seen
    quiet = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=env, timeout=120, check=True
    )
    assert quiet.stderr == b""


def _sentence_transformers_folder(root: Path, pooling: dict[str, bool], prompts: object) -> Path:
    """The int8 model laid out as a sentence-transformers repository: the ONNX file
    and tokenizer under ``onnx/``, the pooling and prompts in the folder above."""
    (root / "onnx").mkdir(parents=True)
    (root / "onnx" / "model.onnx").symlink_to(INT8 / "model-int8.onnx")
    (root / "onnx" / "tokenizer.json").symlink_to(INT8 / "tokenizer.json")
    (root / "1_Pooling").mkdir()
    flags = {"word_embedding_dimension": 384, "pooling_mode_cls_token": False}
    flags |= {"pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": False, **pooling}
    (root / "1_Pooling" / "config.json").write_text(json.dumps(flags))
    settings = {"__version__": {"sentence_transformers": "3.0.1"}, "prompts": prompts}
    (root / "config_sentence_transformers.json").write_text(json.dumps(settings))
    return root


def test_a_folder_saved_by_sentence_transformers_is_pooled_and_prompted_as_it_says(
    tmp_path: Path, minilm: SentenceEmbedder
) -> None:
    """bge-style settings (first-token pooling, a request instruction) are read from
    the folder, not assumed: the vectors are the first token's, and only requests get
    the instruction."""
    import numpy as np

    prompt = "Represent this sentence for searching relevant passages: "
    folder = _sentence_transformers_folder(
        tmp_path / "bge-like", {"pooling_mode_cls_token": True}, {"query": prompt}
    )
    cls = load_embedder(f"path:{folder}")
    assert isinstance(cls, SentenceEmbedder)
    assert cls.pooling == "cls" and cls.query_prefix == prompt
    assert cls.identity != minilm.identity  # other vectors: saved apart, not fitted
    assert cls.abstention is None
    texts = ["merge two PDFs into one", "combine pdf files"]
    rows = []
    for text in texts:  # one text a run, as the embedder runs them
        ids = np.array([cls.tokenizer.encode(text).ids], dtype="int64")
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        feed["token_type_ids"] = np.zeros_like(ids)
        rows.append(cls.session.run(None, feed)[0][0, 0, :])
    first = np.array(rows) / np.linalg.norm(np.array(rows), axis=1, keepdims=True)
    assert np.allclose(cls(texts), first, atol=1e-5)
    assert float(cls(texts)[0] @ minilm(texts)[0]) < 0.99  # not the mean
    # the instruction goes before the request, never before a skill's text
    docs = [skilldeck.search.SearchDocument("pdf", "Merge, split and fill PDF files.")]
    index = SemanticIndex(skilldeck.search.SearchIndex(docs), cls)
    query = "merge two PDFs"
    assert index.texts() == ["pdf: Merge, split and fill PDF files."]
    expected = float(cls([prompt + query])[0] @ cls(index.texts())[0])
    assert abs(float(index.similarities(query)[0]) - expected) < 1e-5
    # mean pooling, as MiniLM's own folder says, keeps the measured identity
    same = _sentence_transformers_folder(tmp_path / "mean", {"pooling_mode_mean_tokens": True}, {})
    assert load_embedder(f"path:{same}").identity == minilm.identity


def test_a_pooling_skilldeck_cannot_do_is_a_coded_error(tmp_path: Path) -> None:
    if not INT8.is_dir():
        pytest.skip(f"{INT8} is not present (../shared/models beside the checkout)")
    folder = _sentence_transformers_folder(tmp_path / "max", {"pooling_mode_max_tokens": True}, {})
    with pytest.raises(skilldeck.EmbedderUnavailableError) as err:
        load_embedder(f"path:{folder}")
    assert err.value.code == "EMBEDDER_UNAVAILABLE"
    assert "pooling_mode_max_tokens" in str(err.value) and "1_Pooling" in str(err.value)
    (folder / "1_Pooling" / "config.json").write_text("{not json")
    with pytest.raises(skilldeck.EmbedderUnavailableError) as err:
        load_embedder(f"path:{folder}")
    assert "is not JSON" in str(err.value) and err.value.hint
