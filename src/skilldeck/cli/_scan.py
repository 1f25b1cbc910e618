"""``skilldeck scan PATH...``: the security scan of skill folders or single files.

Text output is compiler style (``path:line:col: CODE severity: message``) with a
summary line; ``--format json`` prints one object (a public contract)::

    {"paths": [{"path": str, "diagnostics": [{"code", "severity", "message", "path",
                                               "line", "column", "hint"}]}],
     "summary": {"paths": int, "errors": int, "warnings": int, "info": int}}

Each entry of ``paths`` is a file, a skill folder, or a folder holding no skill.

Exit status: 0 no error-level finding, 1 at least one, 2 usage or I/O problem.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

import skilldeck
import skilldeck.security
from skilldeck.cli._app import EXIT_FINDINGS, EXIT_OK, echo_json, format_option, main, use_colour

_COLOUR = {"error": "red", "warning": "yellow", "info": "cyan"}


def _count(found: Sequence[skilldeck.Diagnostic], severity: str) -> int:
    return sum(1 for d in found if d.severity.value == severity)


@main.command()
@format_option
@click.option(
    "--ignore",
    "ignore",
    multiple=True,
    metavar="CODE",
    help="Leave out findings with this code (repeatable), e.g. --ignore SK606.",
)
@click.option(
    "--judge",
    "judge_url",
    metavar="URL",
    default=None,
    help="Ask an OpenAI-compatible chat endpoint for a second opinion on the findings "
    "(URL up to /v1); it may add concerns and raise severity, never clear an error.",
)
@click.option("--judge-model", default=None, metavar="MODEL", help="The judge's model name.")
@click.option(
    "--judge-key-env",
    default=None,
    metavar="VAR",
    help="The environment variable holding the judge endpoint's API key.",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
def scan(
    fmt: str,
    ignore: tuple[str, ...],
    judge_url: str | None,
    judge_model: str | None,
    judge_key_env: str | None,
    paths: tuple[str, ...],
) -> None:
    """Look for risky content in skills: download-and-run, decode-and-run, credential
    reads, bundled binaries, hidden Unicode and prompt injection.

    PATH is a skill folder, a folder of skills (each skill found is scanned and
    reported on its own, as validate and list --recursive find them) or one file.
    The scan reads files and never runs them; see docs/security-scan.md for what it
    cannot catch.
    """
    unknown = [c for c in ignore if c not in skilldeck.security.SCAN_CODES]
    if unknown:
        raise click.BadParameter(
            f"unknown code(s) {', '.join(unknown)}; scan codes are "
            f"{skilldeck.security.SCAN_CODES[0]}-{skilldeck.security.SCAN_CODES[-1]}",
            param_hint="--ignore",
        )
    if judge_url is not None and not judge_model:
        raise click.UsageError("--judge needs --judge-model MODEL")
    judge = (
        skilldeck.security.openai_judge(judge_url, str(judge_model), api_key_env=judge_key_env)
        if judge_url is not None
        else None
    )
    results: list[tuple[str, list[skilldeck.Diagnostic]]] = []
    for raw in paths:
        if not os.path.lexists(raw):
            raise click.UsageError(f"{raw}: no such file or folder")
        results.extend(skilldeck.security.scan_skills(raw, ignore=ignore, judge=judge))
    every = [d for _, found in results for d in found]
    summary = {
        "paths": len(results),
        "errors": _count(every, "error"),
        "warnings": _count(every, "warning"),
        "info": _count(every, "info"),
    }
    if fmt == "json":
        payload = {
            "paths": [
                {"path": path, "diagnostics": [d.to_dict() for d in found]}
                for path, found in results
            ],
            "summary": summary,
        }
        risky = skilldeck.FindingsError(
            f"the scan found {summary['errors']} error(s)",
            hint="each finding says what it matched and how to fix or ignore it",
        )
        echo_json(payload, error=risky if summary["errors"] else None)
    else:
        colour = use_colour()
        for diag in every:
            head, _, rest = diag.format().partition("\n")
            click.secho(head, fg=_COLOUR.get(diag.severity.value), color=colour)
            if rest:
                click.echo(rest)
        click.echo(
            f"scanned {summary['paths']} path(s): {summary['errors']} error(s), "
            f"{summary['warnings']} warning(s), {summary['info']} note(s)"
        )
    sys.exit(EXIT_FINDINGS if summary["errors"] else EXIT_OK)
