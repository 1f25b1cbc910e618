"""Which skills fit a piece of text: declared triggers, derived triggers and search.

A skill may declare ``triggers: {keywords: [...], verbs: [...], patterns: [...]}``
(validated by the format layer). Few do, so ``suggest`` also derives triggers
from what every skill has: the requests its description and ``when_to_use`` quote
as examples (``Use when asked to "review my UI"`` gives the phrase ``review my
ui``). ``suggest(text, skills)`` ranks with search and lets triggers reorder it:

- each declared keyword found in the text as a whole word (case-insensitive; a
  multi-word keyword as a phrase) adds ``KEYWORD_WEIGHT``; each declared verb
  found in any simple inflection (``extract``, ``extracts``, ``extracted``,
  ``extracting``) ``VERB_WEIGHT``; each declared pattern (a regular expression in
  RE2 syntax, run in linear time; one RE2 refuses never matches) that matches
  ``PATTERN_WEIGHT``. Declared triggers are the author's word: they count whether
  or not search found the skill, and a keyword or pattern makes the suggestion
  confident (``TRIGGER_CONFIDENCE``).
- a derived phrase counts only when it has at least two content words (stop words
  such as "this", "help", "me" are not; "test this" and "help me write" are not
  triggers) and the text says it word for word (case and punctuation aside). It
  adds ``PHRASE_WEIGHT`` to a skill among search's first ``PHRASE_CANDIDATES``
  hits, unless a candidate ranked above says the phrase of itself too, and the
  skill then takes the confidence of search's best hit when its own is lower: a
  derived phrase reorders search's candidates, but never adds a skill search did
  not find, nor makes confident a request search abstains on. Quoted examples
  are often ordinary phrases ("status report", "free tool") that off-domain
  requests use too.
- the skill's search score, scaled so the best hit gets ``SEARCH_WEIGHT``.

Every suggestion says why it was made (``keyword:pdf``, ``phrase:review my ui``,
``search:4.21``) and carries a ``confidence``: the search confidence, raised as
above. ``confident`` suggestions are the ones to act on; skills scoring zero are
left out. The triggers of a list of skills are prepared once and kept with the
search index passed (``runtime.suggest`` passes the runtime's), so a request
costs a search and a dictionary lookup per request word. ``order_by_relevance``
puts the suggested skills first (best first) and the rest after in their given
order, so a skill list cut by a budget keeps the skills that matter for the
current request.
"""

from __future__ import annotations

import operator
import re
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from skilldeck.format import compile_linear, model_invocable
from skilldeck.search._bm25 import (
    CONFIDENT,
    SearchDocument,
    SearchIndex,
    affirmative,
    ranked_dict,
    tokenize,
)

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
PHRASE_WEIGHT = 1.0
SEARCH_WEIGHT = 2.0
TRIGGER_CONFIDENCE = 0.9
#: A derived phrase reorders only search's first hits.
PHRASE_CANDIDATES = 10
#: Content words (stemmed, stop words left out) a quoted phrase needs to be a trigger.
PHRASE_MIN_WORDS = 2

#: How much of the text is looked at (a request, not a document). Trigger
#: patterns come from skills, so they see less.
MAX_TEXT = 20_000
MAX_PATTERN_TEXT = 4_000

# quotes are taken in pairs, in order; a single quote opens and closes only outside
# a word, so the apostrophe of "don't" is not a quote
_QUOTED = re.compile(
    r"\"([^\"\n]{0,200})\"|“([^“”\n]{0,200})”"
    r"|(?<!\w)'([^'\n]{0,200})'(?!\w)|(?<!\w)‘([^‘’\n]{0,200})’(?!\w)"
)  # bounded, and an opening quote ends the run: linear in the text whatever it holds
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
        return ranked_dict(self, reasons=list(self.reasons))


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


def _content(phrase: str) -> frozenset[str]:
    """The content words of a phrase as search sees them (stemmed, no stop words)."""
    return frozenset(t for t in tokenize(phrase) if "-" not in t)


@lru_cache(maxsize=16_384)
def derived_phrases(text: str) -> tuple[str, ...]:
    """The example requests a description quotes (``"review my UI"``), lower-cased,
    of two to eight words with at least two content words; the derived triggers
    of a skill."""
    out: list[str] = []
    for m in _QUOTED.finditer(affirmative(text)):  # not 'NOT for "review my UI"'
        quoted = next(g for g in m.groups() if g is not None)
        words = _PHRASE_WORDS.findall(quoted.lower())
        if not 2 <= len(words) <= 8 or len(_content(quoted)) < PHRASE_MIN_WORDS:
            continue
        phrase = " ".join(words)
        if phrase not in out:
            out.append(phrase)
    return tuple(out[:24])


def _triggers(meta: Any) -> Any:
    manifest = getattr(meta, "manifest", None)
    triggers = getattr(manifest, "triggers", None) if manifest is not None else None
    if triggers is None:
        return None
    kinds = ("keywords", "verbs", "patterns")
    return triggers if any(getattr(triggers, k, None) for k in kinds) else None


def _trigger_score(text: str, triggers: Any) -> tuple[float, list[str], bool]:
    """Score, reasons, and whether a keyword or pattern matched (a verb alone is one
    word of the request: it ranks but does not make the suggestion confident)."""
    score = 0.0
    reasons: list[str] = []
    whole = False
    for kw in getattr(triggers, "keywords", ()) or ():
        if kw.strip() and _word(kw.strip()).search(text):
            score += KEYWORD_WEIGHT
            reasons.append(f"keyword:{kw}")
            whole = True
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
            whole = True
    return score, reasons, whole


def _words(text: str) -> tuple[str, ...]:
    return tuple(_PHRASE_WORDS.findall(text.lower()))


#: What a skill contributes: its derived phrases (as words) and declared triggers.
_Entry = tuple[tuple[tuple[str, ...], ...], Any]


def _listed_phrases(meta: Any) -> tuple[str, ...]:
    """The example requests of ``triggers: [...]``, kept by the rule of derived ones."""
    manifest = getattr(meta, "manifest", None)
    given = getattr(getattr(manifest, "triggers", None), "phrases", ()) or ()
    out: list[str] = []
    for text in given:
        words = _PHRASE_WORDS.findall(text.lower())
        if 2 <= len(words) <= 8 and len(_content(text)) >= PHRASE_MIN_WORDS:
            out.append(" ".join(words))
    return tuple(out)


def _entry(meta: Any) -> _Entry:
    source = str(getattr(meta, "description", "") or "")
    when = getattr(meta, "when_to_use", None)
    if when:
        source += " " + when
    phrases = dict.fromkeys([*derived_phrases(source), *_listed_phrases(meta)])
    return tuple(tuple(p.split()) for p in phrases), _triggers(meta)


class _Table:
    """The triggers of a list of skills, prepared once: each derived phrase filed
    under its first word, the few declared triggers, names to positions."""

    def __init__(self, given: Sequence[Any], known: dict[int, _Entry] | None = None) -> None:
        self.given = list(given)  # held: identities are compared while it lives
        # the model never sees disable-model-invocation skills
        self.skills = [m for m in self.given if model_invocable(m)]
        self.phrases: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        self.declared: list[tuple[int, Any]] = []
        self.positions: dict[str, int] = {}
        self.known: dict[int, _Entry] = {}  # by id(meta): the metas are held in given
        for i, meta in enumerate(self.skills):
            self.positions.setdefault(meta.name, i)
            entry = known.get(id(meta)) if known else None
            if entry is None:
                entry = _entry(meta)
            self.known[id(meta)] = entry
            phrases, trig = entry
            for phrase in phrases:
                self.phrases.setdefault(phrase[0], []).append((i, phrase))
            if trig is not None:
                self.declared.append((i, trig))

    def same(self, skills: Sequence[Any]) -> bool:
        return skills is self.given or (
            len(skills) == len(self.given) and all(map(operator.is_, skills, self.given))
        )

    def phrase_matches(self, text: str) -> dict[int, list[str]]:
        """Skill positions and the phrases of theirs ``text`` says word for word."""
        out: dict[int, list[str]] = {}
        seq = _words(text)
        for at, word in enumerate(seq):
            for i, phrase in self.phrases.get(word, ()):
                if seq[at : at + len(phrase)] == phrase:
                    said = out.setdefault(i, [])
                    if " ".join(phrase) not in said:  # a phrase said twice counts once
                        said.append(" ".join(phrase))
        return out


# one table per search index (the runtime's index lives as long as its catalog state)
_TABLES: weakref.WeakKeyDictionary[SearchIndex, _Table] = weakref.WeakKeyDictionary()
_TABLES_LOCK = threading.Lock()


def _table(skills: Sequence[Any], index: SearchIndex | None) -> _Table:
    """The prepared triggers of ``skills``: kept with ``index`` while the same skills
    come with it; another list (a session's subset) reuses what is prepared."""
    if index is None:
        return _Table(skills)
    try:
        with _TABLES_LOCK:
            table = _TABLES.get(index)
    except TypeError:  # a host's index that cannot be weakly referenced: no keeping
        return _Table(skills)
    if table is not None and table.same(skills):
        return table
    table = _Table(skills, table.known if table is not None else None)
    with _TABLES_LOCK:
        _TABLES[index] = table
    return table


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
    reuses a search index built over the same skills (hits are matched by name) and
    keeps the skills' prepared triggers while the same skills are passed with it;
    ``search=False`` uses declared triggers only. Skills with
    ``disable-model-invocation`` are never suggested.
    """
    table = _table(skills, index)
    skills = table.skills
    sample = text[:MAX_TEXT]
    scores: dict[int, float] = {}
    reasons: dict[int, list[str]] = {}
    confidence: dict[int, float] = {}
    for i, trig in table.declared:
        score, why, whole = _trigger_score(sample, trig)
        if score:
            scores[i] = score
            reasons[i] = why
            if whole:
                confidence[i] = TRIGGER_CONFIDENCE
    if search and skills and sample.strip():
        idx = index if index is not None else _index(skills)
        # the skills derived phrases fit: cheap (a lookup per word), and when there
        # are none (most requests) search is asked for no more than it would be
        matched = table.phrase_matches(sample) if table.phrases else {}
        wanted = len(skills) if limit is None else limit + len(scores)
        if matched:
            wanted = max(wanted, PHRASE_CANDIDATES)
        hits = idx.search(sample, limit=max(wanted, 1))
        top = hits[0].score if hits else 0.0
        best = hits[0].confidence if hits else 0.0
        own = index is None
        found: list[int] = []
        for hit in hits:
            pos = int(hit.key[1:]) if own else table.positions.get(hit.name)
            if pos is None or top <= 0:
                continue
            found.append(pos)
            scores[pos] = scores.get(pos, 0.0) + SEARCH_WEIGHT * hit.score / top
            reasons.setdefault(pos, []).append(f"search:{hit.score:.2f}")
            confidence[pos] = max(confidence.get(pos, 0.0), hit.confidence)
        named = hits and sample.strip().lower() == hits[0].name.lower()
        if matched and found and not named:
            _boost(matched, found, skills, scores, reasons, confidence, best)
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


def _boost(
    matched: dict[int, list[str]],
    found: list[int],
    skills: Sequence[Any],
    scores: dict[int, float],
    reasons: dict[int, list[str]],
    confidence: dict[int, float],
    best: float,
) -> None:
    """Raise the search candidates whose derived phrases the text says.

    Only search's first ``PHRASE_CANDIDATES`` hits count, and a phrase counts only
    when no candidate ranked above says it of itself too ("dbt wiki" in a sibling's
    description, "mental models" in another skill's name): a phrase every sibling
    shares does not tell them apart. A raised skill takes search's best confidence
    when its own is lower, so abstaining stays search's decision."""
    above: list[str] = []
    for pos in found[:PHRASE_CANDIDATES]:
        said = [p for p in matched.get(pos, ()) if not any(f" {p} " in t for t in above)]
        meta = skills[pos]
        above.append(" " + " ".join(_words(f"{meta.name} {meta.description}")) + " ")
        if said:
            scores[pos] += PHRASE_WEIGHT
            reasons[pos] = [f"phrase:{p}" for p in said] + reasons[pos]
            confidence[pos] = max(confidence[pos], best)


def order_by_relevance(text: str, skills: Sequence[Any], **options: Any) -> list[Any]:
    """``skills`` with those that fit ``text`` first (best first), the rest after in
    their given order. Feed the result to a skill-list renderer with a budget so the
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
