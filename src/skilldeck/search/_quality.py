"""Catalog quality for routing: which descriptions make the model pick the wrong skill.

``lint_catalog(skills)`` looks at a whole catalog's names and descriptions (the
text the model routes on) and reports, as ``CatalogFinding`` values:

- ``identical_description``: two or more skills with the same description;
- ``near_identical``: siblings whose descriptions share most of their words
  (Jaccard similarity of their words at least ``NEAR``), with a suggested
  disambiguation built from the words only one of them has ("use X instead when …");
- ``template_description``: descriptions that are the same once the skill's own
  name is taken out, and sentences that many descriptions share that way
  (``Use when working with {name}.``): they tell the model nothing the name does
  not;
- ``no_when_clause``: no "use when / use for / when …" clause saying when to use it;
- ``no_not_for_clause``: no "not for / do not use / instead" clause saying when not
  to (reported only as a count and a few names: most skills lack one);
- ``name_collision``: names that differ only by case, separators or a plural ``s``
  (``email-sequence`` and ``email-sequences``).

It reads metadata only, so it costs no more than a listing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from skilldeck.search._bm25 import tokenize

__all__ = ["NEAR", "CatalogFinding", "CatalogReport", "lint_catalog"]

NEAR = 0.65
TEMPLATE_SENTENCE = 10  # a sentence shared by this many descriptions is boilerplate
_MAX_DF = 60  # words in more descriptions than this do not make candidate pairs
_WHEN = re.compile(
    r"\b(use (it |this )?(when|for|if|whenever|to)|used (when|for)|when (the user|you|asked|users?)"
    r"|triggers? (on|include|when)|whenever|should be used)\b",
    re.IGNORECASE,
)
_NOT_FOR = re.compile(
    r"\b(not for|not (to be )?used|do not use|don'?t use|never use|instead|avoid (it )?when|"
    r"not when|skip (it )?when)\b",
    re.IGNORECASE,
)
_SEP = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class CatalogFinding:
    """One finding: its ``kind``, the skills involved, a message and a hint."""

    kind: str
    skills: tuple[str, ...]
    message: str
    hint: str | None = None
    similarity: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "skills": list(self.skills)}
        out["message"] = self.message
        if self.hint:
            out["hint"] = self.hint
        if self.similarity is not None:
            out["similarity"] = round(self.similarity, 3)
        return out


@dataclass(frozen=True, slots=True)
class CatalogReport:
    """Every finding of one catalog, and how many skills were looked at."""

    skills: int
    findings: tuple[CatalogFinding, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)

    def of(self, kind: str) -> list[CatalogFinding]:
        return [f for f in self.findings if f.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        return {
            "skills": self.skills,
            "counts": dict(self.counts),
            "findings": [f.to_dict() for f in self.findings],
        }


def _words(text: str) -> frozenset[str]:
    return frozenset(t for t in tokenize(text) if "-" not in t)


def _identical(skills: Sequence[Any]) -> list[CatalogFinding]:
    groups: dict[str, list[str]] = {}
    for m in skills:
        key = " ".join(str(m.description).lower().split())
        if key:
            groups.setdefault(key, []).append(m.name)
    return [
        CatalogFinding(
            "identical_description",
            tuple(names),
            f"{len(names)} skills share one description: {', '.join(names[:6])}"
            + (" …" if len(names) > 6 else ""),
            hint="say what each does differently and when to pick it over the others",
        )
        for names in groups.values()
        if len(names) > 1
    ]


def _skeleton(meta: Any) -> str:
    """The description lower-cased with the skill's own name replaced by ``{name}``."""
    text = " ".join(str(meta.description).lower().split())
    name_words = [w for w in _SEP.split(meta.name.lower()) if w]
    if not name_words:
        return text
    pattern = re.compile(r"\b" + r"[\s_-]+".join(map(re.escape, name_words)) + r"\b")
    return pattern.sub("{name}", text)


def _templates(skills: Sequence[Any]) -> list[CatalogFinding]:
    groups: dict[str, list[str]] = {}
    sentences: dict[str, list[str]] = {}
    for m in skills:
        skeleton = _skeleton(m)
        if "{name}" in skeleton:
            groups.setdefault(skeleton, []).append(m.name)
        for sentence in re.split(r"(?<=[.!?])\s+", skeleton):
            if "{name}" in sentence and len(sentence) > len("{name}") + 3:
                sentences.setdefault(sentence.strip(), []).append(m.name)
    out = []
    whole: set[str] = set()
    for template, names in groups.items():
        if len(names) >= 3:
            whole.update(names)
            out.append(
                CatalogFinding(
                    "template_description",
                    tuple(names),
                    f"{len(names)} descriptions are one template with the name filled in: "
                    f"{template[:120]!r}",
                    hint="describe what the skill does and when to use it, in its own words",
                )
            )
    for sentence, names in sentences.items():
        if len(names) >= TEMPLATE_SENTENCE and not set(names) <= whole:
            out.append(
                CatalogFinding(
                    "template_description",
                    tuple(names),
                    f"{len(names)} descriptions share the template sentence {sentence[:120]!r}",
                    hint="replace it with the requests the skill is for; it only repeats the name",
                )
            )
    return out


def _near(skills: Sequence[Any], known: set[frozenset[str]]) -> list[CatalogFinding]:
    words = [_words(m.description) for m in skills]
    postings: dict[str, list[int]] = {}
    for i, ws in enumerate(words):
        for w in ws:
            postings.setdefault(w, []).append(i)
    out: list[CatalogFinding] = []
    for i, ws in enumerate(words):
        if len(ws) < 4:
            continue
        overlap: dict[int, int] = {}
        for w in ws:
            post = postings[w]
            if len(post) > _MAX_DF:
                continue
            for j in post:
                if j > i:
                    overlap[j] = overlap.get(j, 0) + 1
        for j, common in overlap.items():
            other = words[j]
            # the frequent words were skipped: count them back in before judging
            shared = common + sum(1 for w in ws & other if len(postings[w]) > _MAX_DF)
            jaccard = shared / len(ws | other)
            a, b = skills[i], skills[j]
            if jaccard < NEAR or frozenset((a.name, b.name)) in known:
                continue
            if _skeleton(a) == _skeleton(b):
                continue  # identical or one template: reported as such
            only_a = _distinct(a.description, other)
            only_b = _distinct(b.description, ws)
            hint = (
                f"say 'use {b.name} instead when {', '.join(only_b) or '…'}' in {a.name}, and "
                f"'use {a.name} instead when {', '.join(only_a) or '…'}' in {b.name}"
            )
            out.append(
                CatalogFinding(
                    "near_identical",
                    (a.name, b.name),
                    f"{a.name} and {b.name} have near-identical descriptions "
                    f"({jaccard:.0%} of their words shared)",
                    hint=hint,
                    similarity=jaccard,
                )
            )
    out.sort(key=lambda f: -(f.similarity or 0.0))
    return out


def _distinct(text: str, other: frozenset[str]) -> list[str]:
    """The words of ``text`` (as written) whose stems ``other`` lacks, first five."""
    out: list[str] = []
    for raw in re.findall(r"[^\W_][\w.+#/-]*", text):
        word = raw.rstrip(".,;:/-")
        toks = [t for t in tokenize(word) if "-" not in t]
        if toks and not set(toks) & other and word.lower() not in out:
            out.append(word.lower())
        if len(out) >= 5:
            break
    return out


def _collisions(names: Iterable[str]) -> list[CatalogFinding]:
    groups: dict[str, set[str]] = {}
    for name in names:
        key = _SEP.sub("", name.lower())
        key = key[:-1] if key.endswith("s") and len(key) > 3 else key
        groups.setdefault(key, set()).add(name)
    return [
        CatalogFinding(
            "name_collision",
            tuple(sorted(found)),
            f"names that differ only by case, separators or a plural: {', '.join(sorted(found))}",
            hint="give each a name that says how it differs, or merge them",
        )
        for found in groups.values()
        if len(found) > 1
    ]


def _clauses(skills: Sequence[Any]) -> list[CatalogFinding]:
    no_when = [m.name for m in skills if not _WHEN.search(_listing(m))]
    no_not = [m.name for m in skills if not _NOT_FOR.search(_listing(m))]
    out = []
    if no_when:
        out.append(
            CatalogFinding(
                "no_when_clause",
                tuple(no_when),
                f"{len(no_when)} of {len(skills)} descriptions never say when to use the skill",
                hint="add a 'Use when …' sentence naming the requests it is for",
            )
        )
    if no_not:
        out.append(
            CatalogFinding(
                "no_not_for_clause",
                tuple(no_not),
                f"{len(no_not)} of {len(skills)} descriptions never say when not to use the skill",
                hint="where a sibling skill is easy to confuse, add 'Not for …; use OTHER instead'",
            )
        )
    return out


def _listing(meta: Any) -> str:
    when = getattr(meta, "when_to_use", None)
    return f"{meta.description} {when}" if when else str(meta.description)


def lint_catalog(skills: Sequence[Any], *, names: Iterable[str] | None = None) -> CatalogReport:
    """The routing-quality findings of ``skills`` (metadata: ``name``, ``description``,
    optional ``when_to_use``). ``names`` adds names to check for collisions (e.g. the
    shadowed candidates of a catalog)."""
    identical = _identical(skills)
    pairs = {frozenset((a, b)) for f in identical for a in f.skills for b in f.skills if a != b}
    findings = [
        *identical,
        *_near(skills, pairs),
        *_templates(skills),
        *_collisions({m.name for m in skills} | set(names or ())),
        *_clauses(skills),
    ]
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.kind] = counts.get(f.kind, 0) + len(f.skills)
    return CatalogReport(len(skills), tuple(findings), counts)
