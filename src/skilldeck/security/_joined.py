"""Checks across the files of one skill: an attack split in two files.

A script that gathers secrets and another that posts data; a file downloaded by one
script (or by a command in SKILL.md) and run by another.
"""

from __future__ import annotations

from collections.abc import Iterator

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck.security._findings import Facts
from skilldeck.security._rules import _HINTS, DOWNLOAD_EXEC, LEAK

__all__ = ["joined_findings"]


def joined_findings(files: dict[str, tuple[str, Facts]]) -> Iterator[Diagnostic]:
    """Findings that need two files of one skill (``rel -> (display, facts)``)."""
    yield from _split_leak(files)
    yield from _split_download(files)


def _split_leak(files: dict[str, tuple[str, Facts]]) -> Iterator[Diagnostic]:
    """Secrets gathered in one file and sent by another: an error when both name the
    same temporary file (the hand-over), a warning between two scripts otherwise."""
    sources = [(rel, v) for rel, v in files.items() if v[1].sources and not v[1].sinks]
    sinks = [(rel, v) for rel, v in files.items() if v[1].sinks and not v[1].sources]
    for src_rel, (_, src) in sources:
        for sink_rel, (display, sink) in sinks:
            shared = src.staged & sink.staged
            scripts = src.kind == "script" and sink.kind == "script"
            if not shared and not scripts:
                continue
            line, text = sink.sinks[0]
            via = f" through {sorted(shared)[0]}" if shared else ""
            yield Diagnostic.make(
                LEAK,
                f"secrets are gathered in {src_rel} (line {src.sources[0][0] + 1}: "
                f"{src.sources[0][1][:50]!r}) and {sink_rel} sends data out ({text[:50]!r}){via}",
                path=display,
                line=line + 1,
                column=1,
                hint=_HINTS[LEAK],
                severity=Severity.ERROR if shared else Severity.WARNING,
            )
            return


def _split_download(files: dict[str, tuple[str, Facts]]) -> Iterator[Diagnostic]:
    downloaded: dict[str, str] = {}
    for rel, (_, facts) in files.items():
        for name in facts.downloads:
            downloaded.setdefault(name, rel)
    if not downloaded:
        return
    for rel, (display, facts) in files.items():
        for name, line in facts.runs.items():
            origin = downloaded.get(name)
            if origin is None or origin == rel:
                continue
            # a document that says to run it asks the model to: an error either way
            severity = Severity.ERROR
            yield Diagnostic.make(
                DOWNLOAD_EXEC,
                f"runs {name!r}, which {origin} downloads",
                path=display,
                line=line + 1,
                column=1,
                hint=_HINTS[DOWNLOAD_EXEC],
                severity=severity,
            )
