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

import contextlib
import hashlib
import itertools
import mmap
import os
from array import array
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from skilldeck._atomic import cache_folder, keep_newest, open_cache, replacing
from skilldeck._version import __version__
from skilldeck.search._bm25 import FIELD_WEIGHTS, SearchDocument
from skilldeck.search._terms import FIELDS, DocTerms, FieldIndex

__all__ = [
    "MAX_FILES",
    "TERMS_FILE",
    "SkillRow",
    "decode_terms",
    "doc_keys",
    "encode_terms",
    "index_key",
    "index_rows",
    "load_index",
    "load_terms",
    "save_index",
    "save_terms",
]

# 3: 1,000 body words, evidence index; 4: usage sections; 5: BM25F per field;
# 6: a description's "NOT for" clauses left out; 7: counts per field, weighed on demand
FORMAT = 7
MAX_FILES = 16  # 16 catalog states


class _Header(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    format: int
    key: str
    n: int
    terms: list[list[str]]  # per field (``FIELDS``), sorted
    postings: list[int]  # per field: how many (document, count) pairs


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Header)
_MAGIC = b"SDSI"  # then the header's length (4 bytes, little-endian), then the header


#: what a skill's part of the index is built from: name, description, tags,
#: ``when_to_use``, source, SKILL.md path and its stat signature
SkillRow = tuple[str, str, tuple[str, ...], str, str, str, bytes]


def index_rows(
    documents: Sequence[SearchDocument] | Sequence[Any],
    paths: Sequence[str | None],
    *,
    stamps: Sequence[bytes | None] | None = None,
) -> list[SkillRow]:
    """Each skill's ``SkillRow`` (what its part of the index is built from).
    ``documents`` are ``SearchDocument`` values or anything with the same
    attributes (catalog metadata). ``stamps``: each SKILL.md's stat signature as
    the catalog's scan validated it (``Catalog.skill_md_stamps``); a file without
    one is stat here."""
    from skilldeck.catalog import sig_of

    sigs: list[bytes] = []
    given = stamps if stamps is not None else [None] * len(paths)
    for sig, path in zip(given, paths, strict=True):
        if sig is None:
            try:
                sig = b"" if path is None else sig_of(os.stat(path))
            except (OSError, ValueError):
                sig = b"missing"
        sigs.append(sig)
    return [
        (
            doc.name,
            doc.description,
            tuple(doc.tags or ()),
            getattr(doc, "when_to_use", None) or "",
            doc.source or "",
            path or "",
            sig,
        )
        for doc, path, sig in zip(documents, paths, sigs, strict=True)
    ]


def _head(salt: str) -> str:
    return f"{__version__}\0{FORMAT}\0{sorted(FIELD_WEIGHTS.items())}\0{salt}"


def _packed(value: Any) -> bytes:
    try:
        return _ENCODER.encode(value)
    except (msgspec.EncodeError, UnicodeEncodeError):  # a path that is not UTF-8
        return repr(value).encode("utf-8", "surrogateescape")


def doc_keys(rows: Sequence[SkillRow], *, salt: str = "") -> list[bytes]:
    """A digest per skill of its ``index_rows`` row; ``salt`` names the options
    the index depends on."""
    head = _packed(_head(salt))
    sha = hashlib.sha256
    return [sha(head + _packed(row)).digest()[:16] for row in rows]


def index_key(rows: Sequence[SkillRow], *, salt: str = "") -> str:
    """The key of the index over the skills of ``rows`` (``index_rows``), in this
    order: one digest of every row, so a saved index is found without a digest
    per skill."""
    return hashlib.sha256(_packed([_head(salt), rows])).hexdigest()[:40]


def _file(directory: Path, key: str) -> Path:
    return directory / f"{key}.msgpack"


def save_index(directory: str | os.PathLike[str], key: str, index: FieldIndex) -> None:
    """Write ``index`` under ``key`` (atomically; failures only cost the next build)."""
    folder = Path(directory)
    fields = [index.arrays(f) for f in range(len(FIELDS))]
    header = _ENCODER.encode(
        _Header(FORMAT, key, index.n, [list(f[0]) for f in fields], [f[1] for f in fields])
    )
    pad = -(8 + len(header)) % 8  # the arrays start 8-byte aligned
    parts: Any = itertools.chain(
        [index.meta_lengths, *index.lengths],  # 8-byte items first
        itertools.chain.from_iterable(f[2] for f in fields),
    )
    if not cache_folder(folder, create=True):
        return
    try:
        with replacing(_file(folder, key), mode=0o600, durable=False) as fh:
            fh.write(_MAGIC + len(header).to_bytes(4, "little") + header + b"\0" * pad)
            for part in parts:
                fh.write(part)  # an array or a mapped view: written as it is
    except (OSError, ValueError):
        return
    _prune(folder)


def load_index(directory: str | os.PathLike[str], key: str) -> FieldIndex | None:
    """The index saved under ``key``, or ``None`` (absent, stale, damaged)."""
    path = _file(Path(directory), key)
    if not cache_folder(path.parent):
        return None
    try:
        with open_cache(path) as fh:
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    view = memoryview(mapped)
    try:
        if bytes(view[:4]) != _MAGIC:
            return None
        size = int.from_bytes(view[4:8], "little")
        head = _DECODER.decode(view[8 : 8 + size])
        if (
            head.format != FORMAT
            or head.key != key
            or len(head.terms) != len(FIELDS)
            or len(head.postings) != len(FIELDS)
            or head.n < 0
        ):
            return None
        start = 8 + size + (-(8 + size) % 8)
        spans = [(head.n, 8, "d")] + [(head.n, 4, "I")] * len(FIELDS)
        for terms, count in zip(head.terms, head.postings, strict=True):
            spans += [(len(terms) + 1, 4, "I"), (count, 4, "I"), (count, 4, "I")]
        parts: list[memoryview[Any]] = []
        for count, width, code in spans:
            end = start + count * width
            if count < 0 or end > len(view):
                return None
            part = view[start:end]
            parts.append(part.cast("d") if code == "d" else part.cast("I"))
            start = end
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: kept by the pruning
    fields = []
    rest = parts[1 + len(FIELDS) :]
    for f, terms in enumerate(head.terms):
        offsets, docs, counts = rest[3 * f : 3 * f + 3]
        # terms out of order (a tampered file) are only missed by the bisection
        fields.append((terms, offsets, docs, counts))
    return FieldIndex(head.n, parts[1 : 1 + len(FIELDS)], parts[0], fields)


def _prune(folder: Path) -> None:
    keep_newest(folder, ".msgpack", MAX_FILES)


# -- the terms of each skill, for a rebuild after a change --------------------------

#: one skill: its key, field lengths, evidence length, headings, and per field its
#: position, its terms (numbers into the file's vocabulary) and their counts, both
#: ``array("I")`` bytes (a string per term would cost more than the index)
_Row = tuple[bytes, list[int], float, list[str], list[tuple[int, bytes, bytes]]]


_ROWS = msgspec.msgpack.Decoder(list[_Row])
_VOCABULARY = msgspec.msgpack.Decoder(list[str])
_FORMAT = msgspec.msgpack.Decoder(int)
TERMS_FILE = "skills.terms"  # not .msgpack: the pruning keeps the index files
_CHUNK = 500  # skills per frame: the file is written a frame at a time


def save_terms(
    directory: str | os.PathLike[str],
    rows: Sequence[tuple[bytes, DocTerms, Sequence[str]]],
) -> None:
    """Write each skill's terms under its ``doc_keys`` key (atomically, replacing the
    last catalog state's; failures only cost the next rebuild its reuse).

    The file is frames (a 4-byte length, then MessagePack): the format, rows of
    ``_CHUNK`` skills, then the vocabulary their term numbers point into."""
    folder = Path(directory)
    vocabulary: defaultdict[str, int] = defaultdict(itertools.count().__next__)
    number = vocabulary.__getitem__  # a new term gets the next number (in C)

    def frame(fh: Any, value: Any) -> None:
        blob = _ENCODER.encode(value)
        fh.write(len(blob).to_bytes(4, "little") + blob)

    if not cache_folder(folder, create=True):
        return
    try:
        with replacing(folder / TERMS_FILE, mode=0o600, durable=False) as fh:
            frame(fh, FORMAT)
            for start in range(0, len(rows), _CHUNK):
                table: list[_Row] = []
                for key, terms, headings in rows[start : start + _CHUNK]:
                    fields = [
                        (f, array("I", map(number, names)).tobytes(), c.tobytes())
                        for f, names, c in terms.fields
                    ]
                    lengths = list(terms.lengths)
                    table.append((key, lengths, terms.meta_length, list(headings), fields))
                frame(fh, table)
            frame(fh, list(vocabulary))
    except (OSError, ValueError, msgspec.EncodeError):
        return


def _frames(data: bytes) -> list[memoryview] | None:
    view, out, at = memoryview(data), [], 0
    while at < len(view):
        size = int.from_bytes(view[at : at + 4], "little")
        if at + 4 + size > len(view):
            return None
        out.append(view[at + 4 : at + 4 + size])
        at += 4 + size
    return out


def load_terms(directory: str | os.PathLike[str]) -> dict[bytes, tuple[DocTerms, tuple[str, ...]]]:
    """The terms saved by ``save_terms`` by key (empty: absent, stale or damaged)."""
    if not cache_folder(Path(directory)):
        return {}
    try:
        with open_cache(Path(directory) / TERMS_FILE) as fh:
            frames = _frames(fh.read())
        if not frames or len(frames) < 2 or _FORMAT.decode(frames[0]) != FORMAT:
            return {}
        vocabulary = _VOCABULARY.decode(frames[-1])
        chunks = [_ROWS.decode(f) for f in frames[1:-1]]
    except (OSError, msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
        return {}
    size = len(vocabulary)
    width = len(FIELDS)
    out: dict[bytes, tuple[DocTerms, tuple[str, ...]]] = {}
    for key, lengths, meta_length, headings, fields in itertools.chain.from_iterable(chunks):
        if len(lengths) != width:
            continue
        made = []
        for f, raw_ids, raw_counts in fields:
            ids, counts = array("I"), array("I")
            if not 0 <= f < width or len(raw_ids) % 4 or len(raw_ids) != len(raw_counts):
                break
            ids.frombytes(raw_ids)
            counts.frombytes(raw_counts)
            if ids and max(ids) >= size:
                break
            made.append((f, tuple(map(vocabulary.__getitem__, ids)), counts))
        else:
            out[key] = (DocTerms(tuple(made), tuple(lengths), meta_length), tuple(headings))
    return out


# -- one skill's terms as bytes (a database row) ------------------------------------

#: field lengths, evidence length, headings, per field (position, terms, counts bytes)
_Doc = tuple[list[int], float, list[str], list[tuple[int, list[str], bytes]]]
_DOC_DECODER = msgspec.msgpack.Decoder(_Doc)


def encode_terms(terms: DocTerms, headings: Sequence[str]) -> bytes:
    """One skill's terms and headings as bytes (``decode_terms`` reads them)."""
    fields = [(f, list(names), counts.tobytes()) for f, names, counts in terms.fields]
    return _ENCODER.encode((list(terms.lengths), terms.meta_length, list(headings), fields))


def decode_terms(data: bytes) -> tuple[DocTerms, tuple[str, ...]] | None:
    """What ``encode_terms`` wrote, or ``None`` (damaged or foreign)."""
    try:
        lengths, meta_length, headings, fields = _DOC_DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError):
        return None
    width = len(FIELDS)
    if len(lengths) != width:
        return None
    made = []
    for f, names, raw in fields:
        counts = array("I")
        if not 0 <= f < width or len(raw) != 4 * len(names):
            return None
        counts.frombytes(raw)
        made.append((f, tuple(names), counts))
    return DocTerms(tuple(made), tuple(lengths), meta_length), tuple(headings)
