"""Precedence of the default sources, shadowing, SOURCE:NAME, duplicate collapse."""

from __future__ import annotations

from pathlib import Path

import pytest

from skilldeck import Catalog, SkillNotFoundError, SkillStatus, Trust
from skilldeck.config import dirs

from .conftest import MakeSkill, git_init


def _layout(tmp_path: Path) -> tuple[Path, list[tuple[str, Path]]]:
    """A repo with a sub-folder as cwd and every default root, lowest first."""
    repo = git_init(tmp_path / "repo")
    cwd = repo / "sub"
    cwd.mkdir()
    home = Path.home()
    bundled = tmp_path / "bundled"
    extra = tmp_path / "extra"
    deep_extra = tmp_path / "deep-extra"
    cfg = dirs().config_file
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(
        f'[catalog]\nroots = ["{extra}"]\nrecursive = ["{deep_extra}"]\n'
        f'[catalog.source_roots]\nbundled = ["{bundled}"]\n'
    )
    roots = [
        ("bundled", bundled),
        ("user", home / ".agents" / "skills"),
        ("user", home / ".claude" / "skills"),
        ("user", dirs().user_skills),
        ("extra", extra),
        ("extra", deep_extra / "nested"),  # found recursively below deep_extra
        ("project", repo / ".claude" / "skills"),
        ("project", repo / ".agents" / "skills"),
        ("project", cwd / ".claude" / "skills"),
        ("project", cwd / ".agents" / "skills"),
        ("installed", dirs().installed),
        ("installed", repo / ".skilldeck" / "skills"),
    ]
    return cwd, roots


@pytest.mark.parametrize("low", range(11))
def test_each_default_root_beats_the_one_below(
    tmp_path: Path, make_skill: MakeSkill, low: int
) -> None:
    cwd, roots = _layout(tmp_path)
    (lo_src, lo), (hi_src, hi) = roots[low], roots[low + 1]
    make_skill(lo, "same", "the lower copy")
    make_skill(hi, "same", "the higher copy")
    cat = Catalog.default(cwd=cwd)
    top = cat.get("same")
    assert top.status is SkillStatus.ENABLED
    assert top.source == hi_src and top.path == hi / "same"
    assert top.metadata.description == "the higher copy"
    (hidden,) = [e for e in cat.entries() if e.status is SkillStatus.SHADOWED]
    assert hidden.path == lo / "same"
    assert hidden.shadowed_by == f"{hi_src}:same"
    # a shadowed skill stays addressable (when its source differs)
    if lo_src != hi_src:
        assert cat.get(f"{lo_src}:same").path == lo / "same"
        assert cat.load(f"{lo_src}:same").metadata.description == "the lower copy"
    assert [m.description for m in cat.list()] == ["the higher copy"]


def test_trust_by_source_kind(tmp_path: Path, make_skill: MakeSkill) -> None:
    cwd, roots = _layout(tmp_path)
    for i, (_src, root) in enumerate(roots):
        make_skill(root, f"s{i}")
    cat = Catalog.default(cwd=cwd)
    assert cat.trust("s0") is Trust.BUNDLED
    assert {cat.trust(f"s{i}") for i in range(1, 10)} == {Trust.USER}
    assert cat.trust("s10") is Trust.UNTRUSTED and cat.trust("s11") is Trust.UNTRUSTED


def test_configured_source_order(tmp_path: Path, make_skill: MakeSkill) -> None:
    cwd, roots = _layout(tmp_path)
    make_skill(roots[0][1], "same", "bundled copy")
    make_skill(roots[-1][1], "same", "installed copy")
    cfg = dirs().config_file
    cfg.write_text(
        cfg.read_text().replace("[catalog]\n", '[catalog]\nsources = ["installed", "bundled"]\n')
    )
    cat = Catalog.default(cwd=cwd)
    assert cat.get("same").metadata.description == "bundled copy"
    assert [s.name for s in cat.sources] == ["installed", "bundled"]


def test_outside_a_repo_only_cwd_is_a_project_folder(tmp_path: Path, make_skill: MakeSkill) -> None:
    parent = tmp_path / "plain"
    cwd = parent / "child"
    cwd.mkdir(parents=True)
    make_skill(parent / ".claude" / "skills", "above")
    make_skill(cwd / ".claude" / "skills", "here")
    names = [m.name for m in Catalog.default(cwd=cwd).list() if m.source == "project"]
    assert names == ["here"]


def test_source_name_addressing_errors(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "a", "x")
    cat = Catalog.from_roots([tmp_path / "a"])
    assert cat.get("root1:x").name == "x"
    with pytest.raises(SkillNotFoundError) as info:
        cat.get("root2:x")
    assert info.value.code == "SKILL_NOT_FOUND"
    with pytest.raises(SkillNotFoundError) as info:
        cat.load("y")
    assert "skilldeck why" in (info.value.hint or "")


def test_identical_duplicates_collapse_silently(tmp_path: Path, make_skill: MakeSkill) -> None:
    files = {"scripts/run.py": "print(1)\n"}
    a = make_skill(tmp_path / "a", "twin", files=files)
    b = make_skill(tmp_path / "b", "twin", files=files)
    cat = Catalog.from_roots([tmp_path / "a", tmp_path / "b"])
    entries = cat.entries()
    assert len(entries) == 1
    assert entries[0].path == b and entries[0].duplicates == (a,)
    assert all(d.code != "SK510" for d in entries[0].diagnostics)
    # one differing byte anywhere in the folder: no longer identical
    (a / "scripts" / "run.py").write_text("print(2)\n")
    cat = Catalog.from_roots([tmp_path / "a", tmp_path / "b"])
    assert [e.status for e in cat.entries()] == [SkillStatus.ENABLED, SkillStatus.SHADOWED]


def test_same_name_twice_in_one_source(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r" / "one", "dup", "first")
    make_skill(tmp_path / "r" / "two", "dup", "second")
    cat = Catalog.from_roots([tmp_path / "r"], recursive=True)
    top, hidden = cat.entries()
    assert top.metadata.description == "first"  # first folder in path order wins
    assert hidden.status is SkillStatus.SHADOWED
    assert any(d.code == "SK509" for d in hidden.diagnostics)
