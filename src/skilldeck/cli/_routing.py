"""Routing commands: ``search``, ``eval routing FILE`` and the catalog report of
``lint --catalog``.

All three look at what the model routes on (names, descriptions, ``when_to_use``) so
skill authors can see whether the right skill reaches the model.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

import click

import skilldeck
from skilldeck.cli._app import EXIT_OK, echo_json, embedder_option, format_option, main, root_option
from skilldeck.cli._listing import one_line


def _catalog(roots: Sequence[str], recursive: bool) -> skilldeck.Catalog:
    config = skilldeck.load_config()
    if roots:
        return skilldeck.Catalog.from_roots(roots, recursive=recursive, config=config)
    return skilldeck.Catalog.default(config=config)


def _runtime(roots: Sequence[str], recursive: bool, embedder: str | None) -> skilldeck.SkillRuntime:
    from skilldeck.search import configured_embedder

    catalog = _catalog(roots, recursive)  # checks the config file first
    options = skilldeck.RuntimeOptions.from_config(catalog.config)  # search_headings, mode
    return skilldeck.SkillRuntime(catalog, options=options, embedder=configured_embedder(embedder))


def _progress(doing: str) -> Callable[[int, int], None] | None:
    """Shows how far a first search has read (``indexing``) or embedded
    (``embedding``) the skills, on stderr when it is a terminal (once per catalog
    state; that can take seconds, or minutes for a model over a large catalog)."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        if done >= total:
            click.echo("\r\x1b[K", err=True, nl=False)  # the line is erased when done
        else:
            click.echo(f"\r{doing} skills for search: {done:,} of {total:,}", err=True, nl=False)

    return show


@main.command("search")
@click.argument("words", nargs=-1, required=True)
@click.option("--limit", "-n", type=click.IntRange(1, 100), default=5, show_default=True)
@click.option(
    "--preflight",
    is_flag=True,
    help="Print the hint a host adds before the model answers (empty when nothing fits).",
)
@root_option
@click.option("--recursive", is_flag=True, help="Search the --root folders at any depth.")
@embedder_option
@format_option
def search_command(
    words: tuple[str, ...],
    limit: int,
    preflight: bool,
    roots: tuple[str, ...],
    recursive: bool,
    embedder: str | None,
    fmt: str,
) -> None:
    """Find the skills that fit a request, as the model's skills_search does.

    Each hit has a confidence from 0 to 1; below 0.5 the search abstains, meaning
    no skill fits the request confidently, and the closest ones are shown as such.
    Skills marked disable-model-invocation are left out, as they are for the model.

    \b
    skilldeck search extract the tables from a PDF
    skilldeck search --preflight "our container images are huge"
    """
    query = " ".join(words)
    runtime = _runtime(roots, recursive, embedder)
    runtime.search_index(progress=_progress("indexing"))
    index = runtime.prepare_search(progress=_progress("embedding"))
    if preflight:
        block = runtime.preflight(query)
        if fmt == "json":
            echo_json({"query": query, "preflight": block})
        elif block:
            click.echo(block)
        else:
            click.echo("(no skill fits confidently: the host adds nothing)", err=True)
        raise SystemExit(EXIT_OK)
    empty = not runtime.catalog.list()
    hits = [] if empty else index.search(query, limit=limit)
    abstained = not hits or not hits[0].confident
    if fmt == "json":
        data = {"query": query, "abstained": abstained, "skills": [h.to_dict() for h in hits]}
        if empty:
            data["empty"] = True
        echo_json(data)
        raise SystemExit(EXIT_OK)
    if empty and isinstance(runtime.catalog, skilldeck.Catalog):
        _say_empty(runtime.catalog, roots, recursive)
        raise SystemExit(EXIT_OK)
    if not hits:
        click.echo("no skill shares a word with this request")
        raise SystemExit(EXIT_OK)
    if abstained:
        click.echo(
            f"no skill fits confidently (best confidence {hits[0].confidence:.2f}, "
            "0.50 needed); the closest:"
        )
    width = max(len(h.name) for h in hits)
    for hit in hits:
        text = one_line(hit.description, 90)
        click.echo(f"{hit.name:<{width}}  {hit.confidence:.2f}  {text}")


def _say_empty(catalog: skilldeck.Catalog, roots: Sequence[str], recursive: bool) -> None:
    """There is nothing to search: say where skilldeck looked and what to paste."""
    from skilldeck.config import root_flags

    looked = [
        f"{os.path.abspath(r.path)} ({r.mode}{'' if r.exists else ', missing'})"
        for r in catalog.roots
    ]
    click.echo("no skills to search: the catalog is empty")
    for line in looked[:8]:
        click.echo(f"  looked in {line}")
    if len(looked) > 8:
        click.echo(f"  ... and {len(looked) - 8} more folders")
    doctor = "skilldeck doctor" + root_flags(roots, recursive=recursive)
    click.echo(
        f"hint: `{doctor}` shows every folder and what it holds; "
        "`skilldeck install OWNER/REPO` adds skills"
    )


@main.group("eval")
def eval_group() -> None:
    """Measure how well requests reach the right skill."""


@eval_group.command("routing")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@root_option
@click.option("--recursive", is_flag=True, help="Search the --root folders at any depth.")
@click.option("--misses", is_flag=True, help="List the requests whose first hit was wrong.")
@embedder_option
@format_option
def eval_routing(
    file: str,
    roots: tuple[str, ...],
    recursive: bool,
    misses: bool,
    embedder: str | None,
    fmt: str,
) -> None:
    """Run the labelled requests of FILE against the catalog's search.

    FILE is JSON Lines: {"query": "merge two PDFs", "expected": ["pdf"]} a line;
    "expected": [] marks a request no skill should answer (an optional "kind"
    splits the figures, e.g. direct / indirect). Prints top-1 and top-3 for the
    answerable requests, and for the others how often search abstains (its best
    hit is not confident) and how often its abstentions are right. With a model
    (--embedder or [search] embedder), lexical search, the model alone (dense) and
    the two fused (what skills_search answers) side by side, in one run.
    """
    from skilldeck.search import compare_routers, load_routing_cases

    cases = load_routing_cases(file)
    runtime = _runtime(roots, recursive, embedder)
    runtime.search_index(progress=_progress("indexing"))
    index = runtime.prepare_search(progress=_progress("embedding"))
    reports = compare_routers(cases, index)
    report = reports.get("fused", reports["lexical"])
    if fmt == "json":
        data = report.to_dict()
        if not misses:
            data.pop("misses")
        routers = {name: r.to_dict() for name, r in reports.items()}
        for shown in routers.values():
            shown.pop("misses")
        echo_json({"skills": len(index), **data, "routers": routers})
        raise SystemExit(EXIT_OK)
    click.echo(f"{len(index)} skills, {len(cases)} requests")
    kinds = sorted(report.by_kind)
    heads = [f"{k} ({report.by_kind[k].total})" for k in kinds]
    subs = ["top-1   top-3"] * len(kinds)
    if report.unanswerable:
        heads.append(f"no skill ({report.unanswerable})")
        subs.append("abstained  precision")
    click.echo(f"{'':<8}" + "".join(f"  {h:<20}" for h in heads).rstrip())
    click.echo(f"{'router':<8}" + "".join(f"  {h:<20}" for h in subs).rstrip())
    for name, r in reports.items():
        cells = []
        for kind in kinds:
            tally = r.by_kind[kind]
            cells.append(f"{tally.rate(tally.top1):6.1%}  {tally.rate(tally.top3):6.1%}")
        if r.unanswerable:
            abstained = r.abstained_right + r.abstained_wrong
            precision = f"{r.abstain_precision:6.1%}" if abstained else "   n/a"
            cells.append(f"   {r.abstain_recall:6.1%}     {precision}")
        click.echo(f"{name:<8}" + "".join(f"  {c:<20}" for c in cells).rstrip())
    if report.unanswerable:
        wrong = ", ".join(f"{n} {r.abstained_wrong}" for n, r in reports.items())
        click.echo(f"answerable requests abstained on: {wrong}")
        if not any(r.abstained_right + r.abstained_wrong for r in reports.values()):
            click.echo("(precision n/a: never abstained)")
    if misses:
        for query, expected, got in report.misses:
            click.echo(f"  miss: {query!r}: expected {', '.join(expected)}; got {', '.join(got)}")


def lint_catalog_command(roots: Sequence[str], recursive: bool, fmt: str) -> None:
    """``lint --catalog ROOT``: the routing-quality report of a whole catalog."""
    from skilldeck.catalog import lint_catalog

    catalog = _catalog(roots, recursive)
    entries = catalog.entries(include_shadowed=True)
    report = lint_catalog(catalog.list(), names=[e.name for e in entries])
    if fmt == "json":
        echo_json(report.to_dict())
        return
    click.echo(f"{report.skills} skills")
    for finding in report.findings:
        click.echo(f"{finding.kind}: {finding.message}")
        if finding.kind in {"no_when_clause", "no_not_for_clause"}:
            shown = ", ".join(finding.skills[:8])
            more = len(finding.skills) - 8
            click.echo(f"  {shown}" + (f" and {more} more" if more > 0 else ""))
        if finding.hint:
            click.echo(f"  hint: {finding.hint}")
