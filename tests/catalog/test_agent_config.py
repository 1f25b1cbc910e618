"""A user coming from a plugin-style agent runtime keeps what its ``~/.agent/config.yaml``
turns off: a plugin with ``enabled: false`` and ``disabledBundled`` hold in skilldeck too."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner

from skilldeck import Catalog, SkillStatus, load_config
from skilldeck.cli import main

from .conftest import MakeSkill

AGENT_CONFIG = """\
skills:
  plugins:
    - url: "https://github.com/user/my-skill"
      name: "my-skill"
      enabled: true
      installedAt: "2024-01-05T10:30:00Z"
    - url: "https://github.com/user/another-skill"
      name: "another-skill"
      ref: "v1.0.0"
      enabled: false
  disabledBundled:
    - "csv-profile"
  scriptTimeout: 30000
"""


def _home() -> Path:
    return Path(os.environ["HOME"])


def _agent_setup(make_skill: MakeSkill, text: str = AGENT_CONFIG) -> None:
    plugins = _home() / ".agent" / "plugins"
    make_skill(plugins, "my-skill")
    make_skill(plugins, "another-skill")
    (_home() / ".agent" / "config.yaml").write_text(text)


def _status(name: str) -> tuple[SkillStatus, str | None]:
    entries = [e for e in Catalog.default().entries() if e.name == name]
    assert entries, name
    return entries[0].status, entries[0].reason


def test_a_plugin_switched_off_there_is_disabled_here(make_skill: MakeSkill) -> None:
    _agent_setup(make_skill)
    status, reason = _status("another-skill")
    assert status is SkillStatus.DISABLED
    assert reason and "another-skill" in reason and ".agent/config.yaml" in reason
    assert _status("my-skill")[0] is SkillStatus.ENABLED
    assert _status("csv-profile")[0] is SkillStatus.DISABLED
    assert _status("regex-check")[0] is SkillStatus.ENABLED
    # and it never reaches the prompt or the listing of enabled skills
    listed = CliRunner().invoke(main, ["list", "--format", "json"])
    names = {s["name"]: s["status"] for s in _skills(listed.output)}
    assert names["another-skill"] == "disabled" and names["my-skill"] == "enabled"
    prompt = CliRunner().invoke(main, ["prompt"])
    assert "another-skill" not in prompt.output and "my-skill" in prompt.output


def _skills(output: str) -> list[dict[str, object]]:
    data = json.loads(output)
    if isinstance(data, dict):
        data = data.get("data", data)
        if isinstance(data, dict):
            data = data.get("skills", data)
    assert isinstance(data, list)
    return data


def test_doctor_says_what_it_took_from_the_file(make_skill: MakeSkill) -> None:
    _agent_setup(make_skill)
    result = CliRunner().invoke(main, ["doctor"])
    assert "SK532" in result.output and "another-skill" in result.output
    assert "csv-profile" in result.output
    # names the other file disables are not reported as unknown names of skilldeck's config
    assert "matches no skill" not in result.output


def test_enabled_bundled_there_applies_unless_skilldeck_sets_its_own(
    make_skill: MakeSkill,
) -> None:
    _agent_setup(make_skill, "skills:\n  enabledBundled: [regex-check]\n")
    assert load_config().enabled_bundled == ("regex-check",)
    assert _status("csv-profile")[0] is SkillStatus.DISABLED
    # skilldeck's own setting wins over the other runtime's
    own = Path(os.environ["SKILLDECK_HOME"]) / "config" / "config.toml"
    own.parent.mkdir(parents=True, exist_ok=True)
    own.write_text('[catalog]\nenabled_bundled = ["csv-profile"]\n')
    assert load_config().enabled_bundled == ("csv-profile",)
    assert _status("csv-profile")[0] is SkillStatus.ENABLED


def test_a_malformed_or_foreign_file_changes_nothing(make_skill: MakeSkill, tmp_path: Path) -> None:
    _agent_setup(make_skill)
    for text in ("skills: [unclosed\n", "- just a list\n", "skills:\n  plugins: 7\n", "\x00"):
        (_home() / ".agent" / "config.yaml").write_text(text)
        assert load_config().imported is None
        assert _status("csv-profile")[0] is SkillStatus.ENABLED
    # a link to a file outside the home folder is not followed
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text(AGENT_CONFIG)
    link = _home() / ".agent" / "config.yaml"
    link.unlink()
    link.symlink_to(outside)
    assert load_config().imported is None
