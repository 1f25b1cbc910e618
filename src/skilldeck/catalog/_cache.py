"""The persisted metadata cache: one index file per root in the user cache folder.

Each index holds one row per SKILL.md: its key (the skill's folder for a regular
SKILL.md file in it, else the path as found and the real path, NUL-separated:
``_fs.memory_key``), its stat signature and the parsed record. A row is
served only while the file's signature is unchanged: ``mtime_ns``, size, inode,
``ctime_ns`` and device, packed into 40 bytes (``sig_of``: one bytes object per
file instead of a tuple of five integers, in memory and in the file). The
ctime cannot be set back by ``os.utime``, so a file rewritten with the same size
and a restored mtime still misses the cache.

The index is a header (the keys, in the order a listing walks them, and the root's
listing) and then the rows in chunks of ``CHUNK``, each MessagePack decoded by
msgspec against a fixed schema (straight into tuples, in C) when the listing
reaches it and dropped after: the file's bytes and rows are never all in memory.
A damaged or foreign file (a truncated write, an edited row with a wrong type)
fails validation: a bad header serves nothing, a bad chunk nothing from there on,
and those files are parsed again: a broken cache is never trusted and never
crashes a listing. A row's diagnostics stay packed (one bytes
object, ``pack_diagnostics``) until something reads them (``_model._Packed``):
a listing expands none. Packed diagnostics that do not unpack (bytes edited
into another valid index) read as none, like any other edited value that still
fits the schema. The file also records a stamp of the
parser (skilldeck's version and the format modules' sizes and times), so a new
parser never serves old results.
"""

from __future__ import annotations

import contextlib
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import msgspec

from skilldeck._atomic import cache_folder
from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._version import __version__

__all__ = [
    "CACHE_FORMAT",
    "CHUNK",
    "MAX_FILES",
    "NEVER",
    "SIG_SIZE",
    "AboutRow",
    "InvocationRow",
    "Listing",
    "MetadataCache",
    "Record",
    "RootSig",
    "Row",
    "Sig",
    "Stored",
    "ctime_of",
    "pack_diagnostics",
    "pack_sig",
    "sig_of",
    "unpack_diagnostics",
]  # fmt: skip

CACHE_FORMAT = 8
"""Bumped whenever the index's layout changes (5: packed signatures; 6: packed
diagnostics; 7: a header of keys, then the rows in chunks; 8: a plain SKILL.md's
key is its folder, and a diagnostic's own SKILL.md is a mark)."""

MAX_FILES = 64
"""At most this many roots are cached; the least recently used are dropped."""

_Strs = tuple[str, ...]

#: model_invocable, user_invocable, when_to_use, argument_hint (invocation controls)
InvocationRow = tuple[bool, bool, str | None, str | None]

#: version, author (the listing's extension fields; ``None`` when neither is set)
AboutRow = tuple[str | None, str | None]

#: name, description, tags, requires (commands, env, other), valid, diagnostics
#: (packed: ``pack_diagnostics``), invocation controls (``None``: the defaults),
#: version and author
Record = tuple[
    str,
    str,
    _Strs,
    _Strs,
    _Strs,
    _Strs,
    bool,
    bytes,
    InvocationRow | None,
    AboutRow | None,
]

#: one diagnostic, packed: code, severity, message, path, line, column, hint
_DiagRow = tuple[str, Severity, str, str | None, int | None, int | None, str | None]


_OWN = "\0"
"""A packed diagnostic's path when it is the skill's own SKILL.md (no path holds NUL):
the packed bytes of equal findings in different skills are then equal, and shared."""


def pack_diagnostics(diags: tuple[Diagnostic, ...] | bytes, own: str | None = None) -> bytes:
    """Diagnostics as one bytes object (``b""``: none; packed ones as they are).

    A path equal to ``own`` (the skill's SKILL.md, ``_model.own_md``) is packed
    as a mark that ``unpack_diagnostics`` turns back into the ``own`` it is given.
    Raises ``ValueError`` (``UnicodeEncodeError``) or ``msgspec.EncodeError`` for
    text that cannot be UTF-8 (a path with undecodable bytes): such a row is not cached.
    """
    if isinstance(diags, bytes):
        return diags
    if not diags:
        return b""
    return _ENCODER.encode(
        [
            (
                d.code,
                d.severity,
                d.message,
                _OWN if own is not None and d.path == own else d.path,
                d.line,
                d.column,
                d.hint,
            )
            for d in diags
        ]
    )


def unpack_diagnostics(packed: bytes, own: str | None = None) -> tuple[Diagnostic, ...]:
    """The diagnostics ``pack_diagnostics`` packed, the skill's own SKILL.md named
    ``own`` (none when the bytes were damaged)."""
    if not packed:
        return ()
    try:
        rows = _DIAG_DECODER.decode(packed)
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError):
        return ()
    return tuple(
        Diagnostic(code, severity, message, own if path == _OWN else path, line, column, hint)
        for code, severity, message, path, line, column, hint in rows
    )


#: the stat signature of a SKILL.md: mtime_ns, size, inode, ctime_ns, device, packed
#: (``sig_of``); compared for equality only, and ``ctime_of`` reads its ctime back
Sig = bytes

_SIG = struct.Struct("<qqQqQ")
SIG_SIZE = _SIG.size
"""The length of a packed signature (40 bytes)."""
NEVER: Sig = b""
"""A signature no file has (a racy file's: parsed again next scan)."""


pack_sig = _SIG.pack
"""``pack_sig(mtime_ns, size, inode, ctime_ns, device)``: ``sig_of`` for hot loops."""


def sig_of(st: os.stat_result) -> Sig:
    """The signature of a SKILL.md from its ``lstat``/``stat`` result.

    A value out of the packed range (an mtime set past the year 2262) gives a longer,
    exact signature whose ``ctime_of`` is -1: compared like any other, never cached.
    """
    parts = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, st.st_dev)
    try:
        return pack_sig(*parts)
    except (struct.error, OverflowError):
        return b"~" * (_SIG.size + 1) + repr(parts).encode()


def ctime_of(sig: Sig) -> int:
    """The ``ctime_ns`` in a signature (-1 for ``NEVER`` or a damaged one)."""
    if len(sig) != _SIG.size:
        return -1
    ctime: int = _SIG.unpack(sig)[3]
    return ctime


#: key, signature, record
Row = tuple[str, Sig, Record]

#: a root folder's mtime_ns, ctime_ns and inode
RootSig = tuple[int, int, int]

#: what an immediate root held when its rows were written: the root's signature
#: and its sub-folders without SKILL.md (the rows' folders are its skills)
Listing = tuple[RootSig, list[str]]


class _Header(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    stamp: str
    root: str
    keys: list[str]  # the rows' keys, in the order their chunks hold the rows
    chunks: list[int]  # the byte length of each chunk after the header
    listing: Listing | None = None


#: one chunk: the signatures and records of up to ``CHUNK`` consecutive keys
_Chunk = list[tuple[Sig, Record]]

CHUNK = 2048
"""Rows per chunk: a reader holds one chunk's bytes and rows at a time."""

_LENGTH = struct.Struct("<I")

_ENCODER = msgspec.msgpack.Encoder()
_HEADER = msgspec.msgpack.Decoder(_Header)
_CHUNK = msgspec.msgpack.Decoder(_Chunk)
_DIAG_DECODER = msgspec.msgpack.Decoder(list[_DiagRow])
_ERRORS = (OSError, msgspec.DecodeError, ValueError, TypeError, RecursionError)


class Stored:
    """One root's index, open: its keys and listing, and its rows read chunk by chunk.

    ``take(key)`` answers keys asked in the order they were saved (a listing asks in
    its walk's order, which is the order it saved) from the current chunk, then drops
    the chunk for the next: the index's bytes and rows are never all in memory. A key
    asked out of order reads the rest into a map. A chunk that fails validation ends
    the rows there (the files they describe are parsed again).
    """

    def __init__(self, fh: Any, header: _Header) -> None:
        self.keys = header.keys
        self.listing = header.listing
        self._fh: Any = fh
        self._sizes = header.chunks
        self._next_chunk = 0
        self._start = 0  # the index in ``keys`` of ``_rows[0]``
        self._rows: _Chunk = []
        self._pos = 0
        self._rest: dict[str, tuple[Sig, Record]] | None = None

    def _read_chunk(self) -> bool:
        if self._fh is None or self._next_chunk >= len(self._sizes):
            self.close()
            return False
        self._start += len(self._rows)
        try:
            data = self._fh.read(self._sizes[self._next_chunk])
            rows = _CHUNK.decode(data)
        except _ERRORS:
            rows = []
        end = self._start + len(rows)
        if not rows or end > len(self.keys) or len(rows) > CHUNK:
            self.close()
            self._rows = []
            return False
        self._next_chunk += 1
        self._rows, self._pos = rows, 0
        return True

    def take(self, key: str) -> tuple[Sig, Record] | None:
        """The row of ``key`` (``None``: not stored or not readable)."""
        rest = self._rest
        if rest is None:
            pos = self._pos
            if pos >= len(self._rows):
                if not self._read_chunk():
                    return None
                pos = 0
            if self.keys[self._start + pos] == key:
                self._pos = pos + 1
                return self._rows[pos]
            rest = self._rest = self._remaining()
        return rest.pop(key, None)

    def _remaining(self) -> dict[str, tuple[Sig, Record]]:
        out: dict[str, tuple[Sig, Record]] = {}
        while True:
            base = self._start
            for i in range(self._pos, len(self._rows)):
                out[self.keys[base + i]] = self._rows[i]
            self._pos = len(self._rows)
            if not self._read_chunk():
                return out

    def rows(self) -> dict[str, tuple[Sig, Record]]:
        """Every readable row not taken yet, by key (reads the rest of the index)."""
        if self._rest is None:
            self._rest = self._remaining()
        return self._rest

    def close(self) -> None:
        fh, self._fh = self._fh, None
        if fh is not None:
            fh.close()


_STAMP: str | None = None


def parser_stamp() -> str:
    """Identifies the code that produced cached records (changes when it changes)."""
    global _STAMP
    if _STAMP is None:
        catalog_pkg = Path(__file__).parent
        format_pkg = catalog_pkg.parent / "format"  # not imported: a warm listing never parses

        parts = [__version__, str(CACHE_FORMAT)]
        for folder in (format_pkg, catalog_pkg):
            with contextlib.suppress(OSError):
                for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                    if entry.name.endswith(".py"):
                        st = entry.stat()
                        parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
        _STAMP = _hash("\n".join(parts).encode("utf-8", "surrogateescape"))
    return _STAMP


def _hash(data: bytes) -> str:
    """A stable 64-bit name for ``data`` (CRC-32 and Adler-32, from zlib: a listing
    need not import hashlib). Names only tell files apart: two roots whose names
    collide find each other's root in the header and parse again, never each
    other's rows."""
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


class MetadataCache:
    """Reads and writes the index of one root under ``directory``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _file(self, root_key: str) -> Path:
        # one file per root and parser: two skilldeck versions sharing a cache folder
        # (a venv and a global install) keep their own index instead of replacing
        # each other's on every run; the pruning below bounds the count
        digest = _hash(root_key.encode("utf-8", "surrogateescape"))
        return self.directory / f"{digest}-{parser_stamp()}.idx"

    def open(self, root_key: str) -> Stored | None:
        """The index of a root, open for reading (``None`` when absent, stale,
        foreign or damaged); the caller closes it (``Stored.close``)."""
        if not cache_folder(self.directory):
            return None
        target = self._file(root_key)
        try:
            fh = open(target, "rb")  # noqa: SIM115 (closed by Stored)
        except (OSError, ValueError):
            return None
        try:
            (size,) = _LENGTH.unpack(fh.read(_LENGTH.size))
            header = _HEADER.decode(fh.read(size))
        except (*_ERRORS, struct.error):
            fh.close()
            return None
        if (
            header.stamp != parser_stamp()
            or header.root != root_key
            or len(header.chunks) != -(-len(header.keys) // CHUNK)
        ):
            fh.close()
            return None
        with contextlib.suppress(OSError):
            os.utime(target)  # recently used: kept by the pruning in save()
        return Stored(fh, header)

    def load(self, root_key: str) -> tuple[dict[str, tuple[Sig, Record]], Listing | None]:
        """The cached rows of a root by key and its listing, all read (empty when
        absent, stale, foreign or damaged)."""
        stored = self.open(root_key)
        if stored is None:
            return {}, None
        try:
            return stored.rows(), stored.listing
        finally:
            stored.close()

    def save(self, root_key: str, rows: list[Row], listing: Listing | None = None) -> None:
        """Replace a root's index (atomically; failures are ignored).

        Written to a temp file and renamed, without fsync: after a crash the
        index is either the old file, the new one, or unreadable, which only
        costs a re-parse. ``rows`` are stored in the order given (a listing's).
        """
        from skilldeck._atomic import replacing  # only writers need it

        try:
            parts = _encode(root_key, rows, listing)
            if parts is None or not cache_folder(self.directory, create=True):
                return
            with replacing(self._file(root_key), mode=0o600, durable=False) as fh:
                fh.writelines(parts)
        except OSError:
            return  # a cache that cannot be written only costs speed
        self._prune()

    def _prune(self) -> None:
        """Keep the ``MAX_FILES`` most recently used root files (roots come and go)."""
        from skilldeck._atomic import keep_newest  # only writers prune

        keep_newest(self.directory, ".idx", MAX_FILES)


def _encode(root_key: str, rows: list[Row], listing: Listing | None) -> list[bytes] | None:
    """The index's parts: the header's length and the header, then the chunks. Rows
    whose text cannot be UTF-8 encoded (file names with undecodable bytes) are left
    out: they are parsed on every scan (and the listing, which the rows no longer
    cover, too)."""
    bad = (msgspec.EncodeError, UnicodeEncodeError, ValueError, TypeError)
    keys: list[str] = []
    chunks: list[bytes] = []
    for i in range(0, len(rows), CHUNK):
        part = rows[i : i + CHUNK]
        try:
            chunks.append(_ENCODER.encode([(sig, rec) for _key, sig, rec in part]))
            _ENCODER.encode([key for key, _sig, _rec in part])
            keys.extend(key for key, _sig, _rec in part)
            continue
        except bad:
            listing = None
        kept = []
        for key, sig, rec in part:
            try:
                _ENCODER.encode((key, sig, rec))
            except bad:
                continue
            kept.append((key, sig, rec))
        if kept:
            chunks.append(_ENCODER.encode([(sig, rec) for _key, sig, rec in kept]))
            keys.extend(key for key, _sig, _rec in kept)
    header = _Header(parser_stamp(), root_key, keys, [len(c) for c in chunks], listing)
    try:
        head = _ENCODER.encode(header)
    except bad:
        return None
    return [_LENGTH.pack(len(head)), head, *chunks]
