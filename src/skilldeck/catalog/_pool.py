"""Parse many SKILL.md files in worker processes (cold scans of large roots).

Parsing is CPU-bound Python (YAML fast path, manifest checks), so threads do
not help; on a cold scan of thousands of files, forked workers do. Used only
when it is safe and worth it: at least ``POOL_THRESHOLD`` files to parse, the
``fork`` start method available (workers start without re-importing anything),
more than one usable core, and no other thread running in this process (a fork
copies only the calling thread; locks held by others would stay locked in the
child). Any failure to start or run the workers falls back to parsing here.

Workers return the cache's plain-data records (tuples of strings, numbers and
lists), which the store turns into metadata exactly as when read from the cache,
each with the frontmatter as JSON text when the store keeps it (else ``None``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any

import msgspec

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck.catalog._cache import AboutRow, InvocationRow, Record, pack_diagnostics
from skilldeck.catalog._model import frontmatter_as_json

__all__ = [
    "POOL_THRESHOLD",
    "Parsed",
    "parse_record",
    "parse_records",
    "pool_workers",
    "skill_md_lowercase",
]

POOL_THRESHOLD = 2000
"""Fewer files than this are parsed in-process (starting workers costs ~30 ms)."""

MAX_WORKERS = 4

#: a parsed SKILL.md: the cache's record and, when asked for, the frontmatter as JSON
#: text (``SkillMetadata.frontmatter_json``; ``None`` for an invalid skill)
Parsed = tuple[Record, str | None]


def parse_record(
    real_md: str, folder: str, mode: str, own: str | None = None, *, frontmatter: bool = False
) -> Parsed:
    """One SKILL.md as the cache's record: name, description, tags, requirements
    (commands, env, other), valid, diagnostics, invocation controls, version and author;
    with ``frontmatter``, also its frontmatter as JSON (``_model.frontmatter_as_json``).
    ``own``: the SKILL.md path the metadata will name (``_model.own_md``), which
    the packed diagnostics mark (``_cache.pack_diagnostics``)."""
    from skilldeck.format import read_skill_md  # a warm listing never parses

    parsed = read_skill_md(
        real_md,
        metadata_only=True,
        mode="strict" if mode == "strict" else "lenient",
        folder_name=os.path.basename(folder),
    )
    m = parsed.manifest
    diags = parsed.diagnostics
    if os.path.basename(real_md) == "skill.md":
        diags = (skill_md_lowercase(real_md, folder), *diags)
    rows: Any = diags
    with contextlib.suppress(ValueError, msgspec.EncodeError):  # else the tuple: pickled
        rows = pack_diagnostics(diags, own)
    if m is None:
        return (os.path.basename(folder), "", (), (), (), (), False, rows, None, None), None
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
    )
    return record, kept


def about_row(m: Any) -> AboutRow | None:
    """``(version, author)`` of a manifest, or ``None`` when it has neither."""
    if m.version is None and m.author is None:
        return None
    return (m.version, m.author)


def invocation_row(m: Any) -> InvocationRow | None:
    """``(model_invocable, user_invocable, when_to_use, argument_hint)``, or ``None``
    for the defaults."""
    from skilldeck.format import Invocation

    inv = m.invocation
    if inv == Invocation():
        return None
    return (
        not inv.disable_model_invocation,
        inv.user_invocable,
        inv.when_to_use,
        inv.argument_hint,
    )


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


def _parse_chunk(args: tuple[list[Item], str, bool]) -> bytes | list[Parsed]:
    """A chunk's records as MessagePack (decoded in C by the parent, several times
    faster than unpickling dataclasses), or as objects when a path cannot be encoded."""
    items, mode, frontmatter = args
    records = [
        parse_record(real_md, folder, mode, own, frontmatter=frontmatter)
        for real_md, folder, own in items
    ]
    try:
        return msgspec.msgpack.encode(records)
    except (msgspec.EncodeError, UnicodeEncodeError, ValueError, TypeError):
        return records


def pool_workers(count: int) -> int:
    """How many worker processes to use for ``count`` files (0: parse in-process)."""
    if count < POOL_THRESHOLD or threading.active_count() != 1 or sys.platform == "darwin":
        return 0  # macOS system libraries are not safe to use after fork()
    try:
        import multiprocessing

        if "fork" not in multiprocessing.get_all_start_methods():
            return 0
        if multiprocessing.current_process().daemon:
            return 0  # daemonic processes may not have children
    except (ImportError, OSError, ValueError):
        return 0
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    limit = MAX_WORKERS
    chosen = os.environ.get("SKILLDECK_WORKERS", "").strip()
    if chosen.isdigit():  # the host's say: 0 turns worker processes off
        limit = min(int(chosen), MAX_WORKERS)
    workers = min(cores, limit)
    return workers if workers > 1 else 0


def parse_records(
    items: list[Item], mode: str, workers: int, *, frontmatter: bool = False
) -> list[Parsed] | None:
    """``parse_record`` of ``(real SKILL.md, folder, own SKILL.md)`` items, in order,
    parsed by ``workers`` forked processes; ``None`` when the workers could not do it."""
    import multiprocessing

    per = -(-len(items) // (workers * 2))  # two chunks per worker balance the load
    chunks = [(items[i : i + per], mode, frontmatter) for i in range(0, len(items), per)]
    for stream in (sys.stdout, sys.stderr):
        # a worker flushes its copy of these buffers when it ends: empty them first,
        # or text the host wrote but had not flushed would be written twice
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    # the parser is imported here, once, for every worker forked below (each would
    # otherwise import it for itself)
    from skilldeck.format import read_skill_md  # noqa: F401

    try:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers) as pool:
            parts = pool.map(_parse_chunk, chunks)
    except Exception:  # any failure of the workers: parse in-process
        return None
    decoder = msgspec.msgpack.Decoder(list[Parsed])
    out: list[Parsed] = []
    for part in parts:
        out.extend(decoder.decode(part) if isinstance(part, bytes) else part)
    return out if len(out) == len(items) else None
