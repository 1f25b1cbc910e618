"""skills_list / list_skills and `skilldeck list` show version, tags and author when set."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from skilldeck import Catalog, MemoryStore, SkillRuntime, Source
from skilldeck.tools import VERB_FIRST_TOOL_NAMES

from .conftest import check

_WITH = (
    "---\nname: pdf-tools\ndescription: Use for PDFs.\nmetadata:\n"
    '  version: "1.2.0"\n  tags: [pdf, documents]\n  author: Acme\n---\nBody\n'
)
_WITHOUT = "---\nname: plain\ndescription: Use when plain.\n---\nBody\n"


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name, text in (("pdf-tools", _WITH), ("plain", _WITHOUT)):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text)
    return root


def test_list_tool_carries_version_tags_author(tmp_path: Path) -> None:
    root = _root(tmp_path)
    cache = tmp_path / "cache"
    for _cold_then_warm in range(2):  # the second catalog reads the cached metadata
        rt = SkillRuntime(Catalog.from_roots([root], cache=cache), tool_names=VERB_FIRST_TOOL_NAMES)
        skills = check(rt.call(rt.session(), "list_skills", {}))["data"]["skills"]
        by_name = {s["name"]: s for s in skills}
        assert by_name["pdf-tools"]["version"] == "1.2.0"
        assert by_name["pdf-tools"]["tags"] == ["pdf", "documents"]
        assert by_name["pdf-tools"]["author"] == "Acme"
        assert set(by_name["plain"]) == {"name", "description", "source"}
    store = MemoryStore()
    store.add(_WITH)
    rt = SkillRuntime(Catalog([Source.of("mem", "root", store=store)], cache=False))
    [item] = check(rt.call(rt.session(), "skills_list", {}))["data"]["skills"]
    assert (item["version"], item["author"]) == ("1.2.0", "Acme")


def test_cli_list_json_carries_them(tmp_path: Path) -> None:
    root = _root(tmp_path)
    out = subprocess.run(
        [sys.executable, "-m", "skilldeck", "list", "--root", str(root), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
        env=os.environ,
    )
    by_name = {s["name"]: s for s in json.loads(out.stdout)["data"]["skills"]}
    assert by_name["pdf-tools"]["tags"] == ["pdf", "documents"]
    assert by_name["pdf-tools"]["version"] == "1.2.0"
    assert "version" not in by_name["plain"]
