"""The line-scanner fast path and libyaml must read every frontmatter the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from skilldeck.format._frontmatter import decode, split_frontmatter
from skilldeck.format._yaml import _full_load, load_yaml
from skilldeck.format._yamlfast import fast_load

WORDS = st.sampled_from(
    [
        "pdf",
        "Use",
        "when:",
        "a:b",
        "x#y",
        "#c",
        "'q'",
        '"d"',
        "it's",
        "[x]",
        "{y}",
        "-",
        "--",
        "- z",
        "1.0",
        "2024-01-01",
        "yes",
        "on",
        "~",
        "null",
        "true",
        "False",
        "010",
        "0x1F",
        "1_000",
        "&a",
        "*a",
        "!t",
        "|",
        ">",
        "%",
        "@",
        "`",
        "?",
        ":",
        ",",
        "é",
        "日本",
        "a: b",
        "k:",
        "",
        " ",
    ]
)
VALUE = st.lists(WORDS, max_size=5).map(" ".join)
KEY = st.sampled_from(["name", "description", "license", "Name", "tags", "metadata", "x_y", "a.b"])
LINE = st.one_of(
    st.tuples(KEY, VALUE).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.tuples(KEY).map(lambda k: f"{k[0]}:"),
    VALUE.map(lambda v: f"  {v}"),
    VALUE.map(lambda v: f"  - {v}"),
    VALUE.map(lambda v: f"- {v}"),
    st.tuples(KEY, VALUE).map(lambda kv: f"  {kv[0]}: {kv[1]}"),
    st.sampled_from(["", "# comment", "description: |", "description: >-", "  '", "    deep"]),
)

# Documents of the shape real frontmatters have (what the fast path is for), built
# from the same tricky words: unique keys, nested blocks, lists, continued lines.
# mostly words a plain scalar may hold (resolved or kept as text), some that need quoting
TEXT = st.lists(
    st.one_of(
        st.sampled_from(
            "pdf Use when it's 1.0 yes ~ null true False 010 0x1F é 日本 x#y a:b 2024-01-01 "
            "the files Review 7 -3 +4 1_000 .5 Dev".split()
        ),
        WORDS,
    ),
    min_size=1,
    max_size=4,
).map(" ".join)
SAFE_KEYS = ["name", "description", "license", "version", "tags", "metadata", "x_y", "a.b", "k9"]
BLOCK = st.one_of(
    TEXT.map(lambda v: f": {v}"),
    st.lists(TEXT, min_size=1, max_size=3).map(
        lambda vs: ":\n" + "\n".join(f"  - {v}" for v in vs)
    ),
    st.lists(TEXT, min_size=1, max_size=3).map(lambda vs: ":\n" + "\n".join(f"- {v}" for v in vs)),
    st.lists(st.tuples(st.sampled_from(["author", "version", "Lang", "k"]), TEXT), max_size=3).map(
        lambda kvs: ":\n" + "\n".join(f"  {k}: {v}" for k, v in kvs)
    ),
    st.lists(WORDS, max_size=3).map(lambda ws: ": [" + ", ".join(ws) + "]"),
    st.tuples(TEXT, TEXT).map(lambda vv: f": {vv[0]}\n  {vv[1]}"),
    st.tuples(st.sampled_from(["|", ">", "|-", ">-"]), TEXT, TEXT).map(
        lambda t: f": {t[0]}\n  {t[1]}\n  {t[2]}"
    ),
)
DOC = st.lists(
    st.tuples(st.sampled_from(SAFE_KEYS), BLOCK), min_size=1, max_size=6, unique_by=lambda kv: kv[0]
).map(lambda kvs: "\n".join(k + b for k, b in kvs))


def _same(text: str) -> bool:
    """Do both paths agree? False when the fast path declines (libyaml reads it)."""
    text = text if text.endswith("\n") else text + "\n"
    fast = fast_load(text, 2)
    if fast is None:
        return False
    full = _full_load(text, 2, None)
    assert full.ok, (text, full.diagnostics)
    assert fast.data == full.data, text
    assert fast.positions == full.positions, text
    assert type(fast.data) is type(full.data)
    return True


def _agreement(strategy: st.SearchStrategy[str], examples: int) -> dict[bool, int]:
    """Check ``examples`` generated texts; how many the fast path read (True) or declined."""
    taken = {True: 0, False: 0}

    @settings(max_examples=examples, suppress_health_check=[HealthCheck.too_slow], deadline=None)
    @given(strategy)
    def check(text: str) -> None:
        taken[_same(text)] += 1

    check()
    return taken


def test_fast_path_agrees_with_libyaml_on_any_lines() -> None:
    """Arbitrary lines: wherever the fast path answers, libyaml agrees."""
    taken = _agreement(st.lists(LINE, min_size=1, max_size=8).map("\n".join), 500)
    assert taken[True] >= 10, taken  # a few percent are readable at all
    assert taken[False] >= 250, taken


def test_fast_path_agrees_with_libyaml_on_frontmatter_shapes() -> None:
    """Documents shaped like real frontmatters: the fast path reads a good share
    of them (so the agreement means something) and declines the tricky rest."""
    taken = _agreement(DOC, 500)
    assert taken[True] >= 75, taken  # about 30%
    assert taken[False] >= 75, taken


@pytest.mark.parametrize(
    "text",
    [
        "name: a\ndescription: Use when\n  the user asks.\n",
        "description: |\n  line one\n\n  line three\n",
        "description: >-\n  folded\n  text\n",
        "description: 'it''s\n  multi\n\n  line\n  '\n",
        "tags:\n- a\n- b\nname: x\n",
        "metadata:\n  author: me\n  version: 1.0\n",
        "modes: [Dev, Global]\nread_only: true\ntimeout: 10\n",
    ],
)
def test_fast_path_handles_common_shapes(text: str) -> None:
    assert fast_load(text, 2) is not None
    _same(text)


def test_scalars_keep_their_text() -> None:
    res = load_yaml("a: 1.0\nb: 2024-01-01\nc: yes\nd: on\ne: 010\nf: ~\ng: 7\nh: false\n")
    assert res.data == {
        "a": "1.0",
        "b": "2024-01-01",
        "c": "yes",
        "d": "on",
        "e": "010",
        "f": None,
        "g": 7,
        "h": False,
    }
    # the same through libyaml (block scalar forces the full path)
    res2 = load_yaml("x: |\n  t\na: 1.0\nb: 2024-01-01T10:00:00Z\nc: yes\n")
    assert res2.data["a"] == "1.0" and res2.data["b"] == "2024-01-01T10:00:00Z"
    assert res2.data["c"] == "yes"


def test_alias_bomb_is_bounded() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    res = load_yaml("\n".join(lines))
    assert not res.ok
    assert [d.code for d in res.diagnostics] == ["SK106"]


def test_deep_flow_nesting_refused_before_libyaml() -> None:
    res = load_yaml("a: " + "[" * 100_000 + "]" * 100_000)
    assert not res.ok and res.diagnostics[0].code == "SK106"


def test_corpus_frontmatters_agree(corpus: Path) -> None:
    taken = {True: 0, False: 0}
    for skill_md in corpus.rglob("SKILL.md"):
        try:
            data = skill_md.read_bytes()
        except OSError:
            continue
        text, _ = decode(data)
        split = split_frontmatter(text)
        if split.frontmatter is None:
            continue
        taken[_same(split.frontmatter)] += 1
    assert taken[True] + taken[False] > 1000
    # the fast path reads most real frontmatters itself (it is why discovery is fast)
    assert taken[True] > 0.8 * (taken[True] + taken[False]), taken
