"""Bad input never produces a traceback: every problem is a diagnostic (or exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import skilldeck

HEADER = b"---\nname: big\ndescription: A big skill. Use when testing limits.\n---\n"


def _build_tree(root: Path) -> dict[str, Path]:
    """One folder per kind of bad input; returns name -> skill folder."""
    cases: dict[str, Path] = {}

    def folder(name: str) -> Path:
        path = root / name
        path.mkdir()
        cases[name] = path
        return path

    (folder("dir-named-skill-md") / "SKILL.md").mkdir()
    (folder("binary-garbage") / "SKILL.md").write_bytes(os.urandom(64 * 1024))
    (folder("nul-bytes") / "SKILL.md").write_bytes(b"---\nname: nul\x00\ndescription: \x00\n---\n")
    (folder("latin1") / "SKILL.md").write_bytes(
        b"---\nname: latin1\ndescription: caf\xe9. Use when.\n---\n"
    )
    big = folder("big")
    with open(big / "SKILL.md", "wb") as fh:
        fh.write(HEADER)
        fh.truncate(100 * 1024 * 1024)  # 100 MB, mostly NUL bytes (sparse on disk)
    with open(folder("big-frontmatter") / "SKILL.md", "wb") as fh:
        fh.write(b"---\nname: big-frontmatter\ndescription: x\n")
        fh.write(b"k: " + b"v" * (8 * 1024 * 1024) + b"\n---\nbody\n")
    deep = "---\nname: deep-flow\ndescription: x\nnest: " + "[" * 20_000 + "]" * 20_000 + "\n---\n"
    (folder("deep-flow") / "SKILL.md").write_text(deep)
    block = "".join(" " * i + f"k{i}:\n" for i in range(300))
    (folder("deep-block") / "SKILL.md").write_text(
        "---\nname: deep-block\ndescription: x\nnest:\n" + block + "---\n"
    )
    laughs = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    laughs += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    (folder("billion-laughs") / "SKILL.md").write_text(
        "---\nname: billion-laughs\ndescription: x\n" + "\n".join(laughs) + "\n---\n"
    )
    (folder("tags") / "SKILL.md").write_text(
        "---\nname: tags\ndescription: !!python/object/apply:os.system ['echo hi']\n---\n"
    )
    (folder("only-dashes") / "SKILL.md").write_text("---")
    (folder("empty-file") / "SKILL.md").write_bytes(b"")
    (folder("unclosed") / "SKILL.md").write_text("---\nname: unclosed\ndescription: x\n")
    (folder("list-frontmatter") / "SKILL.md").write_text("---\n- a\n- b\n---\n")
    (folder("bad-yaml") / "SKILL.md").write_text("---\nname: [unclosed\ndescription: x\n---\n")
    dangling = folder("dangling-link")
    os.symlink(root / "does-not-exist.md", dangling / "SKILL.md")
    escaping = folder("escaping-link")
    outside = root.parent / f"{root.name}-outside.md"
    outside.write_text("---\nname: escaping-link\ndescription: x\n---\n")
    os.symlink(outside, escaping / "SKILL.md")
    loop = folder("link-loop")
    os.symlink(loop / "SKILL.md", loop / "SKILL.md")
    fifo = folder("fifo")
    os.mkfifo(fifo / "SKILL.md")
    unreadable = folder("unreadable")
    (unreadable / "SKILL.md").write_text("---\nname: unreadable\ndescription: x\n---\n")
    (unreadable / "SKILL.md").chmod(0)
    return cases


@pytest.fixture
def bad_tree(tmp_path: Path) -> dict[str, Path]:
    root = tmp_path / "bad"
    root.mkdir()
    cases = _build_tree(root)
    yield cases  # type: ignore[misc]
    (cases["unreadable"] / "SKILL.md").chmod(0o644)


@pytest.mark.parametrize("strict", [False, True])
def test_library_never_raises(bad_tree: dict[str, Path], strict: bool) -> None:
    for name, folder in bad_tree.items():
        started = time.monotonic()
        report = skilldeck.lint_skill(folder, strict=strict)
        assert time.monotonic() - started < 10, name
        if name not in ("big", "latin1") and not (name == "unreadable" and os.geteuid() == 0):
            assert not report.valid, name
        assert report.diagnostics or name == "big", name
        for diag in report.diagnostics:
            assert diag.code in skilldeck.CODES, diag


@pytest.mark.parametrize(
    "body", [b"See [x](rd\x00).", b"See [x](references/a\x00b.md).", b"See [x](a%00)."]
)
def test_a_nul_byte_in_a_link_target_is_a_finding(tmp_path: Path, body: bytes) -> None:
    # random binary SKILL.md bodies hit this about once in 50 (test_library_never_raises
    # failed with "ValueError: embedded null byte" from resolving the link's target)
    folder = tmp_path / "nul-link"
    folder.mkdir()
    head = b"---\nname: nul-link\ndescription: Does x. Use when y.\n---\n"
    (folder / "SKILL.md").write_bytes(head + body + b"\n")
    report = skilldeck.lint_skill(folder)
    assert [d.code for d in report.diagnostics] == ["SK306"]  # the file does not exist


@pytest.mark.parametrize(
    "where", ["metadata:\n  n: {}\n", "timeout: {}\n", "n: [{}]\n", "x: |\n  t\nn: {}\n"]
)
def test_a_huge_integer_stays_text(tmp_path: Path, where: str) -> None:
    # int() refuses more than 4,300 digits: one such skill made list, validate, lint
    # and prompt fail with a ValueError for the whole catalog (both YAML loaders)
    folder = tmp_path / "huge-int"
    folder.mkdir()
    number = "9" * 5000
    (folder / "SKILL.md").write_text(
        "---\nname: huge-int\ndescription: Does x. Use when y.\n" + where.format(number) + "---\n"
    )
    report = skilldeck.lint_skill(folder)
    assert report.manifest is not None and number in json.dumps(report.manifest.frontmatter)
    listed = skilldeck.Catalog.from_roots([tmp_path]).list()
    assert [m.name for m in listed] == ["huge-int"]


def test_expected_codes(bad_tree: dict[str, Path]) -> None:
    def codes(name: str) -> set[str]:
        return {d.code for d in skilldeck.validate_skill(bad_tree[name]).diagnostics}

    assert "SK113" in codes("dir-named-skill-md")
    assert "SK113" in codes("fifo")
    assert "SK214" in codes("escaping-link")
    assert "SK214" in codes("dangling-link") or "SK113" in codes("dangling-link")
    assert "SK106" in codes("deep-flow")
    assert "SK106" in codes("deep-block")
    assert "SK106" in codes("billion-laughs")
    assert "SK107" in codes("big-frontmatter")
    assert "SK102" in codes("unclosed")
    assert "SK104" in codes("list-frontmatter")
    assert "SK105" in codes("bad-yaml")
    assert "SK111" in codes("latin1")
    assert codes("empty-file") & {"SK101", "SK103"}


def test_big_file_is_read_bounded(bad_tree: dict[str, Path]) -> None:
    report = skilldeck.validate_skill(bad_tree["big"])
    assert report.body_truncated
    assert len(report.body) <= 5 * 1024 * 1024
    parsed = skilldeck.read_skill_md(bad_tree["big"] / "SKILL.md", metadata_only=True)
    assert parsed.manifest is not None and parsed.manifest.name == "big"


def test_cli_never_prints_a_traceback(bad_tree: dict[str, Path]) -> None:
    root = next(iter(bad_tree.values())).parent
    for args in (
        ["validate", str(root)],
        ["validate", "--strict", "--format", "json", str(root)],
        ["lint", str(root)],
        ["lint", "--format", "json", str(root)],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "skilldeck", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert "Traceback" not in result.stderr, result.stderr
        assert result.returncode == 1, (args, result.stderr)
        if "json" in args:
            data = json.loads(result.stdout)["data"]
            assert data["summary"]["skills"] == len(bad_tree)


def test_cli_show_on_each_bad_input(bad_tree: dict[str, Path]) -> None:
    from click.testing import CliRunner

    from skilldeck.cli import main

    for name, folder in bad_tree.items():
        result = CliRunner().invoke(main, ["show", "--format", "json", str(folder)])
        assert result.exception is None or isinstance(result.exception, SystemExit), name
        assert result.exit_code in (0, 1), (name, result.output)
        json.loads(result.stdout)


@pytest.mark.parametrize(
    "path",
    ["a\x00b", "\ud800", "/tmp/" + "x" * 5000, "/tmp/" + "/".join(["y" * 255] * 40), "~nouser/x"],
    ids=["nul", "lone-surrogate", "long-name", "long-path", "unknown-user-home"],
)
def test_hostile_paths_to_the_library_are_coded_errors(path: str) -> None:
    # each of these raised ValueError, UnicodeEncodeError, OSError or RuntimeError
    report = skilldeck.read_skill_md(path)
    assert report.manifest is None and [d.code for d in report.diagnostics] == ["SK113"]
    assert [d.code for d in skilldeck.validate_skill(path).diagnostics]
    if "\x00" in path or "\ud800" in path:
        with pytest.raises(skilldeck.InvalidArgumentsError):
            skilldeck.Catalog.from_roots([path])
        with pytest.raises(skilldeck.InvalidArgumentsError):
            skilldeck.SkillRuntime.from_roots([path])
    else:
        assert skilldeck.Catalog.from_roots([path]).list() == []
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(path)


def test_a_tab_indented_frontmatter_says_tabs(tmp_path: Path) -> None:
    folder = tmp_path / "tabbed"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: tabbed\ndescription: Does x. Use when y.\nmetadata:\n\tkey: v\n---\n"
    )
    (diag,) = skilldeck.validate_skill(folder).diagnostics
    assert (diag.code, diag.line) == ("SK105", 5)
    assert diag.hint is not None and "tabs" in diag.hint  # said only "check quoting"


def test_a_control_character_in_the_frontmatter_is_located(tmp_path: Path) -> None:
    # the YAML reader's own message spanned two lines ('in "<unicode string>",
    # position 24') and pointed at the frontmatter's first line
    folder = tmp_path / "nul-value"
    folder.mkdir()
    (folder / "SKILL.md").write_bytes(b"---\nname: nul-value\ndescription: a\x00b\n---\n")
    (diag,) = skilldeck.validate_skill(folder).diagnostics
    assert (diag.code, diag.line, diag.column) == ("SK105", 3, 15)
    assert diag.message == "invalid YAML: character '\\x00' is not allowed in YAML"


# what a skill's text could do to a terminal: retitle it (OSC), clear it (8-bit CSI),
# hide what follows (SGR 8), ring it; and a name that hides its own characters
HOSTILE = "\x1b]0;pwned\x07 \x9b2J \x1b[8mhidden"
HOSTILE_YAML = "\\e]0;pwned\\a \\x9b2J \\e[8mhidden"


def _shown_raw(text: str) -> list[str]:
    return [s for s in ("\x1b]0;", "\x07", "\x9b", "\x1b[8m", "\x00") if s in text]


def test_control_characters_from_a_skill_reach_no_terminal(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for name, frontmatter in (
        ("loud", f'name: loud\ndescription: "Loud. {HOSTILE_YAML}"\nlicense: "{HOSTILE_YAML}"'),
        ("quiet", 'name: "qu\\0iet\\e[8m"\ndescription: Quiet. Use when testing.'),
    ):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(f"---\n{frontmatter}\n---\nBody.\n")
    runs = [
        ["--color", "always", "show", str(root / "loud")],
        ["--color", "always", "show", str(root / "quiet")],
        ["--color", "always", "validate", str(root)],
        ["list", "--root", str(root)],
        ["search", "--root", str(root), "loud"],
    ]
    for args in runs:
        done = subprocess.run(
            [sys.executable, "-m", "skilldeck", *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert "Traceback" not in done.stderr, done.stderr
        assert _shown_raw(done.stdout + done.stderr) == [], (args, done.stdout, done.stderr)
    shown = subprocess.run(
        [sys.executable, "-m", "skilldeck", "show", str(root / "loud")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert "Loud. \\x1b]0;pwned\\x07 \\x9b2J \\x1b[8mhidden" in shown  # escaped, not dropped


def test_a_diagnostic_quoting_a_huge_value_is_cut(tmp_path: Path) -> None:
    # an SK217 repeated a 5,000-digit timeout whole, on one line of every listing
    folder = tmp_path / "huge"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: huge\ndescription: Does huge. Use in tests.\n"
        f"timeout: {'9' * 5000}\n---\nBody\n"
    )
    report = skilldeck.validate_skill(folder)
    (diag,) = [d for d in report.diagnostics if d.code == "SK217"]
    assert len(diag.message) < 1_100 and diag.message.endswith("... (5,072 characters)")
    assert diag.message.startswith("timeout must be 1-")
