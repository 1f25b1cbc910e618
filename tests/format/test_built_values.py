"""The parser's values (built without their frozen ``__init__``, for speed) are whole:
every field set, equal to the same value built the usual way, frozen and hashable
where their class is."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from skilldeck import Diagnostic, parse_skill_md, read_skill_md
from skilldeck.format import Manifest, ParsedSkillMd

# every manifest field set, with findings of several severities
FULL = """---
name: demo
description: Demo skill. Use when testing.
license: MIT
compatibility: any machine
allowed-tools: Read, Bash(git:*)
metadata:
  owner: team
  level: 3
version: 1.0
author: someone
tags: [a, b]
requires:
  commands: [git]
  env: [HOME]
  gpu: true
modes: [Dev]
read_only: true
always_ask: yes
timeout: 900s
network: false
triggers:
  keywords: [pdf]
  patterns: ['(a']
when_to_use: Use when the user asks.
argument-hint: "[file]"
context: fork
effort: high
unknown_field: kept
---
# Body
"""


def _whole(obj: Any) -> None:
    """Every field readable; rebuilt through ``__init__`` it is equal; frozen."""
    cls = type(obj)
    values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(cls)}
    assert cls(**values) == obj
    assert dataclasses.replace(obj) == obj
    first = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, first, values[first])


@pytest.mark.parametrize("strict", [False, True])
def test_parsed_manifest_and_diagnostics_are_whole(strict: bool) -> None:
    parsed = parse_skill_md(FULL, folder_name="demo", mode="strict" if strict else "lenient")
    assert type(parsed) is ParsedSkillMd
    _whole(parsed)
    assert parsed.diagnostics, "the frontmatter has findings"
    for diag in parsed.diagnostics:
        assert type(diag) is Diagnostic
        _whole(diag)
        assert hash(diag) == hash(dataclasses.replace(diag))
    if not strict:
        manifest = parsed.manifest
        assert type(manifest) is Manifest
        _whole(manifest)
        assert manifest.timeout == 300 and manifest.tags == ("a", "b")
        assert manifest.requires.commands == ("git",) and manifest.invocation.context == "fork"


def test_a_metadata_read_is_whole(tmp_path: Any) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text(FULL, encoding="utf-8")
    parsed = read_skill_md(folder / "SKILL.md", metadata_only=True)
    _whole(parsed)
    assert parsed.size == len(FULL.encode()) and parsed.body == ""
    assert parsed.manifest is not None
    _whole(parsed.manifest)


def test_a_made_diagnostic_is_whole() -> None:
    made = Diagnostic.make("SK213", "a note", path="p", line=2, column=3, hint="h")
    _whole(made)
    assert made == Diagnostic("SK213", made.severity, "a note", "p", 2, 3, "h")
    assert Diagnostic.make("SK213", "x", severity="error").severity == "error"
    with pytest.raises(ValueError):
        Diagnostic.make("SK213", "x", severity="fatal")
