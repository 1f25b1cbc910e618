"""The one rule for a template placeholder: a SKILL.md that only shows how to
write a skill (anthropics/skills' ``template/``, a repository's ``skill-name``
sample), which is never listed, served or installed as a skill (``SK219``).

A skill is a placeholder when both hold:

- its name or its folder's name is a template name (``template``,
  ``template-skill``, ``skill-template``, ``skill-name``, ``your-skill-name``,
  ``my-skill-name``, ``example-skill``), and
- its description is template text (it starts with ``Replace with``,
  ``Replace this``, ``[TODO``, ``TODO:``, ``TBD``, ``<one-line description>``,
  ``A description of what this skill does``, ...).

Requiring both keeps a real skill that happens to be called ``template`` and a
new skill whose description is not written yet (``skilldeck new`` lints that as
SK312) listed.
"""

from __future__ import annotations

import re

__all__ = ["PLACEHOLDER_NAMES", "is_placeholder", "placeholder_text"]

PLACEHOLDER_NAMES = frozenset(
    {
        "template",
        "template-skill",
        "skill-template",
        "skill-name",
        "your-skill-name",
        "my-skill-name",
        "example-skill",
    }
)

_TEXT = re.compile(
    r"[\s\"'`\[<(]*(?:replace (?:with|this)\b|todo\b|tbd\b|fill (?:in|this)\b"
    r"|one-line description\b|describe (?:what|the|your)\b|your description\b"
    r"|an? (?:brief |short |clear )?description of (?:what|the skill)\b)",
    re.IGNORECASE,
)


def placeholder_text(description: str) -> bool:
    """Is ``description`` template text rather than a description (linear time)?"""
    return _TEXT.match(description[:200]) is not None


def is_placeholder(name: str | None, description: str | None, folder_name: str | None) -> bool:
    """Is a skill of this name, description and folder a template placeholder?"""
    for n in (name, folder_name):
        if n and n.strip().lower() in PLACEHOLDER_NAMES:
            return placeholder_text(description or "")
    return False
