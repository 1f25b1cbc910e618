"""Inline skills in the catalog and the runtime: precedence, listing, tool calls and failures."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import skilldeck
from skilldeck import InlineSkill, SkillsSection, SkillTool


def boom(path: str) -> None:
    """Always fails."""
    raise ValueError(f"cannot read {path}")


def refuse(path: str) -> None:
    """Fails with a skilldeck error."""
    raise skilldeck.PathNotAllowedError(f"{path} is off limits", hint="stay in the project")


def echo(**arguments: Any) -> dict[str, Any]:
    """Echo the arguments."""
    return {"got": arguments}


def answer() -> int:
    """The answer."""
    return 42


TOOLS = InlineSkill(
    name="linting",
    description="Lint Python code. Use when code needs checking.",
    title="Linting",
    template="# Linting\n\nCall the tools.\n",
    tools=[boom, refuse, echo, answer, SkillTool("ro", "Read only.", answer, read_only=True)],
)


def project_skill(name: str) -> Path:
    folder = Path.cwd() / ".agents" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: On-disk {name}. Use when asked.\n---\n# Disk\n"
    )
    return folder


def loaded_runtime() -> tuple[skilldeck.SkillRuntime, skilldeck.Session]:
    runtime = SkillsSection(skills=[TOOLS]).runtime()
    session = runtime.session()
    assert runtime.call(session, "skills_load", {"name": "linting"})["ok"]
    return runtime, session


def test_tool_results_and_failures() -> None:
    runtime, session = loaded_runtime()
    assert runtime.call(session, "answer", {})["data"] == {"result": 42}
    assert runtime.call(session, "echo", {"a": 1})["data"] == {"got": {"a": 1}}
    failed = runtime.call(session, "boom", {"path": "x.py"})
    assert failed["error"]["code"] == "SCRIPT_FAILED"
    assert "ValueError: cannot read x.py" in failed["error"]["message"]
    refused = runtime.call(session, "refuse", {"path": "/etc"})
    assert refused["error"]["code"] == "PATH_NOT_ALLOWED"
    bad = runtime.call(session, "boom", {"path": "x", "extra": 1})
    assert bad["error"]["code"] == "INVALID_ARGUMENTS"
    missing = runtime.call(session, "boom", {})
    assert missing["error"]["code"] == "INVALID_ARGUMENTS"
    specs = {s.name: s for s in runtime.tool_specs(session)}
    assert specs["ro"].read_only is True
    assert specs["boom"].origin == "skill:linting"


def test_inline_source_wins_over_disk_and_shadowed_copy_unlocks_nothing() -> None:
    project_skill("linting")
    section = SkillsSection(skills=[TOOLS])
    catalog = section.catalog(defaults=True, cache=False)
    visible = catalog.get("linting")
    assert visible.source == "inline"
    hidden = catalog.get("project:linting")
    assert hidden.status is skilldeck.SkillStatus.SHADOWED
    assert hidden.shadowed_by == "inline:linting"
    runtime = section.runtime(catalog=catalog)
    session = runtime.session()
    loaded = runtime.call(session, "skills_load", {"name": "project:linting"})
    assert loaded["ok"] and loaded["data"]["body"].startswith("# Disk")
    assert "boom" not in {s.name for s in runtime.tool_specs(session)}
    runtime.call(session, "skills_load", {"name": "linting"})
    assert "boom" in {s.name for s in runtime.tool_specs(session)}


def test_inline_skills_reach_every_listing_and_search() -> None:
    plain = InlineSkill(
        name="release-notes",
        description="Write release notes from merged pull requests.",
        title="Release Notes",
        template="# Release notes\n\n## Gather changes\n\nList merged PRs.\n",
    )
    section = SkillsSection(skills=[TOOLS, plain])
    catalog = section.catalog()
    skill_list = skilldeck.render_skills(catalog.list())
    assert "release-notes" in skill_list
    assert "Load this skill to use its tools: boom, refuse, echo, answer, ro." in skill_list
    assert catalog.load("release-notes").body.lstrip().startswith("# Release notes")
    runtime = section.runtime(catalog=catalog)
    found = runtime.call(runtime.session(), "skills_search", {"query": "release notes"})
    assert found["data"]["results"][0]["name"] == "release-notes"


def test_enabled_skills_filter_reaches_the_catalog() -> None:
    plain = InlineSkill(name="notes", description="Notes.", title="Notes", template="Notes.\n")
    catalog = SkillsSection(skills=[TOOLS, plain]).catalog(enabled_skills={"notes"})
    assert [m.name for m in catalog.list()] == ["notes"]


def test_forked_sessions_scope_inline_tools() -> None:
    notes = InlineSkill(name="notes", description="Notes.", title="Notes", template="Notes.\n")
    runtime = SkillsSection(skills=[TOOLS, notes]).runtime()
    parent = runtime.session()
    runtime.call(parent, "skills_load", {"name": "linting"})
    # a child starts with nothing loaded, and cannot load what it may not see
    child = parent.fork(skills=["notes"])
    assert "answer" not in {s.name for s in runtime.tool_specs(child)}
    refused = runtime.call(child, "skills_load", {"name": "linting"})
    assert refused["ok"] is False
    assert "answer" not in {s.name for s in runtime.tool_specs(child)}
    # a child limited to one tool gets only that one after loading the skill
    narrow = parent.fork(tools=["answer"])
    assert runtime.call(narrow, "skills_load", {"name": "linting"})["ok"]
    names = {s.name for s in runtime.tool_specs(narrow)}
    assert "answer" in names
    assert not names & {"boom", "echo", "refuse", "ro"}
    assert runtime.call(narrow, "echo", {})["error"]["code"] == "TOOL_NOT_ALLOWED"


@dataclass(frozen=True)
class Query:
    paths: tuple[str, ...]
    tags: frozenset[str] = frozenset()
    pair: tuple[int, str] | None = None


def test_json_arrays_reach_tuple_and_set_parameters_as_their_own_types() -> None:
    """A frozen parameters object with tuple fields must be hashable after a call."""

    def search(params: Query) -> dict[str, Any]:
        """Search paths."""
        return {
            "hash": hash(params) == hash(params),
            "paths": list(params.paths),
            "kinds": [
                type(params.paths).__name__,
                type(params.tags).__name__,
                type(params.pair).__name__,
            ],
        }

    def plain(names: tuple[str, ...], seen: set[int]) -> dict[str, Any]:
        """Plain parameters."""
        return {"kinds": [type(names).__name__, type(seen).__name__], "n": sorted(seen)}

    skill = InlineSkill(
        name="querying",
        description="Query things. Use when asked to query.",
        title="Querying",
        template="# Querying\n",
        tools=[search, plain],
    )
    runtime = SkillsSection(skills=[skill]).runtime()
    session = runtime.session()
    assert runtime.call(session, "skills_load", {"name": "querying"})["ok"]
    out = runtime.call(session, "search", {"paths": ["a", "b"], "tags": ["x"], "pair": [1, "z"]})
    assert out["ok"], out
    assert out["data"] == {
        "hash": True,
        "paths": ["a", "b"],
        "kinds": ["tuple", "frozenset", "tuple"],
    }
    out = runtime.call(session, "plain", {"names": ["a"], "seen": [3, 1, 3]})
    assert out["ok"], out
    assert out["data"] == {"kinds": ["tuple", "set"], "n": [1, 3]}
    bad = runtime.call(session, "search", {"paths": ["a"], "nope": 1})
    assert not bad["ok"] and bad["error"]["code"] == "INVALID_ARGUMENTS"
