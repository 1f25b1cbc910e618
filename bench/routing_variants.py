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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--embedder", metavar="MODEL", action="append", required=True)
    parser.add_argument("--cache", type=Path)
    parser.add_argument(
        "--texts", action="store_true", help="also score what text represents a skill"
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
            if args.texts:
                units[spec] = skill_units(catalog, index, semantic)

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
