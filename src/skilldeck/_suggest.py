"""Which skills fit a piece of text: declared triggers, derived triggers and search.

A skill may declare ``triggers: {keywords: [...], verbs: [...], patterns: [...]}``
(validated by the format layer). Few do, so ``suggest`` also derives triggers
from what every skill has: the phrases its description and ``when_to_use`` quote
as examples of requests (``Use when asked to "review my UI"`` gives the phrase
``review my UI``). ``suggest(text, skills)`` scores each skill:

- each keyword found in the text as a whole word (case-insensitive; a
  multi-word keyword as a phrase) adds ``KEYWORD_WEIGHT``;
- each verb found in any simple inflection (``extract``, ``extracts``,
  ``extracted``, ``extracting``) adds ``VERB_WEIGHT``;
- each pattern (a regular expression in RE2 syntax, run in linear time; one
  RE2 refuses never matches) that matches adds ``PATTERN_WEIGHT``;
- each quoted example phrase of the description found in the text adds
  ``PHRASE_WEIGHT``;
- the skill's search score, scaled so the best hit gets ``SEARCH_WEIGHT``, is
  added on top.

Every suggestion says why it was made (``keyword:pdf``, ``phrase:review my UI``,
``search:4.21``) and carries a ``confidence``: the search confidence, raised to
``TRIGGER_CONFIDENCE`` by a declared or derived trigger. ``confident`` suggestions
are the ones to act on; skills scoring zero are left out. ``order_by_relevance``
puts the suggested skills first (best first) and the rest after in their given
order, so a tier-1 list cut by a budget keeps the skills that matter for the
current request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from skilldeck._format import compile_linear, model_invocable
from skilldeck._search import CONFIDENT, SearchDocument, SearchIndex, affirmative

__all__ = [
    "KEYWORD_WEIGHT",
    "PATTERN_WEIGHT",
    "PHRASE_WEIGHT",
    "SEARCH_WEIGHT",
    "VERB_WEIGHT",
    "Suggestion",
    "derived_phrases",
    "order_by_relevance",
    "suggest",
]

KEYWORD_WEIGHT = 3.0
VERB_WEIGHT = 2.0
PATTERN_WEIGHT = 4.0
PHRASE_WEIGHT = 3.0
SEARCH_WEIGHT = 2.0
TRIGGER_CONFIDENCE = 0.9

#: How much of the text is looked at (a request, not a document). Trigger
#: patterns come from skills, so they see less.
MAX_TEXT = 20_000
MAX_PATTERN_TEXT = 4_000

_QUOTED = re.compile(r"[\"“'‘]([^\"”'’\n]{3,60})[\"”'’]")
_PHRASE_WORDS = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One suggested skill: its score, why, and how confident the match is (0-1)."""

    name: str
    score: float
    description: str = ""
    source: str | None = None
    reasons: tuple[str, ...] = ()
    key: str = ""
    confidence: float = 0.0

    @property
    def confident(self) -> bool:
        return self.confidence >= CONFIDENT

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "score": round(self.score, 4),
            "confidence": round(self.confidence, 3),
            "reasons": list(self.reasons),
        }
        if self.source:
            out["source"] = self.source
        return out


@lru_cache(maxsize=4096)
def _word(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _verb(verb: str) -> re.Pattern[str]:
    v = re.escape(verb.strip().lower())
    stem = re.escape(verb.strip().lower()[:-1]) if verb.lower().endswith("e") else v
    forms = rf"(?:{v}(?:s|es|ed|d|ing)?|{stem}(?:ing|ed))"
    return re.compile(rf"(?<!\w){forms}(?!\w)", re.IGNORECASE)


@lru_cache(maxsize=16_384)
def derived_phrases(text: str) -> tuple[str, ...]:
    """The example requests a description quotes (``"review my UI"``), lower-cased,
    of two to eight words; the derived triggers of a skill."""
    out: list[str] = []
    for m in _QUOTED.finditer(affirmative(text)):  # not 'NOT for "review my UI"'
        words = _PHRASE_WORDS.findall(m.group(1).lower())
        if 2 <= len(words) <= 8:
            phrase = " ".join(words)
            if phrase not in out:
                out.append(phrase)
    return tuple(out[:24])


def _triggers(meta: Any) -> Any:
    manifest = getattr(meta, "manifest", None)
    return getattr(manifest, "triggers", None) if manifest is not None else None


def _trigger_score(text: str, triggers: Any) -> tuple[float, list[str]]:
    score = 0.0
    reasons: list[str] = []
    for kw in getattr(triggers, "keywords", ()) or ():
        if kw.strip() and _word(kw.strip()).search(text):
            score += KEYWORD_WEIGHT
            reasons.append(f"keyword:{kw}")
    for verb in getattr(triggers, "verbs", ()) or ():
        if verb.strip() and _verb(verb).search(text):
            score += VERB_WEIGHT
            reasons.append(f"verb:{verb}")
    head = text[:MAX_PATTERN_TEXT]
    for pat in getattr(triggers, "patterns", ()) or ():
        compiled = compile_linear(pat)  # RE2: linear in the text, whatever the pattern
        if compiled is not None and compiled.search(head):
            score += PATTERN_WEIGHT
            reasons.append(f"pattern:{pat}")
    return score, reasons


def _phrase_score(words: str, meta: Any) -> tuple[float, list[str]]:
    source = str(getattr(meta, "description", "") or "")
    when = getattr(meta, "when_to_use", None)
    if when:
        source += " " + when
    score = 0.0
    reasons: list[str] = []
    for phrase in derived_phrases(source):
        if f" {phrase} " in words:
            score += PHRASE_WEIGHT
            reasons.append(f"phrase:{phrase}")
    return score, reasons


def _index(skills: Sequence[Any]) -> SearchIndex:
    return SearchIndex(
        SearchDocument(
            name=m.name,
            description=m.description,
            tags=tuple(getattr(m, "tags", ()) or ()),
            key=f"#{i}",
            when_to_use=getattr(m, "when_to_use", None),
        )
        for i, m in enumerate(skills)
    )


def suggest(
    text: str,
    skills: Sequence[Any],
    *,
    limit: int | None = 5,
    index: SearchIndex | None = None,
    search: bool = True,
) -> list[Suggestion]:
    """The skills that fit ``text``, best first (at most ``limit``; ``None``: all).

    ``skills`` are metadata objects (``name``, ``description``, optional ``tags``,
    ``when_to_use`` and ``manifest.triggers``), e.g. ``catalog.list()``. ``index``
    reuses a search index built over the same skills (hits are matched by name);
    ``search=False`` uses triggers only. Skills with ``disable-model-invocation``
    are never suggested.
    """
    if not all(map(model_invocable, skills)):  # the model never sees those
        skills = [m for m in skills if model_invocable(m)]
    sample = text[:MAX_TEXT]
    words = " " + " ".join(_PHRASE_WORDS.findall(sample.lower())) + " "
    scores: dict[int, float] = {}
    reasons: dict[int, list[str]] = {}
    confidence: dict[int, float] = {}
    for i, meta in enumerate(skills):
        score, why = _phrase_score(words, meta)
        trig = _triggers(meta)
        if trig is not None:
            more, also = _trigger_score(sample, trig)
            score, why = score + more, why + also
        if score:
            scores[i] = score
            reasons[i] = why
            confidence[i] = TRIGGER_CONFIDENCE
    if search and skills and sample.strip():
        idx = index if index is not None else _index(skills)
        hits = idx.search(sample, limit=max(len(skills), 1) if limit is None else limit * 4)
        top = hits[0].score if hits else 0.0
        positions = _positions(skills) if index is not None else {}
        for hit in hits:
            own = hit.key.startswith("#") and index is None
            pos = int(hit.key[1:]) if own else positions.get(hit.name)
            if pos is None or top <= 0:
                continue
            scores[pos] = scores.get(pos, 0.0) + SEARCH_WEIGHT * hit.score / top
            reasons.setdefault(pos, []).append(f"search:{hit.score:.2f}")
            confidence[pos] = max(confidence.get(pos, 0.0), hit.confidence)
    ranked = sorted(scores, key=lambda i: (-scores[i], skills[i].name))
    if limit is not None:
        ranked = ranked[:limit]
    return [
        Suggestion(
            name=skills[i].name,
            score=scores[i],
            description=skills[i].description,
            source=getattr(skills[i], "source", None) or None,
            reasons=tuple(reasons.get(i, ())),
            key=f"{getattr(skills[i], 'source', '') or ''}:{skills[i].name}".lstrip(":"),
            confidence=round(confidence.get(i, 0.0), 4),
        )
        for i in ranked
    ]


def _positions(skills: Sequence[Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i, meta in enumerate(skills):
        out.setdefault(meta.name, i)
    return out


def order_by_relevance(text: str, skills: Sequence[Any], **options: Any) -> list[Any]:
    """``skills`` with those that fit ``text`` first (best first), the rest after in
    their given order. Feed the result to a tier-1 renderer with a budget so the
    relevant skills are the ones that survive it. Skills the model must not see
    (``disable-model-invocation``) are left out."""
    skills = [m for m in skills if model_invocable(m)]
    picked = suggest(text, skills, limit=None, **options)
    first_names = [s.name for s in picked]
    by_name: dict[str, Any] = {}
    for meta in skills:
        by_name.setdefault(meta.name, meta)
    first = [by_name[n] for n in first_names]
    chosen = {id(m) for m in first}
    return first + [m for m in skills if id(m) not in chosen]
