"""``skilldeck eval routing`` and ``skilldeck lint --catalog`` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import skilldeck
from skilldeck.catalog import lint_catalog
from skilldeck.cli import main


def write(root: Path, name: str, description: str) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: '{description}'\n---\n")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write(root, "pdf", "Extract text and tables from PDF files. Use when a PDF is involved.")
    write(root, "pptx", "Create and edit PowerPoint slide decks. Use when asked for slides.")
    write(
        root,
        "java-springboot",
        "Build Spring Boot services in Java: controllers, JPA repositories, tests. "
        "Use when working on a Spring Boot service.",
    )
    write(
        root,
        "kotlin-springboot",
        "Build Spring Boot services in Kotlin: controllers, JPA repositories, tests. "
        "Use when working on a Spring Boot service.",
    )
    for product in ("alpha", "beta", "gamma"):
        write(root, f"{product}-api", f"Use when working with {product} api.")
    write(root, "email-sequence", "Plan email drip campaigns. Not for one-off emails.")
    write(root, "email-sequences", "Plan email drip campaigns. Not for one-off emails.")
    return root


def test_eval_routing(root: Path, tmp_path: Path) -> None:
    cases = tmp_path / "set.jsonl"
    cases.write_text(
        "\n".join(
            json.dumps(row)
            for row in [
                {"query": "extract the tables from a PDF", "expected": ["pdf"], "kind": "direct"},
                {"query": "make slides for my talk", "expected": ["pptx"], "kind": "indirect"},
                {"query": "what is the capital of Australia", "expected": []},
            ]
        )
        + "\n\n"
    )
    runner = CliRunner()
    out = runner.invoke(main, ["eval", "routing", str(cases), "--root", str(root)])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[1].split() == ["direct", "(1)", "indirect", "(1)", "no", "skill", "(1)"]
    assert lines[2].split() == [
        "router",
        "top-1",
        "top-3",
        "top-1",
        "top-3",
        "abstained",
        "precision",
    ]
    # lexical search alone: no model, one row
    assert lines[3].split() == [
        "lexical",
        "100.0%",
        "100.0%",
        "100.0%",
        "100.0%",
        "100.0%",
        "50.0%",
    ]
    assert lines[4] == "answerable requests abstained on: lexical 1"
    got = runner.invoke(
        main, ["eval", "routing", str(cases), "--root", str(root), "--format", "json", "--misses"]
    )
    data = json.loads(got.output)["data"]
    assert data["by_kind"]["direct"] == {"requests": 1, "top1": 1.0, "top3": 1.0}
    assert data["unanswerable"] == 1 and data["abstain_recall"] == 1.0
    assert data["misses"] == []


def test_eval_routing_says_when_precision_has_no_abstention_to_count(
    root: Path, tmp_path: Path
) -> None:
    cases = tmp_path / "set.jsonl"
    # labelled as fitting no skill, yet it names one: the router answers, never abstains
    cases.write_text(json.dumps({"query": "extract the tables from a PDF", "expected": []}))
    out = CliRunner().invoke(main, ["eval", "routing", str(cases), "--root", str(root)])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[3].split() == ["lexical", "0.0%", "n/a"]
    assert "(precision n/a: never abstained)" in out.output


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("not json\n", "not JSON"),
        ('{"expected": ["pdf"]}\n', "needs a string 'query'"),
        ('{"query": "x", "expected": [1]}\n', "'expected' must be a list"),
        ('{"query": "x", "kind": 3}\n', "'kind' must be a string"),
        ("[1, 2]\n", "needs a string 'query'"),
    ],
)
def test_eval_routing_bad_file(root: Path, tmp_path: Path, text: str, words: str) -> None:
    cases = tmp_path / "bad.jsonl"
    cases.write_text('{"query": "ok", "expected": []}\n' + text)
    out = CliRunner().invoke(main, ["eval", "routing", str(cases), "--root", str(root)])
    assert out.exit_code == 1
    assert "bad.jsonl:2: " in out.output and words in out.output
    assert "[INVALID_ARGUMENTS]" in out.output
    assert "Traceback" not in out.output
    missing = CliRunner().invoke(main, ["eval", "routing", str(tmp_path / "no.jsonl")])
    assert missing.exit_code == 1 and "cannot read routing set" in missing.output


def test_lint_catalog(root: Path) -> None:
    out = CliRunner().invoke(main, ["lint", "--catalog", str(root), "--format", "json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)["data"]
    kinds = {f["kind"]: f for f in report["findings"]}
    assert set(kinds["identical_description"]["skills"]) == {"email-sequence", "email-sequences"}
    near = kinds["near_identical"]
    assert set(near["skills"]) == {"java-springboot", "kotlin-springboot"}
    assert "use kotlin-springboot instead when kotlin" in near["hint"]
    assert "use java-springboot instead when java" in near["hint"]
    assert set(kinds["template_description"]["skills"]) == {"alpha-api", "beta-api", "gamma-api"}
    assert set(kinds["name_collision"]["skills"]) == {"email-sequence", "email-sequences"}
    assert "email-sequence" in kinds["no_when_clause"]["skills"]
    assert "alpha-api" not in kinds["no_when_clause"]["skills"]  # 'Use when working with ...'
    assert "email-sequence" not in kinds["no_not_for_clause"]["skills"]
    assert "pdf" in kinds["no_not_for_clause"]["skills"]
    text = CliRunner().invoke(main, ["lint", "--catalog", str(root)])
    assert "near_identical: java-springboot and kotlin-springboot" in text.output
    assert CliRunner().invoke(main, ["lint"]).exit_code == 2


def test_lint_catalog_library_on_nothing() -> None:
    assert lint_catalog([]).findings == ()
    metas = [skilldeck.SkillMetadata("a", "", None)]
    assert lint_catalog(metas).to_dict()["skills"] == 1


def test_search_ranks_abstains_and_hides_what_the_model_must_not_see(root: Path) -> None:
    folder = root / "deploy-prod"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: deploy-prod\ndescription: Deploy the PDF service to production.\n"
        "disable-model-invocation: true\n---\n"
    )
    runner = CliRunner()
    hit = runner.invoke(main, ["search", "extract", "tables", "from a PDF", "--root", str(root)])
    assert hit.exit_code == 0, hit.output
    first = hit.output.splitlines()[0]
    assert first.startswith("pdf ") and "Extract text and tables" in first
    assert "deploy-prod" not in hit.output

    off = runner.invoke(main, ["search", "email", "the", "dentist", "--root", str(root), "--json"])
    data = json.loads(off.output)["data"]
    assert data["query"] == "email the dentist" and data["abstained"] is True
    assert all(s["confidence"] < 0.5 for s in data["skills"])
    text = runner.invoke(main, ["search", "email", "the", "dentist", "--root", str(root)])
    assert text.output.startswith("no skill fits confidently")

    hint = runner.invoke(main, ["search", "--preflight", "merge PDF files", "--root", str(root)])
    assert "pdf" in hint.output and "skills_load" in hint.output
    quiet = runner.invoke(
        main, ["search", "--preflight", "--json", "bake bread", "--root", str(root)]
    )
    assert json.loads(quiet.output)["data"] == {"query": "bake bread", "preflight": ""}
