"""The pre-flight hint: which skills fit the user's message, said before the model answers.

``runtime.preflight(message)`` renders the confident suggestions as one short block::

    <skill_hint>
    Before answering, consider these skills; load the one that fits with skills_load:
    - pdf: Extract text and tables from PDF files… (matches: PDF, tables)
    </skill_hint>

Nothing is rendered when no suggestion is confident, so ordinary requests are not
steered. Descriptions are cut to ``MAX_DESCRIPTION`` characters and escaped like
the skill list's XML.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from skilldeck.disclosure import xml_escape
from skilldeck.search import tokenize

__all__ = ["MAX_DESCRIPTION", "render_preflight"]

MAX_DESCRIPTION = 160
_WORD = re.compile(r"[^\W_]+")


def _why(message: str, suggestion: Any) -> str:
    reasons = []
    for reason in suggestion.reasons:
        kind, _, value = reason.partition(":")
        if kind in {"keyword", "verb", "phrase"}:
            reasons.append(value)
        elif kind == "pattern":
            reasons.append("a pattern")
    wanted = set(tokenize(f"{suggestion.name.replace('-', ' ')} {suggestion.description}"))
    words: list[str] = []
    for word in _WORD.findall(message[:2000]):
        toks = tokenize(word)
        if toks and toks[0] in wanted and word not in words:
            words.append(word)
    reasons.extend(words[:6])
    return ", ".join(dict.fromkeys(reasons))


def render_preflight(
    message: str, suggestions: Sequence[Any], *, load_tool: str = "skills_load"
) -> str:
    """The ``<skill_hint>`` block for ``suggestions`` (``""`` when there are none)."""
    if not suggestions:
        return ""
    lines = [
        "<skill_hint>",
        f"Before answering, consider these skills; load the one that fits with {load_tool}:",
    ]
    for s in suggestions:
        text = " ".join(str(s.description).split())
        if len(text) > MAX_DESCRIPTION:
            text = text[: MAX_DESCRIPTION - 1].rstrip() + "…"
        why = _why(message, s)
        line = f"- {s.name}: {text}"
        if why:
            line += f" (matches: {why})"
        lines.append(xml_escape(line))
    lines.append("</skill_hint>")
    return "\n".join(lines)
