"""Embedding models for the semantic backend: model2vec static models.

``static_embedder(model)`` loads a model2vec static model (a table of token
vectors, averaged per text: no neural network runs, a few milliseconds per
request on a CPU) and returns an embedder for ``SkillRuntime(embedder=...)`` or
``SemanticIndex``. ``model`` is a local folder (``config.json``,
``tokenizer.json``, ``model.safetensors``, as ``StaticModel.save_pretrained``
writes it) or a model id on the Hugging Face Hub (``owner/name`` that is not an
existing path; write ``./owner/name`` for a folder), which model2vec fetches and
caches on the user's machine (``DEFAULT_EMBEDDING_MODEL`` when none is named). skilldeck
itself ships no model and fetches nothing unless asked to.

``configured_embedder(value)`` is what the front ends use: ``value`` (their
``--embedder`` option), else ``[search] embedder`` of the user's own config file
(a path starting with ``./`` or ``../`` there is taken from the config folder)
(never a project's: a cloned repository must not make the machine download a
model), else ``None`` (lexical search, the default). ``"off"`` means lexical
too, so ``--embedder off`` overrides the file.

Every failure is an ``EmbedderUnavailableError`` (``EMBEDDER_UNAVAILABLE``) with
a hint: the ``semantic`` extra missing, a folder that holds no model, an id that
cannot be fetched (offline, unknown).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skilldeck._errors import ConfigError, EmbedderUnavailableError
from skilldeck._paths import dirs, user_setting

__all__ = ["DEFAULT_EMBEDDING_MODEL", "StaticEmbedder", "configured_embedder", "static_embedder"]

#: The model ``static_embedder()`` fetches when none is named (30k tokens, 256
#: dimensions, about 30 MB; model2vec's small English general-purpose model).
DEFAULT_EMBEDDING_MODEL = "minishlab/potion-base-8M"

_EXTRA_HINT = "install the semantic extra: pip install 'skilldeck[semantic]'"
_FOLDER_HINT = (
    "a model2vec model folder holds config.json, tokenizer.json and model.safetensors "
    "(StaticModel.save_pretrained writes one)"
)
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}")
_OFF = "off"


class StaticEmbedder:
    """``fn(texts) -> vectors`` over a loaded model2vec ``StaticModel``.

    - ``source``: the folder or id it was loaded from;
    - ``identity``: a digest of the model's vectors and vocabulary, the same
      wherever the model lies (saved skill embeddings are keyed by it);
    - ``dimensions``: the length of each vector;
    - ``similarity``: ``None``, or the ``(low, high)`` cosine similarities that
      mean "unrelated" and "the same thing" for this model, if you measured them:
      then similarity can make a hit confident (``SemanticIndex``).
    """

    def __init__(self, model: Any, source: str) -> None:
        self.model = model
        self.source = source
        self.dimensions = int(model.dim)
        self.identity = "model2vec:" + _digest(model)
        self.similarity: tuple[float, float] | None = None

    def __call__(self, texts: Sequence[str]) -> Any:
        return self.model.encode(list(texts), show_progress_bar=False, use_multiprocessing=False)

    def __repr__(self) -> str:
        return f"StaticEmbedder({self.source!r}, dimensions={self.dimensions})"


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
    """``owner/name`` that is not an existing path: a Hub id (anything else is a folder)."""
    return bool(_HUB_ID.fullmatch(value)) and not os.path.lexists(value)


def static_embedder(model: str | os.PathLike[str] = DEFAULT_EMBEDDING_MODEL) -> StaticEmbedder:
    """Load the model2vec static model ``model`` (a folder, or a Hub id fetched by
    model2vec on first use and cached by it); see the module docstring."""
    try:
        from model2vec import StaticModel
    except ImportError as exc:
        raise EmbedderUnavailableError(
            f"semantic search needs model2vec, which is not installed ({exc.name})",
            hint=_EXTRA_HINT,
        ) from None
    text = os.fspath(model)
    if not text.strip():
        raise EmbedderUnavailableError(
            "no embedding model named",
            hint=f"name a model folder or an id such as {DEFAULT_EMBEDDING_MODEL}",
        )
    if isinstance(model, os.PathLike) or not _is_hub_id(text):
        folder = Path(text).expanduser()
        if not folder.is_dir():
            raise EmbedderUnavailableError(
                f"the embedding model folder {folder} does not exist or is not a folder",
                path=folder,
                hint=f"name a folder holding a model2vec model, or a model id (owner/name) "
                f"such as {DEFAULT_EMBEDDING_MODEL}",
            )
        missing = [n for n in ("config.json", "tokenizer.json") if not (folder / n).is_file()]
        if not any(folder.glob("*.safetensors")):
            missing.append("model.safetensors")
        if missing:
            raise EmbedderUnavailableError(
                f"{folder} is not a model2vec model folder: {', '.join(missing)} missing",
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
        return _checked(loaded, str(folder))
    try:
        loaded = StaticModel.from_pretrained(text, force_download=False)
    except Exception as exc:  # network, unknown repository, offline mode, disk full
        raise EmbedderUnavailableError(
            f"could not fetch the embedding model {text}: {_reason(exc)}",
            hint="check the id and the network; or download the model on a connected "
            "machine (StaticModel.from_pretrained(id).save_pretrained(folder)) and name "
            "that folder instead",
        ) from None
    return _checked(loaded, text)


def _checked(model: Any, source: str) -> StaticEmbedder:
    try:
        embedder = StaticEmbedder(model, source)
        rows = embedder(["skilldeck"])
        if getattr(rows, "shape", None) != (1, embedder.dimensions):
            raise ValueError(f"it returned shape {getattr(rows, 'shape', None)} for one text")
    except Exception as exc:
        raise EmbedderUnavailableError(
            f"the embedding model {source} does not encode text: {_reason(exc)}",
            hint=_FOLDER_HINT,
        ) from None
    return embedder


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def configured_embedder(value: str | None = None) -> StaticEmbedder | None:
    """The embedder the front ends use (see the module docstring): ``value``, else
    ``[search] embedder`` of the user's config file; ``None`` for lexical search."""
    if value is None:
        raw = user_setting("search", "embedder")
        if raw is None:
            return None
        if not isinstance(raw, str) or not raw.strip():
            path = dirs().config_file
            raise ConfigError(
                f"{path}: search.embedder: must be a model folder or a model id",
                path=path,
                hint=f'e.g. embedder = "{DEFAULT_EMBEDDING_MODEL}", or "off"',
            )
        value = raw.strip()
        if value.startswith(("./", "../")):  # as [install] dir: from the config folder
            value = str(dirs().config / value)
    value = value.strip()
    if value == _OFF:
        return None
    return static_embedder(value)
