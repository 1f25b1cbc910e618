"""Checks across the files of one skill: an attack split in two files.

A script that gathers secrets and another that posts data; a file downloaded by one
script (or by a command in SKILL.md) and run by another.
"""

from __future__ import annotations

from collections.abc import Iterator

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._scan._findings import Facts
from skilldeck._scan._rules import _HINTS, DOWNLOAD_EXEC, LEAK

__all__ = ["joined_findings"]


def joined_findings(files: dict[str, tuple[str, Facts]]) -> Iterator[Diagnostic]:
    """Findings that need two files of one skill (``rel -> (display, facts)``)."""
    scripts = {rel: v for rel, v in files.items() if v[1].kind == "script"}
    yield from _split_leak(scripts)
    yield from _split_download(files)


def _split_leak(scripts: dict[str, tuple[str, Facts]]) -> Iterator[Diagnostic]:
    with_sources = [(rel, v) for rel, v in scripts.items() if v[1].sources and not v[1].sinks]
    with_sinks = [(rel, v) for rel, v in scripts.items() if v[1].sinks and not v[1].sources]
    if not with_sources or not with_sinks:
        return
    src_rel, (_, src) = with_sources[0]
    sink_rel, (display, sink) = with_sinks[0]
    line, text = sink.sinks[0]
    yield Diagnostic.make(
        LEAK,
        f"secrets are gathered in {src_rel} (line {src.sources[0][0] + 1}: "
        f"{src.sources[0][1][:50]!r}) and {sink_rel} sends data out ({text[:50]!r})",
        path=display,
        line=line + 1,
        column=1,
        hint=_HINTS[LEAK],
        severity=Severity.WARNING,
    )


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
            severity = Severity.ERROR if facts.kind == "script" else Severity.WARNING
            yield Diagnostic.make(
                DOWNLOAD_EXEC,
                f"runs {name!r}, which {origin} downloads",
                path=display,
                line=line + 1,
                column=1,
                hint=_HINTS[DOWNLOAD_EXEC],
                severity=severity,
            )
