"""The fusions and abstentions tried against the shipped ones, on the tuning sets only.

Usage::

    python bench/routing_variants.py --embedder MODEL [--embedder MODEL ...]
                                     [--corpus ../shared/corpus] [--cache DIR]

Runs the requests of the two tuning sets (``bench/data/routing.jsonl`` and
``routing_tuning2.jsonl``; the held-out and unseen sets are never read) over the
corpus and scores, summed over the models given:

- fusions: the shipped score fusion and its variants (without the lexical
  confidence, with its square root, min-max scaled cosines, a power of the cosine
  share, each ranking's first hit kept in the first three, other depths, dense
  pseudo-relevance feedback, and a listwise model learned on the candidates'
  features), by direct top-1 + goal-phrased top-1 + top-3 hits (two points per
  request at most), each with its parameter chosen on four fifths and scored on
  the fifth (five-fold cross-validation);
- abstentions: logistic models of the lexical logit and the best cosine with
  other features of the request's cosines, by leave-one-out log-loss, with the
  abstention rate and precision of their leave-one-out predictions at 0.5, and
  the shipped model's at other decision points, with the same features fitted
  on one tuning set and scored on the other (cross-set);
- weighted reciprocal-rank fusion (``k``, the dense ranking's weight, depth);
- the request as the model reads it: with its lead-in (``I need to``, ``help me``,
  ``can you``, ``how do I`` ...) taken off before it is embedded (lexical search
  drops those words already), in the fusion and in the abstention;
- with ``--texts``, what represents a skill on the dense side: the shipped text
  (name, description and usage sections), the description alone, the first body
  paragraph, the headings, the tags and each section of the body (heading and its
  first 80 words, at most 8 a skill), as one more text scored by max-similarity,
  blended with the shipped text's cosine, or averaged into one vector; scored like
  the fusions, and the best section's cosine as an abstention feature, over all
  sections, over each skill's first one to four and over those whose heading says
  what the skill is for ("When to use", "Overview", "Examples": what a cheaper
  variant would embed). This embeds some 15,000 texts per model (the corpus's bodies): minutes
  of CPU.

With ``--fourth``, only the fourth round instead: the evidence index's score
(name, tags, description, headings) and lexical pseudo-relevance feedback (RM3) as
a third score of the fusion (feedback also in place of the lexical ranking), long
requests split into clauses and embedded one by one, and the shipped abstention's
decision point chosen for the targets (83 % abstained at 92 % precision) instead
of 0.5; ``--adapter`` adds query adapters fitted on the catalog alone: requests
made from each skill's own text (quoted examples, clauses of its description and
usage sections) embedded, and a linear map that takes them toward their skill's
vector (ridge, or contrastive over every skill) applied to the real requests,
the ridge map's settings also chosen without labels (by how well it finds held-out
made-up requests), and the abstention with the best cosine in the adapted space
(embeds some 15,000 short texts per model: minutes of CPU).

Every score is given five-fold cross-validated (requests dealt to folds in turn)
and cross-set (the parameter chosen on one tuning set, scored on the other, both
ways summed). ``--cache`` keeps the catalog cache and the skill vectors between runs.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import skilldeck
from skilldeck.search import load_embedder
from skilldeck.search._bm25 import _strip_fences
from skilldeck.search._routing import load_routing_cases
from skilldeck.search._semantic import lexical_logit

sys.path.insert(0, str(Path(__file__).parent))
from routing import _logistic as logistic  # the fit bench/routing.py ships with

REPO = Path(__file__).resolve().parents[1]
TUNING = ("routing.jsonl", "routing_tuning2.jsonl")
WEIGHTS = (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
FOLDS = 5
FIRST_SECTIONS = (1, 2, 3, 4)  # cheaper variants: each skill's first sections only
# a heading that says what a skill is for ("When to use", "Overview", "Examples")
_WHAT_FOR = re.compile(r"when|use|trigger|example|purpose|overview|about|what", re.I)


class Request:
    """One tuning request: its lexical hits (position, score, confidence) and cosines."""

    def __init__(self, case: Any, lexical: list[tuple[int, float, float]], sims: Any) -> None:
        self.case = case
        self.kind = case.kind
        self.expected = set(case.expected)
        self.lexical = lexical
        self.sims = sims
        self.vector: Any = None  # the request's vector (for pseudo-relevance feedback)
        self.bare: Any = sims  # cosines of the request without its lead-in


def fuse(
    req: Request,
    names: Sequence[str],
    weight: float,
    *,
    depth: int = 100,
    sure: Callable[[float], float] = lambda c: c,
    cosine: str = "share",
    power: float = 1.0,
    hedge: bool = False,
    sims: Any = None,
) -> list[str]:
    """The first three of a score fusion (the shipped one with the defaults)."""
    sims = req.sims if sims is None else sims
    lex = req.lexical[:depth]
    order = np.argsort(-sims, kind="stable")[:depth]
    fused: dict[int, float] = {}
    confidence = sure(min(1.0, lex[0][2])) if lex else 0.0
    best = lex[0][1] if lex else 0.0
    for pos, score, _ in lex:
        fused.setdefault(pos, (1 - weight) * confidence * (score / best if best > 0 else 0.0))
    top, low = float(sims[order[0]]), float(sims[order[-1]])
    for pos in dict.fromkeys([*fused, *order.tolist()]):
        c = float(sims[pos])
        if top <= 0 or c <= 0:
            continue
        if cosine == "minmax":
            share = max(0.0, (c - low) / (top - low)) if top > low else 0.0
        else:
            share = (c / top) ** power
        fused[pos] = fused.get(pos, 0.0) + weight * share
    ranked = sorted(fused, key=lambda p: (-fused[p], p))
    if lex and lex[0][2] >= 1.0:
        ranked = [lex[0][0], *(p for p in ranked if p != lex[0][0])]
    if hedge:  # each ranking's first hit among the first three
        first = ranked[:3]
        for must in ([lex[0][0]] if lex else []) + [int(order[0])]:
            if must not in first:
                first = [*first[:2], must]
        ranked = first + [p for p in ranked if p not in first]
    return [names[p] for p in ranked[:3]]


def goal_top3(req: Request, got: Sequence[str]) -> int:
    """1 for a goal-phrased request (one with an answer) whose answer is among ``got``."""
    return int(req.kind != "direct" and bool(req.expected) and any(g in req.expected for g in got))


def points(req: Request, got: Sequence[str]) -> int:
    top1 = int(bool(got) and got[0] in req.expected)
    top3 = int(any(g in req.expected for g in got))
    if req.kind == "direct":
        return top1
    return top1 + top3 if req.expected else 0


def cross_validated(grid: dict[Any, list[int]], folds: Sequence[int] | None = None) -> int:
    """Hits of the parameter chosen on the other folds, summed over the folds
    (``folds``: each request's fold; default: five, dealt in turn)."""
    fold_of = list(folds) if folds is not None else [i % FOLDS for i in range(len(SET_OF))]
    total = 0
    for fold in sorted(set(fold_of)):

        def score(key: Any, fold: int = fold) -> int:
            return sum(v for v, f in zip(grid[key], fold_of, strict=True) if f != fold)

        chosen = max(sorted(grid, key=str), key=score)
        total += sum(v for v, f in zip(grid[chosen], fold_of, strict=True) if f == fold)
    return total


SET_OF: list[int] = []  # each tuning request's set (0 or 1): the cross-set folds


def both(grid: dict[Any, list[int]]) -> str:
    """The grid's best, five-fold and cross-set cross-validated scores."""
    best = max(grid, key=lambda k: sum(grid[k]))
    return (
        f"{sum(grid[best]):4} ({best})  cv {cross_validated(grid)}  "
        f"cross-set {cross_validated(grid, SET_OF)}"
    )


def leave_one_out(x: Any, y: Any) -> Any:
    out = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        w = logistic(x[keep], y[keep])
        out.append(1 / (1 + np.exp(-np.clip(x[i] @ w, -50, 50))))
    return np.array(out)


def listwise(train: list[tuple[Any, Any]], iters: int = 300) -> Any:
    """Weights of a linear score over candidate features, maximising the softmax
    probability of the right candidates (Adam, a little L2)."""
    w = np.zeros(train[0][0].shape[1])
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, iters + 1):
        g = 1e-2 * w
        for x, y in train:
            z = 10 * (x @ w)
            p = np.exp(z - z.max())
            p /= p.sum()
            q = p * y / (p * y).sum()
            g += 10 * (x.T @ (p - q)) / len(train)
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        w -= 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return w


def candidates(req: Request) -> tuple[list[int], Any]:
    """The fusion's candidates and their features: lexical share times confidence,
    lexical share, cosine share, cosine, reciprocal ranks (k 10) in each ranking,
    cosine share times (1 - lexical confidence)."""
    lex, sims = req.lexical[:100], req.sims
    sure = min(1.0, lex[0][2]) if lex else 0.0
    best = lex[0][1] if lex else 0.0
    share = {p: (s / best if best > 0 else 0.0) for p, s, _ in reversed(lex)}
    lex_rank = {p: r for r, (p, _, _) in reversed(list(enumerate(lex, 1)))}
    order = np.argsort(-sims, kind="stable")[:100]
    dense_rank = {int(p): r for r, p in enumerate(order, 1)}
    top = float(sims[order[0]])
    cands = list(dict.fromkeys([*lex_rank, *dense_rank]))
    rows = []
    for p in cands:
        c = float(sims[p])
        cs = max(0.0, c) / top if top > 0 else 0.0
        rows.append(
            [
                sure * share.get(p, 0.0),
                share.get(p, 0.0),
                cs,
                c,
                1 / (10 + lex_rank[p]) if p in lex_rank else 0.0,
                1 / (10 + dense_rank[p]) if p in dense_rank else 0.0,
                (1 - sure) * cs,
            ]
        )
    return cands, np.array(rows)


def rrf(req: Request, names: Sequence[str], k: int, dense: float, depth: int) -> list[str]:
    """The first three of a reciprocal-rank fusion, the dense ranking weighted ``dense``."""
    fused: dict[int, float] = {}
    for rank, (pos, _, _) in enumerate(req.lexical[:depth], 1):
        fused[pos] = 1 / (k + rank)
    for rank, pos in enumerate(np.argsort(-req.sims, kind="stable")[:depth].tolist(), 1):
        if req.sims[pos] > 0:
            fused[pos] = fused.get(pos, 0.0) + dense / (k + rank)
    ranked = sorted(fused, key=lambda p: (-fused[p], p))
    if req.lexical and req.lexical[0][2] >= 1.0:
        ranked = [req.lexical[0][0], *(p for p in ranked if p != req.lexical[0][0])]
    return [names[p] for p in ranked[:3]]


def cross_set(x: Any, y: Any) -> str:
    """Log-loss, abstained and precision at 0.5 of the logistic model fitted on one
    tuning set and applied to the other (both ways)."""
    sets = np.array(SET_OF)
    p = np.zeros(len(y))
    for held in (0, 1):
        w = logistic(x[sets != held], y[sets != held])
        p[sets == held] = 1 / (1 + np.exp(-np.clip(x[sets == held] @ w, -50, 50)))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    abstain, off = p < 0.5, y == 0
    right = int((abstain & off).sum())
    return f"{loss:.4f} {right / off.sum():6.1%} {right / max(int(abstain.sum()), 1):6.1%}"


_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")

# what a request says before its task: politeness, "I need to", "how do I" (repeatable)
_LEAD_IN = re.compile(
    r"^(?:\s*(?:please|pls|hey|hi|ok(?:ay)?|so|and|now|also|just|quickly)\b[\s,]*"
    r"|\s*(?:can|could|would|will) you(?: please)?(?: help me)?(?: to)?\b\s*"
    r"|\s*(?:help me|help us)(?: to)?\b\s*"
    r"|\s*(?:i|we) (?:need|want|would like|'d like|have|got|am trying|'m trying|are trying"
    r"|'re trying) to\b\s*"
    r"|\s*(?:i'd|i would|we'd|we would) like (?:you )?to\b\s*"
    r"|\s*(?:how (?:do|can|should|would) (?:i|we)|how to|is there a way to"
    r"|what(?:'s| is) the best way to)\b\s*"
    r"|\s*(?:let's|let me|let us)\b\s*"
    r"|\s*(?:i need|we need|i want|we want)\b\s*"
    r")+",
    re.I,
)
_LEAD_OUT = re.compile(
    r"[\s,]*(?:,\s*)?(?:can|could|would) you (?:please )?(?:help|do (?:that|this|it))?[\s?.!]*$"
    r"|[\s,]+please[\s?.!]*$",
    re.I,
)
_ASIDE = re.compile(r",\s*(?:can|could|would) you\b\s*", re.I)


def bare_request(query: str) -> str:
    """``query`` without its lead-in and polite tail ("I need to", "help me", ", can
    you ..."), unless fewer than two words would be left."""
    bare = _LEAD_OUT.sub("", _ASIDE.sub(", ", _LEAD_IN.sub("", query, count=1))).strip(" ,")
    return bare if len(bare.split()) >= 2 else query


def _sections(body: str) -> list[tuple[str, str]]:
    """(heading, its prose) of a body, code blocks left out (the text before the
    first heading has the heading "")."""
    out, heading, lines = [], "", []
    for line in _strip_fences(body).splitlines():
        found = _HEADING.match(line)
        if found:
            out.append((heading, " ".join(lines)))
            heading, lines = found.group(1), []
        elif line.strip() and not line.lstrip().startswith(("|--", "<")):
            lines.append(line.strip())
    out.append((heading, " ".join(lines)))
    return [(h, t) for h, t in out if len(t.split()) >= 8]


def skill_units(catalog: Any, index: Any, semantic: Any) -> dict[str, Any]:
    """Each skill's texts besides the shipped one, embedded: ``{kind: matrix}`` for
    one text a skill (zero rows where a skill has none) and ``sections`` as
    ``(skill of each row, matrix, place of the section in its skill from 0, whether
    its heading says what the skill is for)``."""
    from skilldeck.tools._searchindex import _skill_md_path

    metas = {m.name: m for m in skilldeck.SkillRuntime(catalog).visible_skills()}
    texts: dict[str, list[str]] = {k: [] for k in ("desc", "para", "headings", "tags")}
    owners, order, what_for, sections = [], [], [], []
    for i, doc in enumerate(index.documents):
        meta, name = metas[doc.name], doc.name.replace("-", " ")
        text = Path(_skill_md_path(meta) or "").read_text("utf-8", errors="replace")
        if text.startswith("---") and (end := text.find("\n---", 3)) != -1:
            text = text[end + 4 :]
        parts = _sections(text)
        heads = [h for h, _ in parts if h]
        tags = getattr(meta, "tags", ()) or ()
        texts["desc"].append(f"{name}: {doc.listing}")
        texts["para"].append(f"{name}: {' '.join(parts[0][1].split()[:120])}" if parts else "")
        texts["headings"].append(f"{name}: {'; '.join(heads)}" if heads else "")
        texts["tags"].append(f"{name}: {', '.join(tags)}" if tags else "")
        for k, (heading, prose) in enumerate(parts[:8]):
            owners.append(i)
            order.append(k)
            what_for.append(bool(_WHAT_FOR.search(heading)))
            lead = f"{name} - {heading}" if heading else name
            sections.append(f"{lead}: {' '.join(prose.split()[:80])}")

    def embed(batch: list[str]) -> Any:
        rows = [np.asarray(semantic.embedder([t]), "float64")[0] if t else None for t in batch]
        width = len(next(r for r in rows if r is not None))
        m = np.array([r if r is not None else np.zeros(width) for r in rows])
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)

    out: dict[str, Any] = {k: embed(v) for k, v in texts.items()}
    out["sections"] = (np.array(owners), embed(sections), np.array(order), np.array(what_for))
    return out


def representations(models: list[Any], units: dict[str, Any], names: Sequence[str]) -> None:
    """Score what represents a skill on the dense side (see the module docstring)."""
    print("skill texts (the shipped fusion, its weight chosen): best, cv, cross-set")
    per_model = []
    for spec, matrix, reqs in models:
        u = units[spec]
        owners, rows, order, what_for = u["sections"]
        centroid = matrix.astype("float64").copy()
        np.add.at(centroid, owners, rows)
        centroid /= np.linalg.norm(centroid, axis=1, keepdims=True)
        cosines = []
        for r in reqs:
            shipped = np.asarray(r.sims, "float64")
            q = r.vector / np.linalg.norm(r.vector)
            best_section = np.full(len(names), -np.inf)
            np.maximum.at(best_section, owners, rows @ q)
            best_section = np.where(np.isfinite(best_section), best_section, shipped)
            one = {k: u[k] @ q for k in ("desc", "para", "headings", "tags")}
            # the best of each skill's first sections only, and of those that say
            # what the skill is for
            for label, keep in [(f"first {f}", order < f) for f in FIRST_SECTIONS] + [
                ("what for", what_for)
            ]:
                best_of = np.full(len(names), -np.inf)
                np.maximum.at(best_of, owners[keep], rows[keep] @ q)
                one[label] = np.where(np.isfinite(best_of), best_of, shipped)
            cosines.append((shipped, best_section, one, centroid @ q))
        per_model.append((reqs, cosines))
    variants: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
        "shipped (name: description + usage sections)": lambda s, b, o, c: s,
        "name: description": lambda s, b, o, c: o["desc"],
        "max-sim with the first paragraph": lambda s, b, o, c: np.maximum(s, o["para"]),
        "max-sim with the headings": lambda s, b, o, c: np.maximum(s, o["headings"]),
        "max-sim with the tags": lambda s, b, o, c: np.maximum(s, o["tags"]),
        "max-sim with each section": lambda s, b, o, c: np.maximum(s, b),
        "+ 0.25 best section": lambda s, b, o, c: (s + 0.25 * b) / 1.25,
        "+ 0.5 best section": lambda s, b, o, c: (s + 0.5 * b) / 1.5,
        "+ 1.0 best section": lambda s, b, o, c: (s + b) / 2,
        "+ 0.5 first paragraph": lambda s, b, o, c: (s + 0.5 * o["para"]) / 1.5,
        "+ 0.5 headings": lambda s, b, o, c: (s + 0.5 * o["headings"]) / 1.5,
        "description + 0.5 best section": lambda s, b, o, c: (o["desc"] + 0.5 * b) / 1.5,
        "mean vector of the shipped text and sections": lambda s, b, o, c: c,
    }
    for first in [*FIRST_SECTIONS, 0]:
        for blend in (0.25, 0.5):
            key = f"first {first}" if first else "what for"
            what = f"the first {first} sections" if first else "what-for sections"
            variants[f"+ {blend} best of {what}"] = lambda s, b, o, c, k=key, x=blend: (
                (s + x * o[k]) / (1 + x)
            )
    for label, pick in variants.items():
        grid = {w: [0] * len(SET_OF) for w in WEIGHTS}
        for reqs, cosines in per_model:
            for i, (r, cos) in enumerate(zip(reqs, cosines, strict=True)):
                sims = pick(*cos)
                for w in WEIGHTS:
                    grid[w][i] += points(r, fuse(r, names, w, sims=sims))
        print(f"  {label:<48} {both(grid)}")
    print("abstention with the best section's cosine: leave-one-out log-loss, cross-set")
    y = np.array([1.0 if r.expected else 0.0 for r in per_model[0][0]])
    for (spec, _, _), (reqs, cosines) in zip(models, per_model, strict=True):
        print(f"  {spec}")
        features: list[tuple[str, Callable[[Any, Any, Any], list[float]]]] = [
            ("lexical + best", lambda s, b, o: [float(s.max())]),
            ("lexical + best + best section", lambda s, b, o: [float(s.max()), float(b.max())]),
            ("lexical + best section", lambda s, b, o: [float(b.max())]),
            ("lexical + best of any text", lambda s, b, o: [max(float(s.max()), float(b.max()))]),
            (
                "lexical + best + best what-for",
                lambda s, b, o: [float(s.max()), float(o["what for"].max())],
            ),
        ]
        for first in FIRST_SECTIONS:
            features += [
                (
                    f"lexical + best + best of first {first}",
                    lambda s, b, o, f=first: [float(s.max()), float(o[f"first {f}"].max())],
                ),
                (
                    f"lexical + best of any text, first {first}",
                    lambda s, b, o, f=first: [max(float(s.max()), float(o[f"first {f}"].max()))],
                ),
            ]
        off = y == 0
        for label, feature in features:
            x = np.array(
                [
                    [1.0, lexical_logit(r.lexical[0][2] if r.lexical else 0.0), *feature(s, b, o)]
                    for r, (s, b, o, _) in zip(reqs, cosines, strict=True)
                ]
            )
            p = np.clip(leave_one_out(x, y), 1e-9, 1 - 1e-9)
            loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
            abstain = p < 0.5
            right = int((abstain & off).sum())
            print(
                f"    {label:<42} {loss:.4f}  {right / off.sum():6.1%} "
                f"{right / max(int(abstain.sum()), 1):6.1%}  cross-set {cross_set(x, y)}"
            )


# --- the fourth round: a label-free query adapter, lexical feedback, the evidence
# index, requests split into clauses, and the abstention's decision point ---

# a clause of a skill's own text: sentences, list items, bold labels, "; "
_CLAUSE_SPLIT = re.compile(
    r"(?<=[.!?])\s+(?=[A-Z\"'*-])|\s+-\s+|\s+\*\s+|\s+\d+\.\s+|;\s+|\s+\*\*[^*]{0,40}\*\*:?\s*"
)
_CLAUSE_LEAD = re.compile(
    r"^(?:\*\*[^*]*\*\*:?\s*|use (?:this skill )?when(?: you need to| asked to| the user)?:?\s*"
    r"|this skill should be used when:?\s*|trigger phrases:?\s*|when to use:?\s*|use cases?:?\s*"
    r"|examples?:?\s*|triggers?:?\s*|[-*]\s+|\d+[.)]\s+)+",
    re.I,
)
PSEUDO_PER_SKILL = 16


def pseudo_requests(name: str, text: str, quoted: Sequence[str]) -> list[str]:
    """Requests made from a skill's own text, without labels: the example requests
    its description quotes, then the clauses (3 to 30 words) of its description and
    usage sections, lead-ins such as "Use when" taken off; at most 16."""
    head = f"{name.replace('-', ' ')}: "
    body = text[len(head) :] if text.startswith(head) else text
    out = list(quoted)
    for piece in _CLAUSE_SPLIT.split(body):
        words = _CLAUSE_LEAD.sub("", piece.strip()).strip(" \"'`.:-*").split()
        if 3 <= len(words) <= 30:
            out.append(" ".join(words))
    return list(dict.fromkeys(out))[:PSEUDO_PER_SKILL]


def ridge_adapter(pseudo: Any, targets: Any, lam: float) -> Any:
    """The linear map taking each pseudo-request's vector toward its skill's,
    shrunk toward the identity: ``argmin |P W - S|^2 + lam |W - I|^2``."""
    eye = np.eye(pseudo.shape[1])
    return np.linalg.solve(pseudo.T @ pseudo + lam * eye, pseudo.T @ targets + lam * eye)


def contrastive_adapter(
    pseudo: Any, owners: Any, matrix: Any, *, tau: float = 20.0, mu: float = 0.0, steps: int = 100
) -> Any:
    """``I + D`` fitted so that each pseudo-request, mapped and normalised, picks its
    own skill in a softmax over every skill's cosine (temperature ``1 / tau``; Adam on
    batches of 512; ``mu`` pulls ``D`` toward zero)."""
    d = pseudo.shape[1]
    rng = np.random.default_rng(0)
    delta, m, v = np.zeros((d, d)), np.zeros((d, d)), np.zeros((d, d))
    batch = min(512, len(pseudo))
    for t in range(1, steps + 1):
        idx = rng.choice(len(pseudo), batch, replace=False)
        x = pseudo[idx]
        a = x + x @ delta
        n = np.linalg.norm(a, axis=1, keepdims=True)
        u = a / n
        z = tau * u @ matrix.T
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(batch), owners[idx]] -= 1
        du = tau * (p / batch) @ matrix
        g = x.T @ ((du - u * (du * u).sum(axis=1, keepdims=True)) / n) + 2 * mu * delta
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        delta -= 1e-3 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return np.eye(d) + delta


def adapted_sims(queries: Any, matrix: Any, w: Any, beta: float) -> Any:
    """Cosines of each request blended with its mapped vector (``beta`` of it)."""
    a = queries @ w
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    q = (1 - beta) * queries + beta * a
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return q @ matrix.T


def third_score(
    req: Request, names: Sequence[str], weight: float, extra: Sequence[tuple[int, float]], w3: float
) -> list[str]:
    """The shipped fusion plus ``w3`` times the lexical confidence times a third
    ranking's score as a share of its best (lexical feedback, the evidence index)."""
    lex = req.lexical[:100]
    sims = req.sims
    order = np.argsort(-sims, kind="stable")[:100]
    sure = min(1.0, lex[0][2]) if lex else 0.0
    best = lex[0][1] if lex else 0.0
    fused: dict[int, float] = {}
    for pos, score, _ in lex:
        fused.setdefault(pos, (1 - weight) * sure * (score / best if best > 0 else 0.0))
    top = float(sims[order[0]])
    for pos in dict.fromkeys([*fused, *order.tolist()]):
        c = float(sims[pos])
        if top > 0 and c > 0:
            fused[pos] = fused.get(pos, 0.0) + weight * c / top
    if extra:
        for pos, score in extra[:100]:
            fused[pos] = fused.get(pos, 0.0) + w3 * sure * score / extra[0][1]
    ranked = sorted(fused, key=lambda p: (-fused[p], p))
    if lex and lex[0][2] >= 1.0:
        ranked = [lex[0][0], *(p for p in ranked if p != lex[0][0])]
    return [names[p] for p in ranked[:3]]


def feedback_ranking(
    index: Any,
    query: str,
    lexical: Sequence[tuple[int, float, float]],
    terms_of: Any,
    k: int,
    m: int,
    lam: float,
) -> list[tuple[int, float]]:
    """RM3: the request's terms (``1 - lam`` of the weight) plus the ``m`` terms
    most typical of its first ``k`` lexical hits (each hit's term frequencies, weighed
    by its score share and the term's IDF; ``lam``), ranked by the same BM25F index."""
    from collections import Counter

    terms, _ = index._query_terms(query)
    if not lexical or not terms:
        return []
    idf, postings = index._builtin.idf, index._builtin.postings
    related: Counter[str] = Counter()
    for pos, score, _ in lexical[:k]:
        counts = terms_of(pos)
        total = sum(counts.values()) or 1
        for term, n in counts.items():
            related[term] += n / total * score / lexical[0][1]
    weight = {t: r * idf.get(t, 0.0) for t, r in related.items() if t in postings}
    chosen = sorted(weight, key=lambda t: (-weight[t], t))[:m]
    norm, own = sum(weight[t] for t in chosen) or 1.0, sum(w for _, w in terms) or 1.0
    query_terms = {t: (1 - lam) * w / own for t, w in terms}
    for t in chosen:
        query_terms[t] = query_terms.get(t, 0.0) + lam * weight[t] / norm
    scores = index._builtin.scores(list(query_terms.items()))
    ranked = sorted(scores, key=lambda p: (-scores[p], p))[:100]
    return [(int(p), float(scores[p])) for p in ranked if scores[p] > 0]


_REQUEST_CLAUSE = re.compile(r"[,.;:!?]\s+|\s+(?:and|but|so|because|then|while)\s+", re.I)


def request_clauses(query: str) -> list[str]:
    """A request's clauses of three words or more (split at punctuation and at
    "and", "but", "so", "because", "then", "while"); none when it has only one."""
    parts = [p.strip() for p in _REQUEST_CLAUSE.split(query) if len(p.split()) >= 3]
    return parts if len(parts) >= 2 else []


TARGET_ABSTAINED, TARGET_PRECISION = 0.83, 0.92
DECISION_POINTS = tuple(round(0.05 * i, 2) for i in range(1, 20))


def decision_point(p: Any, off: Any) -> float:
    """The decision point whose abstentions (``p`` below it) clear the targets
    (83 % of off-domain requests, at 92 % precision) by the widest margin, the
    smaller of the two; ties go to the point nearest 0.5."""

    def margin(t: float) -> float:
        abstain = p < t
        right = int((abstain & off).sum())
        return round(
            min(
                right / max(int(off.sum()), 1) - TARGET_ABSTAINED,
                right / max(int(abstain.sum()), 1) - TARGET_PRECISION,
            ),
            9,
        )

    return max(DECISION_POINTS, key=lambda t: (margin(t), -abs(t - 0.5)))


def fourth_round(
    models: list[Any],
    names: Sequence[str],
    index: Any,
    texts: Sequence[str],
    quoted: Sequence[Sequence[str]],
    adapter: bool,
) -> None:
    """Score the fourth round's variants (module docstring), summed over the models."""
    from skilldeck.search._bm25 import affirmative, tokenize

    def report(label: str, grid: dict[Any, list[int]], goal3: dict[Any, int] | None = None) -> None:
        best = max(grid, key=lambda k: sum(grid[k]))
        extra = f"  goal top-3 {goal3[best]}" if goal3 else ""
        print(f"  {label:<56} {both(grid)}{extra}", flush=True)

    def scored(route: Callable[[int, Request], list[str]]) -> tuple[list[int], int]:
        per, goal3 = [0] * len(SET_OF), 0
        for _, _, reqs in models:
            for i, r in enumerate(reqs):
                got = route(i, r)
                per[i] += points(r, got)
                goal3 += goal_top3(r, got)
        return per, goal3

    def sims_grid(
        sims_of: Callable[[int, Request], Any],
        label: str,
        into: dict[Any, list[int]] | None = None,
        key: Any = (),
    ) -> None:
        grid: dict[Any, list[int]] = {}
        goal3: dict[Any, int] = {}
        for w in WEIGHTS:
            grid[w], goal3[w] = scored(lambda i, r, w=w: fuse(r, names, w, sims=sims_of(i, r)))
            if into is not None:
                into[(*key, w)] = grid[w]
        report(label, grid, goal3)

    print("fourth round: fusions, best (parameters), cv, cross-set, goal-phrased top-3 at best")
    sims_grid(lambda i, r: r.sims, "shipped score fusion")
    # the evidence index's score (name, description, tags, headings) as a third score
    evidence: list[list[tuple[int, float]]] = []
    for r in models[0][2]:
        _, info = index._query_terms(r.case.query)
        got = index._meta.scores((t, 1.0) for t in info)
        evidence.append(
            sorted(
                ((int(p), float(s)) for p, s in got.items() if s > 0), key=lambda x: (-x[1], x[0])
            )[:100]
        )
    w3s = (0.05, 0.1, 0.2, 0.3, 0.45)

    def third(
        extra: Sequence[Sequence[tuple[int, float]]],
    ) -> tuple[dict[Any, list[int]], dict[Any, int]]:
        grid: dict[Any, list[int]] = {}
        goal3: dict[Any, int] = {}
        for w in WEIGHTS:
            for w3 in w3s:
                grid[(w, w3)], goal3[(w, w3)] = scored(
                    lambda i, r, w=w, w3=w3: third_score(r, names, w, extra[i], w3)
                )
        return grid, goal3

    report("+ the evidence index's score (weight, w3)", *third(evidence))
    # lexical pseudo-relevance feedback (RM3)
    counts: dict[int, Any] = {}

    def terms_of(pos: int) -> Any:
        from collections import Counter

        if pos not in counts:
            counts[pos] = Counter(t for t in tokenize(affirmative(texts[pos])) if "-" not in t)
        return counts[pos]

    feedback_all: dict[Any, list[int]] = {}
    in_place_all: dict[Any, list[int]] = {}
    for k in (3, 5, 10):
        for m in (10, 20):
            for lam in (0.3, 0.5):
                ranks = [
                    feedback_ranking(index, r.case.query, r.lexical, terms_of, k, m, lam)
                    for r in models[0][2]
                ]
                grid, goal3 = third(ranks)
                feedback_all.update({(k, m, lam, *key): v for key, v in grid.items()})
                report(f"+ lexical feedback k {k}, m {m}, lam {lam} (weight, w3)", grid, goal3)
                place: dict[Any, list[int]] = {}
                place3: dict[Any, int] = {}
                for w in WEIGHTS:

                    def instead(i: int, r: Request, w: float = w, ranks: Any = ranks) -> list[str]:
                        named = r.lexical and r.lexical[0][2] >= 1.0
                        lex = (
                            r.lexical
                            if named or not ranks[i]
                            else [(p, s, r.lexical[0][2]) for p, s in ranks[i]]
                        )
                        swapped = Request(r.case, lex, r.sims)
                        return fuse(swapped, names, w)

                    place[w], place3[w] = scored(instead)
                    in_place_all[(k, m, lam, w)] = place[w]
                report(
                    f"  lexical feedback in place of lexical k {k}, m {m}, lam {lam}", place, place3
                )
    report("+ lexical feedback, every parameter in one grid", feedback_all)
    report("lexical feedback in place of lexical, one grid", in_place_all)
    # long requests split into clauses, each embedded
    split: dict[str, list[Any]] = {}
    for spec, matrix, reqs in models:
        embedder = load_embedder(spec)
        rows = []
        for r in reqs:
            parts = request_clauses(r.case.query)
            if parts:
                v = np.vstack([np.asarray(embedder([p]), "float64")[0] for p in parts])
                rows.append((v / np.linalg.norm(v, axis=1, keepdims=True)) @ matrix.T)
            else:
                rows.append(None)
        split[spec] = rows
    clauses_all: dict[Any, list[int]] = {}
    for shortest in (8, 12, 16):
        for how in ("max", "mean", "max + whole", "mean + whole"):
            sims_by = {}
            for spec, _, reqs in models:
                out = []
                for r, parts in zip(reqs, split[spec], strict=True):
                    if parts is None or len(r.case.query.split()) < shortest:
                        out.append(r.sims)
                        continue
                    agg = parts.max(axis=0) if how.startswith("max") else parts.mean(axis=0)
                    out.append((agg + r.sims) / 2 if how.endswith("whole") else agg)
                sims_by[spec] = out
            grid, goal3 = {}, {}
            for w in WEIGHTS:
                per, g3 = [0] * len(SET_OF), 0
                for spec, _, reqs in models:
                    for i, r in enumerate(reqs):
                        got = fuse(r, names, w, sims=sims_by[spec][i])
                        per[i] += points(r, got)
                        g3 += goal_top3(r, got)
                grid[w], goal3[w] = per, g3
                clauses_all[(shortest, how, w)] = per
            report(f"clauses of requests of {shortest}+ words, {how}", grid, goal3)
    report("clauses, every parameter in one grid", clauses_all)
    if adapter:
        adapters(models, names, texts, quoted)
    decision_points(models)


def adapters(
    models: list[Any], names: Sequence[str], texts: Sequence[str], quoted: Sequence[Sequence[str]]
) -> None:
    """Query adapters fitted on the catalog alone (pseudo-requests, no labels)."""
    import time

    made = [pseudo_requests(n, t, q) for n, t, q in zip(names, texts, quoted, strict=True)]
    owners = np.array([i for i, ps in enumerate(made) for _ in ps])
    flat = [p for ps in made for p in ps]
    print(f"  {len(flat)} pseudo-requests ({sum(not ps for ps in made)} skills without)")
    fitted: list[tuple[Any, Any, Any, Any]] = []  # queries, matrix, pseudo vectors, reqs
    for spec, matrix, reqs in models:
        embedder = load_embedder(spec)
        cpu = time.process_time()
        pseudo = np.vstack([np.asarray(embedder([p]), "float64")[0] for p in flat])
        pseudo /= np.linalg.norm(pseudo, axis=1, keepdims=True)
        print(f"  embedding them took {time.process_time() - cpu:.0f} s of CPU ({spec})")
        queries = np.array([r.vector / np.linalg.norm(r.vector) for r in reqs])
        fitted.append((queries, matrix, pseudo, reqs))

    def run(
        label: str, maps: list[Any], betas: Sequence[float], into: dict[Any, list[int]], key: Any
    ) -> None:
        for beta in betas:
            grid: dict[Any, list[int]] = {}
            goal3: dict[Any, int] = {}
            for w in WEIGHTS:
                per, g3 = [0] * len(SET_OF), 0
                for (queries, matrix, _, reqs), m in zip(fitted, maps, strict=True):
                    sims = adapted_sims(queries, matrix, m, beta)
                    for i, r in enumerate(reqs):
                        got = fuse(r, names, w, sims=sims[i])
                        per[i] += points(r, got)
                        g3 += goal_top3(r, got)
                grid[w], goal3[w] = per, g3
                into[(*key, beta, w)] = per
            best = max(grid, key=lambda k: sum(grid[k]))
            print(
                f"  {f'{label}, beta {beta}':<56} {both(grid)}  goal top-3 {goal3[best]}",
                flush=True,
            )

    ridge: dict[Any, list[int]] = {}
    for lam in (3, 10, 30, 100, 300, 1000):
        maps = [ridge_adapter(p, m[owners], lam) for _, m, p, _ in fitted]
        run(f"ridge adapter, lambda {lam}", maps, (0.25, 0.5, 0.75, 1.0), ridge, (lam,))
    print(f"  {'ridge adapter, every parameter in one grid':<56} {both(ridge)}")
    contrastive: dict[Any, list[int]] = {}
    for mu in (0.0, 0.01, 0.1):
        for steps in (100, 300):
            maps = [contrastive_adapter(p, owners, m, mu=mu, steps=steps) for _, m, p, _ in fitted]
            run(
                f"contrastive adapter, mu {mu}, {steps} steps",
                maps,
                (0.5, 1.0),
                contrastive,
                (mu, steps),
            )
    print(f"  {'contrastive adapter, every parameter in one grid':<56} {both(contrastive)}")
    # the ridge adapter's parameters chosen on the catalog alone: five-fold over the
    # pseudo-requests (each fold's retrieved by the map fitted on the others)
    folds = np.random.default_rng(0).integers(0, FOLDS, len(owners))
    chosen: list[tuple[Any, float]] = []
    for _, matrix, pseudo, _ in fitted:
        eye = np.eye(pseudo.shape[1])
        parts = []  # per fold: the training Gram matrices, the held-out pseudo-requests
        for fold in range(FOLDS):
            train = folds != fold
            p_, s_ = pseudo[train], matrix[owners[train]]
            parts.append((p_.T @ p_, p_.T @ s_, pseudo[~train], owners[~train]))

        def held_out(
            lam: float, beta: float, parts: Any = parts, matrix: Any = matrix, eye: Any = eye
        ) -> int:
            found = 0
            for gram, cross, held, own in parts:
                a = held @ np.linalg.solve(gram + lam * eye, cross + lam * eye)
                a /= np.linalg.norm(a, axis=1, keepdims=True)
                q = (1 - beta) * held + beta * a
                found += int((np.argmax(q @ matrix.T, axis=1) == own).sum())
            return found

        settings = [(lam, beta) for lam in (3, 10, 30, 100, 300, 1000) for beta in (0.5, 0.75, 1.0)]
        scores = {k: held_out(*k) for k in settings}
        lam, beta = max(settings, key=lambda k: scores[k])
        print(
            f"  chosen on the pseudo-requests: lambda {lam}, beta {beta} (held-out top-1 "
            f"{scores[(lam, beta)] / len(owners):.1%}, unadapted "
            f"{int((np.argmax(pseudo @ matrix.T, axis=1) == owners).sum()) / len(owners):.1%})"
        )
        chosen.append((ridge_adapter(pseudo, matrix[owners], lam), beta))
    grid: dict[Any, list[int]] = {}
    goal3: dict[Any, int] = {}
    adapted = [
        adapted_sims(q, m, w_, b) for (q, m, _, _), (w_, b) in zip(fitted, chosen, strict=True)
    ]
    for w in WEIGHTS:
        per, g3 = [0] * len(SET_OF), 0
        for (_, _, _, reqs), sims in zip(fitted, adapted, strict=True):
            for i, r in enumerate(reqs):
                got = fuse(r, names, w, sims=sims[i])
                per[i] += points(r, got)
                g3 += goal_top3(r, got)
        grid[w], goal3[w] = per, g3
    best = max(grid, key=lambda k: sum(grid[k]))
    print(f"  {'ridge adapter chosen without labels':<56} {both(grid)}  goal top-3 {goal3[best]}")
    # the abstention with the best cosine in the adapted space
    y = np.array([1.0 if r.expected else 0.0 for r in fitted[0][3]])
    off = y == 0
    for (spec, _, _), (_, _, _, reqs), sims in zip(models, fitted, adapted, strict=True):
        lexical = [lexical_logit(r.lexical[0][2] if r.lexical else 0.0) for r in reqs]
        shipped = [float(r.sims.max()) for r in reqs]
        for label, cols in (
            ("lexical + best (shipped)", [lexical, shipped]),
            ("lexical + adapted best", [lexical, sims.max(axis=1).tolist()]),
            ("lexical + best + adapted best", [lexical, shipped, sims.max(axis=1).tolist()]),
        ):
            x = np.column_stack([np.ones(len(y)), *cols])
            p = np.clip(leave_one_out(x, y), 1e-9, 1 - 1e-9)
            loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
            right = int(((p < 0.5) & off).sum())
            print(
                f"  {spec}: {label:<30} {loss:.4f}  {right}/{int(off.sum())} at "
                f"{right}/{int((p < 0.5).sum())}  cross-set {cross_set(x, y)}"
            )


def decision_points(models: list[Any]) -> None:
    """The shipped abstention's decision point chosen for the targets: five-fold
    (chosen on the other folds' leave-one-out predictions) and cross-set (model and
    point fitted on one tuning set, applied to the other)."""
    print("abstention's decision point, chosen for the targets (83 % at 92 % precision)")
    y = np.array([1.0 if r.expected else 0.0 for r in models[0][2]])
    off, sets = y == 0, np.array(SET_OF)
    folds = np.arange(len(y)) % FOLDS
    for spec, _, reqs in models:
        x = np.array(
            [
                [1.0, lexical_logit(r.lexical[0][2] if r.lexical else 0.0), float(r.sims.max())]
                for r in reqs
            ]
        )
        loo = leave_one_out(x, y)
        for label in ("0.5", "chosen"):
            right = abstained = 0
            chosen = []
            for fold in range(FOLDS):
                keep = folds != fold
                t = 0.5 if label == "0.5" else decision_point(loo[keep], off[keep])
                chosen.append(t)
                a = (loo < t) & (folds == fold)
                right += int((a & off).sum())
                abstained += int(a.sum())
            crossed = []
            for held in (0, 1):
                train = sets != held
                w = logistic(x[train], y[train])
                t = 0.5
                if label != "0.5":
                    t = decision_point(leave_one_out(x[train], y[train]), off[train])
                p = 1 / (1 + np.exp(-np.clip(x[~train] @ w, -50, 50)))
                a, o = p < t, off[~train]
                hit = int((a & o).sum())
                crossed.append(f"{hit}/{int(o.sum())} at {hit}/{int(a.sum())} (t {t})")
            print(
                f"  {spec}: {label:<6} five-fold {right / off.sum():6.1%} at "
                f"{right / max(abstained, 1):6.1%} (t {chosen}); cross-set "
                f"{'; '.join(crossed)}; on all: t {decision_point(loo, off)}"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--embedder", metavar="MODEL", action="append", required=True)
    parser.add_argument("--cache", type=Path)
    parser.add_argument(
        "--texts", action="store_true", help="also score what text represents a skill"
    )
    parser.add_argument(
        "--fourth",
        action="store_true",
        help="score only the fourth round's variants (lexical feedback, the evidence index, "
        "clauses, the decision point)",
    )
    parser.add_argument(
        "--adapter",
        action="store_true",
        help="with --fourth, also the query adapters fitted on pseudo-requests (embeds them)",
    )
    args = parser.parse_args()
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: pass --corpus", file=sys.stderr)
        return 2
    cases = []
    for number, name in enumerate(TUNING):
        loaded = load_routing_cases(REPO / "bench" / "data" / name)
        cases += loaded
        SET_OF.extend([number] * len(loaded))
    with tempfile.TemporaryDirectory() as scratch:
        cache = str(args.cache or scratch)
        catalog = skilldeck.Catalog.from_roots([args.corpus], recursive=True, cache=cache)
        index = skilldeck.SkillRuntime(catalog).search_index()
        names = [d.name for d in index.documents]
        positions = {d.key or d.name: i for i, d in reversed(list(enumerate(index.documents)))}
        lexical = [
            [
                (positions[h.key or h.name], h.score, h.confidence)
                for h in index.search(c.query, limit=100)
            ]
            for c in cases
        ]
        models = []
        units: dict[str, Any] = {}
        for spec in args.embedder:
            semantic = skilldeck.SkillRuntime(catalog, embedder=load_embedder(spec)).search_index()
            matrix = np.asarray(semantic.matrix(), dtype="float64")
            reqs = [
                Request(c, lex, semantic.similarities(c.query))
                for c, lex in zip(cases, lexical, strict=True)
            ]
            inverse = np.linalg.pinv(matrix)  # the request's vector from its cosines
            for r in reqs:
                r.vector = inverse @ r.sims.astype("float64")
                if (bare := bare_request(r.case.query)) != r.case.query:
                    r.bare = semantic.similarities(bare)
            models.append((spec, matrix, reqs))
            texts = semantic.texts()
            if args.texts:
                units[spec] = skill_units(catalog, index, semantic)

        if args.fourth:
            from skilldeck.search._suggest import derived_phrases

            metas = {m.name: m for m in skilldeck.SkillRuntime(catalog).visible_skills()}
            quoted = [
                derived_phrases(f"{metas[n].description or ''} {metas[n].when_to_use or ''}")
                for n in names
            ]
            fourth_round(models, names, index, texts, quoted, args.adapter)
            return 0

    def summed(route: Callable[[Request, Any], list[str]]) -> list[int]:
        per = [[points(r, route(r, matrix)) for r in reqs] for _, matrix, reqs in models]
        return [sum(p) for p in zip(*per, strict=True)]

    most = sum(1 if c.kind == "direct" else 2 if c.expected else 0 for c in cases) * len(models)
    print(f"{len(cases)} tuning requests, {len(models)} model(s); hits of {most} at most")
    print("fusion: best (parameters) and five-fold cross-validated")
    variants: dict[str, dict[str, Any]] = {
        "shipped score fusion": {},
        "without the lexical confidence": {"sure": lambda c: 1.0},
        "square root of the lexical confidence": {"sure": math.sqrt},
        "cosines min-max scaled over the candidates": {"cosine": "minmax"},
        "cosine share squared": {"power": 2.0},
        "cosine share cubed": {"power": 3.0},
        "each ranking's first hit in the first three": {"hedge": True},
        "depth 50": {"depth": 50},
        "depth 200": {"depth": 200},
    }
    for label, options in variants.items():
        grid = {w: summed(lambda r, _m, w=w, o=options: fuse(r, names, w, **o)) for w in WEIGHTS}
        print(f"  {label:<48} {both(grid)}")
    bare = sum(bare_request(c.query) != c.query for c in cases)
    grid = {w: summed(lambda r, _m, w=w: fuse(r, names, w, sims=r.bare)) for w in WEIGHTS}
    print(f"  {f'request without its lead-in ({bare} changed)':<48} {both(grid)}")
    prf: dict[Any, list[int]] = {}
    for alpha in (0.25, 0.5, 1.0):
        for k in (3, 5, 10):
            for w in (0.5, 0.55, 0.6):

                def route(r: Request, m: Any, a: float = alpha, n: int = k, w: float = w) -> Any:
                    q = r.vector + a * m[np.argsort(-r.sims)[:n]].mean(axis=0)
                    return fuse(r, names, w, sims=m @ (q / np.linalg.norm(q)))

                prf[(alpha, k, w)] = summed(route)
    print(f"  {'dense pseudo-relevance feedback (alpha, k, w)':<48} {both(prf)}")
    rrf_grid = {
        (k, dense, depth): summed(lambda r, _m, k=k, d=dense, n=depth: rrf(r, names, k, d, n))
        for k in (5, 10, 20, 60)
        for dense in (0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
        for depth in (50, 100)
    }
    print(f"  {'weighted reciprocal-rank fusion (k, dense, depth)':<48} {both(rrf_grid)}")
    features = [[0, 2], [0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5, 6]]
    for cols in features:
        total = 0
        for _, _, reqs in models:
            data = []
            for r in reqs:
                cands, x = candidates(r)
                y = np.array([names[p] in r.expected for p in cands], dtype=float)
                named = r.lexical[0][0] if r.lexical and r.lexical[0][2] >= 1.0 else None
                data.append((r, cands, x[:, cols], y, named))
            for fold in range(FOLDS):
                train = [(x, y) for i, (_, _, x, y, _) in enumerate(data) if i % FOLDS != fold]
                w = listwise([(x, y) for x, y in train if y.sum() > 0])
                for i, (r, cands, x, _, named) in enumerate(data):
                    if i % FOLDS != fold:
                        continue
                    score = x @ w
                    ranked = [cands[j] for j in np.lexsort((np.array(cands), -score))]
                    if named is not None:
                        ranked = [named, *(p for p in ranked if p != named)]
                    total += points(r, [names[p] for p in ranked[:3]])
        print(f"  {f'listwise model, features {cols}':<48} {'':4}  cv {total}")
    if args.texts:
        representations(models, units, names)
    print("abstention: leave-one-out log-loss, abstained / precision at 0.5")
    y = np.array([1.0 if c.expected else 0.0 for c in cases])
    off = y == 0
    for spec, _, reqs in models:
        print(f"  {spec}")
        rows = []
        for r in reqs:
            s = np.sort(r.sims)[::-1]
            conf = r.lexical[0][2] if r.lexical else 0.0
            mu, sd = float(r.sims.mean()), float(r.sims.std())
            dense_first = np.argsort(-r.sims, kind="stable")[:5].tolist()
            lex_first = r.lexical[0][0] if r.lexical else -1
            rows.append(
                {
                    "best, request without its lead-in": float(r.bare.max()),
                    "agree": float(lex_first == dense_first[0]),
                    "lexical first in dense five": float(lex_first in dense_first),
                    "lexical": lexical_logit(conf),
                    "best": float(s[0]),
                    "z of best": (float(s[0]) - mu) / sd,
                    "mean": mu,
                    "spread": sd,
                    "gap to second": float(s[0] - s[1]),
                    "mean of five": float(s[:5].mean()),
                }
            )
        for cols in (
            ["lexical", "best"],
            ["lexical", "best", "z of best"],
            ["lexical", "best", "mean"],
            ["lexical", "best", "spread"],
            ["lexical", "best", "gap to second"],
            ["lexical", "mean of five"],
            ["lexical", "best", "mean of five"],
            ["lexical", "best", "agree"],
            ["lexical", "best", "lexical first in dense five"],
            ["lexical", "best", "agree", "gap to second"],
            ["lexical", "best, request without its lead-in"],
        ):
            x = np.array([[1.0, *(row[c] for c in cols)] for row in rows])
            p = np.clip(leave_one_out(x, y), 1e-9, 1 - 1e-9)
            loss = float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
            abstain = p < 0.5
            right = int((abstain & off).sum())
            print(
                f"    {' + '.join(cols):<34} {loss:.4f}  {right / off.sum():6.1%} "
                f"{right / max(int(abstain.sum()), 1):6.1%}  cross-set {cross_set(x, y)}"
            )
            if cols == ["lexical", "best"]:
                for t in (0.4, 0.3, 0.2, 0.1):
                    a = p < t
                    r_ = int((a & off).sum())
                    print(f"      at {t}: {r_ / off.sum():6.1%} {r_ / max(int(a.sum()), 1):6.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
