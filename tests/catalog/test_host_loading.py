"""Hosts coming from other skill designs: strict loading, enabled_bundled, plugins folders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from skilldeck import Catalog, ConfigError, SkillRuntime, SkillStatus, Source, load_config
from skilldeck.catalog import FileSystemStore
from skilldeck.cli import main
from skilldeck.config import dirs

from .conftest import MakeSkill, git_init


def _user_config(text: str) -> None:
    path = dirs().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _odd_skill(root: Path, make_skill: MakeSkill) -> None:
    # lenient: a warning (name differs from the folder); strict: an error
    make_skill(root, "odd-name", folder="folder-name")


def test_strict_loading_from_every_route(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    _odd_skill(root, make_skill)
    lenient = Catalog.from_roots([root], cache=False)
    assert lenient.get("odd-name").status is SkillStatus.ENABLED
    strict = Catalog.from_roots([root], mode="strict", cache=False)
    [entry] = strict.entries()
    assert entry.status is SkillStatus.INVALID
    runtime = SkillRuntime.from_roots([root], load_mode="strict")
    assert runtime.catalog.list() == []
    # a strict store and the same root: one skill, not one enabled and one invalid
    store = FileSystemStore(root, mode="strict")
    both = Catalog([Source.of("mine", "root", [root], store=store)], cache=False)
    assert [e.status for e in both.entries()] == [SkillStatus.INVALID]
    with pytest.raises(Exception, match="unknown loading mode"):
        Catalog.from_roots([root], mode="pedantic")  # type: ignore[arg-type]


def test_strict_loading_from_config(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "skills"
    _odd_skill(root, make_skill)
    _user_config('[catalog]\nmode = "strict"\n')
    cfg = load_config()
    assert cfg.mode == "strict"
    cat = Catalog.from_roots([root], config=cfg, cache=False)
    assert [e.status for e in cat.entries()] == [SkillStatus.INVALID]
    _user_config('[catalog]\nmode = "picky"\n')
    with pytest.raises(ConfigError) as info:
        load_config()
    assert "config.toml:2: catalog.mode" in str(info.value)


def test_enabled_bundled_narrows_the_bundled_skills() -> None:
    _user_config('[catalog]\nenabled_bundled = ["regex-check"]\n')
    cat = Catalog.default(cache=False)
    bundled = {e.name: e for e in cat.entries() if e.source == "bundled"}
    assert len(bundled) > 1
    assert [m.name for m in cat.list() if m.source == "bundled"] == ["regex-check"]
    other = bundled["csv-profile"]
    assert other.status is SkillStatus.DISABLED
    assert other.reason == "disabled by [catalog] enabled_bundled (not listed)"


def test_agent_plugins_folder_is_an_installed_root(make_skill: MakeSkill) -> None:
    plugins = Path.home() / ".agent" / "plugins"
    make_skill(plugins, "from-agent-plugins")
    make_skill(Path.home() / ".agent" / "skills", "from-agent-plugins", "user copy")
    entry = Catalog.default(cache=False).get("from-agent-plugins")
    assert entry.source == "installed"  # plugin > user, as the other design orders them


def test_unknown_plugin_key_is_config_invalid() -> None:
    _user_config('[catalog]\ndisabled = []\n\n[plugins.mine]\nurl = "x"\nenabeld = false\n')
    with pytest.raises(ConfigError) as info:
        load_config()
    assert "config.toml:6: plugins.mine.enabeld: unknown key" in str(info.value)
    assert "plugins.mine.enabeld" in str(info.value)
    result = subprocess.run(
        [sys.executable, "-m", "skilldeck", "list", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "CONFIG_INVALID" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("table", "typo"),
    [("install", "plugins_dir"), ("security", "safe_directory"), ("store", "tennant")],
)
def test_unknown_key_of_a_user_table_is_config_invalid(table: str, typo: str) -> None:
    # a misspelt key used to be ignored: [install] plugins_dir = ... installed elsewhere
    _user_config(f'[catalog]\ndisabled = []\n\n[{table}]\n{typo} = "x"\n')
    with pytest.raises(ConfigError) as info:
        load_config()
    assert f"config.toml:5: {table}.{typo}: unknown key" in str(info.value)
    result = subprocess.run(
        [sys.executable, "-m", "skilldeck", "list", "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "CONFIG_INVALID" in result.stdout + result.stderr
    assert f"{table}.{typo}" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_why_names_the_disabled_plugin(tmp_path: Path, make_skill: MakeSkill) -> None:
    plugin = tmp_path / "custom-name"
    make_skill(plugin, "gh-helper")
    _user_config(f'[plugins.custom-name]\npath = "{plugin}"\nenabled = false\n')
    result = CliRunner().invoke(main, ["why", "gh-helper", "--root", str(plugin)])
    assert "is disabled by plugin custom-name (enabled = false)" in result.output
    assert "is plugin" not in result.output
    data = CliRunner().invoke(main, ["why", "gh-helper", "--root", str(plugin), "--json"])
    assert "custom-name" in json.dumps(json.loads(data.output))


def test_project_file_may_narrow_but_not_loosen_loading(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    (repo / ".skilldeck").mkdir()
    _user_config('[catalog]\nmode = "strict"\n')
    project = repo / ".skilldeck" / "config.toml"
    project.write_text('[catalog]\nmode = "lenient"\nenabled_bundled = ["regex-check"]\n')
    cfg = load_config(cwd=repo)
    assert cfg.mode == "strict"  # loosening needs `skilldeck trust`
    assert cfg.enabled_bundled == ("regex-check",)  # turning skills off does not
    assert cfg.untrusted is not None and cfg.untrusted.keys == ("catalog.mode",)
    project.write_text('[catalog]\nmode = "strict"\n')
    _user_config("")
    assert load_config(cwd=repo).mode == "strict"


def test_agent_folder_wins_over_claude_folder_in_a_project(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    repo = git_init(tmp_path / "repo")
    make_skill(repo / ".claude" / "skills", "both", "claude copy")
    make_skill(repo / ".agent" / "skills", "both", "agent copy")
    assert Catalog.default(cwd=repo, cache=False).get("both").metadata.description == "agent copy"
