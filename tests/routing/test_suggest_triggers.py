"""What ``suggest`` adds to search: the example requests a description quotes
reorder search's candidates, and nothing else of search changes."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import pytest

import skilldeck
from skilldeck.search import SearchDocument, SearchIndex, derived_phrases

SKILLS = {
    "code-review": (
        "Review code changes and diffs for bugs, style and security issues. Use when "
        "reviewing a pull request, a diff, a patch or a commit."
    ),
    "simplicity-check": (
        "Check a change for needless complexity before it lands. Use when asked to "
        '"review my diff" or "is this overcomplicated".'
    ),
    "ab-testing": (
        "Design experiments on product pages: variants, sample size, significance. "
        'Use when asked to "test this" or "plan a split test".'
    ),
    "regex-tester": "Test regular expressions against sample strings and explain matches.",
    "team-updates": (
        "Write internal team communications. Use when asked for a "
        '"status report", a "weekly update" or "write my update".'
    ),
    "dbt-wiki": "Answer questions from the dbt wiki of a project: models, sources, lineage.",
    "dbt-wiki-pack": (
        "Package the dbt wiki knowledge as a file to share. Use when asked to "
        '"export the wiki" or to open the "dbt wiki" elsewhere.'
    ),
    "invoices": "Create and check invoices for customers.",
}


def write(root: Path, name: str, description: str, extra: str = "") -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {json.dumps(description)}\n{extra}---\n# {name}\n"
    )


@pytest.fixture
def runtime(tmp_path: Path) -> skilldeck.SkillRuntime:
    root = tmp_path / "skills"
    for name, description in SKILLS.items():
        write(root, name, description)
    write(
        root,
        "shipping",
        "Track parcels and couriers.",
        "triggers:\n  keywords: [package delivery]\n  verbs: [track]\n",
    )
    return skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))


def names(items: list[object]) -> list[str]:
    return [getattr(i, "name", "") for i in items]


def test_a_quoted_request_said_word_for_word_promotes_its_skill(
    runtime: skilldeck.SkillRuntime,
) -> None:
    text = "please review my diff before I push"
    found = names(runtime.search_index().search(text, limit=3))
    assert found[0] == "code-review"  # search alone prefers the general skill
    first, second, *_ = runtime.suggest(text)
    assert (first.name, second.name) == ("simplicity-check", "code-review")
    assert first.reasons[0] == "phrase:review my diff"
    assert first.confident  # it takes search's confidence in the request


def test_a_phrase_of_one_content_word_is_no_trigger(runtime: skilldeck.SkillRuntime) -> None:
    # "test this" is one word ("this" is a stop word): every request testing anything says it
    assert derived_phrases(SKILLS["ab-testing"]) == ("plan a split test",)
    text = "test this regex against some sample strings"
    assert names(runtime.suggest(text, limit=3)) == names(
        runtime.search_index().search(text, limit=3)
    )
    assert runtime.suggest(text)[0].name == "regex-tester"


def test_the_words_of_a_phrase_out_of_order_do_not_trigger(
    runtime: skilldeck.SkillRuntime,
) -> None:
    text = "the split of this test is wrong, check my regular expressions"
    picked = runtime.suggest(text, limit=None)
    assert not any(r.startswith("phrase:") for s in picked for r in s.reasons)
    assert names(picked) == names(runtime.search_index().search(text, limit=len(picked)))


def test_a_phrase_every_sibling_says_does_not_reorder(runtime: skilldeck.SkillRuntime) -> None:
    # "dbt wiki" is quoted by dbt-wiki-pack, but dbt-wiki says it of itself too
    text = "what does the dbt wiki say about the orders model"
    assert runtime.suggest(text)[0].name == runtime.search_index().search(text)[0].name


@dataclass(frozen=True)
class Meta:
    """Catalog metadata as a host may build it: a name and a description."""

    name: str
    description: str


def large_catalog() -> list[Meta]:
    """The skills above among 1,200 others: a catalog large enough for search to
    tell a request no skill is for (words no skill has) and abstain."""
    rnd = random.Random(5)
    syllables = ["ka", "lo", "mi", "ra", "tu", "ve", "zo", "pe", "ni", "sa", "qu", "xi"]

    def word() -> str:
        return "".join(rnd.choice(syllables) for _ in range(3))

    metas = [Meta(n, d) for n, d in SKILLS.items()]
    for i in range(1200):
        metas.append(Meta(f"tool-{i}", f"Manage {word()} {word()} records in {word()}."))
    return metas


@pytest.mark.parametrize(
    "text",
    [
        "a weekly update of my grocery list",
        "the status report of the Mars rover from NASA yesterday",
        "I got a weekly update from my landlord about the broken boiler",
    ],
)
def test_a_phrase_does_not_turn_an_abstention_into_a_hit(text: str) -> None:
    metas = large_catalog()
    index = SearchIndex(SearchDocument(m.name, m.description) for m in metas)
    assert not index.search(text)[0].confident  # search abstains
    first = skilldeck.suggest(text, metas)[0]
    assert first.name == "team-updates" and first.reasons[0].startswith("phrase:")
    assert not first.confident


def test_a_declared_keyword_is_the_authors_word(runtime: skilldeck.SkillRuntime) -> None:
    first = runtime.suggest("where is my package delivery from Lisbon")[0]
    assert (first.name, first.reasons[0], first.confident) == (
        "shipping",
        "keyword:package delivery",
        True,
    )
    # a declared verb alone is one word of the request: it ranks, it does not decide
    first = runtime.suggest("track the mood of the crowd")[0]
    assert (first.name, first.reasons[0], first.confident) == ("shipping", "verb:track", False)


def test_quotes_pair_up_and_apostrophes_are_not_quotes() -> None:
    text = (
        "Use when \"the PDF attachment won't open\" or 'review my diff' comes up, "
        'or "a" merge tables "b" (don\'t use for "the weekly report").'
    )
    # not "t open" (an apostrophe is no quote), not " merge tables " (between two
    # quoted examples), not what the skill is not for
    assert derived_phrases(text) == ("the pdf attachment won t open", "review my diff")


class Counted:
    """Metadata whose manifest (where declared triggers live) counts its reads."""

    def __init__(self, name: str, description: str) -> None:
        self.name, self.description, self.reads = name, description, 0

    @property
    def manifest(self) -> None:
        self.reads += 1
        return None


def test_prepared_once_per_catalog_state() -> None:
    metas = [Counted(n, d) for n, d in SKILLS.items()]
    index = SearchIndex(SearchDocument(m.name, m.description) for m in metas)
    reads: list[list[int]] = []
    for text in ("review my diff", "status report for the team", "plan a split test"):
        first = skilldeck.suggest(text, metas, index=index)[0]
        assert first.reasons[0].startswith("phrase:")
        reads.append([m.reads for m in metas])
    assert reads[0] == reads[1] == reads[2] and min(reads[0]) > 0  # the first request only
    # another catalog state (a new index): prepared again
    skilldeck.suggest("review my diff", metas, index=SearchIndex(index.documents))
    assert all(m.reads > n for m, n in zip(metas, reads[0], strict=True))


def test_runtime_suggest_follows_the_catalog(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name, description in SKILLS.items():
        write(root, name, description)
    catalog = skilldeck.Catalog.from_roots([root], cache=False)
    rt = skilldeck.SkillRuntime(catalog)
    assert rt.suggest("review my diff")[0].name == "simplicity-check"
    write(root, "diff-coach", 'Coach on diffs. Use when asked to "review my diff".')
    catalog.refresh()
    assert {"simplicity-check", "diff-coach"} <= set(names(rt.suggest("review my diff")))


def test_a_session_sees_only_its_skills(runtime: skilldeck.SkillRuntime) -> None:
    child = runtime.session().fork(skills=["code-review", "regex-tester"])
    for _ in range(2):  # the first request prepares, the second reuses
        picked = names(runtime.suggest("please review my diff", session=child, limit=None))
        assert picked == ["code-review"]
        assert "simplicity-check" in names(runtime.suggest("please review my diff"))


@pytest.mark.parametrize(
    "description",
    [
        "“" * 50_000,  # an unclosed quote scanned to the end from every opening
        "‘" * 50_000,
        "“ab cd" * 20_000,
        ' "a' * 50_000,
        (' "' + "word " * 300) * 300,
    ],
)
def test_hostile_descriptions_and_requests_stay_linear(description: str) -> None:
    import time

    metas = [Meta("odd", description), Meta("spam", 'Use when asked to "split test".')]
    started = time.process_time()
    derived_phrases(description)
    picked = skilldeck.suggest("split test " * 2_000, metas)
    assert time.process_time() - started < 2.0
    assert [r for s in picked for r in s.reasons if r.startswith("phrase:")] == [
        "phrase:split test"
    ]  # said 2,000 times, counted once


def test_an_index_that_cannot_be_kept_with_still_works() -> None:
    class Slotted(SearchIndex):
        __slots__ = ()  # no __weakref__ of its own, but SearchIndex has one

    class Unhashable(SearchIndex):
        __hash__ = None  # type: ignore[assignment]

    metas = [Meta(n, d) for n, d in SKILLS.items()]
    for cls in (Slotted, Unhashable):
        index = cls(SearchDocument(m.name, m.description) for m in metas)
        assert skilldeck.suggest("review my diff", metas, index=index)[0].name == (
            "simplicity-check"
        )


def test_triggers_written_as_a_plain_list_are_example_requests(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(
        root,
        "isms-audit",
        "Audit an information security management system.",
        "triggers:\n  - ISO 27001 audit\n  - surveillance audit\n  - SQL\n",
    )
    write(root, "invoices", "Create and check invoices for customers.")
    write(root, "snowflake-sql", "Write and fix Snowflake SQL: dynamic tables, tasks, streams.")
    write(root, "audit-plan", "Plan an information security audit and its evidence.")
    catalog = skilldeck.Catalog.from_roots([root], cache=False)
    skill = catalog.load("isms-audit")
    assert not [d for d in skill.diagnostics if d.code == "SK217"]
    assert skill.manifest.triggers is not None
    assert skill.manifest.triggers.phrases == ("ISO 27001 audit", "surveillance audit", "SQL")
    assert skill.manifest.triggers.keywords == ()
    runtime = skilldeck.SkillRuntime(catalog)
    said = "plan the surveillance audit of our information security"
    assert names(runtime.search_index().search(said, limit=2))[0] == "audit-plan"
    first = runtime.suggest(said)[0]
    assert first.name == "isms-audit" and "phrase:surveillance audit" in first.reasons
    # one loose word of the list ("SQL", a sales lead there) does not beat search's pick
    assert runtime.suggest("fix the SQL of my snowflake dynamic table")[0].name == "snowflake-sql"
