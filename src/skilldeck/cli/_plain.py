"""The commonest command lines run without importing click.

``skilldeck list`` and ``skilldeck list --json``, word for word, have nothing for a
parser to do: no option is given, so the command runs with its options' defaults.
``run`` answers them with the same command body, the same group start-up (the
collector's, the project config's warnings) and the same error boundary as the
click command does; anything else (another word, ``--store`` or a store from the
environment or config, shell completion) returns ``False`` and click parses it.
Importing click and building the command tree is a tenth of such a listing's
instructions.

``echo`` is ``click.echo`` for text: it writes directly where click would write the
text unchanged (no escape sequence to strip, a UTF-8 stream) and hands everything
else to click. The command bodies that run here print through it.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Iterable
from typing import Any, TextIO

import skilldeck

__all__ = ["echo", "echo_json_rows", "run", "warn_untrusted_project"]

PLAIN = {("list",): "text", ("list", "--json"): "json"}
"""The command lines ``run`` answers, and the output format each asks for."""


def run(argv: list[str]) -> bool:
    """Run ``argv`` (the words after ``skilldeck``) if it is one of ``PLAIN``; ``False``:
    it is not (nothing was done: click parses it)."""
    fmt = PLAIN.get(tuple(argv))
    if fmt is None or "_SKILLDECK_COMPLETE" in os.environ:
        return False
    from skilldeck.cli._stored import STORE_ENV, TENANT_ENV, resolve_store

    if os.environ.get(STORE_ENV) or os.environ.get(TENANT_ENV):
        return False  # click reads them into --store and --tenant
    try:
        if resolve_store(None, None, ()) is not None:
            return False  # a store from the config file: the command line's store path
    except Exception:  # click's path reports it (a bad config file, a missing tenant)
        return False
    from skilldeck.cli import _start_up_done
    from skilldeck.cli._listing import list_skills

    _start_up_done()  # what the command group does before any command
    try:
        warn_untrusted_project()
        list_skills((), recursive=False, show_all=False, installed=False, fmt=fmt)
    except (skilldeck.SkillError, OSError, KeyboardInterrupt) as exc:
        from skilldeck.cli._app import fail

        fail(exc, json_mode=fmt == "json")
    return True


def _utf8(stream: TextIO | None) -> bool:
    encoding = getattr(stream, "encoding", None)
    try:
        return encoding is not None and codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def echo(text: str, *, nl: bool = True, err: bool = False) -> None:
    """``click.echo(text, nl=nl, err=err)``."""
    stream = sys.stderr if err else sys.stdout
    if "\x1b" in text or not _utf8(stream):
        import click  # it strips escape sequences off a pipe and mends a stream's encoding

        click.echo(text, nl=nl, err=err)
        return
    stream.write(text + "\n" if nl else text)
    stream.flush()


def warn_untrusted_project() -> None:
    """On stderr: which guarded settings of the project config file are ignored.

    Silent when there is no project config file; problems with the file are
    left to the command itself to report.
    """
    import skilldeck.config

    try:
        notices = skilldeck.config.project_notices()
    except (skilldeck.SkillError, OSError):
        return
    for note in notices:
        echo(f"warning: {note.message} [{note.code}]", err=True)
        if note.hint:
            echo(f"hint: {note.hint}", err=True)


_ROWS = "\x00rows\x00"  # stands for the streamed list in the encoded envelope
_CHUNK = 1000  # rows per write: a write per row costs more than encoding it
_ENCODE_ERRORS: tuple[type[Exception], ...] = (UnicodeEncodeError, TypeError, ValueError)
_FAST_AFTER = 1000
"""Rows json encodes before msgspec takes over: importing msgspec costs as much CPU as
json.dumps spends on about 1,300 rows more than msgspec's encoder does."""


def echo_json_rows(data: dict[str, Any], key: str, rows: Iterable[Any]) -> None:
    """``echo_json({**data, key: list(rows)})``, the same bytes, with the rows
    encoded and written as they come: 100,000 of them never exist at once. Rows hold
    no non-finite floats (msgspec, which encodes the rows after the first
    ``_FAST_AFTER``, writes NaN as null where json writes NaN)."""
    import json

    head = json.dumps(
        {"ok": True, "data": {**skilldeck.json_safe(data), key: _ROWS}},
        ensure_ascii=False,
        indent=2,
    )
    before, after = head.split(json.dumps(_ROWS), 1)
    line = before[before.rfind("\n") + 1 :]
    pad = "\n" + " " * (len(line) - len(line.lstrip(" ")) + 2)  # the key's indent + 2
    fast: tuple[Any, Any, tuple[type[Exception], ...]] | None = None
    out: list[str] = []
    first = True
    for n, row in enumerate(rows):
        safe = skilldeck.json_safe(row)
        text = None
        if n == _FAST_AFTER:
            import msgspec  # its encoder and formatter write json.dumps's text 9x faster

            fast = msgspec.json.encode, msgspec.json.format, (*_ENCODE_ERRORS, msgspec.EncodeError)
        if fast is not None:
            encode, layout, failed = fast
            try:
                text = layout(encode(safe), indent=2).decode()
            except failed:
                pass  # lone surrogates: json.dumps writes them
        if text is None:
            text = json.dumps(safe, ensure_ascii=False, indent=2)
        out.append(("[" if first else ",") + pad + text.replace("\n", pad))
        first = False
        if len(out) == _CHUNK:
            echo(before + "".join(out), nl=False)
            before = ""
            out.clear()
    close = "[]" if first else pad[:-2] + "]"
    echo(before + "".join(out) + close + after)
