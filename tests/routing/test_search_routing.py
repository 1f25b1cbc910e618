"""Search that routes: no short-prefix expansion, contractions and stop words, stemming,
field weights, a calibrated confidence, derived triggers in suggest, and preflight."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import skilldeck
from skilldeck.search import (
    CONFIDENT,
    SearchDocument,
    SearchIndex,
    derived_phrases,
    extract_headings,
)
from skilldeck.search._bm25 import (
    _COMPOUND,
    _CONTRACTION,
    _STOP,
    _WORD,
    FIELD_WEIGHTS,
    _split_usage,
    _stem,
    _UsageSplit,
    affirmative,
    body_fields,
    tokenize,
)

DOCS = [
    SearchDocument("productboard", "Manage product feedback and roadmaps in Productboard."),
    SearchDocument("workday", "Workday HR: time off requests, official holidays and payroll."),
    SearchDocument("mentoring-juniors", "I'm here to help mentor junior developers."),
    SearchDocument("windows-desktop-e2e", "End-to-end tests for Windows desktop apps."),
    SearchDocument("deploy-prod", "Deploy services to production with a checklist."),
    SearchDocument(
        "slides", "Create presentation decks.", when_to_use="Use when asked for a talk."
    ),
    SearchDocument("pdf", "Extract text and tables from PDF files; merge and split them."),
    SearchDocument("pdf-notes", "Notes about reading things.", headings=("PDF", "Tables")),
]


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return SearchIndex(DOCS)


@pytest.mark.parametrize(
    ("query", "never"),
    [
        ("prod", "productboard"),  # short words are not prefixes
        ("off", "workday"),
        ("Wind", "windows-desktop-e2e"),
    ],
)
def test_short_words_are_not_expanded(index: SearchIndex, query: str, never: str) -> None:
    assert never not in [h.name for h in index.search(query)]


def test_contractions_and_filler_are_not_words() -> None:
    # every word of the requests below is in this skill: only words that count can match
    filler = "I'm sure you don't and can't; please, can you help me with this? What's the plan"
    index = SearchIndex([SearchDocument("filler", filler), SearchDocument("other", "zebra")])
    for request in ("I'm", "don't", "can't", "Please, can you help me with this?"):
        assert index.search(request) == [], request
    (hit,) = index.search("what’s the plan")  # a typographic apostrophe too
    assert hit.name == "filler" and hit.matched == ("plan",)
    assert SearchIndex(DOCS).search("I'm") == []


def _whole_text_tokens(text: str) -> list[str]:
    """What ``tokenize`` makes of ``text``, analysed as one string (the definition
    its piece-by-piece analysis must keep)."""
    lowered = text.lower()
    if "'" in lowered or "’" in lowered:
        lowered = _CONTRACTION.sub(r"\1", lowered)
    out = [_stem(w) for w in _WORD.findall(lowered) if w not in _STOP]
    if "-" in lowered or "_" in lowered:
        out.extend(c.replace("_", "-") for c in _COMPOUND.findall(lowered) if len(c) <= 64)
    return out


_TEXT = st.lists(
    st.sampled_from(
        [
            *("a", "B", "-", "_", " ", "\n", "\t", "\x1c", "\u2028", "'", "’", "s", "t"),
            *("ΟΔΟΣ", "ς", "İ", "ſ", "é", "1", ".", "/", "don't", "it's", "pdf-tools"),
            *("x_y-z", "the", "use"),
        ]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(_TEXT)
def test_tokenize_piece_by_piece_is_tokenizing_the_text(text: str) -> None:
    assert tokenize(text) == _whole_text_tokens(text)
    assert tokenize(text) == _whole_text_tokens(text)  # again, from the remembered pieces


def test_stemming_finds_word_families(index: SearchIndex) -> None:
    assert index.search("presentations for a talk")[0].name == "slides"
    assert index.search("extracting table")[0].name == "pdf"


def test_long_unknown_words_still_expand() -> None:
    # 'spreadsh' is no word of any skill, but a prefix of one (five letters or more)
    index = SearchIndex([*DOCS, SearchDocument("sheets", "Spreadsheet formulas.")])
    hit = index.search("spreadsh")[0]
    assert hit.name == "sheets" and hit.matched == ("spreadsh*",)


def test_fields_weigh_differently(index: SearchIndex) -> None:
    # 'pdf' in the name and description beats 'PDF' in a heading only
    hits = index.search("pdf tables")
    assert [h.name for h in hits[:2]] == ["pdf", "pdf-notes"]
    assert hits[0].confidence > hits[1].confidence
    # when_to_use is searched and shown
    slides = index.search("talk")[0]
    assert slides.name == "slides"
    assert slides.description == "Create presentation decks. Use when asked for a talk."


def test_confidence_separates_fits_from_off_domain(index: SearchIndex) -> None:
    assert index.search("pdf")[0].confidence == 1.0  # names the skill
    good = index.search("extract the tables from this PDF")[0]
    assert good.name == "pdf" and good.confident and good.confidence >= 0.8
    assert set(good.matched) >= {"pdf", "tabl", "extract"}
    off = index.search("what is the weather in Paris for the holidays tomorrow")
    assert not off or not off[0].confident
    assert CONFIDENT == 0.5


def test_words_met_only_in_a_body_are_weak_evidence() -> None:
    """A request no skill is for meets everyday words in the bodies of a large catalog;
    the same words in what a skill says about itself make it confident."""
    filler = [SearchDocument(f"tool-{i}", f"Run tool {i} on source files.") for i in range(30)]
    body = "Example: a hiker asked how tall mountains are before climbing Everest."
    docs = [*filler, SearchDocument("trip-notes", "Format release notes.", body=body)]
    hit = SearchIndex(docs).search("how tall is Mount Everest")[0]
    assert hit.name == "trip-notes" and not hit.confident
    about = SearchDocument("peaks", "How tall is a mountain: Everest and other peaks.")
    hit = SearchIndex([*docs, about]).search("how tall is Mount Everest")[0]
    assert hit.name == "peaks" and hit.confident
    # the evidence index sees headings, not bodies
    index = SearchIndex([*filler, SearchDocument("x", "Misc.", headings=("Mount Everest",))])
    words = dict.fromkeys(tokenize("Mount Everest"), 1.0)
    assert index.evidence_units(words) > 1.0
    assert SearchIndex(docs).evidence_units(words) == 0.0


def test_one_shared_word_is_not_enough() -> None:
    """A request like "thanks, that's all for today" shares one word with a skill that
    plans today's tasks; "plan my tasks for today" shares three."""
    filler = [SearchDocument(f"tool-{i}", f"Run tool {i} on source files.") for i in range(30)]
    index = SearchIndex([*filler, SearchDocument("daily-plan", "Plan today's tasks.")])
    (thanks,) = index.search("thanks, that's all for today")
    assert thanks.name == "daily-plan" and thanks.matched == ("today",)
    assert not thanks.confident
    plan = index.search("plan my tasks for today")[0]
    assert plan.name == "daily-plan" and plan.confident and plan.confidence > 0.9


def test_a_request_made_of_name_words_names_the_skill() -> None:
    """One word is weak evidence, except when it is a word of the skill's name: a
    host searching "stripe" means the Stripe skills."""
    filler = [SearchDocument(f"tool-{i}", f"Run tool {i} on source files.") for i in range(30)]
    docs = [
        *filler,
        SearchDocument("stripe-mcp", "Payments through the Stripe API."),
        SearchDocument("daily-plan", "Plan today's tasks."),
    ]
    index = SearchIndex(docs)
    (stripe,) = index.search("stripe")
    assert stripe.name == "stripe-mcp" and stripe.confident and stripe.confidence == 0.75
    assert index.search("stripe mcp")[0].confidence >= 0.75
    (today,) = index.search("today")  # in the description, not the name
    assert today.name == "daily-plan" and not today.confident


def test_a_long_message_is_not_surer_for_its_length() -> None:
    """Twenty words, two of them in each of ten skills' descriptions: the two words
    alone fit a skill, the message that lists all twenty fits none in particular."""
    words = (
        "dinner party saturday italian meal vegetarian option weekend garden flowers "
        "music guests wine dessert table candles photos budget invitations playlist"
    ).split()
    filler = [SearchDocument(f"tool-{i}", f"Run tool {i} on source files.") for i in range(30)]
    own = [
        SearchDocument(f"notes-{i}", f"Notes about {words[2 * i]} and {words[2 * i + 1]}.")
        for i in range(len(words) // 2)
    ]
    index = SearchIndex([*filler, *own])
    assert index.search("dinner party")[0].confident
    hit = index.search("I am planning " + ", ".join(words))[0]
    assert len(hit.matched) == 2 and not hit.confident


def test_the_confidence_model() -> None:
    """More evidence and more matched words raise it (words beyond four add nothing);
    words no skill has lower it, and say less in a small catalog."""
    from skilldeck.search._bm25 import _confidence

    assert _confidence(1.0, 2, 0.0) < _confidence(2.0, 2, 0.0)
    assert _confidence(1.0, 1, 0.0) < _confidence(1.0, 2, 0.0) < _confidence(1.0, 4, 0.0)
    assert _confidence(1.0, 4, 0.0) == _confidence(1.0, 40, 0.0)
    assert _confidence(1.0, 3, 0.5) < _confidence(1.0, 3, 0.0)
    assert _confidence(-1e9, 0, 1.0) > 0.0
    assert _confidence(1e9, 9, 0.0) <= 1.0
    pdf = SearchDocument("pdf", "Extract text and tables from PDF files; merge and split them.")
    request = "merge the pdf files from the kilimanjaro expedition"
    lowered = {}
    for size in (30, 1200):
        filler = [SearchDocument(f"tool-{i}", f"Run tool {i} on files.") for i in range(size)]
        index = SearchIndex([*filler, pdf])
        plain = index.search("merge the pdf files")[0]
        unknown = index.search(request)[0]
        assert plain.name == unknown.name == "pdf" and plain.confident
        lowered[size] = plain.confidence - unknown.confidence
    assert 0.0 <= lowered[30] < 0.05 and lowered[1200] > 0.3


USAGE_BODY = """# Invoice tool

## When to use

- the supplier sent a bill that does not add up
- "reconcile this statement"

## When NOT to use

- payroll questions

## Steps

Open the ledger.

Use this skill when a vendor asks about a late payment.

**Do not use this skill when:**
- the request is about taxes

More prose about spreadsheets.
"""


def test_usage_sections_are_their_own_field() -> None:
    headings, words, usage = body_fields(USAGE_BODY)
    assert "bill that does not add up" in usage and "reconcile this statement" in usage
    assert "vendor asks about a late payment" in usage
    assert "Steps" in headings and "Open the ledger." not in usage
    # what the skill is not for is in neither its usage nor its searched prose
    for text in (usage, words):
        assert "payroll" not in text and "taxes" not in text
    assert "spreadsheets" in words and "spreadsheets" not in usage
    # between the description and the body
    assert FIELD_WEIGHTS["description"] > FIELD_WEIGHTS["usage"] > FIELD_WEIGHTS["body"]
    docs = [
        SearchDocument("a", "Generic helper.", body=words, usage=usage),
        SearchDocument("b", "Generic helper.", body=words),
        SearchDocument("c", "Generic helper.", body="Payroll runs every month."),
    ]
    index = SearchIndex(docs)
    assert index.search("supplier bill")[0].name == "a"
    assert index.search("payroll")[0].name == "c"


_LINES = [
    "",
    "   ",
    "# Title",
    "## When to use",
    "### When NOT to use",
    "## Triggers",
    "#### Use cases",
    "## Using Python packages not available here",
    "## Steps ##",
    "### Examples",
    "# Do not use for taxes",
    "Use this skill when the bill does not add up.",
    "- use it when asked",
    "**Do not use this skill when:**",
    "Trigger phrases:",
    "Never use this skill when:",
    "This skill is for invoices",
    "Notes:",
    "- payroll questions",
    "plain prose about spreadsheets",
    "more words: here",
    "  ## indented heading",
    "    ## code, not a heading",
    "> use this skill when quoting",
    # upper case, and letters a case-blind search matches but lower() does not make
    "## WHEN TO USE",
    "USE THIS SKILL WHEN the \u212aelvin scale is asked for",
    "u\u017fe this \u017fkill when",
    "## Tr\u0131ggers",
    "## \u0130nvoke when",
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_LINES), max_size=40),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from([-1, 0, 3, 12, 1000]),
)
def test_usage_split_is_the_line_by_line_pass(lines: list[str], end: str, limit: int) -> None:
    # the split skips from trigger to trigger and takes runs of lines whole: it must
    # keep exactly what judging every line in turn keeps
    text = end.join(lines)
    reference = _UsageSplit()
    for line in text.splitlines():
        reference.line(line)
    usage, prose = _split_usage(text, limit)
    assert usage[:300] == reference.usage[:300]
    keep = len(reference.prose) if limit < 0 else limit
    assert prose[:keep] == reference.prose[:keep]


def test_usage_from_a_skill_file(tmp_path: Path) -> None:
    folder = tmp_path / "skills" / "invoices"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: invoices\ndescription: Handle invoices.\n---\n{USAGE_BODY}"
    )
    other = tmp_path / "skills" / "payroll-run"
    other.mkdir()
    (other / "SKILL.md").write_text(
        "---\nname: payroll-run\ndescription: Run the monthly payroll.\n---\nSteps.\n"
    )
    catalog = skilldeck.Catalog.from_roots([tmp_path / "skills"], cache=False)
    index = skilldeck.SkillRuntime(catalog).search_index()
    assert index.search("the bill from the supplier does not add up")[0].name == "invoices"
    assert [h.name for h in index.search("payroll")] == ["payroll-run"]


def test_a_long_body_does_not_lower_the_description() -> None:
    """BM25F: each field is normalised by its own length, so a skill whose short
    description fits the request is not pushed down by a long body, nor passed by a
    longer description that also has the words."""
    steps = "Steps: open the file, run it, read the output. " * 20
    filler = [
        SearchDocument(f"tool-{i}", f"Run tool {i} on source files.", body=steps) for i in range(20)
    ]
    parser = SearchDocument(
        "invoice-parser",
        "Parse invoices from suppliers.",
        body=" ".join(f"word{i}" for i in range(900)),
    )
    helper = SearchDocument(
        "office-helper",
        "Parse invoices, receipts, letters, forms and contracts from suppliers, vendors, "
        "shops and agencies.",
    )
    hits = SearchIndex([*filler, parser, helper]).search("parse invoices from suppliers")
    assert [h.name for h in hits[:2]] == ["invoice-parser", "office-helper"]


def test_what_a_description_declines_is_not_searched() -> None:
    """ "NOT for video scripts (use video-plan)" must not find the blog skill for video
    scripts, nor make the quoted request a trigger of the skill that declines it."""
    blog = SearchDocument(
        "blog-writer", "Write blog posts. NOT for video scripts (use video-plan)."
    )
    video = SearchDocument("video-plan", "Plan a channel's content and scripts.")
    hits = SearchIndex([blog, video]).search("video scripts")
    assert [h.name for h in hits] == ["video-plan"]
    kept = affirmative("Scrape pages. Never use it for tests; use pytest instead.")
    assert kept.split() == ["Scrape", "pages."]
    assert derived_phrases('Review code, as in "review my PR". Not for "review my UI".') == (
        "review my pr",
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *("use", "USE", "uſe", "ınstead", "İnstead", "inſtead", "INSTEAD", "instead"),
                *("not", "for", "x.py", "é", "—", " ", ". ", "; ", "-", "don't", "never"),
            ]
        ),
        max_size=12,
    )
)
def test_use_instead_is_only_skipped_where_it_cannot_match(parts: list[str]) -> None:
    """The 'use X instead' clause is searched for only where it can match: the same
    text as searching every text, also with the letters a case-blind search matches
    otherwise than lower() makes them."""
    from skilldeck.search._bm25 import _NOT_FOR, _USE_INSTEAD

    text = " ".join(parts)
    low = text.lower()
    if any(w in low for w in ("not", "don", "never", "instead")):
        assert affirmative(text) == _USE_INSTEAD.sub(" ", _NOT_FOR.sub(" ", text))


def test_body_words_count_a_little() -> None:
    docs = [
        SearchDocument("a", "Generic helper.", body="Parses invoices from suppliers."),
        SearchDocument("b", "Parse invoices from suppliers."),
    ]
    hits = SearchIndex(docs).search("parse supplier invoices")
    assert [h.name for h in hits] == ["b", "a"]
    assert hits[0].confident and not hits[1].confident


def write(root: Path, name: str, description: str, extra: str = "", body: str = "") -> None:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: '{description}'\n{extra}---\n{body or f'# {name}'}\n"
    )


@pytest.fixture
def runtime(tmp_path: Path) -> skilldeck.SkillRuntime:
    root = tmp_path / "skills"
    write(
        root,
        "web-design-guidelines",
        'Review UI code for guideline compliance. Use when asked to "review my UI", '
        '"check accessibility" or "audit design".',
    )
    write(root, "pdf", "Extract text and tables from PDF files.", body="# PDF\n\n## Merge files\n")
    write(root, "weather-ish", "Summaries of release notes for the team.")
    return skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))


def test_suggest_uses_the_quoted_requests_as_triggers(runtime: skilldeck.SkillRuntime) -> None:
    (first, *_) = runtime.suggest("Could you review my UI before the demo?")
    assert first.name == "web-design-guidelines"
    assert "phrase:review my ui" in first.reasons
    assert first.confident
    assert derived_phrases('Use when asked to "review my UI" or "x"') == ("review my ui",)


def test_preflight_names_the_skill_or_says_nothing(runtime: skilldeck.SkillRuntime) -> None:
    hint = runtime.preflight("Please extract the tables from this PDF")
    assert hint.startswith("<skill_hint>\n") and hint.endswith("\n</skill_hint>")
    assert "- pdf: Extract text and tables from PDF files." in hint
    assert "matches: " in hint and "PDF" in hint and "skills_load" in hint
    assert runtime.preflight("what's the capital of Australia") == ""
    assert runtime.preflight("") == ""


def test_preflight_never_names_a_hidden_skill(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root, "deploy", "Deploy to production.", "disable-model-invocation: true\n")
    rt = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    assert rt.preflight("deploy to production") == ""


@pytest.mark.parametrize(
    "body",
    [
        "# a" + " " * 100_000 + "b",  # a heading regex that backtracks is quadratic here
        "```\n" * 50_000,  # fences that never close
        "# " + "#" * 100_000,
        "~~~x\n" + "a ```\n" * 50_000,
        "## " + " #" * 50_000 + "x",
        " " * 100_000 + "x",  # a label regex that backtracks over the indent
        "- " * 50_000 + ":",
        ("## When to use\n" + "use this skill when:\n" * 20_000),
    ],
)
def test_headings_and_body_words_are_linear(body: str) -> None:
    import time

    started = time.process_time()
    extract_headings(body)
    body_fields(body)
    assert time.process_time() - started < 1.0
    # the runtime indexes the headings and first words of each body on the first search
    store = skilldeck.MemoryStore(source="mem")
    store.add(f"---\nname: big\ndescription: A big body. Use in tests.\n---\n{body}\n")
    runtime = skilldeck.SkillRuntime(
        skilldeck.Catalog([skilldeck.Source.of("mem", "inline", [], store=store)], cache=False)
    )
    session = runtime.session()
    started = time.process_time()
    found = runtime.call(session, "skills_search", {"query": "big body"})
    assert time.process_time() - started < 1.0
    assert found["ok"] and "big" in str(found["data"]), found


def test_headings_follow_markdown() -> None:
    body = "# Title\n\n```bash\n# not a heading\n```\n\n## Steps ##\n### C#\n    # code\n"
    assert extract_headings(body) == ("Title", "Steps", "C#")


def test_tool_loop_preflight_option(runtime: skilldeck.SkillRuntime) -> None:
    from skilldeck.adapters import ModelReply, run_tool_loop

    seen: list[list[dict[str, object]]] = []

    def model(messages: list[dict[str, object]], tools: list[dict[str, object]]) -> ModelReply:
        seen.append(messages)
        return ModelReply(content="done")

    question = [{"role": "user", "content": "extract the tables from this PDF"}]
    run_tool_loop(runtime, runtime.session(), model, question, preflight=True)
    hint, user = seen[0]
    assert hint["role"] == "system" and "- pdf:" in str(hint["content"])
    assert user == question[0]
    seen.clear()
    other = [{"role": "user", "content": "what is the capital of Australia"}]
    run_tool_loop(runtime, runtime.session(), model, other, preflight=True)
    assert seen[0] == other  # nothing fits: nothing added
    seen.clear()
    run_tool_loop(runtime, runtime.session(), model, question)
    assert seen[0] == question  # off by default


def test_words_no_skill_has_are_remembered_within_a_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Clients choose the words of a request: the memory of words no skill has stays
    bounded however many different ones they send, and answers stay right."""
    from skilldeck.search import _terms

    monkeypatch.setattr(_terms, "_ABSENT_MAX", 50)
    weights = _terms._Weights(
        _terms.FieldIndex.build([_terms.doc_terms(d) for d in DOCS]), (0, 1), meta=False
    )
    for i in range(500):
        assert f"zzunknown{i}" not in weights
        assert len(weights._absent) <= 50
    assert "pdf" in weights
    assert weights["pdf"]
    assert "zzunknown3" not in weights  # forgotten, then found absent again


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_body_counts_are_the_counted_tokens(text: str) -> None:
    from collections import Counter

    from skilldeck.search._terms import word_counts

    counts, total = word_counts(text.split())
    tokens = tokenize(text)
    assert counts == Counter(tokens) and total == len(tokens)
    assert all(n > 0 for n in counts.values())


_PIECE = st.lists(
    st.sampled_from(
        [
            *("(", ")", ",", ".", ":", "-", "--", "*", "`", "/", "'", "’", "_", "s", "t"),
            *("ΟΔΟΣ", "ς", "İ", "ſ", "\u212a", "é", "1", "don't", "pdf-tools", "x_y", "The"),
        ]
    ),
    min_size=1,
    max_size=8,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(_PIECE, st.booleans())
def test_a_piece_with_punctuation_at_its_ends_has_the_terms_of_the_rule(
    piece: str, inner_first: bool
) -> None:
    """A piece stripped of punctuation at its ends takes the terms of what is left
    (met before or not): the same terms and compounds the rule gives the whole piece."""
    from skilldeck.search import _bm25

    whole = _bm25._Pieces()
    expected = _bm25._piece_terms(piece, whole)
    memory = _bm25._Pieces()
    if inner_first:
        memory[piece.strip(_bm25._ENDS) or piece]
    assert memory[piece] == expected
    assert memory.compounds.get(piece) == whole.compounds.get(piece)


def test_pieces_are_remembered_within_a_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests are tokenized too: the memory of pieces stays bounded however many
    different ones clients send, and tokens stay right after it forgets."""
    from skilldeck.search import _bm25

    monkeypatch.setattr(_bm25, "_PIECES_MAX", 40)
    for i in range(300):
        assert tokenize(f"zz{i}-tools Presentations don't") == [
            f"zz{i}",
            "tool",
            "present",
            f"zz{i}-tools",
        ]
        assert len(_bm25._PIECES) <= 40 + 3


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.lists(_TEXT, max_size=4), st.lists(_TEXT, max_size=4), st.none() | _TEXT)
def test_counted_terms_are_the_weighted_terms(
    text: str, tags: list[str], headings: list[str], when: str | None
) -> None:
    """Each field's counts and the evidence length, counted in bulk, are what
    weighing the document term by term gives, to the last bit."""
    from collections import Counter

    from skilldeck.search._terms import FIELDS, doc_terms

    doc = SearchDocument(
        "x-" + text[:5], text, tuple(tags), tuple(headings), when_to_use=when, body=text
    )
    terms = doc_terms(doc)
    _, meta = doc.weighted_pair()
    assert terms.meta_length == sum(meta.values())
    fields = dict(doc.fields())
    for f, names, counts in terms.fields:
        assert Counter(fields[FIELDS[f]]) == dict(zip(names, counts, strict=True))
