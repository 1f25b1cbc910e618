"""Trigger-based suggestions combined with search: ``suggest``, ``order_by_relevance``,
``runtime.suggest`` and a relevance-ordered skill list."""

from __future__ import annotations

from pathlib import Path

import pytest

import skilldeck


def write(root: Path, name: str, description: str, triggers: str = "") -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{triggers}---\n# {name}\n"
    )


def catalog(tmp_path: Path) -> skilldeck.Catalog:
    root = tmp_path / "skills"
    write(
        root,
        "greeter",
        "Writes friendly messages. Use when a message is needed.",
        'triggers:\n  keywords: ["hello", "good morning"]\n  verbs: [wave, greet]\n'
        '  patterns: ["greet\\\\s+\\\\w+"]\n',
    )
    write(
        root,
        "pdf-tools",
        "Extract text and tables from PDF files. Use when handling PDFs.",
        "triggers:\n  keywords: [pdf]\n  verbs: [extract]\n",
    )
    write(root, "csv-profile", "Profile CSV files: columns, types and nulls.")
    write(root, "weather", "Report the weather forecast for a city.")
    return skilldeck.Catalog.from_roots([root], cache=False)


def test_triggers_rank_and_explain(tmp_path: Path) -> None:
    metas = catalog(tmp_path).list()
    hits = skilldeck.suggest("Please greet Alice and say hello", metas)
    top = hits[0]
    assert top.name == "greeter"
    assert "keyword:hello" in top.reasons
    assert "verb:greet" in top.reasons
    assert "pattern:greet\\s+\\w+" in top.reasons
    assert top.score >= 3 + 2 + 4
    assert top.to_dict()["reasons"] == list(top.reasons)


def test_verb_inflections_and_phrases(tmp_path: Path) -> None:
    metas = catalog(tmp_path).list()
    for text in ("I extracted the tables", "extracting data", "it extracts"):
        (first, *_) = skilldeck.suggest(text, metas, search=False)
        assert (first.name, first.reasons) == ("pdf-tools", ("verb:extract",))
    assert skilldeck.suggest("GOOD   Morning team", metas, search=False)[0].name == "greeter"
    # whole words only: 'pdfs' is not the keyword 'pdf', 'helloworld' not 'hello'
    assert skilldeck.suggest("helloworld", metas, search=False) == []


def test_search_adds_skills_without_triggers(tmp_path: Path) -> None:
    metas = catalog(tmp_path).list()
    hits = skilldeck.suggest("profile this csv file", metas)
    assert hits[0].name == "csv-profile"
    assert hits[0].reasons[0].startswith("search:")
    assert skilldeck.suggest("profile this csv file", metas, search=False) == []
    assert skilldeck.suggest("zzzz qqqq", metas) == []


def test_limit_and_order_by_relevance(tmp_path: Path) -> None:
    metas = catalog(tmp_path).list()
    assert [m.name for m in metas] == ["csv-profile", "greeter", "pdf-tools", "weather"]
    assert len(skilldeck.suggest("hello pdf csv weather", metas, limit=2)) == 2
    ordered = skilldeck.search.order_by_relevance("extract the pdf", metas)
    assert ordered[0].name == "pdf-tools"
    assert sorted(m.name for m in ordered) == sorted(m.name for m in metas)
    # with a budget that fits one skill, the relevant one survives
    skill_list = skilldeck.render_skills(ordered, budget=350)
    assert "pdf-tools" in skill_list
    assert "weather" not in skill_list


def test_runtime_suggest(tmp_path: Path) -> None:
    runtime = skilldeck.SkillRuntime(catalog(tmp_path))
    hits = runtime.suggest("wave at the new colleague")
    assert hits[0].name == "greeter"
    assert hits[0].source == "root1"


def test_inline_skill_triggers_reach_suggest(tmp_path: Path) -> None:
    invoices = skilldeck.InlineSkill(
        name="invoices",
        description="Create and check invoices.",
        title="Invoices",
        template="# Invoices\n",
        triggers={"keywords": ["billing"], "patterns": [r"INV-\d+"]},
    )
    runtime = skilldeck.SkillsSection(skills=[invoices]).runtime()
    (hit,) = runtime.suggest("a billing question about INV-42")
    assert hit.name == "invoices"
    assert hit.reasons[:2] == ("keyword:billing", r"pattern:INV-\d+")
    # triggers are an extension: the exported SKILL.md stays strict-valid without them
    assert "triggers" not in invoices.to_skill_md()
    with pytest.raises(skilldeck.SkillValidationError, match="trigger pattern"):
        skilldeck.InlineSkill(
            name="x", description="d", title="t", template="b", triggers={"patterns": ["("]}
        )


def test_a_suggestion_is_shown_as_a_search_hit_is() -> None:
    from skilldeck.search import SearchHit, Suggestion

    fields = {"name": "greeter", "score": 3.14159, "description": "Greets.", "confidence": 0.6666}
    for key, source in (("greeter", None), ("team:greeter", "team")):
        hit = SearchHit(key=key, source=source, **fields)
        suggestion = Suggestion(key=key, source=source, reasons=("verb:greet",), **fields)
        shown = suggestion.to_dict()
        assert shown.pop("reasons") == ["verb:greet"]
        assert shown == hit.to_dict()  # two skills of one name are told apart by key
