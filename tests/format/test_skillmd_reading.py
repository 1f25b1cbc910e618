"""Reading SKILL.md: delimiters, encodings, bounded reads, hostile files."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from skilldeck import parse_skill_md, read_skill_md
from skilldeck.format import FRONTMATTER_LIMIT

GOOD = "---\nname: demo\ndescription: Demo skill. Use when testing.\n---\n# Body\n\ntext\n"


def codes(parsed: object) -> list[str]:
    return [d.code for d in parsed.diagnostics]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "data",
    [
        GOOD,
        GOOD.replace("\n", "\r\n"),
        "\ufeff" + GOOD,
        GOOD.encode("utf-8-sig"),
        "---\r\nname: demo\ndescription: Demo skill. Use when testing.\r---\n# Body\n\ntext\n",
        GOOD.replace("\n---\n# Body", "\n...\n# Body"),
        GOOD.replace("---\n# Body", "---   \n# Body"),
    ],
)
def test_delimiters_and_line_endings(data: str | bytes) -> None:
    parsed = parse_skill_md(data, folder_name="demo")
    assert parsed.ok, parsed.diagnostics
    assert parsed.manifest is not None and parsed.manifest.name == "demo"
    assert parsed.body.startswith("# Body")
    assert parsed.body_line == 5
    assert "\r" not in parsed.body


def test_dashes_inside_a_line_do_not_close() -> None:
    text = "---\nname: demo\ndescription: a --- b. Use when testing.\nx: ---y\n---\nbody\n"
    parsed = parse_skill_md(text, folder_name="demo")
    assert parsed.manifest is not None
    assert parsed.manifest.description == "a --- b. Use when testing."
    assert parsed.body == "body\n"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("# no frontmatter\n", "SK101"),
        ("", "SK101"),
        ("---\nname: demo\n", "SK102"),
        ("---", "SK102"),
        ("---\n---\nbody", "SK103"),
        ("---\n- a\n- b\n---\n", "SK104"),
        ("---\njust text\n---\n", "SK104"),
        ("---\nname: [unclosed\n---\n", "SK105"),
    ],
)
def test_broken_frontmatter_is_reported_not_raised(text: str, code: str) -> None:
    parsed = parse_skill_md(text)
    assert parsed.manifest is None
    assert code in codes(parsed)
    diag = next(d for d in parsed.diagnostics if d.code == code)
    assert diag.line is not None and diag.hint


def test_key_positions_are_file_lines() -> None:
    text = (
        "---\nname: demo\nlicense: MIT\nmetadata:\n  author: me\n  version: '2'\n"
        "description: D. Use when x.\n---\n"
    )
    manifest = parse_skill_md(text, folder_name="demo").manifest
    assert manifest is not None
    assert manifest.position("name") == (2, 1)
    assert manifest.position("metadata.author") == (5, 3)
    assert manifest.position("description") == (7, 1)
    assert manifest.version == "2" and manifest.author == "me"


def test_duplicate_and_case_keys_reported_with_lines() -> None:
    text = "---\nname: demo\nName: other\ndescription: a\ndescription: b\n---\n"
    parsed = parse_skill_md(text, folder_name="demo")
    by_code = {d.code: d for d in parsed.diagnostics}
    assert by_code["SK109"].line == 3
    assert by_code["SK108"].line == 5
    assert parsed.manifest is not None and parsed.manifest.description == "b"
    strict = parse_skill_md(text, folder_name="demo", mode="strict")
    assert any(d.code == "SK108" and d.is_error for d in strict.diagnostics)


def test_unquoted_colon_recovered_in_lenient_only() -> None:
    text = "---\nname: demo\ndescription: Extract: tables from PDFs. Use when: asked.\n---\nbody\n"
    lenient = parse_skill_md(text, folder_name="demo")
    assert lenient.ok
    assert lenient.manifest is not None
    assert lenient.manifest.description == "Extract: tables from PDFs. Use when: asked."
    warn = next(d for d in lenient.diagnostics if d.code == "SK110")
    assert warn.line == 3
    assert (
        warn.hint == 'quote the value: description: "Extract: tables from PDFs. Use when: asked."'
    )
    strict = parse_skill_md(text, folder_name="demo", mode="strict")
    assert not strict.ok and "SK105" in codes(strict)


def test_metadata_only_reads_a_bounded_prefix(tmp_path: Path) -> None:
    skill = tmp_path / "demo"
    skill.mkdir()
    md = skill / "SKILL.md"
    with md.open("w") as fh:
        fh.write(GOOD)
        fh.write("x" * (100 * 1024 * 1024))  # a 100 MB body
    started = time.perf_counter()
    parsed = read_skill_md(md, metadata_only=True)
    assert time.perf_counter() - started < 0.5
    assert parsed.ok and parsed.body == ""
    full = read_skill_md(md, max_bytes=1000)
    assert full.body_truncated and full.ok
    assert len(full.body.encode()) < 1000


def test_frontmatter_longer_than_the_bound_is_a_diagnostic(tmp_path: Path) -> None:
    assert FRONTMATTER_LIMIT == 64 * 1024  # the bound docs/diagnostics.md states
    skill = tmp_path / "demo"
    skill.mkdir()
    md = skill / "SKILL.md"
    md.write_text("---\nname: demo\ndescription: " + "d" * (FRONTMATTER_LIMIT + 10) + "\n---\n")
    parsed = read_skill_md(md, metadata_only=True)
    assert parsed.manifest is None and codes(parsed) == ["SK107"]
    assert read_skill_md(md).manifest is None  # full read: same limit on the frontmatter


def test_truncation_never_splits_a_utf8_character(tmp_path: Path) -> None:
    md = tmp_path / "SKILL.md"
    md.write_text(GOOD + "é" * 1000, encoding="utf-8")
    for bound in range(len(GOOD.encode()) + 1, len(GOOD.encode()) + 8):
        parsed = read_skill_md(md, max_bytes=bound)
        assert parsed.body_truncated
        assert "\ufffd" not in parsed.body
        assert not any(d.code == "SK111" for d in parsed.diagnostics)


@pytest.mark.parametrize("kind", ["dir", "fifo", "missing", "unreadable", "garbage"])
def test_hostile_files_give_diagnostics(tmp_path: Path, kind: str) -> None:
    md = tmp_path / "SKILL.md"
    if kind == "dir":
        md.mkdir()
    elif kind == "fifo":
        os.mkfifo(md)
    elif kind == "unreadable":
        md.write_text(GOOD)
        md.chmod(0)
        if os.access(md, os.R_OK):  # root reads anything
            pytest.skip("running as root: permissions do not deny reads")
    elif kind == "garbage":
        md.write_bytes(os.urandom(4096))
    parsed = read_skill_md(md)
    assert parsed.manifest is None
    assert parsed.diagnostics
    assert all(d.code.startswith("SK1") for d in parsed.diagnostics)


def test_extension_fields_top_level_or_metadata() -> None:
    text = (
        "---\nname: demo\ndescription: D. Use when x.\nmodes: [Dev, Global]\ntimeout: 10\n"
        "metadata:\n  read_only: 'true'\n  requires: git gh\n  tags: a b\n  network: 'yes'\n---\n"
    )
    manifest = parse_skill_md(text, folder_name="demo").manifest
    assert manifest is not None
    assert manifest.modes == ("Dev", "Global")
    assert manifest.timeout == 10
    assert manifest.read_only is True and manifest.network is True
    assert manifest.requires.commands == ("git", "gh")
    assert manifest.tags == ("a", "b")


def test_allowed_tools_forms() -> None:
    def tools(value: str) -> list[tuple[str, str | None]]:
        text = f"---\nname: demo\ndescription: D. Use when x.\nallowed-tools: {value}\n---\n"
        parsed = parse_skill_md(text, folder_name="demo")
        assert parsed.manifest is not None and parsed.manifest.allowed_tools is not None
        return [(t.name, t.argument) for t in parsed.manifest.allowed_tools]

    assert tools("Read Bash(git commit:*) mcp__srv__*") == [
        ("Read", None),
        ("Bash", "git commit:*"),
        ("mcp__srv__*", None),
    ]
    assert tools("[Read, Write]") == [("Read", None), ("Write", None)]
    assert tools('"Read, Write"') == [("Read", None), ("Write", None)]


def test_a_manifest_holds_every_field_as_the_constructor_would() -> None:
    """build_manifest sets the slots directly (it is on every cold listing's path):
    the result is the manifest the dataclass's own constructor makes, field by field."""
    from dataclasses import fields

    from skilldeck.format import Manifest

    text = (
        "---\nname: demo\ndescription: Demo. Use when testing.\nversion: 1.0\nauthor: me\n"
        "tags: [a, b]\nrequires: git\nmodes: [Dev]\nread_only: true\ntimeout: 20\n"
        "triggers: [make a demo]\nallowed-tools: Read Bash(git:*)\ncontext: fork\n"
        "license: MIT\ncompatibility: any\nmetadata:\n  k: v\ncategory: x\n---\nBody\n"
    )
    manifest = parse_skill_md(text, folder_name="demo").manifest
    assert manifest is not None
    rebuilt = Manifest(**{f.name: getattr(manifest, f.name) for f in fields(Manifest)})
    assert manifest == rebuilt
    assert manifest.positions == rebuilt.positions  # not compared by ==
    assert (manifest.version, manifest.tags, manifest.timeout) == ("1.0", ("a", "b"), 20)
    assert manifest.extra == {"category": "x"} and manifest.context == "fork"
