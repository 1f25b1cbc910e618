"""why NAME: one line per candidate or near miss, each reason kind."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from skilldeck import Catalog, Source, load_config
from skilldeck.config import dirs

from .conftest import MakeSkill


def _kinds(cat: Catalog, name: str) -> list[str]:
    return [line.kind for line in cat.why(name)]


def test_visible_and_shadowed(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "a", "s", "low")
    make_skill(tmp_path / "b", "s", "high")
    cat = Catalog.from_roots([tmp_path / "a", tmp_path / "b"])
    lines = cat.why("s")
    assert [x.kind for x in lines] == ["visible", "shadowed"]
    assert "shadowed by root2:s" in lines[1].message


def test_parse_error_and_invalid_name(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r", "bad-yaml", raw="---\nname: [unclosed\n---\nbody\n")
    make_skill(tmp_path / "r", "Bad_Name", folder="bad-name")
    cat = Catalog.from_roots([tmp_path / "r"])
    assert _kinds(cat, "bad-yaml") == ["parse_error"]
    assert "invalid_name" in _kinds(cat, "bad-name")
    line = next(x for x in cat.why("bad-name") if x.kind == "invalid_name")
    assert "Bad_Name" in line.message


def test_disabled_and_unavailable(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r", "off")
    make_skill(tmp_path / "r", "needs", frontmatter="requires: skd-none-xyz\n")
    cfg = dirs().config_file
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[catalog]\ndisabled = ["off"]\n')
    cat = Catalog.from_roots([tmp_path / "r"], config=load_config())
    (off,) = cat.why("off")
    assert off.kind == "disabled" and off.hint == "run: skilldeck enable off"
    (needs,) = cat.why("needs")
    assert needs.kind == "unavailable" and "skd-none-xyz" in needs.message


def test_escaped_and_dangling_symlinks(tmp_path: Path, make_skill: MakeSkill) -> None:
    outside = make_skill(tmp_path / "outside", "away")
    root = tmp_path / "r"
    root.mkdir()
    (root / "away").symlink_to(outside, target_is_directory=True)
    (root / "ghost").symlink_to(tmp_path / "nothing", target_is_directory=True)
    cat = Catalog.from_roots([root])
    assert _kinds(cat, "away") == ["escaped_symlink"]
    assert _kinds(cat, "ghost") == ["dangling_symlink"]


def test_wrong_depth(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r" / "category", "buried")
    cat = Catalog([Source.of("r", "root", [tmp_path / "r"])])  # not a repository root
    (line,) = cat.why("buried")
    assert line.kind == "wrong_depth"
    assert "immediate" in line.message and line.path == tmp_path / "r" / "category" / "buried"


def test_wrong_depth_in_a_repository_root(tmp_path: Path, make_skill: MakeSkill) -> None:
    """A --root names a repository: category folders are searched, a skill inside
    another skill or deeper than the layouts is what why explains."""
    make_skill(tmp_path / "r" / "category", "found-here")
    make_skill(tmp_path / "r" / "category" / "found-here", "inside")
    make_skill(tmp_path / "r" / "a" / "b" / "c" / "d", "too-deep")
    cat = Catalog.from_roots([tmp_path / "r"])
    assert [x.kind for x in cat.why("found-here")] == ["visible"]
    for name in ("inside", "too-deep"):
        (line,) = cat.why(name)
        assert line.kind == "wrong_depth" and "repository" in line.message


def test_outside_the_budget(tmp_path: Path, make_skill: MakeSkill) -> None:
    for i in range(30):
        make_skill(tmp_path / "r", f"skill-{i:02d}", "x" * 150)
    cat = Catalog.from_roots([tmp_path / "r"])
    kinds = _kinds(cat, "skill-29")
    assert kinds == ["visible"]  # no budget configured
    lines = cat.why("skill-29", budget=1500)
    assert [x.kind for x in lines] == ["visible", "over_budget"]
    assert "skills_search" in (lines[1].hint or "")
    assert [x.kind for x in cat.why("skill-00", budget=1500)] == ["visible"]


def test_duplicate_and_not_found(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "a", "twin")
    make_skill(tmp_path / "b", "twin")
    cat = Catalog.from_roots([tmp_path / "a", tmp_path / "b"])
    assert _kinds(cat, "twin") == ["visible", "duplicate"]
    (nf,) = cat.why("twine")
    assert nf.kind == "not_found" and "twin" in (nf.hint or "")


def test_a_same_name_copy_in_one_source_gets_a_hint_that_reaches_it(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    """Two plugins of one repository each ship a ``setup`` skill: the hidden one's
    address (``root1:setup``) names the other, so the hint pasted in a shell must
    reach the hidden copy by its folder, whatever the folder's name holds."""
    root = tmp_path / "repo"
    make_skill(root / "plugins" / "alpha" / "skills", "setup", "Alpha setup. Use when a.")
    hidden = make_skill(
        root / "plugins" / "beta {x} 'q'" / "skills", "setup", "Beta setup. Use when b."
    )
    why = subprocess.run(
        [sys.executable, "-m", "skilldeck", "why", "setup", "--root", str(root)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    hint = next(line for line in why.stdout.splitlines() if line.strip().startswith("hint:"))
    assert "address it as" not in hint, why.stdout
    pasted = shlex.split(hint.split("read this one with: ", 1)[1])
    assert pasted[:2] == ["skilldeck", "show"]
    shown = subprocess.run(
        [sys.executable, "-m", "skilldeck", *pasted[1:], "--format", "json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    data = json.loads(shown.stdout)["data"]
    assert data["manifest"]["description"] == "Beta setup. Use when b."
    assert Path(data["path"]) == hidden
