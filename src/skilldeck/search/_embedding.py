"""Embedding models for the semantic backend.

``load_embedder(model)`` loads a sentence-transformer exported to ONNX (run with
``onnxruntime``, tokenized with ``tokenizers``: no torch; ``SentenceEmbedder``)
or a model2vec static model (``StaticEmbedder``), and returns an embedder for
``SkillRuntime(embedder=...)`` or ``SemanticIndex``.

Ids are not paths. ``model`` is a path only when written as one: ``path:DIR``,
an absolute path, ``~/DIR``, ``./DIR`` or ``../DIR`` (a ``PathLike`` too).
Anything else is an id (``owner/name``), found among the models installed on this
machine (the Hugging Face cache, read offline), never as a folder of the working
folder: a cloned repository that ships a folder named like a model id does not
choose the model. skilldeck fetches nothing: no model hub is tried, ever.

A sentence model folder holds ``tokenizer.json`` and ``model.onnx`` (or one
``*.onnx`` file, or ``onnx/model.onnx`` as the Hugging Face repositories of
sentence-transformers lay it out); ``path:DIR/model-int8.onnx`` names one file
of several. What sentence-transformers saves beside it is read too: the pooling
of ``1_Pooling/config.json`` (mean, the default, or the first token: bge models
pool so) and the request prompt of ``config_sentence_transformers.json``
(``prompts.query``: the instruction a retrieval model puts before a request, not
before the skills). A model2vec folder holds ``config.json``, ``tokenizer.json``
and ``model.safetensors``.

``configured_embedder(value)`` is what the front ends use: ``value`` (their
``--embedder`` option), else ``[search] embedder`` of the user's own config file
(a relative path form there is taken from the config folder) (never a project's:
a cloned repository must not choose the model), else ``None`` (lexical search,
the default). ``"off"`` means lexical too, so ``--embedder off`` overrides the file.

Every failure is an ``EmbedderUnavailableError`` (``EMBEDDER_UNAVAILABLE``) with
a hint: the ``semantic`` extra missing, a folder that holds no model, an id that
is not installed.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skilldeck._errors import ConfigError, EmbedderUnavailableError
from skilldeck._json import loads
from skilldeck._paths import dirs, user_setting

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "DEFAULT_STATIC_MODEL",
    "SentenceEmbedder",
    "StaticEmbedder",
    "configured_embedder",
    "load_embedder",
    "model_location",
    "static_embedder",
]

#: The sentence model the documentation measures (384 dimensions, Apache-2.0).
DEFAULT_EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: The model2vec model ``static_embedder()`` looks for when none is named.
DEFAULT_STATIC_MODEL = "minishlab/potion-base-8M"

_FOLDER_HINT = (
    "a sentence model folder holds tokenizer.json and model.onnx (a sentence-transformer "
    "exported to ONNX); a model2vec folder holds config.json, tokenizer.json and "
    "model.safetensors"
)
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")
_PATH_PREFIX = "path:"
_OFF = "off"
_MAX_TOKENS = 256  # tokens of a text the sentence model reads (the rest is cut)
# texts per run of the model: one, as a request is run, so a text's vector depends on
# that text alone (int8 weights quantise activations per run, so a batch moved each
# vector with its neighbours and their padding); and onnxruntime keeps its largest
# buffers, which grow with batch x tokens^2: 800 of the corpus's skills (int8, one
# thread) peaked at 1,103 MiB and 32.6 s of CPU 32 a run, 346 MiB and 25.7 s 8 a
# run, 149 MiB and 20.0 s one a run
_ONNX_BATCH = 1
_PROBE = "skilldeck"
_POOLINGS = ("mean", "cls")
#: sentence-transformers' pooling flags, by the pooling they name
_POOLING_FLAGS = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls"}
_MAX_PREFIX = 500  # characters of a request prompt
#: The abstention (``SemanticIndex``: intercept, logit of the lexical confidence, best
#: cosine) fitted for each model measured, by its ``identity``: logistic regression on
#: the tuning sets bench/data/routing.jsonl and routing_tuning2.jsonl (``python
#: bench/routing.py --fit``; the cosine of lexical search's first hit as a third
#: feature had the higher leave-one-out log-loss on both models).
#: A model not listed abstains exactly where lexical search abstains.
FITTED_ABSTENTION: dict[str, tuple[float, ...]] = {
    # all-MiniLM-L6-v2 exported to ONNX, fp32 (90 MB)
    "onnx:5b5f2f83140ea699da39a2280736acb8": (-10.506, 0.575, 32.749),
    # the same, quantised to int8 weights (23 MB)
    "onnx:9dee126fd5cffc78c69d5e0255229eb7": (-10.05, 0.53, 30.778),
}
#: The dense ranking's own abstention (intercept, best cosine), fitted the same way:
#: what ``SemanticIndex.dense_search`` and ``eval routing``'s dense column abstain by.
FITTED_DENSE_ABSTENTION: dict[str, tuple[float, float]] = {
    "onnx:5b5f2f83140ea699da39a2280736acb8": (-11.101, 37.399),
    "onnx:9dee126fd5cffc78c69d5e0255229eb7": (-11.526, 37.655),
}


class StaticEmbedder:
    """``fn(texts) -> vectors`` over a loaded model2vec ``StaticModel``.

    - ``source``: the folder it was loaded from;
    - ``identity``: a digest of the model's vectors and vocabulary, the same
      wherever the model lies (saved skill embeddings are keyed by it);
    - ``dimensions``: the length of each vector;
    - ``abstention``, ``dense_abstention``: ``None``, or the abstentions you fitted
      for this model (``SemanticIndex``).
    """

    def __init__(self, model: Any, source: str) -> None:
        self.model = model
        self.source = source
        self.dimensions = int(model.dim)
        self.identity = "model2vec:" + _digest(model)
        self.abstention: tuple[float, ...] | None = None
        self.dense_abstention: tuple[float, float] | None = None

    def __call__(self, texts: Sequence[str]) -> Any:
        return self.model.encode(list(texts), show_progress_bar=False, use_multiprocessing=False)

    def __repr__(self) -> str:
        return f"StaticEmbedder({self.source!r}, dimensions={self.dimensions})"


class SentenceEmbedder:
    """``fn(texts) -> vectors`` over a sentence-transformer exported to ONNX, run with
    ``onnxruntime`` and tokenized with ``tokenizers`` (no torch): token ids in, the
    last hidden state out, pooled (``pooling``: ``"mean"`` over the attention mask,
    or ``"cls"``, the first token) and L2-normalised. An export whose first output
    is already one vector per text is taken as it is.

    - ``source``: the ``.onnx`` file it was loaded from;
    - ``pooling``: ``"mean"`` or ``"cls"`` (``load_embedder`` reads it from the
      folder's ``1_Pooling/config.json``);
    - ``query_prefix``: the text put before a request, never before a skill
      (``SemanticIndex`` adds it; ``load_embedder`` reads it from the folder's
      ``config_sentence_transformers.json``), ``""`` for none;
    - ``identity``: a digest of the model and tokenizer files, and of the pooling
      and prefix when they are not the defaults (saved skill embeddings and the
      fitted abstention are keyed by it);
    - ``dimensions``: the length of each vector;
    - ``abstention``, ``dense_abstention``: the abstentions fitted for this model
      (``FITTED_ABSTENTION``, ``FITTED_DENSE_ABSTENTION``), or ``None``;
    - ``threads``: onnxruntime's threads per call (1 by default: a request is a
      few milliseconds of work, and more threads on a small machine cost 2-3x the
      CPU for no gain).
    """

    def __init__(
        self,
        model: Path,
        tokenizer: Path,
        *,
        threads: int = 1,
        pooling: str = "mean",
        query_prefix: str = "",
    ) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        if pooling not in _POOLINGS:
            raise ValueError(f"pooling must be one of {', '.join(_POOLINGS)}, not {pooling!r}")
        self.source = str(model)
        self.threads = threads
        self.pooling = pooling
        self.query_prefix = query_prefix
        tok = Tokenizer.from_file(str(tokenizer))
        tok.enable_truncation(_MAX_TOKENS)
        pad = tok.padding or {}
        tok.enable_padding(
            pad_id=int(pad.get("pad_id", 0)), pad_token=str(pad.get("pad_token", "[PAD]"))
        )
        self.tokenizer = tok
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self.session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._inputs
        if missing:
            raise ValueError(f"the model has no input {', '.join(sorted(missing))}")
        h = hashlib.sha256()
        for part in (model, tokenizer):
            with open(part, "rb") as fh:
                h.update(hashlib.file_digest(fh, "sha256").digest())
        if pooling != "mean" or query_prefix:  # the defaults keep the digests measured
            h.update(f"\0{pooling}\0{query_prefix}".encode())
        self.identity = "onnx:" + h.hexdigest()[:32]
        #: the fitted abstention of this model (``None``: lexical abstention)
        self.abstention = FITTED_ABSTENTION.get(self.identity)
        self.dense_abstention = FITTED_DENSE_ABSTENTION.get(self.identity)
        self.dimensions = int(self([_PROBE]).shape[1])

    def __call__(self, texts: Sequence[str]) -> Any:
        import numpy as np

        texts = list(texts)
        out = np.zeros((len(texts), getattr(self, "dimensions", 1)), dtype="float32")
        # shortest first, so each batch pads to about its own length
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), _ONNX_BATCH):
            chunk = order[start : start + _ONNX_BATCH]
            encoded = self.tokenizer.encode_batch([texts[i] for i in chunk])
            ids = np.array([e.ids for e in encoded], dtype="int64")
            mask = np.array([e.attention_mask for e in encoded], dtype="int64")
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feed)[0]
            if hidden.ndim == 2:  # the export pools itself
                pooled = hidden.astype("float32")
            elif self.pooling == "cls":
                pooled = hidden[:, 0, :]
            else:
                weights = mask[:, :, None].astype("float32")
                pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.maximum(norms, 1e-12)
            if out.shape[1] != pooled.shape[1]:
                out = np.zeros((len(texts), pooled.shape[1]), dtype="float32")
            out[chunk] = pooled
        return out

    def __repr__(self) -> str:
        return (
            f"SentenceEmbedder({self.source!r}, dimensions={self.dimensions}, "
            f"pooling={self.pooling!r})"
        )


def _digest(model: Any) -> str:
    import numpy as np

    h = hashlib.blake2b(digest_size=16)
    for part in (model.embedding, model.weights, model.token_mapping):
        if part is None:
            h.update(b"-")
            continue
        array = np.ascontiguousarray(part)
        h.update(f"{array.dtype.str}{array.shape}".encode())
        h.update(array.tobytes())
    h.update("\n".join(model.tokens).encode("utf-8", "surrogateescape"))
    h.update(f"\0{bool(model.normalize)}".encode())
    return h.hexdigest()


def _is_hub_id(value: str) -> bool:
    """``owner/name``: a model id (never looked up as a path, whatever the folder holds)."""
    return bool(_HUB_ID.fullmatch(value))


def _explicit_path(value: str, base: Path | None) -> Path | None:
    """The folder an explicit path form names, or ``None`` when ``value`` is an id.

    ``path:DIR`` (``DIR`` relative to ``base``, the config folder, or else the
    working folder), an absolute path, ``~/DIR``, ``./DIR`` or ``../DIR``.
    """
    if value.startswith(_PATH_PREFIX):
        text = value[len(_PATH_PREFIX) :].strip()
        if not text:
            raise EmbedderUnavailableError(
                "path: names no folder", hint="write path:/absolute/folder/of/the/model"
            )
    elif value.startswith(("/", "~", "./", "../")) or os.path.isabs(value):
        text = value
    else:
        return None
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = (base if base is not None else Path.cwd()) / path
    return path


def _hf_cache() -> Path:
    """The Hugging Face cache folder (where the hub client and model2vec keep models)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(xdg) / "huggingface" / "hub"


def _installed(model_id: str) -> Path | None:
    """The folder of ``model_id`` already on this machine (the Hugging Face cache
    layout, ``models--owner--name/snapshots/<revision>``), or ``None``. Reads the
    disk only: nothing is fetched."""
    repo = _hf_cache() / ("models--" + model_id.replace("/", "--"))
    snapshots = repo / "snapshots"
    try:
        revision = (repo / "refs" / "main").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        revision = ""
    if revision and re.fullmatch(r"[0-9a-f]{6,64}", revision) and (snapshots / revision).is_dir():
        return snapshots / revision
    try:
        found = [p for p in snapshots.iterdir() if p.is_dir()]
    except OSError:
        return None
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


def model_location(value: str | os.PathLike[str], *, base: Path | None = None) -> Path:
    """Where the model ``value`` lies: a path only when it is written as one
    (``path:DIR``, absolute, ``~/``, ``./``, ``../``; a ``PathLike``), else an
    id (``owner/name``) found among the models installed on this machine (the
    Hugging Face cache). An id is never tried as a folder of the working folder,
    and nothing is fetched: skilldeck reaches no model hub."""
    if isinstance(value, os.PathLike):
        return Path(os.fspath(value)).expanduser().absolute()
    text = value.strip()
    if not text:
        raise EmbedderUnavailableError(
            "no embedding model named",
            hint=f"name a model id such as {DEFAULT_EMBEDDING_MODEL}, or path:/folder/of/a/model",
        )
    path = _explicit_path(text, base)
    if path is not None:
        return path
    if not _is_hub_id(text):
        raise EmbedderUnavailableError(
            f"{text!r} is neither a model id (owner/name) nor a path",
            hint=f"write path:{text} for a folder, or an id such as {DEFAULT_EMBEDDING_MODEL}",
        )
    found = _installed(text)
    if found is None:
        raise EmbedderUnavailableError(
            f"the embedding model {text} is not installed on this machine "
            f"(looked in {_hf_cache()}); skilldeck downloads no model",
            hint=f"download it yourself (huggingface-cli download {text}), or save the model "
            "to a folder and name it as path:/absolute/folder",
        )
    return found


def _need(*modules: str) -> None:
    import importlib

    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            from skilldeck._extras import install_hint

            raise EmbedderUnavailableError(
                f"semantic search needs {module}, which is not installed ({exc.name})",
                hint=f"install the semantic extra: {install_hint('semantic')}",
            ) from None


def _onnx_files(location: Path) -> tuple[Path, Path] | None:
    """The ``.onnx`` file and ``tokenizer.json`` of a sentence-transformer export at
    ``location`` (the file, or a folder holding ``model.onnx``, a single ``*.onnx``,
    or either under ``onnx/``), or ``None`` when it holds no ONNX model."""
    model: Path | None = None
    if location.suffix == ".onnx" and location.is_file():
        model = location
        folder = location.parent
    else:
        for where in (location, location / "onnx"):
            if (where / "model.onnx").is_file():
                model = where / "model.onnx"
                break
            found = sorted(where.glob("*.onnx")) if where.is_dir() else []
            if len(found) > 1:
                names = ", ".join(p.name for p in found[:6])
                raise EmbedderUnavailableError(
                    f"{where} holds several ONNX models ({names})",
                    path=where,
                    hint=f"name one: path:{found[0]}",
                )
            if found:
                model = found[0]
                break
        folder = location
    if model is None:
        return None
    for candidate in (model.parent / "tokenizer.json", folder / "tokenizer.json"):
        if candidate.is_file():
            return model, candidate
    raise EmbedderUnavailableError(
        f"{model} has no tokenizer.json beside it", path=model, hint=_FOLDER_HINT
    )


def _settings_folders(model: Path) -> list[Path]:
    """Where sentence-transformers' settings of ``model`` lie: its folder, and the
    folder above when the file is under ``onnx/``."""
    folders = [model.parent]
    if model.parent.name == "onnx":
        folders.append(model.parent.parent)
    return folders


def _read_json(path: Path) -> Any:
    """``path``'s JSON, or ``None`` when there is no such file; a file that does not
    parse is an ``EmbedderUnavailableError`` (a model read with the wrong settings
    would rank silently wrong)."""

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise EmbedderUnavailableError(
            f"{path} does not read: {_reason(exc)}", path=path, hint=_FOLDER_HINT
        ) from None
    try:
        return loads(text)
    except ValueError as exc:
        raise EmbedderUnavailableError(
            f"{path} is not JSON: {_reason(exc)}",
            path=path,
            hint="restore the file from the model's repository",
        ) from None


def _sentence_settings(model: Path) -> tuple[str, str]:
    """The pooling (``1_Pooling/config.json``) and request prompt
    (``config_sentence_transformers.json``: ``prompts.query``) saved with the
    sentence-transformer ``model`` was exported from; mean pooling and no prompt
    when the files are absent."""
    pooling, prefix = "mean", ""
    for folder in _settings_folders(model):
        config = folder / "1_Pooling" / "config.json"
        flags = _read_json(config)
        if flags is not None:
            items = flags.items() if isinstance(flags, dict) else ()
            on = [k for k, v in items if v is True and k.startswith("pooling_mode_")]
            if len(on) != 1 or on[0] not in _POOLING_FLAGS:
                raise EmbedderUnavailableError(
                    f"{config}: skilldeck pools by the mean or the first token, and this "
                    f"model asks for {', '.join(on) or 'no pooling'}",
                    path=config,
                    hint="use a model that pools by the mean or the CLS token",
                )
            pooling = _POOLING_FLAGS[on[0]]
            break
    for folder in _settings_folders(model):
        settings = _read_json(folder / "config_sentence_transformers.json")
        if settings is not None:
            prompts = settings.get("prompts") if isinstance(settings, dict) else None
            query = prompts.get("query") if isinstance(prompts, dict) else None
            if isinstance(query, str):
                prefix = query[:_MAX_PREFIX]
            break
    return pooling, prefix


def load_embedder(
    model: str | os.PathLike[str] = DEFAULT_EMBEDDING_MODEL, *, base: Path | None = None
) -> SentenceEmbedder | StaticEmbedder:
    """Load the model ``model`` names (see ``model_location``): a sentence-transformer
    exported to ONNX (run with onnxruntime) or a model2vec static model."""
    location = model_location(model, base=base)
    if not location.exists():
        raise EmbedderUnavailableError(
            f"the embedding model folder {location} does not exist",
            path=location,
            hint=_FOLDER_HINT,
        )
    files = _onnx_files(location)
    if files is None:
        return _static(location)
    _need("numpy", "onnxruntime", "tokenizers")
    pooling, prefix = _sentence_settings(files[0])
    try:
        return SentenceEmbedder(*files, pooling=pooling, query_prefix=prefix)
    except EmbedderUnavailableError:
        raise
    except Exception as exc:  # a damaged file: any error of the runtime's readers
        raise EmbedderUnavailableError(
            f"{files[0]} is not a usable sentence model: {_reason(exc)}",
            path=files[0],
            hint=_FOLDER_HINT,
        ) from None


def static_embedder(model: str | os.PathLike[str] = DEFAULT_STATIC_MODEL) -> StaticEmbedder:
    """Load the model2vec static model ``model`` (see ``model_location``)."""
    _need("numpy", "model2vec")
    return _static(model_location(model))


def _static(folder: Path) -> StaticEmbedder:
    _need("numpy", "model2vec")
    from model2vec import StaticModel

    if not folder.is_dir():
        raise EmbedderUnavailableError(
            f"the embedding model folder {folder} does not exist or is not a folder",
            path=folder,
            hint=_FOLDER_HINT,
        )
    missing = [n for n in ("config.json", "tokenizer.json") if not (folder / n).is_file()]
    if not any(folder.glob("*.safetensors")):
        missing.append("model.safetensors")
    if missing:
        raise EmbedderUnavailableError(
            f"{folder} holds no model: no .onnx file, and {', '.join(missing)} missing "
            "for a model2vec model",
            path=folder,
            hint=_FOLDER_HINT,
        )
    try:
        loaded = StaticModel.from_pretrained(folder, force_download=False)
    except Exception as exc:  # a damaged file: any error of the library's readers
        raise EmbedderUnavailableError(
            f"{folder} is not a usable model2vec model: {_reason(exc)}",
            path=folder,
            hint=_FOLDER_HINT,
        ) from None
    try:
        embedder = StaticEmbedder(loaded, str(folder))
        rows = embedder([_PROBE])
        if getattr(rows, "shape", None) != (1, embedder.dimensions):
            raise ValueError(f"it returned shape {getattr(rows, 'shape', None)} for one text")
    except Exception as exc:
        raise EmbedderUnavailableError(
            f"the embedding model {folder} does not encode text: {_reason(exc)}",
            hint=_FOLDER_HINT,
        ) from None
    return embedder


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def configured_embedder(value: str | None = None) -> SentenceEmbedder | StaticEmbedder | None:
    """The embedder the front ends use (see the module docstring): ``value``, else
    ``[search] embedder`` of the user's config file; ``None`` for lexical search."""
    base: Path | None = None
    if value is None:
        raw = user_setting("search", "embedder")
        if raw is None:
            return None
        if not isinstance(raw, str) or not raw.strip():
            path = dirs().config_file
            raise ConfigError(
                f"{path}: search.embedder: must be a model id or a path",
                path=path,
                hint=f'e.g. embedder = "{DEFAULT_EMBEDDING_MODEL}", "path:/models/minilm", '
                'or "off"',
            )
        value = raw
        base = dirs().config  # a relative path form there: from the config folder
    value = value.strip()
    if value == _OFF:
        return None
    return load_embedder(value, base=base)
