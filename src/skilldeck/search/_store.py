"""The search index on disk, so the first search of a new process costs a file read.

Building the index reads every SKILL.md body (headings and first words) and
tokenizes it; for 10,000 skills that is seconds. The built postings are saved
next to the catalog's metadata cache (``<cache>/search/``), one file per catalog
state: the file name is a digest of the indexed skills (name, description, tags,
``when_to_use``, source, SKILL.md path and its ``stat`` signature), the index's
field weights and this module's format, so any change to a skill or to the
tokenizer makes a new key and the old file is simply not found (the least
recently used files beyond ``MAX_FILES`` are removed).

The file is a small MessagePack header (msgspec: format, key, document count,
the sorted terms, array lengths) followed by four flat arrays: per-term offsets,
document numbers, BM25 weights and IDFs. Loading maps the file (``mmap``) and
decodes the header only; a term's posting list is unpacked when a query first
uses it, so a query touches a few pages of the file. A damaged or foreign file
fails validation and the index is built again; writes are atomic (temp file and
rename), so a mapped file never changes under a reader.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import mmap
import os
import tempfile
from array import array
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from skilldeck._atomic import keep_newest
from skilldeck._version import __version__
from skilldeck.search._bm25 import FIELD_WEIGHTS, SearchDocument, _Builtin

__all__ = ["EVIDENCE", "MAX_FILES", "PackedPostings", "index_key", "load_index", "save_index"]

# 3: 1,000 body words, evidence index; 4: usage sections; 5: BM25F per field;
# 6: a description's "NOT for" clauses left out
FORMAT = 6
MAX_FILES = 32  # 16 catalog states: an index and its evidence index each
#: The suffix of the key the evidence index (``SearchIndex.evidence``) is saved under.
EVIDENCE = "-evidence"


class _Header(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    format: int
    key: str
    n: int
    terms: list[str]
    postings: int  # how many (document, weight) pairs follow the offsets


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Header)
_MAGIC = b"SDSI"  # then the header's length (4 bytes, little-endian), then the header


def index_key(
    documents: Sequence[SearchDocument] | Sequence[Any],
    paths: Sequence[str | None],
    *,
    salt: str = "",
) -> str:
    """A digest of what the index is built from (see the module docstring); ``salt``
    names the options the index depends on. ``documents`` are ``SearchDocument``
    values or anything with the same attributes (catalog metadata)."""
    rows = [f"{__version__}\0{FORMAT}\0{sorted(FIELD_WEIGHTS.items())}\0{salt}"]
    stat = os.stat
    for doc, path in zip(documents, paths, strict=True):
        sig = ""
        if path is not None:
            try:
                st = stat(path)
                sig = f"{st.st_mtime_ns}:{st.st_size}:{st.st_ino}:{st.st_ctime_ns}"
            except (OSError, ValueError):
                sig = "missing"
        tags = "\1".join(doc.tags or ())
        rows.append(
            f"{doc.name}\0{doc.description}\0{tags}\0{getattr(doc, 'when_to_use', '') or ''}"
            f"\0{doc.source or ''}\0{path or ''}\0{sig}"
        )
    blob = "\n".join(rows).encode("utf-8", "surrogateescape")
    return hashlib.sha256(blob).hexdigest()[:40]


class PackedPostings(Mapping[str, dict[int, float]]):
    """Posting lists unpacked on first use from the flat arrays of an index file."""

    def __init__(self, terms: list[str], offsets: Any, docs: Any, weights: Any, n: int) -> None:
        self._terms = terms  # sorted: looked up by bisection, no dict of 100,000 terms
        self._offsets = offsets
        self._docs = docs
        self._weights = weights
        self._n = n
        self._unpacked: dict[str, dict[int, float]] = {}

    def __getitem__(self, term: str) -> dict[int, float]:
        got = self._unpacked.get(term)
        if got is None:
            i = self.position(term)
            if i < 0:
                raise KeyError(term)
            start, end = self._offsets[i], self._offsets[i + 1]
            got = {}
            if start <= end <= len(self._docs):  # a damaged file lists nothing
                got = dict(zip(self._docs[start:end], self._weights[start:end], strict=True))
                if got and max(got) >= self._n:
                    got = {}
            self._unpacked[term] = got
        return got

    def position(self, term: object) -> int:
        """The index of ``term`` in the sorted terms, or -1."""
        if not isinstance(term, str):
            return -1
        i = bisect.bisect_left(self._terms, term)
        return i if i < len(self._terms) and self._terms[i] == term else -1

    def __contains__(self, term: object) -> bool:
        return term in self._unpacked or self.position(term) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)


class _PackedIdf(Mapping[str, float]):
    def __init__(self, postings: PackedPostings, values: Any) -> None:
        self._postings = postings
        self._values = values

    def __getitem__(self, term: str) -> float:
        i = self._postings.position(term)
        if i < 0:
            raise KeyError(term)
        return float(self._values[i])

    def __contains__(self, term: object) -> bool:
        return self._postings.position(term) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._postings)

    def __len__(self) -> int:
        return len(self._postings)


def _file(directory: Path, key: str) -> Path:
    return directory / f"{key}.msgpack"


def save_index(directory: str | os.PathLike[str], key: str, built: _Builtin) -> None:
    """Write ``built`` under ``key`` (atomically; failures only cost the next build)."""
    folder = Path(directory)
    terms = list(built.vocab)
    offsets = array("I", [0])
    docs = array("I")
    weights = array("d")
    idf = array("d")
    for term in terms:
        post = built.postings[term]
        docs.extend(post.keys())
        weights.extend(post.values())
        offsets.append(len(docs))
        idf.append(built.idf[term])
    header = _ENCODER.encode(_Header(FORMAT, key, built.n, terms, len(docs)))
    pad = -(8 + len(header)) % 8  # the arrays start 8-byte aligned
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".search.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(_MAGIC + len(header).to_bytes(4, "little") + header + b"\0" * pad)
                for part in (weights, idf, offsets, docs):  # 8-byte items first
                    part.tofile(fh)
            os.replace(tmp, _file(folder, key))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except (OSError, ValueError):
        return
    _prune(folder)


def load_index(directory: str | os.PathLike[str], key: str) -> _Builtin | None:
    """The index saved under ``key``, or ``None`` (absent, stale, damaged)."""
    path = _file(Path(directory), key)
    try:
        with open(path, "rb") as fh:
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    view = memoryview(mapped)
    try:
        if bytes(view[:4]) != _MAGIC:
            return None
        size = int.from_bytes(view[4:8], "little")
        head = _DECODER.decode(view[8 : 8 + size])
        if head.format != FORMAT or head.key != key:
            return None
        start = 8 + size + (-(8 + size) % 8)
        n_terms, n_post = len(head.terms), head.postings
        spans = ((n_post, 8), (n_terms, 8), (n_terms + 1, 4), (n_post, 4))
        parts: list[memoryview] = []
        for count, width in spans:
            end = start + count * width
            if count < 0 or end > len(view):
                return None
            parts.append(view[start:end])
            start = end
        weights, idf = parts[0].cast("d"), parts[1].cast("d")
        offsets, docs = parts[2].cast("I"), parts[3].cast("I")
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: kept by the pruning
    postings = PackedPostings(head.terms, offsets, docs, weights, head.n)
    # terms out of order (a tampered file) are only missed by the bisection
    return _Builtin(postings, head.terms, _PackedIdf(postings, idf), head.n)


def _prune(folder: Path) -> None:
    keep_newest(folder, ".msgpack", MAX_FILES)
