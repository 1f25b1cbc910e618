"""Parse many SKILL.md files in several processes (cold scans of large roots).

Parsing is CPU-bound Python (YAML fast path, manifest checks), so threads do
not help; on a cold scan of thousands of files, forked processes do. Used only
when it is safe and worth it: at least ``POOL_THRESHOLD`` files to parse,
``fork()`` available (children start without re-importing anything, and their
share of the files is already in their memory), more than one usable core, and
no other thread running in this process (a fork copies only the calling thread;
locks held by others would stay locked in the child). The files are cut into one
share per process: this process parses the first and ``workers - 1`` forked
children the others, each writing its records to a pipe and leaving with
``os._exit`` (no clean-up of the parent's state, no stdio buffers flushed twice).
Any failure of a child falls back to parsing everything here.

Children return the cache's plain-data records (tuples of strings, numbers and
lists), which the store turns into metadata exactly as when read from the cache,
each with the frontmatter as JSON text when the store keeps it (else ``None``), and,
when asked, the digest of the bytes read when they were the whole file (a snapshot
then need not read that SKILL.md again).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._frozen import made
from skilldeck.catalog._cache import (
    AboutRow,
    InvocationRow,
    Record,
    RunRow,
    Sig,
    pack_diagnostics,
    sig_of,
)
from skilldeck.catalog._model import frontmatter_as_json

# typing and msgspec (which imports typing) only where they are needed: a cold run
# parses its one SKILL.md here, and importing them cost it about 70 ms
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

__all__ = [
    "POOL_THRESHOLD",
    "Parsed",
    "Read",
    "parse_record",
    "parse_records",
    "pool_workers",
    "run_row",
    "skill_md_lowercase",
]

POOL_THRESHOLD = 2000
"""Fewer files than this are parsed in-process (starting workers costs ~30 ms)."""

MAX_WORKERS = 4

#: a SKILL.md read whole: the signature (``_cache.sig_of``) of the file the bytes came
#: from, their digest (``sha256:...``), size, and whether they are text (``is_text``)
Read = tuple[Sig, str, int, bool]

#: a parsed SKILL.md: the cache's record; when asked for, the frontmatter as JSON text
#: (``SkillMetadata.frontmatter_json``; ``None`` for an invalid skill) and the ``Read``
#: of its bytes (``None``: not asked, or not the whole file)
Parsed = tuple[Record, str | None, Read | None]


def parse_record(
    real_md: str,
    folder: str,
    mode: str,
    own: str | None = None,
    *,
    frontmatter: bool = False,
    digest: bool = False,
) -> Parsed:
    """One SKILL.md as the cache's record: name, description, tags, requirements
    (commands, env, other), valid, diagnostics, invocation controls, version and author,
    run settings;
    with ``frontmatter``, also its frontmatter as JSON (``_model.frontmatter_as_json``),
    with ``digest`` the ``Read`` of the bytes parsed when they are the whole file.
    ``own``: the SKILL.md path the metadata will name (``_model.own_md``), which
    the packed diagnostics mark (``_cache.pack_diagnostics``)."""
    strictness: Literal["strict", "lenient"] = "strict" if mode == "strict" else "lenient"
    folder_name = os.path.basename(folder)
    format_ = _format()
    bound = format_.read_limit(metadata_only=True)
    try:
        got, st = format_.read_file(real_md, bound)
    except (OSError, ValueError):  # read_skill_md says why
        got = None
    read: Read | None = None
    if got is None:
        parsed = format_.read_skill_md(
            real_md, metadata_only=True, mode=strictness, folder_name=folder_name
        )
    else:  # read_skill_md's read and parse, keeping the bytes
        parsed = format_.parse_read(
            got,
            size=st.st_size,
            path=real_md,
            metadata_only=True,
            mode=strictness,
            folder_name=folder_name,
        )
        if digest and len(got) == st.st_size:
            bytes_digest, is_text = _hashing()
            read = (sig_of(st), bytes_digest(got), len(got), is_text(got))
    m = parsed.manifest
    diags = parsed.diagnostics
    if real_md.endswith("skill.md") and os.path.basename(real_md) == "skill.md":
        diags = (skill_md_lowercase(real_md, folder), *diags)
    rows: Any = diags
    with contextlib.suppress(ValueError):  # else the tuple: pickled (msgspec's error too)
        rows = pack_diagnostics(diags, own)
    if m is None:
        return (folder_name, "", (), (), (), (), False, rows, None, None, None), None, read
    req = m.requires
    # kept as the metadata's manifest would give it: only for a valid skill
    kept = frontmatter_as_json(m.frontmatter) if frontmatter and parsed.ok else None
    record: Record = (
        m.name,
        m.description,
        tuple(m.tags),
        tuple(req.commands),
        tuple(req.env),
        tuple(sorted(str(k) for k in req.other)) if req.other else (),
        parsed.ok,
        rows,
        invocation_row(m),
        about_row(m),
        run_row(m),
    )
    return record, kept, read


class _Format:
    """What a parse uses from the format and foundation packages, imported once (a warm
    listing never parses; an import statement run per parsed file costs about 1 us)."""

    def __init__(self) -> None:
        from skilldeck._tree import read_file
        from skilldeck.format import parse_read, read_limit, read_skill_md

        self.read_skill_md = read_skill_md
        self.parse_read = parse_read
        self.read_limit = read_limit
        self.read_file = read_file


@functools.cache
def _format() -> _Format:
    return _Format()


@functools.cache
def _hashing() -> tuple[Any, Any]:
    """``bytes_digest`` and ``is_text``: the digest of a snapshot's file (``FileDigest``),
    imported by a scan that keeps digests only."""
    from skilldeck._digest import bytes_digest
    from skilldeck._tree import is_text

    return bytes_digest, is_text


def about_row(m: Any) -> AboutRow | None:
    """``(version, author)`` of a manifest, or ``None`` when it has neither."""
    if m.version is None and m.author is None:
        return None
    return (m.version, m.author)


def run_row(m: Any) -> RunRow | None:
    """What a run reads of a manifest (``execution.ManifestLike``): ``(timeout,
    network, read_only, always_ask, modes)``, or ``None`` for the defaults (most)."""
    if m.timeout is None and not (m.network or m.read_only or m.always_ask) and m.modes is None:
        return None
    modes = None if m.modes is None else tuple(m.modes)
    return (m.timeout, bool(m.network), bool(m.read_only), bool(m.always_ask), modes)


def invocation_row(m: Any) -> InvocationRow | None:
    """``(model_invocable, user_invocable, when_to_use, argument_hint)``, or ``None``
    for the defaults."""
    inv = m.invocation
    default = _no_controls()
    if inv is default or inv == default:
        return None
    return (
        not inv.disable_model_invocation,
        inv.user_invocable,
        inv.when_to_use,
        inv.argument_hint,
    )


@functools.cache
def _no_controls() -> Any:
    """The invocation controls of a skill that sets none (the object ``read_invocation``
    returns for it: most skills are told by identity, without comparing fields)."""
    from skilldeck.format import NO_CONTROLS

    return NO_CONTROLS


def skill_md_lowercase(real_md: str, folder: str) -> Diagnostic:
    return Diagnostic.make(
        "SK215",
        "the skill file is named 'skill.md'; the specification requires 'SKILL.md'",
        path=real_md,
        hint=f"rename it to {os.path.join(folder, 'SKILL.md')}",
        severity=Severity.WARNING,
    )


#: a file to parse: its real path, its folder and its own SKILL.md path (``parse_record``)
Item = tuple[str, str, str | None]


_PACKED, _PICKLED = b"m", b"p"


def _parse_share(items: list[Item], mode: str, frontmatter: bool, digest: bool) -> list[Parsed]:
    return [
        parse_record(real_md, folder, mode, own, frontmatter=frontmatter, digest=digest)
        for real_md, folder, own in items
    ]


def _encode_share(records: list[Parsed]) -> tuple[bytes, bytes]:
    """A share's records as MessagePack (decoded in C by the parent, several times
    faster than unpickling), or pickled when a path cannot be encoded: a tag and
    the data."""
    import msgspec

    try:
        return _PACKED, msgspec.msgpack.encode(records)
    except (msgspec.EncodeError, UnicodeEncodeError, ValueError, TypeError):
        import pickle

        return _PICKLED, pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL)


def _decode_share(data: bytes) -> list[Parsed]:
    if data[:1] == _PACKED:
        import msgspec

        return msgspec.msgpack.Decoder(list[Parsed]).decode(memoryview(data)[1:])
    if data[:1] == _PICKLED:
        import pickle

        records: list[Parsed] = pickle.loads(memoryview(data)[1:])  # noqa: S301 (our child)
        return records
    raise ValueError("a worker wrote no records")


def pool_workers(count: int) -> int:
    """How many processes to parse ``count`` files with (0: this one alone)."""
    if count < POOL_THRESHOLD or threading.active_count() != 1 or sys.platform == "darwin":
        return 0  # macOS system libraries are not safe to use after fork()
    if not hasattr(os, "fork"):
        return 0
    mp = sys.modules.get("multiprocessing")
    if mp is not None and mp.current_process().daemon:
        return 0  # a daemonic worker of the host's own pool: it may be ended at any time
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    limit = MAX_WORKERS
    chosen = os.environ.get("SKILLDECK_WORKERS", "").strip()
    if chosen.isdigit():  # the host's say: 0 turns worker processes off
        limit = min(int(chosen), MAX_WORKERS)
    workers = min(cores, limit)
    return workers if workers > 1 else 0


def _fork(items: list[Item], mode: str, frontmatter: bool, digest: bool) -> tuple[int, int]:
    """A child parsing ``items``: its pid and the pipe its records come through."""
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except BaseException:
        os.close(read_end)
        os.close(write_end)
        raise
    if pid == 0:  # the child: never returns into the caller's code
        status = 1
        try:
            os.close(read_end)
            tag, data = _encode_share(_parse_share(items, mode, frontmatter, digest))
            with open(write_end, "wb") as out:
                out.write(tag)
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def parse_records(
    items: list[Item], mode: str, workers: int, *, frontmatter: bool = False, digest: bool = False
) -> list[Parsed] | None:
    """``parse_record`` of ``(real SKILL.md, folder, own SKILL.md)`` items, in order,
    parsed by ``workers`` processes (this one and forked children); ``None`` when a
    child could not do its share."""
    # the parser and libyaml (for the frontmatters the fast path declines: a few in
    # a hundred) are imported here, once, for every child forked below (each would
    # otherwise import them for itself), and msgspec, which encodes the children's
    # records and decodes them here
    import msgspec  # noqa: F401

    from skilldeck.format import prepare_yaml

    _format()
    if digest:
        _hashing()
    prepare_yaml()
    # the invocation controls' dataclass, made here once rather than in each child at
    # its first skill that sets one (``invocation_row`` compares them)
    made(type(_no_controls()))

    per = -(-len(items) // max(1, workers))
    shares = [items[i : i + per] for i in range(0, len(items), per)]
    pending: dict[int, int] = {}  # child pid -> its pipe (-1: read and closed)
    out: list[Parsed] | None = None
    try:
        for share in shares[1:]:
            pid, fd = _fork(share, mode, frontmatter, digest)
            pending[pid] = fd
        out = _parse_share(shares[0], mode, frontmatter, digest) if shares else []
        for pid in list(pending):
            with open(pending[pid], "rb") as pipe:
                pending[pid] = -1
                data = pipe.read()
            _, status = os.waitpid(pid, 0)
            del pending[pid]
            if status != 0:
                out = None
                break
            out.extend(_decode_share(data))
    except Exception:  # any failure of the children: parse in-process
        out = None
    finally:
        _reap(pending)
    return out if out is not None and len(out) == len(items) else None


def _reap(pending: dict[int, int]) -> None:
    """End and wait for the children that did not finish (after a failure)."""
    if not pending:
        return
    import signal

    for pid, fd in pending.items():
        if fd >= 0:
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
