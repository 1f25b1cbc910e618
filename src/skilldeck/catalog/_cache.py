"""The persisted metadata cache: one index file per root in the user cache folder.

Each index holds one row per SKILL.md: its key (the path as found, plus the
real path for links), its stat signature and the parsed record. A row is
served only while the file's signature is unchanged: ``mtime_ns``, size, inode,
``ctime_ns`` and device, packed into 40 bytes (``sig_of``: one bytes object per
file instead of a tuple of five integers, in memory and in the file). The
ctime cannot be set back by ``os.utime``, so a file rewritten with the same size
and a restored mtime still misses the cache.

The index is MessagePack decoded by msgspec against a fixed schema (straight
into tuples, in C), so a damaged
or foreign file (a truncated write, an edited row with a wrong type) fails
validation as a whole and the root is parsed again: a broken cache is never
trusted and never crashes a listing. A row's diagnostics stay packed (one bytes
object, ``pack_diagnostics``) until something reads them (``_model._Packed``):
a listing expands none. Packed diagnostics that do not unpack (bytes edited
into another valid index) read as none, like any other edited value that still
fits the schema. The file also records a stamp of the
parser (skilldeck's version and the format modules' sizes and times), so a new
parser never serves old results.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
from pathlib import Path
from typing import Any

import msgspec

from skilldeck._atomic import keep_newest
from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._version import __version__

__all__ = [
    "CACHE_FORMAT", "MAX_FILES", "NEVER", "AboutRow", "InvocationRow", "Listing", "MetadataCache",
    "Record", "RootSig", "Row", "Sig", "ctime_of", "pack_diagnostics", "pack_sig", "sig_of",
    "unpack_diagnostics",
]  # fmt: skip

CACHE_FORMAT = 6
"""Bumped whenever the index's layout changes (5: packed signatures; 6: packed
diagnostics)."""

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


def pack_diagnostics(diags: tuple[Diagnostic, ...] | bytes) -> bytes:
    """Diagnostics as one bytes object (``b""``: none; packed ones as they are).

    Raises ``ValueError`` (``UnicodeEncodeError``) or ``msgspec.EncodeError`` for
    text that cannot be UTF-8 (a path with undecodable bytes): such a row is not cached.
    """
    if isinstance(diags, bytes):
        return diags
    if not diags:
        return b""
    return _ENCODER.encode(
        [(d.code, d.severity, d.message, d.path, d.line, d.column, d.hint) for d in diags]
    )


def unpack_diagnostics(packed: bytes) -> tuple[Diagnostic, ...]:
    """The diagnostics ``pack_diagnostics`` packed (none when the bytes were damaged)."""
    if not packed:
        return ()
    try:
        rows = _DIAG_DECODER.decode(packed)
    except (msgspec.DecodeError, ValueError, TypeError, RecursionError):
        return ()
    return tuple(Diagnostic(*row) for row in rows)


#: the stat signature of a SKILL.md: mtime_ns, size, inode, ctime_ns, device, packed
#: (``sig_of``); compared for equality only, and ``ctime_of`` reads its ctime back
Sig = bytes

_SIG = struct.Struct("<qqQqQ")
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


class _Index(msgspec.Struct, array_like=True, forbid_unknown_fields=True):
    stamp: str
    root: str
    rows: dict[str, tuple[Sig, Record]]  # decoded into a dict in C: no per-row Python work
    listing: Listing | None = None


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(_Index)
_DIAG_DECODER = msgspec.msgpack.Decoder(list[_DiagRow])

_STAMP: str | None = None


def parser_stamp() -> str:
    """Identifies the code that produced cached records (changes when it changes)."""
    global _STAMP
    if _STAMP is None:
        catalog_pkg = Path(__file__).parent
        format_pkg = catalog_pkg.parent / "_format"  # not imported: a warm listing never parses

        parts = [__version__, str(CACHE_FORMAT)]
        for folder in (format_pkg, catalog_pkg):
            with contextlib.suppress(OSError):
                for entry in sorted(os.scandir(folder), key=lambda e: e.name):
                    if entry.name.endswith(".py"):
                        st = entry.stat()
                        parts.append(f"{entry.name}:{st.st_size}:{st.st_mtime_ns}")
        _STAMP = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return _STAMP


class MetadataCache:
    """Reads and writes the index of one root under ``directory``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _file(self, root_key: str) -> Path:
        # one file per root and parser: two skilldeck versions sharing a cache folder
        # (a venv and a global install) keep their own index instead of replacing
        # each other's on every run; the pruning below bounds the count
        digest = hashlib.sha256(root_key.encode("utf-8", "surrogateescape")).hexdigest()
        return self.directory / f"{digest[:32]}-{parser_stamp()}.idx"

    def load(self, root_key: str) -> tuple[dict[str, tuple[Sig, Record]], Listing | None]:
        """The cached rows of a root by key and its listing (empty when absent,
        stale, foreign or damaged)."""
        target = self._file(root_key)
        try:
            with open(target, "rb") as fh:
                raw = fh.read()
            index = _DECODER.decode(raw)
        except (OSError, msgspec.DecodeError, ValueError, TypeError, RecursionError):
            return {}, None
        if index.stamp != parser_stamp() or index.root != root_key:
            return {}, None
        with contextlib.suppress(OSError):
            os.utime(target)  # recently used: kept by the pruning in save()
        return index.rows, index.listing

    def save(self, root_key: str, rows: list[Row], listing: Listing | None = None) -> None:
        """Replace a root's index (atomically; failures are ignored).

        Written to a temp file and renamed, without fsync: after a crash the
        index is either the old file, the new one, or unreadable, which only
        costs a re-parse.
        """
        import tempfile  # only writers need it

        target = self._file(root_key)
        try:
            by_key = {key: (sig, rec) for key, sig, rec in rows}
            blob = _encode(_Index(parser_stamp(), root_key, by_key, listing))
            if blob is None:
                return
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".cache.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(blob)
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            return  # a cache that cannot be written only costs speed
        self._prune()

    def _prune(self) -> None:
        """Keep the ``MAX_FILES`` most recently used root files (roots come and go)."""
        keep_newest(self.directory, ".idx", MAX_FILES)


def _encode(index: _Index) -> bytes | None:
    """MessagePack of the index; rows whose text cannot be UTF-8 encoded (file
    names with undecodable bytes) are left out: they are parsed on every scan
    (and the listing, which the rows no longer cover, too)."""
    try:
        return _ENCODER.encode(index)
    except (msgspec.EncodeError, UnicodeEncodeError, ValueError, TypeError):
        pass
    kept: dict[str, Any] = {}
    for key, row in index.rows.items():
        try:
            _ENCODER.encode((key, row))
        except (msgspec.EncodeError, UnicodeEncodeError, ValueError, TypeError):
            continue
        kept[key] = row
    try:
        return _ENCODER.encode(_Index(index.stamp, index.root, kept, None))
    except (msgspec.EncodeError, UnicodeEncodeError, ValueError, TypeError):
        return None
