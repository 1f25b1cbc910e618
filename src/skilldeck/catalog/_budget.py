"""Fitting the skill list into a budget: which skills are listed, how much of each description.

Pure functions of a list of metadata-like objects (anything with ``name`` and
``description``), shared by the renderers and by ``Catalog.why``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "MIN_DESCRIPTION",
    "SkillLike",
    "SkillListItem",
    "SkillListPlan",
    "clean_text",
    "plan_skill_list",
]

MIN_DESCRIPTION = 80
"""Descriptions are never cut shorter than this many characters to fit a budget."""

ELLIPSIS = "…"


class SkillLike(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...


@dataclass(frozen=True, slots=True)
class SkillListItem:
    """One listed skill: its (possibly cut) description and whether it was cut."""

    skill: Any
    description: str
    cut: bool = False


@dataclass(frozen=True, slots=True)
class SkillListPlan:
    """What the skill list shows: ``items`` in order, and the skills ``omitted`` for the budget."""

    items: tuple[SkillListItem, ...]
    omitted: tuple[Any, ...] = ()

    @property
    def omitted_names(self) -> tuple[str, ...]:
        return tuple(str(s.name) for s in self.omitted)


def clean_text(text: str) -> str:
    """Whitespace runs collapsed to one space (descriptions are one paragraph in the skill list)."""
    if "  " in text or "\n" in text or "\t" in text or "\r" in text:
        return " ".join(text.split())
    return text.strip()


def cut(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS, True


def order_pinned(skills: Sequence[Any], pinned: Sequence[str]) -> tuple[list[Any], int]:
    """Pinned skills first (in pinned order), then the rest in their given order."""
    if not pinned:
        return list(skills), 0
    rank = {name: i for i, name in enumerate(pinned)}
    first = sorted((s for s in skills if s.name in rank), key=lambda s: rank[s.name])
    rest = [s for s in skills if s.name not in rank]
    return first + rest, len(first)


def plan_skill_list(
    skills: Sequence[Any],
    *,
    budget: int | None = None,
    pinned: Sequence[str] = (),
    cost: Callable[[Any, str], int] | None = None,
    overhead: int = 0,
    omitted_line: int = 0,
    max_description: int | None = None,
) -> SkillListPlan:
    """Choose which skills the skill list shows within ``budget`` characters.

    ``cost(skill, description)`` is the rendered size of one entry,
    ``overhead`` the size of the wrapper and ``omitted_line`` the size reserved
    for the final "N more skills" line. Each description is cut (with an
    ellipsis) to a fair share of the budget, never below ``MIN_DESCRIPTION``;
    skills that still do not fit are omitted, in order. Pinned skills come
    first and are always listed.
    """
    from skilldeck.format import listing_description  # imported when first needed

    ordered, n_pinned = order_pinned(skills, pinned)
    measure = cost or (lambda s, d: len(s.name) + len(d) + 2)
    texts = [clean_text(listing_description(s)) for s in ordered]
    if budget is None:
        plain: list[SkillListItem] = []
        for s, text in zip(ordered, texts, strict=True):
            desc, was_cut = cut(text, max_description) if max_description else (text, False)
            plain.append(SkillListItem(s, desc, was_cut))
        return SkillListPlan(tuple(plain))
    room = budget - overhead
    n = max(len(ordered), 1)
    fixed = [measure(s, "") for s in ordered]
    share = (room - sum(fixed)) // n if ordered else room
    limit = max(MIN_DESCRIPTION, share)
    if max_description is not None:
        limit = min(limit, max_description)
    # Give unused share of short descriptions to long ones (one redistribution pass).
    short = sum(1 for t in texts if len(t) <= limit)
    spare = sum(limit - len(t) for t in texts if len(t) <= limit)
    if short < n and spare > 0:
        limit += spare // (n - short)
        if max_description is not None:
            limit = min(limit, max_description)
    items: list[SkillListItem] = []
    used = 0
    for i, (s, text) in enumerate(zip(ordered, texts, strict=True)):
        desc, was_cut = cut(text, limit)
        size = measure(s, desc)
        remaining_after = len(ordered) - i - 1
        reserve = omitted_line if remaining_after else 0
        if i >= n_pinned and used + size + reserve > room:
            # try a harder cut before giving up on this skill
            floor_desc, _ = cut(text, MIN_DESCRIPTION)
            if used + measure(s, floor_desc) + omitted_line <= room:
                desc, was_cut = cut(
                    text, max(MIN_DESCRIPTION, room - used - omitted_line - fixed[i])
                )
                size = measure(s, desc)
            else:
                return SkillListPlan(tuple(items), tuple(ordered[i:]))
        items.append(SkillListItem(s, desc, was_cut))
        used += size
    return SkillListPlan(tuple(items))
