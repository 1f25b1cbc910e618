"""One name rule (``_paths.name_refusal``): a file or folder whose name a read
refuses is never listed either, so what a skill lists is exactly what can be read,
digested, copied and run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import skilldeck
from skilldeck import Catalog, SkillError
from skilldeck._paths import NOT_UTF8, name_refusal, safe_relpath, shown_path
from skilldeck._tree import walk_skill

REFUSED = [
    "a\\b.md",  # a separator on Windows
    "~notes.md",  # a home folder once expanded
    "%2e%2e",  # traversal once decoded
    "x%2Fy.md",
    "x%5cy.md",
    "x%00.md",
    "c:notes.md",  # a drive letter
    "line\nbreak.md",  # forges a line of a listing
    "tab\there.md",
    "bell\x07.md",
]
KEPT = ["notes.md", "a~b.md", "100%.md", "50%20off.md", "ab:c.md", "résumé.md", "日本.md", "a b.md"]


@pytest.mark.parametrize("name", REFUSED)
def test_a_refused_name_says_why(name: str) -> None:
    why = name_refusal(name)
    assert why is not None and why != NOT_UTF8
    assert safe_relpath(name) is None
    assert safe_relpath(f"docs/{name}") is None  # anywhere in the path
    assert safe_relpath(f"{name}/x.md") is None


@pytest.mark.parametrize("name", KEPT)
def test_ordinary_names_are_kept(name: str) -> None:
    assert name_refusal(name) is None
    assert safe_relpath(f"docs/{name}") == f"docs/{name}"


def test_bytes_that_are_not_utf8_are_refused_too() -> None:
    assert name_refusal(os.fsdecode(b"r\xe9sum\xe9.txt")) == NOT_UTF8
    assert safe_relpath("docs/" + os.fsdecode(b"\xff")) is None


def test_names_are_shown_unambiguously() -> None:
    """Every name is shown on one printable line, and two different names are never
    shown alike (a backslash of the name itself is doubled, an escape is not)."""
    names = [
        "line\nbreak.md",
        "line\\x0abreak.md",  # the seven characters of an escape, in the name itself
        "a\\b.md",
        "a\\\\b.md",
        os.fsdecode(b"r\xe9sum\xe9.md"),
        "r\\xe9sum\\xe9.md",
        "bell\x07.md",
        "résumé.md",
    ]
    shown = [shown_path(n) for n in names]
    assert all(s.isprintable() for s in shown)
    assert len(set(shown)) == len(names)
    assert shown[0] == "line\\x0abreak.md" and shown[1] == "line\\\\x0abreak.md"
    assert shown[-1] == "résumé.md"


def _skill(root: Path, name: str, extra: bool) -> Path:
    folder = root / name
    (folder / "docs").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Names. Use when naming.\n---\nSee docs/a.md.\n"
    )
    (folder / "docs" / "a.md").write_text("A\n")
    if extra:
        for name_ in REFUSED:
            (folder / "docs" / name_).write_text("x\n")
        (folder / "~folder").mkdir()
        (folder / "~folder" / "inner.md").write_text("in\n")
        os.symlink("a.md", folder / "docs" / "~link.md")
    return folder


def test_a_skill_lists_exactly_what_can_be_read(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    folder = _skill(root, "names", extra=True)
    plain = _skill(tmp_path / "plain", "names", extra=False)
    walk = walk_skill(folder, strict=False)
    assert [e.path for e in walk.files] == ["SKILL.md", "docs/a.md"]
    shown = sorted(p.path for p in walk.problems if p.kind == "bad_name")
    assert "docs/line\\x0abreak.md" in shown and "~folder" in shown
    assert all("\n" not in p.message and "\t" not in p.message for p in walk.problems)
    catalog = Catalog.from_roots([root], cache=False)
    assert list(catalog.files("names", index="all")) == ["docs/a.md"]
    for name in [*REFUSED, "~link.md"]:
        with pytest.raises(SkillError) as refused:
            catalog.read_bundled("names", f"docs/{name}", index="all")
        assert refused.value.code == "PATH_NOT_ALLOWED"
    # digested and installed as the skill without those names, each one said
    assert skilldeck.catalog.skill_digest(folder) == skilldeck.catalog.skill_digest(plain)
    result = skilldeck.dist.install(str(folder))
    warned = [d for d in result.skills[0].warnings if d.code == "SK520"]
    assert len(warned) == len(REFUSED) + 2  # and the link, and the folder
    assert all(d.hint and "\n" not in d.message and "\t" not in d.message for d in warned)
    copy = Path(result.skills[0].path)
    got = sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file())
    assert got == ["SKILL.md", "docs/a.md"]
    shutil.rmtree(copy)


def test_no_copy_of_the_rule_is_left() -> None:
    """Percent-encoded traversal is spelled out in ``_paths`` alone."""
    root = os.path.dirname(skilldeck.__file__)
    copies = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(".py") and name != "_paths.py":
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as fh:
                    if "%2e" in fh.read().lower():
                        copies.append(os.path.relpath(path, root))
    assert copies == []


def test_lint_tells_the_author_what_install_will_leave_out(tmp_path: Path) -> None:
    folder = _skill(tmp_path / "skills", "names", extra=True)
    os.symlink("missing.md", folder / "docs" / "gone.md")
    found = skilldeck.format.lint_skill(folder).diagnostics
    codes = [d.code for d in found]
    assert codes.count("SK520") == len(REFUSED) + 2 and "SK504" in codes
    assert all(d.severity is skilldeck.Severity.WARNING for d in found if d.code == "SK520")
