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
listing) and then the rows in chunks of ``CHUNK``, each one tuple of columns (the
signatures, the names, the descriptions, ...), written and read with ``marshal``
(Python's own format for its bytecode caches, read in C without importing
anything) when the listing reaches it and dropped after: the file's bytes and
rows are never all in memory. The index is skilldeck's own file, read only in a
real cache folder the user owns (``_atomic.cache_folder``), as Python reads its
``__pycache__``; still every value's type is checked, a column at a time, before
a row is served. A damaged or foreign file (a truncated write, an edited row with
a wrong type) fails that check: a bad header serves nothing, a bad chunk nothing
from there on, and those files are parsed again: a broken cache is never trusted
and never crashes a listing. A row's diagnostics stay packed (one bytes
object, ``pack_diagnostics``) until something reads them (``_model._Packed``):
a listing expands none. Packed diagnostics that do not unpack (bytes edited
into another valid index) read as none, like any other edited value that still
fits the schema. The file also records a stamp of the
parser (skilldeck's version and the format modules' sizes and times), so a new
parser never serves old results.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import struct
import sys
import zlib
from itertools import chain, filterfalse
from pathlib import Path

from skilldeck._atomic import cache_folder, code_stamp_text, open_cache
from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CACHE_FORMAT",
    "CHUNK",
    "MAX_FILES",
    "NEVER",
    "SIG_SIZE",
    "AboutRow",
    "Columns",
    "InvocationRow",
    "Listing",
    "MetadataCache",
    "Record",
    "RootSig",
    "Row",
    "RunRow",
    "Sig",
    "Stored",
    "StoredRow",
    "ctime_of",
    "pack_diagnostics",
    "pack_sig",
    "pack_sig_into",
    "sig_of",
    "split_sigs",
    "stamp_of",
    "unpack_diagnostics",
]  # fmt: skip

CACHE_FORMAT = 11
"""Bumped whenever the index's layout changes (5: packed signatures; 6: packed
diagnostics; 7: a header of keys, then the rows in chunks; 8: a plain SKILL.md's
key is its folder, and a diagnostic's own SKILL.md is a mark; 9: ``marshal``, a
chunk's rows as columns; 10: a chunk's signatures, valid flags and places in the
header's tables each one bytes object; 11: the run settings)."""

MAX_FILES = 64
"""At most this many roots are cached; the least recently used are dropped."""

_Strs = tuple[str, ...]

#: model_invocable, user_invocable, when_to_use, argument_hint (invocation controls)
InvocationRow = tuple[bool, bool, str | None, str | None]

#: version, author (the listing's extension fields; ``None`` when neither is set)
AboutRow = tuple[str | None, str | None]

#: timeout, network, read_only, always_ask, modes (what a run reads of the manifest)
RunRow = tuple[int | None, bool, bool, bool, _Strs | None]

#: name, description, tags, requires (commands, env, other), valid, diagnostics
#: (packed: ``pack_diagnostics``), invocation controls, version and author, and run
#: settings (each ``None``: the defaults)
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
    RunRow | None,
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
    Raises ``ValueError`` (``UnicodeEncodeError`` among them) for text that cannot
    be UTF-8 (a path with undecodable bytes): such a row is not cached.
    """
    if isinstance(diags, bytes):
        return diags
    if not diags:
        return b""
    msgspec, encoder, _decoder = _msgpack()
    try:
        packed: bytes = encoder.encode(
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
    except msgspec.EncodeError as exc:
        raise ValueError(str(exc)) from exc
    return packed


def unpack_diagnostics(packed: bytes, own: str | None = None) -> tuple[Diagnostic, ...]:
    """The diagnostics ``pack_diagnostics`` packed, the skill's own SKILL.md named
    ``own`` (none when the bytes were damaged)."""
    if not packed:
        return ()
    msgspec, _encoder, decoder = _msgpack()
    try:
        rows = decoder.decode(packed)
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError):
        return ()
    return tuple(
        Diagnostic(code, severity, message, own if path == _OWN else path, line, column, hint)
        for code, severity, message, path, line, column, hint in rows
    )


_MSGPACK: tuple[Any, Any, Any] | None = None


def _msgpack() -> tuple[Any, Any, Any]:
    """msgspec, its MessagePack encoder and the packed diagnostics' decoder, made on
    first use: only a parse or a read of a skill's diagnostics needs them, and
    importing msgspec costs a listing about 12 ms."""
    global _MSGPACK
    if _MSGPACK is None:
        import msgspec

        decoder = msgspec.msgpack.Decoder(list[_DiagRow])
        _MSGPACK = (msgspec, msgspec.msgpack.Encoder(), decoder)
    return _MSGPACK


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
pack_sig_into = _SIG.pack_into
"""``pack_sig_into(buffer, offset, mtime_ns, ...)``: ``pack_sig`` into a buffer of many."""


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


def stamp_of(sig: Sig) -> tuple[int, int, int, int]:
    """The (inode, mtime_ns, size, ctime_ns) of an exact signature (a snapshot's
    stamp of the file, ``_snapshot.Stamp``)."""
    mtime, size, ino, ctime, _dev = _SIG.unpack(sig)
    return ino, mtime, size, ctime


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


#: a stored row as ``Stored.take`` gives it: the signature, then the record's fields
if TYPE_CHECKING:
    StoredRow = tuple[Sig, str, str, _Strs, _Strs, _Strs, _Strs, bool, bytes, Any, Any, Any]

CHUNK = 2048
"""Rows per chunk: a reader holds one chunk's bytes and rows at a time."""

_LENGTH = struct.Struct("<I")
_MARSHAL = 4  # marshal's format version (shares repeated objects)
_ERRORS = (OSError, EOFError, ValueError, TypeError, RecursionError)

_Types = frozenset[type]
_STR: _Types = frozenset({str})
_BYTES: _Types = frozenset({bytes})
_BOOL: _Types = frozenset({bool})
_INT: _Types = frozenset({int})
_TUPLE: _Types = frozenset({tuple})
_OPT_STR: _Types = frozenset({str, type(None)})
_OPT_TUPLE: _Types = frozenset({tuple, type(None)})
_OPT_INT: _Types = frozenset({int, type(None)})


def _only(values: Any, types: _Types) -> bool:
    """Is every one of ``values`` of exactly one of ``types`` (checked in C)?"""
    return {*map(type, values)} <= types


def _texts(values: Any) -> bool:
    """Is every one of ``values`` a ``str``? ``_only(values, _STR)`` in a quarter of
    the time for short texts: ``str.join`` refuses anything else, and ``marshal``
    makes no subclass of ``str``, so what it accepts is exactly a ``str``."""
    try:
        "".join(values)
    except TypeError:
        return False
    return True


def _string_tuples(*columns: Any) -> bool:
    """Is every value of ``columns`` a tuple of strings? Checked on the distinct
    values only (most are the empty tuple, which ``marshal`` shares): anything
    unhashable is no tuple of strings either."""
    try:
        distinct = {*chain.from_iterable(columns)}
    except TypeError:
        return False
    return _only(distinct, _TUPLE) and _texts(chain.from_iterable(distinct))


#: stamp, root, keys, chunk lengths, listing, and the tables the chunks' tags,
#: packed findings and versions-and-authors columns index (each distinct value once
#: in the whole index: one object shared by every skill that has it)
if TYPE_CHECKING:
    _Header = tuple[
        str, str, list[str], list[int], "Listing | None", list[_Strs], list[bytes], list[Any]
    ]
if TYPE_CHECKING:
    _Tables = tuple[dict[Any, int], dict[Any, int], dict[Any, int]]


def _header_of(data: bytes) -> _Header | None:
    """The header's parts (``None``: damaged), every value's type checked."""
    try:
        head = marshal.loads(data)  # noqa: S302 (our own file, in a folder we own; checked)
    except _ERRORS:
        return None
    if type(head) is not tuple or len(head) != 8:
        return None
    stamp, root, keys, chunks, listing, tag_sets, findings, abouts = head
    if not (
        type(stamp) is type(root) is str
        and type(keys) is type(chunks) is list
        and type(tag_sets) is type(findings) is type(abouts) is list
        and _only(keys, _STR)  # (joined, they would be new memory the size of the header)
        and _only(chunks, _INT)
        and _only(tag_sets, _TUPLE)
        and _texts(chain.from_iterable(tag_sets))
        and _only(findings, _BYTES)
        and _only(abouts, _OPT_TUPLE)
    ):
        return None
    pairs = [pair for pair in abouts if pair is not None]
    if not ({*map(len, pairs)} <= {2} and _only(chain.from_iterable(pairs), _OPT_STR)):
        return None
    if listing is not None:
        if type(listing) is not tuple or len(listing) != 2:
            return None
        sig, others = listing
        if not (type(sig) is tuple and len(sig) == 3 and _only(sig, _INT)):
            return None
        if not (type(others) is list and _texts(others)):
            return None
    return stamp, root, keys, chunks, listing, tag_sets, findings, abouts


#: a chunk's rows as columns, in a ``StoredRow``'s order: the signatures (packed one
#: after the other, ``split_sigs``), names, descriptions, tags, commands, env, other,
#: valid flags, findings, invocation controls, versions-and-authors (the header's
#: tables' values in place) and run settings
if TYPE_CHECKING:
    Columns = tuple[
        bytes,
        tuple[str, ...],
        tuple[str, ...],
        list[_Strs],
        tuple[_Strs, ...],
        tuple[_Strs, ...],
        tuple[_Strs, ...],
        list[bool],
        list[bytes],
        tuple[Any, ...],
        list[Any],
        tuple[Any, ...],
    ]


_BOOLS = (False, True)


def _places(data: Any, count: int) -> tuple[int, ...] | None:
    """``count`` places in a header's table, packed as little-endian 32-bit numbers
    (``None``: not such a column)."""
    if type(data) is not bytes or len(data) != 4 * count:
        return None
    places: tuple[int, ...] = struct.unpack(f"<{count}I", data)
    return places


def _columns_of(data: bytes | memoryview, header: _Header) -> Columns | None:
    """A chunk's columns (``None``: damaged), every value's type checked a column at
    a time, the tags, findings and versions and authors taken from the header's tables.

    The signatures, the valid flags and the places in the tables are each one bytes
    object (of ``SIG_SIZE``, 1 and 4 bytes a row): their values need no type checked,
    only their lengths."""
    tag_sets, findings, abouts = header[5:]
    try:
        cols = marshal.loads(data)  # noqa: S302 (as in _header_of)
    except _ERRORS:
        return None
    if type(cols) is not tuple or len(cols) != 12:
        return None
    sigs, names, descriptions, tags, commands, env, other, valid, diags, calls, about, run = cols
    many = (names, descriptions, commands, env, other, calls, run)
    if not _only(many, _TUPLE):
        return None
    count = len(names)
    if not 0 < count <= CHUNK or {*map(len, many)} != {count}:
        return None
    if not (
        type(sigs) is bytes
        and len(sigs) == count * SIG_SIZE
        and type(valid) is bytes
        and len(valid) == count
        and not valid.translate(None, b"\0\1")  # each 0 or 1
    ):
        return None
    tag_at, diag_at, about_at = (_places(col, count) for col in (tags, diags, about))
    if tag_at is None or diag_at is None or about_at is None:
        return None
    if not (
        _texts(names)
        and _only(descriptions, _STR)  # long texts: joining them would cost more
        and _string_tuples(commands, env, other)
        and _only(calls, _OPT_TUPLE)
        and _only(run, _OPT_TUPLE)
    ):
        return None
    for row in [row for row in calls if row is not None]:  # None: the defaults (most)
        if not (len(row) == 4 and _only(row[:2], _BOOL) and _only(row[2:], _OPT_STR)):
            return None
    for row in [*filter(None, run)]:  # None: the defaults (most)
        if not (
            len(row) == 5
            and type(row[0]) in _OPT_INT
            and _only(row[1:4], _BOOL)
            and (row[4] is None or (type(row[4]) is tuple and _texts(row[4])))
        ):
            return None
    try:
        return (
            sigs,
            names,
            descriptions,
            [*map(tag_sets.__getitem__, tag_at)],
            commands,
            env,
            other,
            [*map(_BOOLS.__getitem__, valid)],
            [*map(findings.__getitem__, diag_at)],
            calls,
            [*map(abouts.__getitem__, about_at)],
            run,
        )
    except IndexError:
        return None


def split_sigs(sigs: bytes | bytearray) -> list[Sig]:
    """Packed signatures (a chunk's, ``replay``'s) one by one."""
    return [bytes(sigs[i : i + SIG_SIZE]) for i in range(0, len(sigs), SIG_SIZE)]


class Stored:
    """One root's index, open: its keys and listing, and its rows read chunk by chunk.

    ``take(key)`` answers keys asked in the order they were saved (a listing asks in
    its walk's order, which is the order it saved) from the current chunk, then drops
    the chunk for the next: the index's bytes and rows are never all in memory. A key
    asked out of order reads the rest into a map. A chunk that fails validation ends
    the rows there (the files they describe are parsed again).
    """

    def __init__(self, fh: Any, header: _Header) -> None:
        self.keys, self._sizes, self.listing = header[2:5]
        self._header = header
        self._fh: Any = fh
        self._next_chunk = 0
        self._start = 0  # the index in ``keys`` of ``_rows[0]``
        self._rows: list[StoredRow] = []
        self._pos = 0
        self._rest: dict[str, StoredRow] | None = None
        self._buffer: bytearray | None = None  # every chunk is read into it

    def _next_columns(self) -> Columns | None:
        """The next chunk's columns (``None``: no more, or damaged: the rows end there).

        Chunks are read into one buffer, made once for the largest: a new bytes object
        for each is new memory for each (most of a chunk's size), which the process
        pays for in page faults when it first writes it."""
        if self._fh is None or self._next_chunk >= len(self._sizes):
            self.close()
            return None
        size = self._sizes[self._next_chunk]
        if self._buffer is None:  # (no larger than the file: the sizes may be damaged)
            try:
                most = min(max(self._sizes), os.fstat(self._fh.fileno()).st_size)
            except (OSError, ValueError):
                most = 0
            self._buffer = bytearray(max(most, 0))
        if not 0 < size <= len(self._buffer):
            self.close()
            return None
        with memoryview(self._buffer)[:size] as data:
            try:
                got = self._fh.readinto(data)
                cols = _columns_of(data, self._header) if got == size else None
            except (OSError, ValueError):
                cols = None
        if cols is None or self._start + len(cols[1]) > len(self.keys):  # [1]: a name a row
            self.close()
            return None
        self._next_chunk += 1
        return cols

    def _read_chunk(self) -> bool:
        self._start += len(self._rows)
        self._rows, self._pos = [], 0
        cols = self._next_columns()
        if cols is None:
            return False
        # every column's length was checked
        self._rows = list(zip(split_sigs(cols[0]), *cols[1:], strict=True))
        return True

    def columns(self) -> tuple[int, Columns] | None:
        """The next chunk whole, as columns, and the place in ``keys`` of its first row,
        for a reader that takes every row in the saved order (``take`` goes on after
        it); ``None`` at the end, at a damaged chunk, or when rows were taken by key
        from the current chunk or out of order."""
        if self._rest is not None or self._pos < len(self._rows):
            return None
        self._start += len(self._rows)
        self._rows, self._pos = [], 0
        cols = self._next_columns()
        if cols is None:
            return None
        start = self._start
        self._start += len(cols[1])
        return start, cols

    def take(self, key: str) -> StoredRow | None:
        """The row of ``key``: its signature, then its record's fields (``None``: not
        stored or not readable)."""
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

    def _remaining(self) -> dict[str, StoredRow]:
        out: dict[str, StoredRow] = {}
        while True:
            base = self._start
            for i in range(self._pos, len(self._rows)):
                out[self.keys[base + i]] = self._rows[i]
            self._pos = len(self._rows)
            if not self._read_chunk():
                return out

    def rows(self) -> dict[str, StoredRow]:
        """Every readable row not taken yet, by key (reads the rest of the index)."""
        if self._rest is None:
            self._rest = self._remaining()
        return self._rest

    def close(self) -> None:
        self._buffer = None
        fh, self._fh = self._fh, None
        if fh is not None:
            fh.close()


_STAMP: str | None = None


def parser_stamp() -> str:
    """Identifies the code that produced cached records (changes when it changes)."""
    global _STAMP
    if _STAMP is None:
        # format/ is not imported: a warm listing never parses
        text = code_stamp_text(__version__, str(CACHE_FORMAT), packages=("format", "catalog"))
        _STAMP = _hash(text.encode("utf-8", "surrogateescape"))
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
            fh = open_cache(target)  # closed by Stored
        except (OSError, ValueError):
            return None
        try:
            (size,) = _LENGTH.unpack(fh.read(_LENGTH.size))
            header = _header_of(fh.read(size))
        except (OSError, ValueError, struct.error):
            header = None
        if header is None:
            fh.close()
            return None
        stamp, root, keys, sizes = header[:4]
        if stamp != parser_stamp() or root != root_key or len(sizes) != -(-len(keys) // CHUNK):
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
            return {k: (row[0], row[1:]) for k, row in stored.rows().items()}, stored.listing
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
    keys: list[str] = []
    chunks: list[bytes] = []
    tables: _Tables = ({}, {}, {})
    for i in range(0, len(rows), CHUNK):
        part = rows[i : i + CHUNK]
        chunk = _chunk(part, tables)
        if chunk is None:
            listing = None
            part = [row for row in part if _chunk([row], None) is not None]
            chunk = _chunk(part, tables) if part else None
            if chunk is None:
                continue
        chunks.append(chunk)
        keys.extend(key for key, _sig, _rec in part)
    if listing is not None:
        listing = (tuple(listing[0]), list(listing[1]))  # type: ignore[assignment]
        if not _utf8(listing[1]):
            listing = None
    if not _utf8([root_key]):
        return None
    # one string per tag, version and author in the whole index (marshal writes an
    # object met again as a reference to the first): shared by every skill read
    tag_sets = [tuple(map(sys.intern, tags)) for tags in tables[0]]
    abouts = [None if a is None else tuple(t and sys.intern(t) for t in a) for a in tables[2]]
    sizes = [len(c) for c in chunks]
    header = (parser_stamp(), root_key, keys, sizes, listing, tag_sets, [*tables[1]], abouts)
    head = marshal.dumps(header, _MARSHAL)
    return [_LENGTH.pack(len(head)), head, *chunks]


def _chunk(part: list[Row], tables: _Tables | None) -> bytes | None:
    """Rows as one chunk of columns, the tags, findings and versions and authors as
    their places in ``tables`` (added there), packed, and the signatures and valid
    flags packed (``_columns_of``); ``None``: some text cannot be UTF-8 or some value
    cannot be stored (``tables`` ``None``: only check)."""
    records = (rec for _key, _sig, rec in part)
    try:
        cols: list[Any] = [tuple(sig for _key, sig, _rec in part), *zip(*records, strict=True)]
    except ValueError:
        return None
    if len(cols) != 12:
        return None
    texts = chain(
        [key for key, _sig, _rec in part],
        cols[1],
        cols[2],
        chain.from_iterable(chain(*cols[3:7])),
        (t for row in filter(None, chain(cols[9], cols[10])) for t in row if t.__class__ is str),
        (t for row in filter(None, cols[11]) for t in row[4] or ()),
    )
    if not _utf8(texts):
        return None
    if not (_only(cols[0], _BYTES) and {*map(len, cols[0])} == {SIG_SIZE}):
        return None  # (a racy file's or an out-of-range signature is never stored)
    if not _only(cols[7], _BOOL):
        return None
    if tables is None:
        return b""
    for col, table in zip((3, 8, 10), tables, strict=True):
        try:
            places = [table.setdefault(value, len(table)) for value in cols[col]]
        except TypeError:  # not hashable: not a record's value
            return None
        cols[col] = struct.pack(f"<{len(places)}I", *places)
    cols[0] = b"".join(cols[0])
    cols[7] = bytes(cols[7])
    try:
        return marshal.dumps(tuple(cols), _MARSHAL)
    except ValueError:
        return None


def _utf8(texts: Any) -> bool:
    """Is every one of ``texts`` a string that can be UTF-8 (only the ones that are
    not ASCII, told in constant time, are encoded to see)?"""
    try:
        "".join(filterfalse(str.isascii, texts)).encode("utf-8")
    except (UnicodeEncodeError, TypeError):
        return False
    return True
