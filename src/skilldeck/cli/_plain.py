"""The commonest command lines run without importing click.

``skilldeck list``, ``skilldeck list --json``, ``skilldeck show NAME`` and ``skilldeck
show NAME --json``, word for word, have nothing for a parser to do: no option is
given, so the command runs with its options' defaults. ``run`` answers them with the
same command body, the same group start-up (the collector's, the project config's
warnings) and the same error boundary as the click command does; anything else
(another word, ``--store`` or a store from the environment or config, shell
completion) returns ``False`` and click parses it. Importing click and building the
command tree is a tenth of such a listing's instructions. ``run NAME TARGET`` joins
them when its other words need no parser (``_running.plain_words``: ``--root``,
``--yes``, ``--json``, ``--recursive`` and script arguments only).

``echo`` is ``click.echo`` for text: it writes directly where click would write the
text unchanged (no escape sequence to strip, a UTF-8 stream) and hands everything
else to click. ``styler`` is ``click.style`` where the colour will be shown, and
leaves the text as it is where ``click.echo`` would strip the colour again. The
command bodies that run here print through them; ``echo_json`` is every command's
JSON output.
"""

from __future__ import annotations

import codecs
import os
import sys
from collections.abc import Callable, Iterable

import skilldeck

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn, TextIO

__all__ = [
    "EXIT_FINDINGS",
    "EXIT_OK",
    "EXIT_USAGE",
    "asks_json",
    "colour_for",
    "echo",
    "echo_json",
    "echo_json_rows",
    "fail",
    "looked_in",
    "run",
    "styler",
    "usage_error",
    "warn_untrusted_project",
]

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

PLAIN = {("list",): "text", ("list", "--json"): "json"}
"""The listings ``run`` answers, and the output format each asks for."""


def _plain_command(argv: list[str]) -> tuple[str, str, str] | None:
    """(command, output format, NAME) of a command line ``run`` answers, else ``None``.
    ``show NAME`` qualifies when NAME is no option and nothing click would expand on
    Windows (a wildcard, ``~``)."""
    fmt = PLAIN.get(tuple(argv))
    if fmt is not None:
        return "list", fmt, ""
    if argv[:1] == ["run"]:
        from skilldeck.cli._running import plain_words

        if plain_words(argv[1:]) is not None:
            return "run", "json" if asks_json(argv) else "text", ""
        return None
    if len(argv) in (2, 3) and argv[0] == "show" and argv[2:] in ([], ["--json"]):
        name = argv[1]
        if not name.startswith("-") and not any(c in name for c in "*?[~"):
            return "show", "json" if argv[2:] else "text", name
    return None


def run(argv: list[str]) -> bool:
    """Run ``argv`` (the words after ``skilldeck``) if it is a bare listing, ``show
    NAME`` or a ``run`` that needs no parser (see ``_plain_command``); ``False``: it
    is not (nothing was done: click parses it)."""
    command = _plain_command(argv)
    if command is None or "_SKILLDECK_COMPLETE" in os.environ:
        return False
    word, fmt, name = command
    from skilldeck.cli._stored import STORE_ENV, TENANT_ENV, resolve_store

    if os.environ.get(STORE_ENV) or os.environ.get(TENANT_ENV):
        return False  # click reads them into --store and --tenant
    try:
        if resolve_store(None, None, ()) is not None:
            return False  # a store from the config file: the command line's store path
    except Exception:  # click's path reports it (a bad config file, a missing tenant)
        return False
    from skilldeck.cli import _start_up_done

    _start_up_done()  # what the command group does before any command
    try:
        config = warn_untrusted_project()
        if word == "list":
            from skilldeck.cli._listing import list_skills

            list_skills((), recursive=False, show_all=False, installed=False, fmt=fmt)
        elif word == "run":
            from skilldeck.cli._running import plain_words, run_skill

            run_skill(**plain_words(argv[1:]) or {}, config=config)
        else:
            from skilldeck.cli._showing import show_skill

            show_skill(name, fmt, colour_for("auto"))
    except (skilldeck.SkillError, OSError, KeyboardInterrupt) as exc:
        fail(exc, json_mode=fmt == "json")
    except Exception as exc:
        click = sys.modules.get("click")
        if click is None or not isinstance(exc, click.UsageError):
            fail(exc, json_mode=fmt == "json")
        from skilldeck.cli._app import fail_usage

        fail_usage(exc, argv, json_mode=fmt == "json")
    return True


_LOOKED_IN: list[tuple[tuple[str, ...], bool]] = []
"""The ``--root`` folders the command's catalog was made from, and ``--recursive``."""


def looked_in(roots: Iterable[str], recursive: bool) -> None:
    """Remember that the command's catalog is the folders ``roots``: the error
    boundary then completes the skilldeck commands its hints name with them
    (``with_roots``), so a pasted hint looks where the command looked."""
    _LOOKED_IN[:] = [(tuple(roots), recursive)]


def fail(exc: BaseException, *, json_mode: bool) -> NoReturn:
    """The error boundary's answer to ``exc`` (see ``_app.SkilldeckGroup``), for the
    group and for the commands ``run`` answers without click: it prints through
    ``echo``, so a failed ``skilldeck run --json`` imports no click either."""
    if isinstance(exc, skilldeck.SkillError):
        if _LOOKED_IN:
            from skilldeck.config import with_roots

            roots, recursive = _LOOKED_IN.pop()
            exc.hint = with_roots(exc.hint, roots, recursive=recursive)
        if isinstance(exc, skilldeck.Cancelled) and not json_mode:
            echo("cancelled", err=True)  # a person's "no" is not a failure
            sys.exit(EXIT_OK)
        if json_mode:
            echo_json(error=exc)
        else:  # a name or value quoted from the command line or a skill is shown escaped
            echo(f"error: {skilldeck.shown_text(exc.message)} [{exc.code}]", err=True)
            if exc.hint:
                echo(f"hint: {skilldeck.shown_text(exc.hint)}", err=True)
        sys.exit(EXIT_FINDINGS)
    if isinstance(exc, BrokenPipeError):
        # The reader went away (`skilldeck list | head`): stop quietly, as cat does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(EXIT_FINDINGS)
    if isinstance(exc, KeyboardInterrupt):
        echo("interrupted", err=True)
        sys.exit(130)
    if isinstance(exc, OSError):
        where = f"{skilldeck.shown_text(str(exc.filename))}: " if exc.filename else ""
        echo(f"error: {where}{exc.strerror or exc}", err=True)
        if _about_state(exc):
            # most often a home folder that is missing or read-only (a service user)
            echo(
                "hint: skilldeck keeps its state under your home folder; make it "
                "writable, or point SKILLDECK_HOME (or XDG_DATA_HOME, XDG_CACHE_HOME, "
                "XDG_CONFIG_HOME) at a folder you own",
                err=True,
            )
        sys.exit(EXIT_USAGE)
    if not isinstance(exc, Exception):
        raise exc
    # a defect (no command raises anything else on purpose): said like any error, the
    # traceback only on request
    if os.environ.get("SKILLDECK_DEBUG"):
        import traceback

        traceback.print_exception(exc)
    fail(unexpected(exc), json_mode=json_mode)


def unexpected(exc: Exception) -> skilldeck.InternalError:
    """The ``INTERNAL`` error a command line reports for a defect, ``exc``."""
    detail = skilldeck.shown_excerpt(skilldeck.shown_text(str(exc)))
    return skilldeck.InternalError(
        f"skilldeck failed unexpectedly ({type(exc).__name__}{': ' if detail else ''}{detail})",
        hint="this is a bug in skilldeck; run the command again with SKILLDECK_DEBUG=1 to "
        "see where it failed, and report it",
    )


def _about_state(exc: OSError) -> bool:
    """Is ``exc`` a missing or read-only folder on the way to skilldeck's own state?"""
    if not isinstance(exc, PermissionError | FileNotFoundError | NotADirectoryError):
        return False
    if not isinstance(exc.filename, str):
        return False
    import skilldeck.config

    d = skilldeck.config.dirs()
    where = os.path.abspath(exc.filename)
    for folder in (str(d.config), str(d.data), str(d.cache)):
        if os.path.commonpath([where, folder]) in (where, folder):  # one inside the other
            return True
    return False


def asks_json(words: list[str]) -> bool:
    """Whether the words after ``skilldeck`` ask for JSON, as far as can be told before
    they are parsed: how the error boundary answers a problem."""
    return "--json" in words or "--format=json" in words or "--format json" in " ".join(words)


def usage_error(message: str) -> Exception:
    """``click.UsageError(message)`` (exit status 2, with the command's usage), made
    only when raised: a command body that runs without click imports it then."""
    import click

    return click.UsageError(message)


def colour_for(choice: str) -> bool | None:
    """``click.echo``'s ``color`` for ``--color CHOICE``: with ``auto`` none when
    ``NO_COLOR`` is set or ``TERM=dumb``, else click's choice (colour only on a
    terminal)."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return None


def _plain_style(text: str, **_styles: Any) -> str:
    return text


def styler(colour: bool | None, *, err: bool = False) -> Callable[..., str]:
    """``click.style`` for text that ``click.echo(..., color=colour, err=err)`` shows
    in colour; elsewhere a style that leaves the text as it is, as click would leave it
    once it strips the escapes again (no colour wanted, or no terminal to show it)."""
    stream = sys.stderr if err else sys.stdout
    if colour is False or (colour is None and not _isatty(stream)):
        return _plain_style
    import click

    return click.style


def _isatty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except Exception:  # a closed or odd stream, as click treats it
        return False


def _utf8(stream: TextIO | None) -> bool:
    encoding = getattr(stream, "encoding", None)
    try:
        return encoding is not None and codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def echo(text: str, *, nl: bool = True, err: bool = False, color: bool | None = None) -> None:
    """``click.echo(text, nl=nl, err=err, color=color)``."""
    stream = sys.stderr if err else sys.stdout
    if "\x1b" in text or not _utf8(stream):
        import click  # it strips escape sequences off a pipe and mends a stream's encoding

        click.echo(text, nl=nl, err=err, color=color)
        return
    stream.write(text + "\n" if nl else text)
    stream.flush()


def echo_json(data: Any = None, *, error: skilldeck.SkillError | None = None) -> None:
    """The one JSON output of every command, the tool envelope's shape:
    ``{"ok": true, "data": ...}``, or ``{"ok": false, "error": {code, message,
    hint}}`` (with the report in ``data`` when there is one, as for a check that
    found problems) and exit status 1."""
    import json

    envelope: dict[str, Any] = {"ok": error is None}
    if error is not None:
        envelope["error"] = error.to_dict()
    if data is not None or error is None:
        envelope["data"] = skilldeck.json_safe(data)
    echo(json.dumps(envelope, ensure_ascii=False, indent=2))
    if error is not None:
        sys.exit(EXIT_FINDINGS)


def warn_untrusted_project() -> skilldeck.Config | None:
    """On stderr: which guarded settings of the project config file are ignored.

    Silent when there is no project config file; problems with the file are
    left to the command itself to report. Returns the config files as parsed for
    the warning (``None``: nothing was parsed), for the command to use.
    """
    import skilldeck.config

    try:
        config = skilldeck.config.project_config()
    except (skilldeck.SkillError, OSError):
        return None
    for note in config.notices if config is not None else ():
        echo(f"warning: {note.message} [{note.code}]", err=True)
        if note.hint:
            echo(f"hint: {note.hint}", err=True)
    return config


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
