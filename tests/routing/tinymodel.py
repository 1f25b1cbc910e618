"""A real model2vec static model, small enough to build in a test: a word-level
``tokenizers`` tokenizer, a safetensors matrix with one row per token and a
config.json, in the folder layout ``StaticModel.save_pretrained`` writes."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

#: words a request and a skill use for the same thing share a concept axis
CONCEPTS: Mapping[str, Sequence[str]] = {
    "storage": ("usb", "thumb", "drive", "stick", "plugged", "device", "removable"),
    "money": ("invoice", "invoices", "invoicing", "bill", "paid", "payment", "payments", "pay"),
    "calendar": ("meeting", "calendar", "schedule", "offsite", "event", "monday"),
}
#: words on no concept axis: in the vocabulary, near the origin of every axis
FILLER = ("a", "the", "from", "into", "someone", "was", "when", "an", "to", "and")


def build(folder: Path, *, concepts: Mapping[str, Sequence[str]] = CONCEPTS) -> Path:
    """Write the model into ``folder`` (created) and return it."""
    import numpy as np
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.normalizers import Lowercase
    from tokenizers.pre_tokenizers import Whitespace

    axes = len(concepts) + 1  # the last axis: filler words
    vocab = {"[UNK]": 0}
    rows = [[0.0] * axes]
    for axis, words in enumerate(concepts.values()):
        for word in words:
            vocab[word] = len(rows)
            row = [0.0] * axes
            row[axis] = 1.0
            rows.append(row)
    for word in FILLER:
        vocab[word] = len(rows)
        row = [0.0] * axes
        row[-1] = 0.05
        rows.append(row)
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = Lowercase()
    tokenizer.pre_tokenizer = Whitespace()
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    save_file({"embeddings": np.asarray(rows, dtype=np.float32)}, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps({"normalize": True}), encoding="utf-8")
    return folder
