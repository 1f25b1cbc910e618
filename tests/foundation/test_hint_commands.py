"""A command a hint names works when pasted into a shell, whatever the skill's name or
folder holds (spaces, quotes): every hint builds it with ``hint_command``."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from skilldeck.config import hint_command, with_roots

SRC = Path(__file__).resolve().parents[2] / "src" / "skilldeck"
NAME = "it's here"


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skilldeck", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,  # nobody to ask: approvals are refused with a hint
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _pasted(hint: str) -> list[str]:
    """The words of the command a hint names (after ``skilldeck``), as a shell reads
    them up to the end of the hint or the next ``;`` outside quotes."""
    words = shlex.shlex(hint[hint.index("skilldeck ") :], posix=True, punctuation_chars=";")
    words.whitespace_split = True
    out = []
    for word in words:
        if word == ";":
            break
        out.append(word)
    assert out[0] == "skilldeck", hint
    return out[1:]


def _hint(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result.stdout
    return str(json.loads(result.stdout)["error"]["hint"])


def _skill(folder: Path) -> None:
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f'---\nname: "{NAME}"\ndescription: Says hi. Use when testing hints.\n---\n'
        "Run scripts/hi.py.\n"
    )
    (folder / "scripts" / "hi.py").write_text('print("hi from the skill")\n')


def test_hints_name_commands_that_work_when_pasted(tmp_path: Path) -> None:
    project = tmp_path / "my project"
    _skill(project / ".agents" / "skills" / NAME)

    refused = _cli(project, "run", NAME, "hi.py", "--json")
    approve = _pasted(_hint(refused))
    assert approve[:2] == ["approve", NAME]
    assert _cli(project, *approve).returncode == 0

    missing = _cli(project, "run", NAME, "nope.py", "--json")
    ran = _cli(project, *_pasted(_hint(missing)))
    assert ran.returncode == 0 and "hi from the skill" in ran.stdout, ran.stderr

    unread = _cli(project, "read", NAME, "nope.md", "--json")
    shown = _cli(project, *_pasted(_hint(unread)))
    assert shown.returncode == 0 and "scripts/hi.py" in shown.stdout, shown.stderr

    assert _cli(project, "disable", NAME).returncode == 0
    why = _cli(project, *_pasted(_hint(_cli(project, "load", NAME, "--json"))))
    assert "is disabled by config" in why.stdout, why.stderr  # status 1: it is not visible
    (enable,) = re.findall(r"hint: run: (skilldeck enable .*)", why.stdout)
    assert _cli(project, *_pasted(enable)).returncode == 0
    assert _cli(project, "load", NAME).returncode == 0

    gone = _cli(project, "load", "it's her", "--json")
    looked = _cli(project, *_pasted(_hint(gone)))
    assert "it's her" in looked.stdout, looked.stderr


def test_a_hint_from_a_root_with_spaces_finds_the_same_skill(tmp_path: Path) -> None:
    root = tmp_path / "skills of mine"
    _skill(root / NAME)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    refused = _cli(elsewhere, "run", NAME, "hi.py", "--root", str(root), "--json")
    assert _cli(elsewhere, *_pasted(_hint(refused))).returncode == 0
    ran = _cli(elsewhere, "run", NAME, "hi.py", "--root", str(root))
    assert ran.returncode == 0 and "hi from the skill" in ran.stdout, ran.stderr
    # a misspelt name: why looks where the load looked (it searched the default sources)
    misspelt = _cli(elsewhere, "load", "it's her", "--root", str(root), "--json")
    why = _cli(elsewhere, *_pasted(_hint(misspelt)))
    assert f"searched: {root})" in why.stdout and NAME in why.stdout, why.stdout


def test_new_outside_the_searched_folders_prints_commands_that_work(tmp_path: Path) -> None:
    made = _cli(tmp_path, "new", "notes", "--dir", str(tmp_path / "other dir"))
    assert made.returncode == 0, made.stderr
    (lint,) = re.findall(r"then run: (skilldeck lint .*)", made.stdout)
    assert _cli(tmp_path, *_pasted(lint)).returncode == 0
    (listing,) = re.findall(r"or run: (skilldeck list .*)", made.stdout)
    listed = _cli(tmp_path, *_pasted(listing))
    assert listed.returncode == 0 and "notes" in listed.stdout, listed.stderr


def test_the_rule_quotes_each_word_and_roots_complete_it() -> None:
    command = hint_command("approve", NAME)
    assert shlex.split(command) == ["skilldeck", "approve", NAME]
    hint = with_roots(f"review it, then run: {command}", ["/a b"])
    assert hint is not None
    assert _pasted(hint) == ["approve", NAME, "--root", "/a b"]


@pytest.mark.parametrize("name", ["a; b", "it's; here", 'say "x; y"'])
def test_roots_complete_a_command_whose_name_holds_the_clause_separator(name: str) -> None:
    """A hint's clauses are split at "; " to find their commands: not inside a quoted
    name (a skill may be named "a; b"), while prose around it keeps its apostrophes."""
    command = hint_command("approve", name)
    hint = with_roots(f"the skill's scripts are not approved; run: {command}; or read it", ["/r"])
    assert hint is not None
    first, second, third = hint.split("; run: ")[0], *hint.split("; run: ")[1].rsplit("; ", 1)
    assert first == "the skill's scripts are not approved" and third == "or read it"
    assert shlex.split(second) == ["skilldeck", "approve", name, "--root", "/r"]


def test_no_hint_pastes_a_value_into_a_command_by_hand() -> None:
    """``skilldeck VERB ... {value}`` in an f-string would leave the value unquoted."""
    import click

    from skilldeck.cli import main

    verbs = "|".join(main.list_commands(click.Context(main)))
    assert "approve" in verbs
    by_hand = re.compile(rf"""f["'][^"'\n]*skilldeck (?:{verbs})(?: [\w./=-]+)* \{{""")
    found = [
        f"{path.relative_to(SRC)}:{number}"
        for path in SRC.rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if by_hand.search(line)
    ]
    assert found == []
