"""Property tests: whatever text or bytes the parser gets, it returns a result (with
registered diagnostic codes) or raises one of skilldeck's own errors, nothing else."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import skilldeck

SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# Pieces real frontmatters are made of, including the ones that break YAML.
_KEYS = st.sampled_from(
    [
        "name",
        "description",
        "license",
        "compatibility",
        "allowed-tools",
        "metadata",
        "version",
        "tags",
        "Name",
        "allowed_tools",
        "timeout",
        "modes",
        "requires",
        "x",
        "",
    ]
)
_VALUES = st.one_of(
    st.text(alphabet=string.printable, max_size=40),
    st.sampled_from(
        [
            "1.0",
            "yes",
            "on",
            "~",
            "null",
            "2024-01-01",
            "[a, b]",
            "{a: 1}",
            "&a [1]",
            "*a",
            "!!python/object:os.system",
            "|",
            ">-",
            "'unclosed",
            '"x: y"',
            "a: b: c",
            "- item",
            "[[[[",
            "\t",
            "\ufeff",
            "é",
            "\x00",
            "---",
            "...",
        ]
    ),
)
_LINE = st.one_of(
    st.tuples(_KEYS, _VALUES).map(lambda kv: f"{kv[0]}: {kv[1]}"),
    st.tuples(st.integers(0, 6), _KEYS, _VALUES).map(lambda t: " " * t[0] + f"{t[1]}: {t[2]}"),
    st.sampled_from(["---", "...", "- a", "  - b", "#", "", " ", "key", ":", "? k"]),
)
_NEWLINE = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def skill_md_like(draw: st.DrawFn) -> str:
    newline = draw(_NEWLINE)
    lines = draw(st.lists(_LINE, max_size=15))
    body = draw(st.text(max_size=200))
    prefix = draw(st.sampled_from(["", "\ufeff", "\n", " "]))
    close = draw(st.sampled_from(["---", "...", "--- ", "", "----"]))
    return prefix + "---" + newline + newline.join(lines) + newline + close + newline + body


def _check(parsed: skilldeck.format.ParsedSkillMd) -> None:
    assert isinstance(parsed, skilldeck.format.ParsedSkillMd)
    assert isinstance(parsed.body, str)
    assert parsed.body_line >= 1
    for diag in parsed.diagnostics:
        assert diag.code in skilldeck.CODES
        assert diag.line is None or diag.line >= 1
    if parsed.manifest is not None:
        assert isinstance(parsed.manifest.name, str)
        assert isinstance(parsed.manifest.description, str)
        json.dumps(parsed.manifest.frontmatter, default=str)
    if parsed.ok:
        assert parsed.manifest is not None


def _parse_all_modes(data: str | bytes) -> None:
    for mode in ("lenient", "strict"):
        try:
            parsed = skilldeck.parse_skill_md(data, mode=mode, folder_name="demo")  # type: ignore[arg-type]
        except skilldeck.SkillError:
            continue
        _check(parsed)


@SETTINGS
@given(st.text(max_size=2000))
def test_arbitrary_text(data: str) -> None:
    _parse_all_modes(data)


@SETTINGS
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data: bytes) -> None:
    _parse_all_modes(data)


@SETTINGS
@given(skill_md_like())
def test_frontmatter_shaped_text(data: str) -> None:
    _parse_all_modes(data)
    _parse_all_modes(data.encode("utf-8", "surrogatepass"))


@SETTINGS
@given(skill_md_like())
def test_strict_is_never_more_permissive(data: str) -> None:
    lenient = skilldeck.parse_skill_md(data, folder_name="demo")
    strict = skilldeck.parse_skill_md(data, folder_name="demo", mode="strict")
    if strict.ok:
        assert lenient.ok


@SETTINGS
@given(data=skill_md_like(), tail=st.binary(max_size=300))
def test_files_on_disk(tmp_path: Path, data: str, tail: bytes) -> None:
    folder = tmp_path / "demo"
    folder.mkdir(exist_ok=True)
    (folder / "SKILL.md").write_bytes(data.encode("utf-8", "surrogatepass") + tail)
    for metadata_only in (False, True):
        _check(skilldeck.read_skill_md(folder / "SKILL.md", metadata_only=metadata_only))
    for strict in (False, True):
        report = skilldeck.lint_skill(folder, strict=strict)
        assert report.path == folder
        json.dumps(report.to_dict())


@pytest.mark.parametrize("size", [1, 7, 64, 1000])
def test_truncated_reads_never_split_characters(tmp_path: Path, size: int) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    text = "---\nname: demo\ndescription: Ünïcödé. Use when 😀.\n---\n" + "é😀" * 2000
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    parsed = skilldeck.read_skill_md(folder / "SKILL.md", max_bytes=size + 60)
    assert "\ufffd" not in parsed.body
    assert parsed.body_truncated
