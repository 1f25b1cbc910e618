"""Measuring routing: does the right skill come first for a request, and does nothing
come when nothing fits?

A routing set is JSON Lines, one request a line::

    {"query": "merge two PDFs", "expected": ["pdf"]}
    {"query": "what's the weather in Paris", "expected": []}

``expected`` lists the skill names that count as right (any of them); an empty list
marks a request no skill should answer. An optional ``kind`` (``direct``: the request
names the tool; ``indirect``: it names the goal) splits the figures.

``evaluate_routing(cases, router)`` runs a router (``query -> (ranked names,
abstained)``) over the set and returns a ``RoutingReport``: top-1 / top-3 for the
answerable requests (per kind), and how often the router abstains on requests no
skill fits (recall) and how often its abstentions are right (precision).

``compare_routers(cases, index)`` does it for each ranking of a search index, side
by side: ``lexical`` (BM25F) and, for a ``SemanticIndex``, ``dense`` (the model
alone) and ``fused`` (what ``skills_search`` answers with the model on).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skilldeck._errors import InvalidArgumentsError
from skilldeck._json import loads

__all__ = [
    "RoutingCase",
    "RoutingReport",
    "compare_routers",
    "evaluate_routing",
    "load_routing_cases",
]

MAX_CASES = 100_000
MAX_LINE = 64 * 1024

#: What a router answers for one request: names best first, and whether it abstains.
Router = Callable[[str], tuple[Sequence[str], bool]]


@dataclass(frozen=True, slots=True)
class RoutingCase:
    """One labelled request (``expected`` empty: no skill should answer it)."""

    query: str
    expected: tuple[str, ...] = ()
    kind: str = ""

    @property
    def answerable(self) -> bool:
        return bool(self.expected)


def load_routing_cases(path: str | os.PathLike[str]) -> list[RoutingCase]:
    """Read a JSON Lines routing set; a bad line raises ``InvalidArgumentsError``
    naming the file and the line."""
    cases: list[RoutingCase] = []
    try:
        fh = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise InvalidArgumentsError(
            f"cannot read routing set {os.fspath(path)}: {exc.strerror or exc}",
            path=os.fspath(path),
            hint='give a JSON Lines file: one {"query": ..., "expected": [...]} a line',
        ) from None
    with fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            if len(cases) >= MAX_CASES:
                raise _bad(path, number, f"more than {MAX_CASES} requests")
            if len(line) > MAX_LINE:
                raise _bad(path, number, f"the line is longer than {MAX_LINE} characters")
            try:
                row = loads(line)
            except json.JSONDecodeError as exc:
                raise _bad(path, number, f"not JSON ({exc.msg})") from None
            cases.append(_case(row, path, number))
    return cases


def _case(row: Any, path: str | os.PathLike[str], number: int) -> RoutingCase:
    if not isinstance(row, dict) or not isinstance(row.get("query"), str):
        raise _bad(path, number, "each line needs a string 'query'")
    expected = row.get("expected", [])
    if isinstance(expected, str):
        expected = [expected]
    if not isinstance(expected, list) or not all(isinstance(e, str) for e in expected):
        raise _bad(path, number, "'expected' must be a list of skill names ([] for none)")
    kind = row.get("kind", "")
    if not isinstance(kind, str):
        raise _bad(path, number, "'kind' must be a string")
    return RoutingCase(row["query"], tuple(expected), kind)


def _bad(path: str | os.PathLike[str], number: int, why: str) -> InvalidArgumentsError:
    return InvalidArgumentsError(
        f"{os.fspath(path)}:{number}: {why}",
        path=os.fspath(path),
        line=number,
        hint='write one request a line: {"query": "merge two PDFs", "expected": ["pdf"]}',
    )


@dataclass(frozen=True, slots=True)
class Tally:
    """Top-1 / top-3 over a group of answerable requests."""

    total: int = 0
    top1: int = 0
    top3: int = 0

    def rate(self, hits: int) -> float:
        return hits / self.total if self.total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "requests": self.total,
            "top1": round(self.rate(self.top1), 4),
            "top3": round(self.rate(self.top3), 4),
        }


@dataclass(frozen=True, slots=True)
class RoutingReport:
    """The figures of one router over one set (see the module docstring)."""

    answerable: Tally
    by_kind: dict[str, Tally] = field(default_factory=dict)
    unanswerable: int = 0
    abstained_right: int = 0  # abstained on a request no skill fits
    abstained_wrong: int = 0  # abstained although a skill fits
    misses: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()

    @property
    def abstain_recall(self) -> float:
        return self.abstained_right / self.unanswerable if self.unanswerable else 0.0

    @property
    def abstain_precision(self) -> float:
        total = self.abstained_right + self.abstained_wrong
        return self.abstained_right / total if total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "answerable": self.answerable.to_dict(),
            "by_kind": {k: t.to_dict() for k, t in sorted(self.by_kind.items())},
            "unanswerable": self.unanswerable,
            "abstain_recall": round(self.abstain_recall, 4),
            "abstain_precision": round(self.abstain_precision, 4),
            "abstained_on_answerable": self.abstained_wrong,
            "misses": [
                {"query": q, "expected": list(e), "got": list(g)} for q, e, g in self.misses
            ],
        }


def evaluate_routing(cases: Iterable[RoutingCase], router: Router) -> RoutingReport:
    """Run ``router`` over ``cases`` and tally the figures."""
    overall = [0, 0, 0]
    kinds: dict[str, list[int]] = {}
    unanswerable = right = wrong = 0
    misses: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = []
    for case in cases:
        names, abstained = router(case.query)
        ranked = tuple(names[:3])
        if not case.answerable:
            unanswerable += 1
            right += bool(abstained)
            continue
        wrong += bool(abstained)
        wanted = set(case.expected)
        top1 = bool(ranked[:1]) and ranked[0] in wanted
        top3 = any(n in wanted for n in ranked)
        for counts in (overall, kinds.setdefault(case.kind or "all", [0, 0, 0])):
            counts[0] += 1
            counts[1] += top1
            counts[2] += top3
        if not top1:
            misses.append((case.query, case.expected, ranked))
    return RoutingReport(
        answerable=Tally(*overall),
        by_kind={k: Tally(*v) for k, v in kinds.items()},
        unanswerable=unanswerable,
        abstained_right=right,
        abstained_wrong=wrong,
        misses=tuple(misses),
    )


def _router(search: Callable[..., Sequence[Any]]) -> Router:
    def route(query: str) -> tuple[list[str], bool]:
        hits = search(query, limit=3)
        return [h.name for h in hits], not hits or not hits[0].confident

    return route


def compare_routers(cases: Sequence[RoutingCase], index: Any) -> dict[str, RoutingReport]:
    """The figures of each ranking of ``index`` over ``cases``, in one run:
    ``lexical``, and with a model (a ``SemanticIndex``) ``dense`` and ``fused``.

    The dense ranking abstains by the model's fitted dense abstention, or, for a
    model without one, when the best cosine similarity is under 0.5."""
    from skilldeck.search._semantic import SemanticIndex

    if not isinstance(index, SemanticIndex):
        return {"lexical": evaluate_routing(cases, _router(index.search))}
    index.prepare()
    return {
        "lexical": evaluate_routing(cases, _router(index.lexical.search)),
        "dense": evaluate_routing(cases, _router(index.dense_search)),
        "fused": evaluate_routing(cases, _router(index.search)),
    }
