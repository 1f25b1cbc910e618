"""Lint (SK3xx): each rule fires on a real skill folder, at the right place, and only then."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import skilldeck

GOOD_DESCRIPTION = "Convert PDF files to text. Use when the user asks to extract text from a PDF."


def make_skill(
    root: Path,
    body: str = "# Steps\n\n1. Do the thing.\n",
    *,
    name: str = "pdf-tools",
    description: str = GOOD_DESCRIPTION,
    extra: str = "",
    files: dict[str, str] | None = None,
) -> Path:
    folder = root / name
    folder.mkdir()
    text = f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    for rel, content in (files or {}).items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    return folder


def codes(report: skilldeck.ValidationReport) -> list[str]:
    return [d.code for d in report.diagnostics]


def only(report: skilldeck.ValidationReport, code: str) -> list[skilldeck.Diagnostic]:
    return [d for d in report.diagnostics if d.code == code]


def test_clean_skill_has_no_findings(tmp_path: Path) -> None:
    folder = make_skill(
        tmp_path,
        "Run `scripts/extract.py FILE` with the Bash tool.\n"
        "Details: [the reference](references/REFERENCE.md).\n",
        extra="allowed-tools: Bash(python3:*)\n",
        files={"scripts/extract.py": "print(1)\n", "references/REFERENCE.md": "# Ref\n"},
    )
    report = skilldeck.lint_skill(folder)
    assert report.valid
    assert report.diagnostics == ()


def test_every_lint_finding_has_a_location_and_a_hint(tmp_path: Path) -> None:
    body = "x\n" * 600 + "See [gone](references/gone.md) and use the Grep tool.\n"
    folder = make_skill(
        tmp_path,
        body,
        description="<b>Converts</b> PDF files. " + "x" * 300,
        extra="allowed-tools: Read\n",
        files={"scripts/unused.sh": "", "references/a/b/deep.md": "x"},
    )
    (folder / "SKILL.md").write_text(
        (folder / "SKILL.md").read_text() + "[deep](references/a/b/deep.md) [out](../x/y.md)\n"
    )
    report = skilldeck.lint_skill(folder)
    lint = [d for d in report.diagnostics if d.code.startswith("SK3")]
    assert {d.code for d in lint} >= {
        "SK301",
        "SK303",
        "SK304",
        "SK305",
        "SK306",
        "SK307",
        "SK308",
        "SK309",
        "SK310",
        "SK311",
    }
    for diag in lint:
        assert diag.line is not None and diag.line >= 1, diag
        assert diag.column is not None and diag.column >= 1, diag
        assert diag.hint, diag
        assert diag.path == str(folder / "SKILL.md")
        assert diag.severity in (skilldeck.Severity.WARNING, skilldeck.Severity.INFO)
    assert report.valid, "lint never makes a skill invalid"


# --- body size -------------------------------------------------------------------


def test_sk301_body_over_500_lines(tmp_path: Path) -> None:
    long_ = make_skill(tmp_path, "line\n" * 501)
    (diag,) = only(skilldeck.lint_skill(long_), "SK301")
    assert "501 lines" in diag.message
    assert diag.line == 5 + 500  # body starts on line 5; the 501st body line
    ok = make_skill(tmp_path, "line\n" * 500, name="ok-skill")
    assert not only(skilldeck.lint_skill(ok), "SK301")


def test_sk302_body_over_about_5000_tokens(tmp_path: Path) -> None:
    big = make_skill(tmp_path, ("word " * 20 + "\n") * 220)  # ~22,000 chars, 220 lines
    report = skilldeck.lint_skill(big)
    (diag,) = only(report, "SK302")
    assert "tokens" in diag.message
    assert not only(report, "SK301")
    small = make_skill(tmp_path, "word " * 3000, name="small")  # 15,000 chars ~ 3,750 tokens
    assert not only(skilldeck.lint_skill(small), "SK302")


def test_estimate_tokens() -> None:
    assert skilldeck.format.estimate_tokens("") == 0
    assert skilldeck.format.estimate_tokens("abcd") == 1
    assert skilldeck.format.estimate_tokens("abcde") == 2
    assert skilldeck.format.estimate_tokens("x" * 20_000) == 5_000


# --- description -------------------------------------------------------------------


@pytest.mark.parametrize(
    "description",
    [
        "Convert PDF files to text.",
        "A collection of utilities for spreadsheets",
        "Google Calendar: manage calendars and events.",
        "Triggers the audit of a plugin against its checklist.",
        "Draws diagrams - boxes, arrows and labels.",
        "Tunes a trigger-happy alert rule.",
    ],
)
def test_sk303_description_without_when(tmp_path: Path, description: str) -> None:
    folder = make_skill(tmp_path, description=f'"{description}"')
    (diag,) = only(skilldeck.lint_skill(folder), "SK303")
    assert (diag.line, diag.column) == (3, 1)


@pytest.mark.parametrize(
    "description",
    [
        GOOD_DESCRIPTION,
        "Formats SQL. Use it for migrations and ad-hoc queries.",
        "Reviews pull requests when the user asks for a review.",
        "Triggers on requests mentioning invoices.",
        "Deploy to Vercel. Use when user says deploy or ship it.",
        "Git operations. Use for checking status, viewing history, or seeing changes.",
        "Write headlines. Use with a confirmed brief, after intake.",
        "ダッシュボードの設計を引導する。「KPI 可視化」と言われたら使う。",
        "不完全さの中に美を見出す。悩んでいるときに使う。",
        "Classifies price swings. TRIGGERS - zigzag, swing classification",
        "Sends reminders. Triggers: remind me, follow up.",
        "TRIGGER for editing flow files with the builder SDK.",
        "Asks a second model. Use PROACTIVELY to cross-check a plan.",
        "生成画面提示词。触发条件: (1) 用户说'画一个' (2) 需要提示词",
        "整理会议纪要。使用场景：用户上传录音或笔记。",
    ],
)
def test_sk303_description_with_when_passes(tmp_path: Path, description: str) -> None:
    folder = make_skill(tmp_path, description=f'"{description}"')
    assert not only(skilldeck.lint_skill(folder), "SK303")


def test_sk304_description_over_256_is_info(tmp_path: Path) -> None:
    text = GOOD_DESCRIPTION + " " + "a" * (257 - len(GOOD_DESCRIPTION) - 1)
    assert len(text) == 257
    (diag,) = only(skilldeck.lint_skill(make_skill(tmp_path, description=text)), "SK304")
    assert diag.severity is skilldeck.Severity.INFO
    exact = GOOD_DESCRIPTION + " " + "a" * (256 - len(GOOD_DESCRIPTION) - 1)
    assert not only(
        skilldeck.lint_skill(make_skill(tmp_path, description=exact, name="b")), "SK304"
    )


@pytest.mark.parametrize(
    ("description", "flagged"),
    [
        ('"Use when <b>bold</b> things happen."', True),
        ('"Use when a <skill> is needed."', True),
        ('"Use when parsing <br/> tags."', True),
        ('"Use when x < 3 and y > 4."', False),
        ('"Use when comparing a<b with c."', False),
    ],
)
def test_sk305_tags_in_description(tmp_path: Path, description: str, flagged: bool) -> None:
    folder = make_skill(tmp_path, description=description)
    assert bool(only(skilldeck.lint_skill(folder), "SK305")) is flagged


# --- file references ---------------------------------------------------------------


def test_sk306_missing_references_from_links_and_code(tmp_path: Path) -> None:
    body = (
        "Read [the guide](references/guide.md).\n"  # line 5
        "Then run `python3 scripts/run.py --fast`.\n"  # line 6
        "```bash\n"
        "python3 scripts/other.py\n"  # line 8
        "```\n"
        "Also [present](references/here.md) and ![img](assets/logo.png).\n"
    )
    folder = make_skill(tmp_path, body, files={"references/here.md": "x"})
    found = only(skilldeck.lint_skill(folder), "SK306")
    where = {(d.line, d.column): d.message for d in found}
    assert (5, 18) in where and "references/guide.md" in where[(5, 18)]
    assert (6, 19) in where and "scripts/run.py" in where[(6, 19)]
    assert (8, 9) in where and "scripts/other.py" in where[(8, 9)]
    assert any("assets/logo.png" in m for m in where.values())
    assert not any("here.md" in m for m in where.values())


def test_sk306_ignores_urls_anchors_and_absolute_paths(tmp_path: Path) -> None:
    body = (
        "[web](https://example.com/x.md) [mail](mailto:a@b.c) [top](#steps)\n"
        "[abs](/etc/hosts) `src/app/main.py` `~/notes.md`\n"
        "[with anchor](references/r.md#part) [encoded](references/my%20file.md)\n"
    )
    folder = make_skill(
        tmp_path, body, files={"references/r.md": "x", "references/my file.md": "y"}
    )
    assert not only(skilldeck.lint_skill(folder), "SK306")


def test_sk306_dangling_symlink_counts_as_missing(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "See [x](references/x.md).\n")
    (folder / "references").mkdir()
    os.symlink("missing.md", folder / "references" / "x.md")
    assert only(skilldeck.lint_skill(folder), "SK306")


def test_sk307_reference_more_than_one_level_deep(tmp_path: Path) -> None:
    folder = make_skill(
        tmp_path,
        "[ok](references/a.md) [deep](references/sub/b.md) [root](FORMS.md)\n",
        files={"references/a.md": "", "references/sub/b.md": "", "FORMS.md": ""},
    )
    (diag,) = only(skilldeck.lint_skill(folder), "SK307")
    assert "references/sub/b.md" in diag.message
    assert diag.severity is skilldeck.Severity.INFO


def test_sk308_reference_outside_the_skill(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "SKILL.md").write_text("x")
    folder = make_skill(tmp_path, "See [sibling](../other/SKILL.md).\n")
    (diag,) = only(skilldeck.lint_skill(folder), "SK308")
    assert "../other/SKILL.md" in diag.message
    assert not only(skilldeck.lint_skill(folder), "SK306")


def test_sk308_symlink_escaping_the_skill(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("x")
    folder = make_skill(tmp_path, "See [r](references/r.md).\n")
    (folder / "references").mkdir()
    os.symlink(secret, folder / "references" / "r.md")
    assert only(skilldeck.lint_skill(folder), "SK308")


def test_links_inside_code_blocks_are_examples(tmp_path: Path) -> None:
    body = "```markdown\nSee [the guide](references/guide.md).\n```\n"
    folder = make_skill(tmp_path, body)
    assert not only(skilldeck.lint_skill(folder), "SK306")


# --- scripts -----------------------------------------------------------------------


def test_sk309_unmentioned_script(tmp_path: Path) -> None:
    folder = make_skill(
        tmp_path,
        "Run `scripts/used.py`; `helper.sh` cleans up.\n",
        files={
            "scripts/used.py": "",
            "scripts/helper.sh": "",
            "scripts/forgotten.py": "",
            "scripts/__pycache__/used.cpython-311.pyc": "",
            "scripts/.hidden": "",
        },
    )
    found = only(skilldeck.lint_skill(folder), "SK309")
    assert [d.message for d in found] == ["scripts/forgotten.py is never mentioned in the body"]
    assert found[0].line == 5


def test_sk309_name_must_be_a_whole_word(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "Run `scripts/build_all.py`.\n", files={"scripts/build.py": ""})
    assert only(skilldeck.lint_skill(folder), "SK309")


# --- tools -------------------------------------------------------------------------


def test_sk310_tool_used_but_not_allowed(tmp_path: Path) -> None:
    body = (
        "Use the Read tool on the file.\n"  # line 6
        "Search with `Grep`, then call Bash(git status).\n"  # line 7
        "Post with mcp__slack__post_message.\n"  # line 8
        "Read the text carefully.\n"  # prose, not a tool
    )
    folder = make_skill(tmp_path, body, extra="allowed-tools: Read\n")
    found = only(skilldeck.lint_skill(folder), "SK310")
    assert {(d.line, d.message.split()[4]) for d in found} == {
        (7, "Grep"),
        (7, "Bash"),
        (8, "mcp__slack__post_message"),
    }


def test_sk310_not_reported_without_allowed_tools(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "Use the Bash tool.\n")
    assert not only(skilldeck.lint_skill(folder), "SK310")


def test_sk310_globs_and_arguments_allow(tmp_path: Path) -> None:
    folder = make_skill(
        tmp_path,
        "Use `Bash` and mcp__github__create_issue.\n",
        extra="allowed-tools: Bash(git:*) mcp__github__*\n",
    )
    report = skilldeck.lint_skill(folder)
    assert not only(report, "SK310")
    assert not only(report, "SK311")


def test_sk311_allowed_tool_never_mentioned(tmp_path: Path) -> None:
    folder = make_skill(
        tmp_path,
        "Run `git status` first.\n",
        extra="allowed-tools: Bash(git:*) WebFetch\n",
    )
    (diag,) = only(skilldeck.lint_skill(folder), "SK311")
    assert "WebFetch" in diag.message
    assert (diag.line, diag.column) == (4, 1)


# --- integration ---------------------------------------------------------------------


def test_lint_keeps_validation_findings_and_verdict(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, name="pdf-tools", extra="author: me\n")
    lenient = skilldeck.lint_skill(folder)
    strict = skilldeck.lint_skill(folder, strict=True)
    assert lenient.valid and not strict.valid
    assert "SK213" in codes(strict)


def test_lint_of_a_folder_without_skill_md(tmp_path: Path) -> None:
    report = skilldeck.lint_skill(tmp_path)
    assert codes(report) == ["SK201"]
    assert not report.valid


def test_lint_accepts_the_skill_md_path(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "See [x](references/x.md).\n")
    assert only(skilldeck.lint_skill(folder / "SKILL.md"), "SK306")


def test_lint_codes_are_registered() -> None:
    lint_codes = {c for c in skilldeck.CODES if c.startswith("SK3")}
    assert lint_codes >= {f"SK3{n:02d}" for n in range(1, 12)} | {"SK330"}
    for code in lint_codes:
        assert skilldeck.CODES[code].severity is not skilldeck.Severity.ERROR


def test_lint_reports_body_declared_tool_problems(tmp_path: Path) -> None:
    body = (
        "### list_files\n\nList files.\n\n#### Parameters\n\nNone.\n\n"
        "#### Command\n\n```bash\nls -la | grep x\n```\n"
    )
    folder = make_skill(tmp_path, body)
    report = skilldeck.lint_skill(folder)
    (diag,) = only(report, "SK405")
    assert diag.is_error and diag.line is not None and diag.line > 5
    assert not report.valid
    assert skilldeck.validate_skill(folder).valid, "validation alone does not parse body tools"


def test_reference_style_link_definitions_are_checked(tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "See [the guide][g].\n\n[g]: references/guide.md\n")
    (diag,) = only(skilldeck.lint_skill(folder), "SK306")
    assert (diag.line, diag.column) == (7, 6)


def test_dot_dot_inside_the_skill_is_not_outside(tmp_path: Path) -> None:
    folder = make_skill(
        tmp_path, "See [x](references/../references/x.md).\n", files={"references/x.md": ""}
    )
    report = skilldeck.lint_skill(folder)
    assert not only(report, "SK308") and not only(report, "SK306")


def test_unknown_modes_are_flagged_with_the_known_ones(tmp_path: Path) -> None:
    folder = tmp_path / "formatter"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: formatter\ndescription: Formats code. Use when asked to format.\n"
        "modes: [Dev, dev, Kitchen]\n---\nRun it.\n"
    )
    found = [d for d in skilldeck.lint_skill(folder).diagnostics if d.code == "SK330"]
    assert [d.message.split("'")[1] for d in found] == ["dev", "Kitchen"]
    assert found[0].hint is not None and "'Dev'" in found[0].hint
    assert found[0].line == 4
    # a host with its own modes
    custom = skilldeck.lint_skill(folder, modes=["Kitchen", "Dev"])
    assert [d.message.split("'")[1] for d in custom.diagnostics if d.code == "SK330"] == ["dev"]
    assert "Kitchen, Dev" in next(d.message for d in custom.diagnostics if d.code == "SK330")


def test_sk313_a_reference_to_a_compiled_cache_is_flagged_as_a_hidden_one_is(
    tmp_path: Path,
) -> None:
    # the one rule of what a skill leaves out: hidden names and compiled Python caches
    body = (
        "Run `scripts/helper.pyc`, see `scripts/__pycache__/tool.cpython-311.pyc`,\n"
        "read [the plan](.notes/plan.md), and use `scripts/tool.py`.\n"
    )
    folder = make_skill(
        tmp_path,
        body,
        files={
            "scripts/helper.pyc": "x",
            "scripts/__pycache__/tool.cpython-311.pyc": "x",
            ".notes/plan.md": "x",
            "scripts/tool.py": "print('hi')\n",
        },
    )
    found = {d.message.split("'")[1]: d for d in only(skilldeck.lint_skill(folder), "SK313")}
    assert set(found) == {
        "scripts/helper.pyc",
        "scripts/__pycache__/tool.cpython-311.pyc",
        ".notes/plan.md",
    }
    assert "compiled Python cache" in found["scripts/helper.pyc"].message
    assert found["scripts/helper.pyc"].hint == "refer to the Python source (.py) instead"
    assert "hidden path" in found[".notes/plan.md"].message
