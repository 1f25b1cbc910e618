"""Preloaded skills: their instructions and declared tools are there from the first turn."""

from __future__ import annotations

from pathlib import Path

import pytest

import skilldeck
from skilldeck import SkillRuntime

TOOL_SKILL = """---
name: greeter
description: Greets people by name. Use when the user wants a greeting.
---

# Greeter

### greet

Say hello.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| who | string | yes | Who to greet |

#### Command

```bash
echo hello {{who}}
```
"""


def _root(tmp_path: Path) -> Path:
    folder = tmp_path / "skills" / "greeter"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(TOOL_SKILL)
    return tmp_path / "skills"


def _names(runtime: SkillRuntime, session: skilldeck.Session) -> set[str]:
    return {spec.name for spec in runtime.tool_specs(session)}


def test_a_preloaded_skill_offers_its_tools_from_the_first_turn(tmp_path: Path) -> None:
    catalog = skilldeck.Catalog.from_roots([_root(tmp_path)])
    plain = SkillRuntime(catalog)
    assert "greet" not in _names(plain, plain.session())
    runtime = SkillRuntime(catalog, preload=["greeter"])
    session = runtime.session()
    assert "greet" in _names(runtime, session)
    assert [s.name for s in session.loaded] == ["greeter"]
    # running still needs approval (nobody to ask here)
    result = runtime.call(session, "greet", {"who": "Ada"})
    assert not result["ok"] and result["error"]["code"] == "APPROVAL_REQUIRED"


def test_a_preloaded_skill_that_is_gone_is_left_out_and_recorded(tmp_path: Path) -> None:
    catalog = skilldeck.Catalog.from_roots([_root(tmp_path)])
    runtime = SkillRuntime(catalog, preload=["greeter", "no-such-skill"])
    session = runtime.session()
    assert [s.name for s in session.loaded] == ["greeter"]
    calls = [(t["tool"], t["ok"], t["code"]) for t in session.trace()]
    assert calls == [("skills_load", True, None), ("skills_load", False, "SKILL_NOT_FOUND")]


def test_preload_from_the_user_config_and_guarded_in_a_project(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="list of skill names"):
        skilldeck.RuntimeOptions(preload="greeter")  # type: ignore[arg-type]
    options = skilldeck.RuntimeOptions(preload=["greeter"])
    assert options.preload == ("greeter",)
