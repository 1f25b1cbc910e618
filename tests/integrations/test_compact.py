"""Seed 003's compact tool manifest (section 7.1)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from skilldeck.adapters import COMPACT_HEADER, render_compact_manifest
from skilldeck.format import parse_declared_tools


def meta(name: str, description: str) -> SimpleNamespace:
    return SimpleNamespace(name=name, description=description)


def test_the_seeds_example_exactly() -> None:
    text = render_compact_manifest(
        [meta("git", "Git operations."), meta("summarize", "Summaries.")],
        declared={
            "git": [{"name": "git_status", "description": "Show git working tree status"}],
            "summarize": [("summarize_url", "Summarize a webpage")],
        },
        native_tools=[("typer", "Type text at cursor"), ("web_search", "Search the web")],
    )
    assert text == (
        "You are a model that can do function calling with the following functions:\n"
        "\n"
        "[Native Tools]\n"
        "- typer: Type text at cursor\n"
        "- web_search: Search the web\n"
        "\n"
        "[Skills]\n"
        "- git_status: Show git working tree status\n"
        "- summarize_url: Summarize a webpage"
    )


def test_skills_without_tools_are_listed_as_themselves(skills_root: Path) -> None:
    body = (skills_root / "echoer" / "SKILL.md").read_text(encoding="utf-8").split("---", 2)[2]
    tools, _ = parse_declared_tools(body)
    text = render_compact_manifest(
        [meta("echoer", "Echo text."), meta("notes", "Take notes\n  in   Markdown.")],
        declared={"echoer": tools},
        header=None,
    )
    assert text == "[Skills]\n- shout: Print the given text.\n- notes: Take notes in Markdown."


def test_descriptions_are_cut_and_nothing_is_dropped_silently() -> None:
    skills = [meta(f"skill-{i:02d}", "word " * 40) for i in range(30)]
    text = render_compact_manifest(skills, max_description=30, budget=400)
    assert len(text) <= 400
    lines = text.splitlines()
    assert lines[0] == COMPACT_HEADER
    shown = [line for line in lines if line.startswith("- skill-")]
    assert shown and all(len(line.split(": ", 1)[1]) <= 30 for line in shown)
    assert all(line.endswith("…") for line in shown)
    assert lines[-1] == f"- ({30 - len(shown)} more not shown: find them with skills_search)"


def test_empty_and_declared_names_not_repeated() -> None:
    assert render_compact_manifest([]) == ""
    text = render_compact_manifest(
        [meta("git", "Git.")],
        declared={"git": [("git_log", "Show the log")]},
        native_tools=[("git_log", "Show the log (declared by skill git)"), ("skills_load", "")],
        header=None,
    )
    assert text == "[Native Tools]\n- skills_load\n\n[Skills]\n- git_log: Show the log"


def test_compact_skill_list_through_the_adapters(make_runtime: Callable[..., Any]) -> None:
    from skilldeck.integrations.langchain import SkillsToolkit

    runtime, _ = make_runtime()
    toolkit = SkillsToolkit.for_runtime(runtime, list_format="compact")
    before = toolkit.skill_list()
    assert before.startswith(COMPACT_HEADER)
    assert "- echoer: Echo text back." in before
    assert "- skills_load: " in before and "- save_note: Save a note." in before
    toolkit.tool("skills_load").invoke({"name": "echoer"})
    after = toolkit.skill_list()
    skills_part = after.split("[Skills]\n", 1)[1]
    assert "- shout: Print the given text." in skills_part
    assert "- echoer:" not in skills_part
