"""The line-scanner fast path and libyaml must read every frontmatter the same way."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skilldeck._format._frontmatter import decode, split_frontmatter
from skilldeck._format._yaml import _fast_load, _full_load, load_yaml

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


def _same(text: str) -> None:
    text = text if text.endswith("\n") else text + "\n"
    fast = _fast_load(text, 2)
    if fast is None:
        return
    full = _full_load(text, 2, None)
    assert full.ok, (text, full.diagnostics)
    assert fast.data == full.data, text
    assert fast.positions == full.positions, text


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(LINE, min_size=1, max_size=8).map("\n".join))
def test_fast_path_agrees_with_libyaml(text: str) -> None:
    _same(text)


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
    assert _fast_load(text, 2) is not None
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
    checked = 0
    for skill_md in corpus.rglob("SKILL.md"):
        try:
            data = skill_md.read_bytes()
        except OSError:
            continue
        text, _ = decode(data)
        split = split_frontmatter(text)
        if split.frontmatter is None:
            continue
        _same(split.frontmatter)
        checked += 1
    assert checked > 1000
