"""Ranked search over a skill catalog, with a confidence a host can act on.

The ranking is BM25F: one bag of weighted words per skill, where a word's weight
depends on the field it came from (``FIELD_WEIGHTS``: the name counts most, then
tags, ``when_to_use`` and the description, then the body's usage sections ("When
to use", "Triggers", "Use this skill when ..."), then headings, then the first
1,000 words of the body, which a request that names the goal rather than the tool
often meets; what a body says the skill is *not* for is left out), divided by
that field's length normalisation, so a long body does not lower what the name
and description say. Text is lower-cased and split on anything that is not a
letter or digit (``pdf-tools`` also stays whole); contractions (``I'm``,
``don't``) and English stop words, including the filler of requests ("please",
"can you") and of descriptions ("use when", "skill"), are dropped; the rest is
stemmed with the Snowball English stemmer (PyStemmer), so ``presentations``
finds ``presentation``.

Short words are never expanded: ``prod`` does not find ``productboard``. A word
of five letters or more that no skill has falls back, at a low weight, to the
indexed words it is a prefix of (``spreadsh`` finds ``spreadsheet``).

Each hit carries a ``confidence`` from 0 to 1: the probability that the request
is for a skill of the catalog, from a logistic model of three features fitted on a
labelled set of requests. Evidence: how strongly the request matches what some
skill says *about itself* (name, tags, ``when_to_use``, description, headings; a
second, small index over those fields), the best BM25 score there in units of a
rare word matched in full. Words: how many distinct request words the hit has
(at most four count). Unknown: the share of the request's information (IDF) in
words no skill has, scaled down in catalogs under 1,000 skills. A request no
skill is for ("how tall is Mount Everest") still meets words in the bodies of a
large catalog, but rarely in its names and descriptions, and often has words no
skill has. ``hit.confident`` compares it with ``CONFIDENT`` (0.5), so hosts,
``suggest`` and ``runtime.preflight`` can abstain.

Two backends: ``builtin`` (the default, a pure-Python inverted index with
per-posting weights computed at indexing time) and ``bm25s`` (the extra
``skilldeck[search]``; ``backend="bm25s"``), which ranks the same weighted words
with one length normalisation per skill instead of one per field.
"""

from __future__ import annotations

import bisect
import heapq
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import Any, Literal

__all__ = [
    "CONFIDENT",
    "FIELD_WEIGHTS",
    "SearchDocument",
    "SearchHit",
    "SearchIndex",
    "extract_headings",
    "tokenize",
]

Backend = Literal["auto", "builtin", "bm25s"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+([^\n]*)", re.MULTILINE)
# the same after a newline: searched in "\n" + text, a literal first character lets
# the search skip from line to line instead of trying every position
_NL_HEADING = re.compile(r"\n {0,3}#{1,6}[ \t]+([^\n]*)")
_COMPOUND = re.compile(r"[^\W_]+(?:[-_][^\W_]+)+")
_CONTRACTION = re.compile(r"(\w)['’](?:s|m|re|ve|ll|d|t)\b")

_STOP = frozenset(
    """a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each either etc even ever every few for from further get gets getting give
    go going had hadn has hasn have haven having he her here hers herself him himself his how
    i if in into is isn it its itself just least let lets like ll made make makes many may me
    might mine more most much must mustn my myself need needs no nor not now of off often on
    once one only or other our ours ourselves out over own per please put quite rather re really
    s same shall she should shouldn so some such t than that the their theirs them themselves
    then there these they this those through thus to too under until up upon us use used uses
    using ve very via want wants was wasn way we well were weren what whatever when whenever
    where whether which while who whom whose why will with within without won would wouldn yes
    yet you your yours yourself yourselves skill skills user users ask asks asked help helps
    something anything thing things work working able e g eg ie hi hello hey thanks thank
    ok okay lol yeah yep nope sure tell say said know think understand""".split()
)

#: How much one word counts in each field (BM25F field weights).
FIELD_WEIGHTS: Mapping[str, float] = {
    "name": 3.0,
    "tags": 2.0,
    "when_to_use": 1.2,
    "description": 1.0,
    "usage": 0.4,
    "headings": 0.5,
    "body": 0.3,
}
#: The fields of the evidence index: what a skill says about itself (no body).
META_FIELDS = frozenset({"name", "tags", "when_to_use", "description", "headings"})
#: Hits at or above this confidence are ``confident`` (see the module docstring).
CONFIDENT = 0.5
_K1 = 1.2
_B = 0.75
_FIELD_B = 0.75  # BM25F: each field's length normalisation
_PREFIX_MIN = 5
_PREFIX_WEIGHT = 0.3
_PREFIX_MAX_EXPANSIONS = 10
_BODY_WORDS = 1000
_FULL_STRENGTH = 0.8  # BM25 saturation of a word met once in a description, about
#: The confidence of the first hit is a logistic model of three features of the
#: request (docs/routing.md, "Confidence and abstaining"), fitted on a labelled set
#: of requests: ``intercept + evidence units + words matched (at most 4) + unknown
#: share``, mapped through the logistic function.
_LOGIT_INTERCEPT = -4.3
_LOGIT_EVIDENCE = 1.7  # per unit of evidence (a rare word matched in a self-description)
_LOGIT_WORD = 1.8  # per distinct request word the hit has, in any field
_LOGIT_WORDS_MAX = 4  # words beyond four add nothing (a long message is not surer)
#: Evidence and words are scaled by 10 / words for a request of more than ten words
#: (the model was fitted on requests of one to nine): a long message meets words
#: of some self-description by chance, and its evidence adds up with its length.
_LOGIT_WORDS_LONG = 10
_LOGIT_UNKNOWN = -9.2  # times the share of the request's information no skill has
#: The confidence of a hit whose name has every word of the query ("stripe" for
#: stripe-mcp), whatever the model says: a request made of name words names a skill.
_NAMED = 0.75
_LOGIT_UNKNOWN_SKILLS = 1000  # in a smaller catalog an unknown word says less (n / 1000)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer

    # no cache of its own: ``_stem`` remembers every word, and the stemmer's cache
    # (10,000 words, purged by sorting them all) tripled the cost of a new word
    return Stemmer.Stemmer("english", 0)


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    if len(word) <= 3 or word.isdigit():
        return word
    stem: str = _stemmer().stemWord(word)
    return stem


def tokenize(text: str) -> list[str]:
    """Lower-case, split, drop contractions and stop words, stem; hyphenated words are
    also kept whole (``pdf-tools``).

    No word, compound or contraction spans whitespace, so the text is split on it
    and each distinct piece is analysed once (``piece_terms``): the terms are the
    pieces' words in order, then their compounds in order."""
    pieces = text.split()
    memory = _memory()
    found = list(map(memory.__getitem__, pieces))
    compounds = memory.compounds
    if compounds.keys().isdisjoint(pieces):  # no compound: the terms in order, in C
        return list(chain.from_iterable(found))
    words: list[str] = []
    later: list[str] = []
    for piece, terms in zip(pieces, found, strict=True):
        split = compounds.get(piece)
        if split is None:
            words.extend(terms)
        else:
            words.extend(terms[:split])
            later.extend(terms[split:])
    words.extend(later)
    return words


class _Pieces(dict[str, tuple[str, ...]]):
    """Each whitespace-separated piece met -> its terms (its words', then its
    compounds'); a piece not met before is analysed on lookup (``__missing__``), so
    a text of pieces met before is looked up in C. ``compounds``: the pieces with
    compounds -> how many of their terms are words."""

    __slots__ = ("compounds",)

    def __init__(self) -> None:
        super().__init__()
        self.compounds: dict[str, int] = {}

    def __missing__(self, piece: str) -> tuple[str, ...]:
        return _analyse(piece, self)


_PIECES = _Pieces()
_PIECES_MAX = 500_000  # distinct pieces remembered (then forgotten)


def _memory() -> _Pieces:
    """The memory of pieces, a new one when it holds too many (pieces come from
    clients too: stay bounded; a lookup in flight keeps the one it has)."""
    global _PIECES
    if len(_PIECES) > _PIECES_MAX:
        _PIECES = _Pieces()
    return _PIECES


def piece_terms(pieces: Iterable[str], memory: _Pieces | None = None) -> Iterator[tuple[str, ...]]:
    """The terms of each piece (see ``_Pieces``), looked up in C; a piece not met
    before is analysed and remembered (in ``memory``, else the process's)."""
    return map((_memory() if memory is None else memory).__getitem__, pieces)


def pieces_memory() -> _Pieces:
    """A memory of pieces of its own, for the bodies of one index build: let go with
    the build (the process's memory keeps what requests and listings meet)."""
    return _Pieces()


# punctuation that cannot be part of a word, a compound or a contraction, nor change
# a word boundary (not "_", a word character, nor an apostrophe): a piece has the terms
# of what is left when it is stripped of it at both ends ("(PDF)," as "PDF")
_ENDS = '!"#$%&()*+,-./:;<=>?@[\\]^`{|}~'


def _analyse(piece: str, memory: _Pieces) -> tuple[str, ...]:
    """The terms of one piece (no whitespace), remembered in ``memory``; a piece
    with punctuation at its ends takes those of the word inside, met before or
    analysed now (``_piece_terms``)."""
    core = piece.strip(_ENDS)
    if core and len(core) < len(piece):
        got = memory[core]
        split = memory.compounds.get(core)
        if split is not None:
            memory.compounds[piece] = split
    else:
        got = _piece_terms(piece, memory)
    memory[piece] = got
    return got


def _piece_terms(piece: str, memory: _Pieces) -> tuple[str, ...]:
    """The terms of one piece, as the rule makes them (``compounds`` noted in
    ``memory``)."""
    lowered = piece.lower()
    if lowered.isalnum():  # one word (most pieces)
        return () if lowered in _STOP else (_stem(lowered),)
    if "'" in lowered or "’" in lowered:
        lowered = _CONTRACTION.sub(r"\1", lowered)
    stop, stem = _STOP, _stem
    terms = [stem(w) for w in _WORD.findall(lowered) if w not in stop]
    if "-" in lowered or "_" in lowered:
        compounds = [c.replace("_", "-") for c in _COMPOUND.findall(lowered) if len(c) <= 64]
        if compounds:
            memory.compounds[piece] = len(terms)
            terms.extend(compounds)
    return tuple(terms)


# a clause that sends requests elsewhere: "NOT for X", "Do not use for Y (use Z)"
_NOT_FOR = re.compile(
    r"(?:\bnot (?:for|when|meant for|intended for|suitable for)\b|\bdo not use\b"
    r"|\bdon['’]t use\b|\bnever use\b)[^.;!?。]*[.;!?。]?",
    re.IGNORECASE,
)
_USE_INSTEAD = re.compile(r"[^.;!?。]*\buse [\w./:-]+ instead\b[^.;!?。]*[.;!?。]?", re.IGNORECASE)


def affirmative(text: str) -> str:
    """``text`` without the clauses that say what a skill is not for ("NOT for
    written blog content (use content-production).", "..., use stable-baselines3
    instead."): indexed, they would find the skill for the very requests it sends
    elsewhere. Listings still show them."""
    low = text.lower()
    if not text or not any(w in low for w in ("not", "don", "never", "instead")):
        return text
    kept = _NOT_FOR.sub(" ", text)
    # the second pattern tries every start of a sentence again at each of its
    # characters: only run where it can match. A case-blind "instead" is in the
    # lowered text, unless the text has a letter the pattern matches otherwise
    # than lower() makes it ("ı", "ſ", "İ": ``_FOLD_ODD``)
    if "instead" in low or (not text.isascii() and any(c in text for c in _FOLD_ODD)):
        kept = _USE_INSTEAD.sub(" ", kept)
    return kept


# line breaks other than ``\n`` and ``\r\n`` (``str.splitlines`` breaks there, a
# MULTILINE pattern's ``^`` does not): a text with one takes the line-by-line passes
_ODD_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def _odd_breaks(text: str) -> bool:
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return True
    return any(c in text for c in _ODD_BREAKS)


_BACKTICKS = re.compile(r"```")
_TILDES = re.compile(r"~~~")


def _strip_fences(body: str) -> str:
    """``body`` without fenced code blocks (an unclosed fence hides the rest, as
    Markdown renders it); the lines kept are joined with ``\n``."""
    if "```" not in body and "~~~" not in body:
        return body
    if _odd_breaks(body):
        return _strip_fences_by_line(body)
    text = body.replace("\r\n", "\n") if "\r" in body else body
    out: list[str] = []
    pos = 0
    fence: str | None = None
    rfind, find = text.rfind, text.find
    marks = [(m.start(), "```") for m in _BACKTICKS.finditer(text)]
    if "~~~" in text:
        marks.extend((m.start(), "~~~") for m in _TILDES.finditer(text))
        marks.sort()
    for at, marker in marks:  # a few markers, not every line
        start = rfind("\n", 0, at) + 1
        if at - start > 3 or (at > start and not text[start:at].isspace()):
            continue  # not at the start of a line (at most three spaces in)
        if fence is None:
            out.append(text[pos:start])
            fence = marker
        elif marker == fence:
            fence = None
            end = find("\n", at)
            pos = len(text) if end < 0 else end + 1
    if fence is None:
        out.append(text[pos:])
    return "".join(out)


def _strip_fences_by_line(body: str) -> str:
    """``_strip_fences`` over ``str.splitlines`` (a text with other line breaks)."""
    out: list[str] = []
    fence: str | None = None
    for line in body.splitlines():
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if indent <= 3 and stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            if fence is None:
                fence = marker
                continue
            if marker == fence:
                fence = None
                continue
        if fence is None:
            out.append(line)
    return "\n".join(out)


def extract_headings(body: str, *, limit: int = 40) -> tuple[str, ...]:
    """The Markdown ATX headings of a body (outside code fences), first ``limit``."""
    return _headings(_strip_fences(body), limit)


def _headings(text: str, limit: int) -> tuple[str, ...]:
    out: list[str] = []
    for m in _NL_HEADING.finditer("\n" + text):
        title = m.group(1).rstrip()
        if title.endswith("#"):  # a closing sequence: '## Steps ##' (but not 'C#')
            bare = title.rstrip("#")
            if not bare or bare[-1] in " \t":
                title = bare.rstrip()
        if title:
            out.append(title)
        if len(out) >= limit:
            break
    return tuple(out)


_USAGE_HEADING = re.compile(
    r"^(?:\d+[.)]\s*)?(?:when to (?:use|apply|invoke|fire)"
    r"|when (?:this skill|it) (?:activates|applies)"
    r"|when will the user need|(?:only )?use (?:this skill |it )?when|(?:common )?use cases?"
    r"|(?:proactive |multilingual )?triggers?(?: (?:phrases|phrasings|terms|words|conditions))?"
    r"|activation|example (?:requests|prompts|queries|questions|triggers|phrases))\b",
    re.IGNORECASE,
)
# what a skill is not for: "When NOT to use", "Do not use this skill when:"
_NEGATIVE = re.compile(
    r"\b(?:not|don['’]?t|never|avoid|skip|instead|non-activation)\b", re.IGNORECASE
)
_NEGATIVE_WORDS = ("not", "don", "never", "avoid", "skip", "instead", "non")


def _negative(text: str) -> bool:
    """``_NEGATIVE.search(text)``, skipped for an ASCII text without any of its words."""
    if text.isascii():
        low = text.lower()
        if not any(w in low for w in _NEGATIVE_WORDS):
            return False
    return _NEGATIVE.search(text) is not None


_USAGE_VERB = re.compile(r"\b(?:use|used|using|trigger\w*|activat\w*|fire|invoke)\b", re.IGNORECASE)
# a line that starts a usage paragraph outside such a section
_USAGE_LEAD = re.compile(
    r"^[ \t>*_-]*(?:only |do not |don't |never )?(?:use (?:this skill |it )?when"
    r"|this skill (?:should be used|is for|applies)"
    r"|trigger(?:s|ed)? (?:when|on)|activate when|invoke when)",
    re.IGNORECASE,
)
# a label line such as "**Trigger phrases:**" or "Do not use this skill when:"
_LABEL = re.compile(r"^[ \t>*_-]*([^\n:]{2,80}):[ \t*_]*$")
_USAGE_WORDS = 300


def body_fields(body: str, *, limit: int = _BODY_WORDS) -> tuple[tuple[str, ...], str, str]:
    """The headings of one body, its first ``limit`` words of prose and its usage
    text: the sections that say when to use the skill (a heading such as "When to
    use", "Triggers", "Example requests") and the paragraphs that start "Use this
    skill when", at most 300 words. What a skill says it is *not* for ("When not to
    use", "Do not use this skill when:") is in neither."""
    headings, prose, usage = body_parts(body, limit=limit)
    return headings, " ".join(prose), " ".join(usage)


def body_parts(
    body: str, *, limit: int = _BODY_WORDS
) -> tuple[tuple[str, ...], list[str], list[str]]:
    """``body_fields`` with the prose and usage as lists of words (not joined)."""
    text = _strip_fences(body[: 64 * 1024])
    usage, prose = _split_usage(text, limit)
    return _headings(text, 40), prose[:limit], usage[:_USAGE_WORDS]


def _split_usage(text: str, limit: int = -1) -> tuple[list[str], list[str]]:
    """The words of ``text`` that say when to use the skill, and the words that do
    not say when not to (a line-by-line pass); the first ``limit`` words of the
    second are all that is asked for (``-1``: every word).

    Only headings, labels, usage leads and blank lines change what is kept, and
    while no usage section or paragraph is open only a heading that may open one
    or a usage lead can (``_TRIGGER`` finds those lines; the text before one is
    taken whole). Inside one, the runs of other lines between headings, labels
    and leads are taken whole, unless the text has line breaks such searches do
    not know (then line by line)."""
    split = _UsageSplit()
    if _odd_breaks(text):
        for line in text.splitlines():
            split.line(line)
        return split.usage, split.prose
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    size = len(text)
    prose, usage = split.prose, split.usage
    # the searches run in "\n" + text: a match at ``i`` is the line at ``i`` in text
    folded: Any
    trigger: Callable[..., Any]
    lead: Callable[..., Any]
    heading: re.Pattern[Any]
    if text.isascii() or not any(c in text for c in _FOLD_ODD_ASCII):
        # the case-blind searches, as case-sensitive ones on the text's ASCII lowered
        # (one byte per character, "?" for any other: the same characters match, at
        # the same positions), are several times faster; lowering bytes is ASCII only
        folded = b"\n" + text.encode("ascii", "replace").lower()
        trigger, lead = _linear_searches()
        heading = _HEADING_LOW
    else:
        folded = "\n" + text
        trigger, lead, heading = _TRIGGER.search, _LEAD_START.search, _HEADING_START
    events = _Events(text, folded, lead, heading)
    pos = 0
    find = text.find
    while pos < size:
        if not (split.level or split.para or split.negative):
            # nothing open: the lines up to the next trigger are prose, whole
            full = 0 <= limit <= len(prose)
            if full and len(usage) >= _USAGE_WORDS:
                break  # nothing more can be kept
            found = trigger(folded, pos)
            start = size if found is None else found.start()
            if start > pos and not full:
                need = limit - len(prose) if limit >= 0 else -1
                words = text[pos:start].split(None, need)
                if 0 <= need < len(words):
                    del words[need:]  # the rest of the text, unsplit
                prose.extend(words)
            if found is None:
                break
        else:
            start = events.after(pos)
            if start > pos:
                split.run(text[pos:start])
            if start >= size:
                break
        end = find("\n", start)
        if end < 0:
            end = size
        split.line(text[start:end])
        pos = end + 1
    return usage, prose


# what can start a line that changes what ``_UsageSplit`` keeps (a superset: each
# line found is then judged as ``_UsageSplit.line`` does): a heading, a label (a
# line that ends with ':'), a usage lead; blank lines only matter inside a usage
# paragraph or a list of what the skill is not for, which ``_UsageSplit.run`` walks
# (searched in "\n" + text, so a match's start is its line's start in text)
_HEADING_START = re.compile(r"\n {0,3}#{1,6}[ \t]")
_LABEL_END = re.compile(r":[ \t*_]*$", re.MULTILINE)
_LEAD = _USAGE_LEAD.pattern.removeprefix("^")
_LEAD_START = re.compile("\n" + _LEAD, re.IGNORECASE)
# what can open a usage section or paragraph while none is open: a heading with a
# word of ``_USAGE_HEADING`` or ``_USAGE_VERB`` (a superset), or a usage lead
_TRIGGER = re.compile(
    r"\n(?: {0,3}#{1,6}[ \t][^\n]*?(?:when|us(?:e|ing)|trigger|activat|example|fire|invoke)|"
    + _LEAD
    + ")",
    re.IGNORECASE,
)
# the same, case-sensitive, for a text's ASCII lowered (the patterns are ASCII, their
# letters lower-case; compiled by ``_linear_searches``)
_TRIGGER_LOW = _TRIGGER.pattern.encode("ascii")
_LEAD_START_LOW = _LEAD_START.pattern.encode("ascii")
_HEADING_LOW = re.compile(_HEADING_START.pattern.encode("ascii"))


@lru_cache(maxsize=1)
def _linear_searches() -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The searches of ``_TRIGGER_LOW`` and ``_LEAD_START_LOW``, run by RE2: only
    where a match starts is used, and that is the leftmost start for ``re`` and
    RE2 alike; RE2 scans without backtracking at each line (the two
    searches took about a third of splitting 10,000 bodies with ``re``). The
    heading search stays with ``re``: it stops at every heading, and RE2's
    binding costs a few microseconds a call."""
    import re2  # google-re2

    options = re2.Options()
    return (
        re2.compile(_TRIGGER_LOW, options).search,
        re2.compile(_LEAD_START_LOW, options).search,
    )


# the characters whose lower case is not what a case-blind search matches them with
# ("İ" lowers to two characters; "ı" and "ſ" match "i" and "s"): a text with one is
# searched case-blind as it is
_FOLD_ODD = ("\u0130", "\u0131", "\u017f")
# the only other character a case-blind search matches with an ASCII letter: the
# Kelvin sign, "k" (its lower case, but not ASCII)
_FOLD_ODD_ASCII = (*_FOLD_ODD, "\u212a")


class _Events:
    """The next line at or after a position that may be a heading, a label or a
    usage lead; each kind is searched forward from where it was last found, so a
    pass over a text searches it once per kind."""

    __slots__ = ("heading", "heading_start", "label", "lead", "lined", "search_lead", "text")

    def __init__(
        self,
        text: str,
        lined: str | bytes,
        search_lead: Callable[..., Any],
        heading_start: re.Pattern[Any],
    ) -> None:
        self.text, self.lined, self.search_lead = text, lined, search_lead
        self.heading_start = heading_start.search
        self.heading = self.label = self.lead = -1  # the next of each kind (-1: not yet)

    def after(self, pos: int) -> int:
        """The start of the first such line at or after ``pos`` (a line start;
        ``len(text)``: none)."""
        text, size = self.text, len(self.text)
        if self.heading < pos:
            found = self.heading_start(self.lined, pos)
            self.heading = size if found is None else found.start()
        if self.lead < pos:
            found = self.search_lead(self.lined, pos)
            self.lead = size if found is None else found.start()
        if self.label < pos:
            found = _LABEL_END.search(text, pos)
            self.label = size if found is None else text.rfind("\n", 0, found.start()) + 1
        return min(self.heading, self.lead, self.label)


class _UsageSplit:
    """The state of ``_split_usage``'s pass over the lines of a body."""

    __slots__ = ("level", "listed", "neg_section", "negative", "para", "prose", "usage")

    def __init__(self) -> None:
        self.usage: list[str] = []
        self.prose: list[str] = []
        self.level = 0  # inside a (usage or negative) section under a heading of this level
        self.negative = False  # inside a section or list that says when not to use the skill
        self.para = False  # inside a usage paragraph outside such a section
        self.listed = False  # a line of content since the last label: a blank line ends a list
        self.neg_section = False

    def run(self, lines: str) -> None:
        """Whole lines that are none of headings, labels and usage leads."""
        body = lines[:-1] if lines.endswith("\n") else lines
        if (self.negative or self.para) and not self.neg_section:
            for line in body.split("\n"):  # a blank line may end the list or paragraph
                self.line(line)
            return
        # blank lines change nothing here but ``listed``: set by the last line
        self.listed = bool(body[body.rfind("\n") + 1 :].strip())
        words = body.split()
        if not words or self.negative:
            return
        self.prose.extend(words)
        if self.level or self.para:
            self.usage.extend(words)

    def line(self, line: str) -> None:
        head = _HEADING.match(line)
        if head:
            depth = len(line.lstrip(" ")) - len(line.lstrip(" ").lstrip("#"))
            if self.level and depth > self.level:  # a subsection of the current section
                if not self.negative:
                    self.prose.extend(line.split())
                return
            title = head.group(1).strip()
            level, negative = 0, False
            self.para = self.listed = False
            if _USAGE_HEADING.match(title):
                level = depth
                negative = _negative(title)
            elif _negative(title) and _USAGE_VERB.search(title):
                level, negative = depth, True  # "When NOT to use", "Do not use when"
            self.level = level
            self.negative = self.neg_section = negative
            if not negative:
                self.prose.extend(line.split())
            return
        words = line.split()
        label = _LABEL.match(line) if len(line) <= 200 else None
        if label:
            self.listed = False
            self.negative = self.neg_section or (
                _negative(label.group(1))
                and bool(self.level or self.para or _USAGE_LEAD.match(line))
            )
            if not self.level and not self.negative and _USAGE_LEAD.match(line):
                self.para = True
        elif not self.level and not self.para and _USAGE_LEAD.match(line):
            self.para, self.negative, self.listed = True, False, True
        elif not words:
            if self.listed and not self.neg_section:
                self.negative = False
                self.para = False
            self.listed = False
        else:
            self.listed = True
        if self.negative:
            return
        self.prose.extend(words)
        if self.level or self.para:
            self.usage.extend(words)


@dataclass(frozen=True, slots=True)
class SearchDocument:
    """What is indexed for one skill. ``key`` is what a hit returns (e.g. ``SOURCE:NAME``)."""

    name: str
    description: str = ""
    tags: tuple[str, ...] = ()
    headings: tuple[str, ...] = ()
    key: str = ""
    source: str | None = None
    when_to_use: str | None = None
    body: str = ""
    usage: str = ""

    def fields(self) -> list[tuple[str, list[str]]]:
        name_toks = tokenize(self.name.replace("_", "-"))
        if self.name.lower() not in name_toks:
            name_toks.append(self.name.lower())
        out = [("name", name_toks), ("tags", [t for tag in self.tags for t in tokenize(tag)])]
        out.append(("description", tokenize(affirmative(self.description))))
        if self.when_to_use:
            out.append(("when_to_use", tokenize(affirmative(self.when_to_use))))
        out.append(("headings", [t for h in self.headings for t in tokenize(h)]))
        if self.usage:
            out.append(("usage", tokenize(self.usage)))
        if self.body:
            out.append(("body", tokenize(self.body)))
        return out

    def weighted(self) -> dict[str, float]:
        """Term -> weighted frequency over the fields."""
        return self.weighted_pair()[0]

    def weighted_pair(self) -> tuple[dict[str, float], dict[str, float]]:
        """``weighted()`` over all fields, and over ``META_FIELDS`` only (the evidence
        index), tokenizing once."""
        tf: dict[str, float] = {}
        meta: dict[str, float] = {}
        for name, toks in self.fields():
            weight = FIELD_WEIGHTS[name]
            for t in toks:
                tf[t] = tf.get(t, 0.0) + weight
            if name in META_FIELDS:
                for t in toks:
                    meta[t] = meta.get(t, 0.0) + weight
        return tf, meta

    @property
    def listing(self) -> str:
        """The description as listings show it (``when_to_use`` appended)."""
        if self.when_to_use:
            return f"{self.description} {self.when_to_use}".strip()
        return self.description


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One ranked skill. ``confidence`` (0-1) says how much of the query it covers;
    ``matched`` the query words it has."""

    name: str
    score: float
    description: str = ""
    key: str = ""
    source: str | None = None
    rank: int = 0
    confidence: float = 0.0
    matched: tuple[str, ...] = ()

    @property
    def confident(self) -> bool:
        return self.confidence >= CONFIDENT

    def to_dict(self) -> dict[str, Any]:
        return ranked_dict(self)


def ranked_dict(hit: SearchHit | Any, **extra: Any) -> dict[str, Any]:
    """How a ranked skill is shown (a search hit, a suggestion): its name and
    description, score and confidence rounded, then ``extra``, then its catalog key
    when it is not the name (two sources' skills of one name) and its source."""
    out: dict[str, Any] = {
        "name": hit.name,
        "description": hit.description,
        "score": round(hit.score, 4),
        "confidence": round(hit.confidence, 3),
        **extra,
    }
    if hit.key and hit.key != hit.name:
        out["key"] = hit.key
    if hit.source:
        out["source"] = hit.source
    return out


@dataclass(slots=True)
class _Builtin:
    postings: Mapping[str, dict[int, float]] = field(default_factory=dict)
    vocab: Sequence[str] = field(default_factory=list)
    idf: Mapping[str, float] = field(default_factory=dict)
    n: int = 0

    @classmethod
    def build(
        cls, corpus: Sequence[Iterable[tuple[str, float]] | Mapping[str, float]], b: float = _B
    ) -> _Builtin:
        """BM25 over weighted term frequencies; ``b`` the length normalisation over
        each whole document (0: the frequencies are already normalised per field)."""
        counts: list[dict[str, float]] = []
        for doc in corpus:
            if isinstance(doc, Mapping):
                counts.append(dict(doc))
                continue
            tf: dict[str, float] = {}
            for t, w in doc:
                tf[t] = tf.get(t, 0.0) + w
            counts.append(tf)
        n = len(counts)
        lengths = [sum(c.values()) for c in counts]
        avgdl = (sum(lengths) / n) if n else 1.0
        df: dict[str, int] = {}
        for c in counts:
            for t in c:
                df[t] = df.get(t, 0) + 1
        idf = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        postings: dict[str, dict[int, float]] = {}
        for doc_id, c in enumerate(counts):
            norm = _K1 * (1.0 - b + b * lengths[doc_id] / (avgdl or 1.0))
            for term, tf_ in c.items():
                weight = idf[term] * tf_ * (_K1 + 1.0) / (tf_ + norm)
                postings.setdefault(term, {})[doc_id] = weight
        return cls(postings, sorted(postings), idf, n)

    @property
    def unseen_idf(self) -> float:
        """The IDF of a word no skill has (the highest there is)."""
        return math.log(1.0 + (self.n + 0.5) / 0.5)

    def expand(self, term: str) -> list[str]:
        i = bisect.bisect_left(self.vocab, term)
        out: list[str] = []
        while i < len(self.vocab) and self.vocab[i].startswith(term):
            out.append(self.vocab[i])
            i += 1
            if len(out) >= _PREFIX_MAX_EXPANSIONS:
                break
        return out

    def scores(self, weighted_terms: Iterable[tuple[str, float]]) -> dict[int, float]:
        lists = [(self.postings[t], qw) for t, qw in weighted_terms if t in self.postings]
        if not lists:
            return {}
        # start from the longest posting list, copied at C speed; add the others
        lists.sort(key=lambda pw: len(pw[0]), reverse=True)
        first, qw0 = lists[0]
        acc = dict(first) if qw0 == 1.0 else {d: qw0 * w for d, w in first.items()}
        get = acc.get
        for post, qw in lists[1:]:
            if qw == 1.0:
                for doc, w in post.items():
                    acc[doc] = get(doc, 0.0) + w
            else:
                for doc, w in post.items():
                    acc[doc] = get(doc, 0.0) + qw * w
        return acc


class SearchIndex:
    """A BM25F index over skills; build once, query many times (thread-safe to read)."""

    def __init__(
        self,
        documents: Iterable[SearchDocument],
        *,
        backend: Backend = "auto",
        _fielded: Any = None,
        _terms: Sequence[Any] | None = None,
    ) -> None:
        # a saved index comes with documents made on demand (a Sequence)
        self.documents: Sequence[SearchDocument] = (
            documents
            if _fielded is not None and isinstance(documents, Sequence)
            else tuple(documents)
        )
        if _fielded is None:
            from skilldeck.search._terms import FieldIndex, doc_terms

            # ``_terms``: each document's ``DocTerms``, kept by a caller that rebuilds
            # often (tokenizing is most of a build)
            terms = _terms if _terms is not None else [doc_terms(d) for d in self.documents]
            _fielded = FieldIndex.build(terms)
        #: the terms of every field (``search._terms.FieldIndex``), weighed on demand
        self.fielded = _fielded
        views: tuple[_Builtin, _Builtin] = _fielded.views()
        self._builtin, self._meta = views
        self._bm25s: Any = None
        self.backend: str = "builtin"
        if backend == "bm25s":
            self._bm25s = _build_bm25s([doc.weighted() for doc in self.documents])
            self.backend = "bm25s"
        self._exact: dict[str, int] = {}
        names = getattr(self.documents, "names", None) or [d.name for d in self.documents]
        for i, name in enumerate(names):
            self._exact.setdefault(name.lower(), i)

    def __len__(self) -> int:
        return len(self.documents)

    def _query_terms(self, query: str) -> tuple[list[tuple[str, float]], dict[str, float]]:
        """The weighted index terms of a query, and each query word's information (IDF)."""
        terms: dict[str, float] = {}
        info: dict[str, float] = {}
        idf, unseen = self._builtin.idf, self._builtin.unseen_idf
        for tok in tokenize(query):
            if "-" in tok and tok not in idf:
                continue  # a compound no skill has: its parts are already counted
            info[tok] = idf.get(tok, unseen)
            if tok in self._builtin.postings:
                terms[tok] = max(terms.get(tok, 0.0), 1.0)
            elif len(tok) >= _PREFIX_MIN:
                for exp in self._builtin.expand(tok):
                    terms[exp] = max(terms.get(exp, 0.0), _PREFIX_WEIGHT)
        return list(terms.items()), info

    def search(self, query: str, *, limit: int = 10) -> list[SearchHit]:
        """The best ``limit`` skills for ``query``, best first; ties keep catalog order."""
        if limit <= 0 or not self.documents:
            return []
        terms, info = self._query_terms(query)
        if not terms:
            return []
        if self._bm25s is not None:
            scores = _bm25s_scores(self._bm25s, terms, len(self.documents))
        else:
            scores = self._builtin.scores(terms)
        exact = self._exact.get(query.strip().lower())
        if exact is not None:
            # naming a skill exactly should always find it first
            top = max(scores.values(), default=0.0)
            scores[exact] = top + 1.0
        best = heapq.nlargest(max(limit, 2), scores, key=scores.__getitem__)
        best = [d for d in best if scores[d] > 0.0]
        if not best:
            return []
        units = self.evidence_units(info) if exact is None else 0.0
        scale = 1.0
        if len(info) > _LOGIT_WORDS_LONG:  # a long message meets more words by chance
            scale = _LOGIT_WORDS_LONG / len(info)
            units *= scale
        unknown = self._unknown_share(info) * min(1.0, len(self.documents) / _LOGIT_UNKNOWN_SKILLS)
        hits: list[SearchHit] = []
        for rank, doc_id in enumerate(best[:limit], start=1):
            matched = self._matched(doc_id, info)
            words = sum(1 for m in matched if not m.endswith("*"))
            confidence = _confidence(units, round(words * scale), unknown)
            if doc_id == exact:
                confidence = 1.0
            elif rank > 1:
                confidence *= scores[doc_id] / scores[best[0]]
            doc = self.documents[doc_id]
            if confidence < _NAMED and _in_name(info, doc.name):
                confidence = _NAMED  # "kubernetes", "stripe": words of the skill's name
            if hits:  # how sure the request is for this catalog: never more after the first
                confidence = min(confidence, hits[0].confidence)
            hits.append(
                SearchHit(
                    name=doc.name,
                    score=scores[doc_id],
                    description=doc.listing,
                    key=doc.key or doc.name,
                    source=doc.source,
                    rank=rank,
                    confidence=round(confidence, 4),
                    matched=matched,
                )
            )
        return hits

    def evidence_units(self, info: Mapping[str, float]) -> float:
        """How strongly the query words ``info`` match what some skill says about
        itself (``META_FIELDS``): the best BM25 score of the evidence index, in units
        of a rare word matched in full (the IDF of a word no skill has)."""
        meta = self._meta
        scores = meta.scores((t, 1.0) for t in info)
        if not scores:
            return 0.0
        return max(scores.values()) / meta.unseen_idf

    def _unknown_share(self, info: Mapping[str, float]) -> float:
        """The share of the query's information (IDF) in words no skill has (a word
        found only as the prefix of longer words counts for less)."""
        total = sum(info.values())
        if total <= 0:
            return 0.0
        postings, unknown = self._builtin.postings, 0.0
        for tok, weight in info.items():
            if tok not in postings:
                prefix = len(tok) >= _PREFIX_MIN and bool(self._builtin.expand(tok))
                unknown += weight * (1.0 - _PREFIX_WEIGHT) if prefix else weight
        return unknown / total

    def _matched(self, doc_id: int, info: Mapping[str, float]) -> tuple[str, ...]:
        """The query words ``doc_id`` has; a word it has only through a longer word it
        is a prefix of is marked ``*``."""
        postings = self._builtin.postings
        matched: list[str] = []
        for tok in info:
            post = postings.get(tok)
            if post is not None and doc_id in post:
                matched.append(tok)
            elif (
                len(tok) >= _PREFIX_MIN
                and tok not in postings
                and any(doc_id in postings[e] for e in self._builtin.expand(tok))
            ):
                matched.append(tok + "*")
        return tuple(matched)


def _in_name(info: Mapping[str, float], name: str) -> bool:
    """Whether every query word is a word of ``name`` (the query names the skill)."""
    if not info:
        return False
    own = tokenize(name.replace("_", "-"))
    return all(t in own for t in info)


def _confidence(units: float, words: int, unknown: float) -> float:
    """The logistic model of the first hit's confidence (see ``_LOGIT_INTERCEPT``)."""
    logit = (
        _LOGIT_INTERCEPT
        + _LOGIT_EVIDENCE * units
        + _LOGIT_WORD * min(words, _LOGIT_WORDS_MAX)
        + _LOGIT_UNKNOWN * unknown
    )
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, logit))))


def _build_bm25s(corpus: Sequence[Mapping[str, float]]) -> Any:
    try:
        import bm25s
    except ImportError as exc:
        from skilldeck._extras import install_hint

        raise ImportError(
            f"the bm25s search backend needs the extra: {install_hint('search')}"
        ) from exc
    retriever = bm25s.BM25(k1=_K1, b=_B, method="lucene")
    docs = [[t for t, w in tf.items() for _ in range(max(1, round(w)))] or [""] for tf in corpus]
    retriever.index(docs, show_progress=False)
    return retriever


def _bm25s_scores(retriever: Any, terms: list[tuple[str, float]], n: int) -> dict[int, float]:
    import numpy as np

    total = np.zeros(n, dtype="float32")
    vocab = retriever.vocab_dict
    for term, weight in terms:
        if term in vocab:
            total += weight * retriever.get_scores([term])
    k = min(n, 200)
    idx = np.argpartition(-total, k - 1)[:k]
    return {int(i): float(total[i]) for i in idx if total[i] > 0}
