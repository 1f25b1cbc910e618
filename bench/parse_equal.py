"""Does this skilldeck parse every real SKILL.md exactly as another installation does?

Usage::

    python bench/parse_equal.py --against PYTHON|DUMP [--keep DIR] [--corpus DIR] [--no-mutations]

A differential check for changes that must not change behaviour (a faster
parser, a cheaper manifest builder): each interpreter, in a fresh process, parses
every SKILL.md of the corpus (its links restored, ``_trees.corpus_copy``) and
writes one canonical text per case; the driver compares them case by case and
prints the first differences with both sides. Cases:

- ``full``: ``read_skill_md`` of the file, lenient and strict (the manifest with
  every field, its frontmatter and key positions, the body's digest, every
  diagnostic);
- ``meta``: the same with ``metadata_only=True`` (what a listing reads);
- ``record``: the catalog's record of the file (``_pool.parse_record``, what
  the parse workers return and the cache keeps);
- ``bytes``: ``parse_skill_md`` of the file's bytes rewritten with CRLF line
  ends, with a BOM, with blank lines before the frontmatter, cut after its
  first kilobyte, and with its frontmatter indented by tabs;
- ``yaml``: ``load_yaml`` of each frontmatter and of variants of it (each line
  dropped, indented one and two more spaces, repeated, its key in capitals,
  with ``' #'``, ``':'`` or trailing spaces appended), lenient and strict:
  the documents where a fast path and libyaml part ways.

``--keep DIR`` keeps both runs' texts (``this.jsonl``, ``against.jsonl``); a
kept ``.jsonl`` given as ``--against`` is compared without running its
interpreter again. Exit status 1 when any case differs. Values are compared with their types
(``1`` is not ``"1"``), mappings in their order.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import inspect
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import _trees

BENCH = Path(__file__).resolve()


def canon(value: Any) -> Any:
    """A JSON-able form of a parse result that keeps types and order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            type(value).__name__,
            [[f.name, canon(getattr(value, f.name))] for f in dataclasses.fields(value)],
        ]
    if _plain_slotted(value):  # a value class without dataclass (YamlResult): as one
        names = list(inspect.signature(type(value)).parameters)
        return [type(value).__name__, [[n, canon(getattr(value, n))] for n in names]]
    if isinstance(value, dict):
        return ["dict", [[canon(k), canon(v)] for k, v in value.items()]]
    if isinstance(value, list | tuple):
        return [type(value).__name__, [canon(v) for v in value]]
    if isinstance(value, bytes):
        return ["bytes", value.hex()]
    if value is None or isinstance(value, bool | int | float | str):
        return [type(value).__name__, value]
    return [type(value).__name__, repr(value)]


def _plain_slotted(value: Any) -> bool:
    """A skilldeck value class with ``__slots__`` and an ``__init__`` taking each of
    them (compared field by field, as the dataclass it may have been elsewhere)."""
    cls = type(value)
    slots = cls.__dict__.get("__slots__")
    return (
        slots is not None
        and cls.__module__.startswith("skilldeck.")
        and set(inspect.signature(cls).parameters) == set(slots)
    )


def _variants(fm: str) -> Iterator[tuple[str, str]]:
    lines = fm.split("\n")
    yield "as-is", fm
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        rest = lines[:i], lines[i + 1 :]
        yield f"drop{i}", "\n".join([*rest[0], *rest[1]])
        yield f"indent1-{i}", "\n".join([*rest[0], " " + line, *rest[1]])
        yield f"indent2-{i}", "\n".join([*rest[0], "  " + line, *rest[1]])
        yield f"repeat{i}", "\n".join([*rest[0], line, line, *rest[1]])
        key, colon, value = line.partition(":")
        if colon:
            yield f"upper{i}", "\n".join([*rest[0], key.upper() + colon + value, *rest[1]])
        for tag, tail in (("hash", " #x"), ("colon", ":"), ("space", "  ")):
            yield f"{tag}{i}", "\n".join([*rest[0], line + tail, *rest[1]])


def _byte_variants(data: bytes) -> Iterator[tuple[str, bytes]]:
    yield "crlf", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    yield "bom", b"\xef\xbb\xbf" + data
    yield "blank", b"\n\n" + data
    yield "cut1k", data[:1024]
    head, sep, rest = data.partition(b"\n---")
    yield "tabs", head.replace(b"\n  ", b"\n\t") + sep + rest


def dump(corpus: Path, out: Path, mutations: bool) -> None:
    """Write one canonical line per case (run in each interpreter compared)."""
    from skilldeck.catalog._pool import parse_record
    from skilldeck.format import parse_skill_md, read_skill_md
    from skilldeck.format._frontmatter import decode, split_frontmatter
    from skilldeck.format._yaml import load_yaml

    def body_digest(result: Any) -> Any:
        c = canon(result)
        for item in c[1]:
            if item[0] == "body":
                item[1] = hashlib.sha256(json.dumps(item[1]).encode()).hexdigest()
        return c

    with out.open("w", encoding="utf-8") as fh:

        def emit(case: str, value: Any) -> None:
            fh.write(json.dumps([case, value], ensure_ascii=True) + "\n")

        for md in sorted(corpus.rglob("SKILL.md")):
            if not md.is_file():
                continue
            rel = md.relative_to(corpus).as_posix()
            folder = str(md.parent)
            for mode in ("lenient", "strict"):
                got = read_skill_md(md, mode=mode)  # type: ignore[arg-type]
                emit(f"full {mode} {rel}", body_digest(got))
                got = read_skill_md(md, mode=mode, metadata_only=True)  # type: ignore[arg-type]
                emit(f"meta {mode} {rel}", body_digest(got))
                record: Any = parse_record(str(md), folder, mode, str(md))
                if len(record) == 2:  # (record, kept frontmatter): the record is compared
                    record = record[0]
                emit(f"record {mode} {rel}", canon(record))
            data = md.read_bytes()
            for tag, variant in _byte_variants(data):
                got = parse_skill_md(variant, path=str(md), folder_name=md.parent.name)
                emit(f"bytes {tag} {rel}", body_digest(got))
            text, _ = decode(data)
            fm = split_frontmatter(text).frontmatter
            if fm is None:
                continue
            for tag, variant in _variants(fm) if mutations else [("as-is", fm)]:
                for strict in (False, True):
                    res = load_yaml(variant, line0=2, path="p", strict=strict)
                    emit(f"yaml {tag} {'strict' if strict else 'lenient'} {rel}", canon(res))


def _run(python: str, corpus: Path, out: Path, mutations: bool) -> None:
    args = [python, str(BENCH), "--dump", str(out), "--corpus", str(corpus)]
    if not mutations:
        args.append("--no-mutations")
    subprocess.run(args, check=True, env={**os.environ, "PYTHONHASHSEED": "0"})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="the other installation's Python, or its kept run")
    parser.add_argument("--keep", type=Path, help="keep both runs' texts in this folder")
    parser.add_argument("--corpus", type=Path, help="default: a with-links copy of the corpus")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "sd-bench")
    parser.add_argument("--no-mutations", action="store_true", help="skip the YAML variants")
    parser.add_argument("--show", type=int, default=5, help="differences printed in full")
    parser.add_argument("--dump", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    mutations = not args.no_mutations
    corpus = args.corpus or _trees.corpus_copy(args.work)
    if args.dump:
        dump(corpus, args.dump, mutations)
        return 0
    if not args.against:
        parser.error("--against PYTHON is required")
    with tempfile.TemporaryDirectory(prefix="skilldeck-equal-") as tmp:
        keep = args.keep or Path(tmp)
        keep.mkdir(parents=True, exist_ok=True)
        ours, theirs = keep / "this.jsonl", keep / "against.jsonl"
        _run(sys.executable, corpus, ours, mutations)
        if args.against.endswith(".jsonl"):
            theirs = Path(args.against)
        else:
            _run(args.against, corpus, theirs, mutations)
        counts: dict[str, int] = {}
        differ: list[tuple[str, str, str]] = []
        with ours.open(encoding="utf-8") as a, theirs.open(encoding="utf-8") as b:
            for line_a, line_b in zip(a, b, strict=True):
                case_a, case_b = json.loads(line_a)[0], json.loads(line_b)[0]
                if case_a != case_b:
                    raise SystemExit(f"the two runs list other cases: {case_a} / {case_b}")
                kind = case_a.split(" ", 1)[0]
                counts[kind] = counts.get(kind, 0) + 1
                if line_a != line_b:
                    differ.append((case_a, line_a, line_b))
    total = sum(counts.values())
    print(
        f"{total} cases ({', '.join(f'{k} {n}' for k, n in counts.items())}) from "
        f"{corpus}: {len(differ)} differ"
    )
    for case, line_a, line_b in differ[: args.show]:
        print(f"\n{case}\n  this:    {line_a.strip()[:2000]}\n  against: {line_b.strip()[:2000]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
