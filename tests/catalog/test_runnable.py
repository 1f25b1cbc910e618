"""Catalog.runnable: what a run reads of a skill, from the scan's record while the
skill's SKILL.md keeps the stat signature the scan validated it with; else a load."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skilldeck import Catalog, PathNotAllowedError, Skill

from .conftest import write_skill
from .test_cache import _index_file, _rows, _write, settle, short_racy_window

__all__ = ["short_racy_window"]  # the racy window of test_cache applies here too

TUNED = "timeout: 7\nnetwork: true\nalways_ask: true\nmodes: [Dev, Global]\n"


def _settings(skill: Any) -> tuple[Any, ...]:
    """What a run reads of a skill's manifest (``execution.ManifestLike``) and the
    description its approval shows."""
    m = skill.manifest
    return (m.description, m.timeout, m.network, m.read_only, m.always_ask, m.modes)


def _skills(root: Path) -> None:
    write_skill(root, "tuned", frontmatter=TUNED, body="# Tuned\n\nRun it.\n")
    write_skill(root, "plain", frontmatter="metadata:\n  read_only: 'true'\n")
    settle()


def test_an_unchanged_skill_is_served_from_the_scan(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _skills(root)
    Catalog.from_roots([root]).list()  # parsed: the index holds the records
    catalog = Catalog.from_roots([root])
    for name in ("tuned", "plain"):
        served, loaded = catalog.runnable(name), catalog.load(name)
        assert not isinstance(served, Skill) and isinstance(loaded, Skill), name
        assert _settings(served) == _settings(loaded), name
        assert (served.name, served.path, served.skill_md) == (name, loaded.path, loaded.skill_md)
        assert (served.body, served.body_line) == (loaded.body, loaded.body_line)  # on demand
    tuned = catalog.runnable("tuned").manifest
    assert (tuned.timeout, tuned.network, tuned.always_ask, tuned.modes) == (
        7,
        True,
        True,
        ("Dev", "Global"),
    )
    assert catalog.runnable("plain").manifest.read_only is True


def test_the_settings_come_from_the_index_not_the_file(tmp_path: Path) -> None:
    """A row whose signature matches is served without reading SKILL.md: prove it."""
    root = tmp_path / "r"
    _skills(root)
    Catalog.from_roots([root]).list()
    stamp, key, rows = _rows(_index_file())
    (tuned,) = [row for row in rows if row[2][0] == "tuned"]
    assert tuned[2][10] == (7, True, False, True, ("Dev", "Global"))
    tuned[2][10] = [99, False, False, False, None]
    _write(_index_file(), [stamp, key, rows, None])
    assert catalog_settings(root, "tuned")[1:] == (99, False, False, False, None)


def catalog_settings(root: Path, name: str) -> tuple[Any, ...]:
    return _settings(Catalog.from_roots([root]).runnable(name))


def test_a_changed_skill_md_is_parsed_again(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _skills(root)
    catalog = Catalog.from_roots([root])
    assert not isinstance(catalog.runnable("tuned"), Skill)
    md = root / "tuned" / "SKILL.md"
    md.write_text(md.read_text().replace("timeout: 7", "timeout: 9"))
    got = catalog.runnable("tuned")  # no refresh: the stat tells, the load reads it
    assert isinstance(got, Skill) and got.manifest is not None
    assert got.manifest.timeout == 9


def test_a_just_written_skill_md_is_loaded(tmp_path: Path) -> None:
    """A file changed within the racy window keeps no stamp: it is read."""
    root = tmp_path / "r"
    write_skill(root, "fresh", frontmatter="timeout: 5\n")
    catalog = Catalog.from_roots([root])
    got = catalog.runnable("fresh")
    assert isinstance(got, Skill) and got.manifest is not None
    assert got.manifest.timeout == 5


def test_a_folder_that_leads_outside_is_refused_as_a_load_refuses_it(tmp_path: Path) -> None:
    root = tmp_path / "r"
    _skills(root)
    catalog = Catalog.from_roots([root])
    catalog.list()
    outside = tmp_path / "outside"
    shutil.move(root / "tuned", outside)
    os.symlink(outside, root / "tuned")
    for call in (catalog.load, catalog.runnable):
        with pytest.raises(PathNotAllowedError, match="leads outside the allowed roots"):
            call("tuned")


def test_a_warm_run_reads_no_skill_md_parser(tmp_path: Path) -> None:
    """In a new process with the index written, the run settings need no parser."""
    root = tmp_path / "r"
    _skills(root)
    Catalog.from_roots([root]).list()
    code = (
        "import sys\n"
        "from skilldeck import Catalog\n"
        "got = Catalog.from_roots([sys.argv[1]]).runnable('tuned')\n"
        "print(type(got).__name__, got.manifest.timeout, 'skilldeck.format' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.split() == ["Runnable", "7", "False"]
