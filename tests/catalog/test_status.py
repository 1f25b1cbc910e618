"""Status: disabled by config, unavailable (requirements), invalid, and who shadows whom."""

from __future__ import annotations

from pathlib import Path

import pytest

from skilldeck import Catalog, Config, SkillStatus, SkillUnavailableError, load_config
from skilldeck.config import dirs

from .conftest import MakeSkill


def _cfg(text: str) -> Config:
    path = dirs().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return load_config()


def test_disabled_by_name_and_by_address(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "a", "alpha")
    make_skill(tmp_path / "a", "beta")
    make_skill(tmp_path / "b", "beta", "higher beta")
    cfg = _cfg('[catalog]\ndisabled = ["alpha", "root2:beta"]\n')
    cat = Catalog.from_roots([tmp_path / "a", tmp_path / "b"], config=cfg)
    status = {e.address: (e.status, e.reason) for e in cat.entries()}
    assert status["root1:alpha"] == (SkillStatus.DISABLED, "disabled by config")
    assert status["root2:beta"] == (SkillStatus.DISABLED, "disabled by config")
    # a disabled candidate does not shadow: the lower beta becomes visible
    assert status["root1:beta"] == (SkillStatus.ENABLED, None)
    assert [m.source for m in cat.list()] == ["root1"]
    with pytest.raises(SkillUnavailableError) as info:
        cat.load("alpha")
    assert info.value.code == "SKILL_UNAVAILABLE"


def test_disabled_plugin(tmp_path: Path, make_skill: MakeSkill) -> None:
    plugin = tmp_path / "plugins" / "mine"
    make_skill(plugin, "from-plugin")
    cfg = _cfg(f'[plugins.mine]\npath = "{plugin}"\nenabled = false\n')
    cat = Catalog.from_roots([plugin], config=cfg)
    entry = cat.get("from-plugin")
    assert entry.status is SkillStatus.DISABLED
    assert entry.reason == "disabled by plugin mine (enabled = false)"


def test_requirements_met_unmet_unchecked(
    tmp_path: Path, make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "r"
    make_skill(root, "has-sh", frontmatter="requires: sh\n")
    make_skill(root, "no-cmd", frontmatter="requires: skilldeck-no-such-command-xyz\n")
    make_skill(
        root,
        "needs-env",
        frontmatter="requires:\n  env: [SKD_TEST_TOKEN_A, SKD_TEST_TOKEN_B]\n",
    )
    make_skill(root, "odd-kind", frontmatter="requires:\n  gpu: [cuda]\n")
    monkeypatch.setenv("SKD_TEST_TOKEN_A", "set")
    monkeypatch.delenv("SKD_TEST_TOKEN_B", raising=False)
    cat = Catalog.from_roots([root])
    st = {e.name: e for e in cat.entries()}
    assert st["has-sh"].status is SkillStatus.ENABLED
    assert st["no-cmd"].status is SkillStatus.UNAVAILABLE
    assert st["no-cmd"].reason == "missing commands: skilldeck-no-such-command-xyz"
    assert st["needs-env"].status is SkillStatus.UNAVAILABLE
    assert st["needs-env"].reason == "missing environment variables: SKD_TEST_TOKEN_B"
    assert st["odd-kind"].status is SkillStatus.ENABLED  # unchecked, not missing
    assert [d.code for d in st["odd-kind"].diagnostics if d.code.startswith("SK5")] == ["SK513"]
    note = next(d for d in st["odd-kind"].diagnostics if d.code == "SK513")
    assert note.path == str(st["odd-kind"].metadata.skill_md) == str(root / "odd-kind" / "SKILL.md")
    # the variable appears: a refresh makes the skill available
    monkeypatch.setenv("SKD_TEST_TOKEN_B", "now")
    assert cat.refresh() is True
    assert cat.get("needs-env").status is SkillStatus.ENABLED


def test_path_decides_commands(tmp_path: Path, make_skill: MakeSkill) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool = bindir / "skd-fake-tool"
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(0o755)
    make_skill(tmp_path / "r", "tooly", frontmatter="requires: skd-fake-tool\n")
    without = Catalog.from_roots([tmp_path / "r"], environ={"PATH": "/nonexistent"})
    assert without.get("tooly").status is SkillStatus.UNAVAILABLE
    with_it = Catalog.from_roots([tmp_path / "r"], environ={"PATH": str(bindir)})
    assert with_it.get("tooly").status is SkillStatus.ENABLED


def test_unavailable_and_invalid_do_not_shadow(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "low", "s", "works")
    make_skill(tmp_path / "mid", "s", "needs a tool", frontmatter="requires: skd-none-xyz\n")
    make_skill(tmp_path / "high", "s", raw="---\nname: s\n---\nno description\n")
    cat = Catalog.from_roots([tmp_path / "low", tmp_path / "mid", tmp_path / "high"])
    got = [(e.source, e.status) for e in cat.entries()]
    assert got == [
        ("root3", SkillStatus.INVALID),
        ("root2", SkillStatus.UNAVAILABLE),
        ("root1", SkillStatus.ENABLED),
    ]
    assert cat.get("s").metadata.description == "works"


def test_check_requirements_off(tmp_path: Path, make_skill: MakeSkill) -> None:
    make_skill(tmp_path / "r", "x", frontmatter="requires: skd-none-xyz\n")
    cat = Catalog.from_roots([tmp_path / "r"], check_requirements=False)
    assert cat.get("x").status is SkillStatus.ENABLED


def test_requirement_notes_name_skill_md_as_its_path_does() -> None:
    """The SK513 note's path is ``str(meta.skill_md)`` for any folder a store gives
    (built from the string where that is the same, as it is for a folder store's)."""
    import dataclasses

    from skilldeck.catalog import Discovery, MemoryStore, Source

    class Placed(MemoryStore):  # a store whose skills report folders as given
        def __init__(self, folder: str, md: str) -> None:
            super().__init__()
            self.folder, self.md = folder, md

        def discover(self, *, refresh: bool = False) -> Discovery:
            found = super().discover(refresh=refresh)
            metas = (
                dataclasses.replace(m, folder=self.folder, md_name=self.md) for m in found.skills
            )
            return Discovery(tuple(metas), found.diagnostics)

    for folder in ("/srv/skills/a", "/", "//net/a", "/a/./b", "/a//b", "/a/b/", "/a/../b", "rel/a"):
        for md in ("SKILL.md", "skill.md", "sub/SKILL.md"):
            store = Placed(folder, md)
            store.add("---\nname: a\ndescription: d\nrequires:\n  gpu: [cuda]\n---\nBody\n")
            entry = Catalog([Source("placed", "inline", store=store)]).get("a")
            notes = [d.path for d in entry.diagnostics if d.code == "SK513"]
            assert notes == [str(entry.metadata.skill_md)], (folder, md, notes)
