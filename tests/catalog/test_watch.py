"""Watching roots: a change on disk refreshes the catalog and calls back."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from skilldeck import Catalog

from .conftest import MakeSkill

pytest.importorskip("watchfiles")


def test_watch_calls_back_on_change(tmp_path: Path, make_skill: MakeSkill) -> None:
    root = tmp_path / "r"
    make_skill(root, "first")
    cat = Catalog.from_roots([root])
    assert [m.name for m in cat.list()] == ["first"]
    seen: list[list[str]] = []
    fired = threading.Event()

    def on_change(c: Catalog) -> None:
        seen.append([m.name for m in c.list()])
        fired.set()

    with cat.watch(on_change, debounce_ms=50) as watcher:
        assert watcher.running
        make_skill(root, "second")
        assert fired.wait(10), "no change notification"
    assert not watcher.running
    assert seen[-1] == ["first", "second"]
    assert watcher.errors == []


def test_watch_missing_root_from_parent(tmp_path: Path, make_skill: MakeSkill) -> None:
    cat = Catalog.from_roots([tmp_path / "later" / "skills"])
    assert cat.watched_paths() == [tmp_path]
    fired = threading.Event()
    with cat.watch(lambda c: fired.set(), debounce_ms=50):
        make_skill(tmp_path / "later" / "skills", "arrived")
        assert fired.wait(10)
    assert [m.name for m in cat.list()] == ["arrived"]


def test_a_root_linking_out_of_itself_is_polled_not_watched(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    # watchfiles follows links: a skill linking to / made `serve` watch the whole disk
    plain, linked, escaping = tmp_path / "plain", tmp_path / "linked", tmp_path / "escaping"
    make_skill(plain, "one")
    outside = make_skill(tmp_path / "elsewhere", "two")
    linked.mkdir()
    (linked / "two").symlink_to(outside)  # a linked skill folder (--agent placements)
    make_skill(escaping, "three")
    (escaping / "three" / "everything").symlink_to("/")
    cat = Catalog.from_roots([plain, linked, escaping])
    assert cat.watch_targets() == ([plain, linked], [escaping])
    (outside / "up").symlink_to("/")  # the linked skill's own links count too
    assert cat.watch_targets() == ([plain], [linked, escaping])


def test_a_missing_root_parent_passes_only_changes_on_the_way(
    tmp_path: Path, make_skill: MakeSkill
) -> None:
    # a missing ~/.agents/skills is watched from the home folder: only what can make
    # or touch a root should rescan, not every file the user edits there
    home = tmp_path / "home"
    present = home / "skills"
    make_skill(present, "here")
    missing = home / ".agents" / "skills"
    cat = Catalog.from_roots([present, missing])
    assert cat.watched_paths() == [present, home]
    keep = cat.watch_filter()
    assert not keep(None, str(home / "notes.txt"))
    assert not keep(None, str(home / "project" / "main.py"))
    assert not keep(None, str(home / ".agentsx"))
    assert keep(None, str(home / ".agents"))
    assert keep(None, str(missing / "new" / "SKILL.md"))
    assert keep(None, str(present / "here" / "SKILL.md"))
    assert keep(None, str(tmp_path / "elsewhere" / "SKILL.md"))  # not under a stand-in

    fired = threading.Event()
    with cat.watch(lambda c: fired.set(), debounce_ms=50) as watcher:
        (home / "notes.txt").write_text("a note\n")
        assert not fired.wait(1)
        make_skill(missing, "arrived")
        assert fired.wait(10)
    assert watcher.errors == []
    assert sorted(m.name for m in cat.list()) == ["arrived", "here"]
