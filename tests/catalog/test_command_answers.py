"""Kept PATH answers: a skill's ``requires: commands`` is answered from the cache
only while every file ``shutil.which`` reads is unchanged; each change a user can
make (a command added, removed, chmod-ed, a link retargeted, PATH changed, the
working folder changed under a relative PATH entry) gives ``shutil.which``'s answer
now. Every listing is a fresh process reading the cache from disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import write_skill

pytestmark = pytest.mark.skipif(os.name != "posix", reason="PATH answers are kept on POSIX only")

TOOL = "skd-kept-tool"

CHILD = """
import json, sys
from skilldeck import Catalog
root, cache, path = sys.argv[1:4]
entry = Catalog.from_roots([root], cache=cache, environ={"PATH": path}).get("tooly")
import shutil
print(json.dumps({
    "status": entry.status.value,
    "which": shutil.which(sys.argv[4], path=path) is not None,
}))
"""


class Lister:
    """Lists ``tooly`` (which requires ``command``) in a fresh process each time."""

    def __init__(self, tmp_path: Path, command: str = TOOL) -> None:
        self.root = tmp_path / "skills"
        self.cache = tmp_path / "cache"
        self.command = command
        write_skill(self.root, "tooly", frontmatter=f"requires: {json.dumps(command)}\n")

    def __call__(self, path: str, cwd: Path | None = None) -> tuple[bool, bool]:
        """(available, served from the kept answer: the file of kept answers was not
        replaced); asserts it is ``shutil.which``'s answer now."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLDECK_")}
        kept = self.cache / "commands.found"
        before = _version(kept)
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(self.root), str(self.cache), path, self.command],
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=cwd,
        )
        got = json.loads(out.stdout)
        available = got["status"] == "enabled"
        assert available == got["which"], got  # the one rule's answer, now
        after = _version(kept)
        assert after is not None  # the answer is kept
        return available, before == after  # a lookup replaces the file


def _version(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_mtime_ns


def tool(folder: Path, name: str = TOOL, mode: int = 0o755) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(mode)
    return path


def test_an_unchanged_answer_is_served_without_a_lookup(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    bindir = tmp_path / "bin"
    tool(bindir)
    assert listing(str(bindir)) == (True, False)  # looked up, then kept
    assert listing(str(bindir)) == (True, True)  # served from the cache file
    missing = str(tmp_path / "empty")
    assert listing(missing) == (False, False)
    assert listing(missing) == (False, True)


def test_a_command_added_then_removed(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    path = f"{first}:{second}"
    assert listing(path) == (False, False)
    assert listing(path) == (False, True)
    added = tool(second)
    assert listing(path) == (True, False)
    assert listing(path) == (True, True)
    added.unlink()
    assert listing(path)[0] is False


def test_chmod_without_touching_the_folder(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    bindir = tmp_path / "bin"
    found = tool(bindir)
    assert listing(str(bindir)) == (True, False)
    before = os.stat(bindir).st_mtime_ns
    found.chmod(0o644)
    assert os.stat(bindir).st_mtime_ns == before  # the folder did not change
    assert listing(str(bindir)) == (False, False)
    assert listing(str(bindir)) == (False, True)
    found.chmod(0o755)
    assert listing(str(bindir)) == (True, False)


def test_a_non_executable_file_made_executable_in_another_folder(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    first, second = tmp_path / "a", tmp_path / "b"
    plain = tool(first, mode=0o644)
    second.mkdir()
    path = f"{first}:{second}"
    assert listing(path) == (False, False)
    plain.chmod(0o700)
    assert listing(path) == (True, False)


def test_a_link_retargeted_behind_the_path_folder(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool(tmp_path / "v1")
    (tmp_path / "v2").mkdir()  # holds no tool
    current = tmp_path / "current"
    current.symlink_to("v1")
    (bindir / TOOL).symlink_to(f"../current/{TOOL}")
    assert listing(str(bindir)) == (True, False)
    assert listing(str(bindir)) == (True, True)
    current.unlink()
    current.symlink_to("v2")  # bin/ and its link are untouched
    assert listing(str(bindir)) == (False, False)
    tool(tmp_path / "v2", mode=0o644)
    assert listing(str(bindir)) == (False, False)
    (tmp_path / "v2" / TOOL).chmod(0o755)
    assert listing(str(bindir)) == (True, False)


def test_a_dangling_link_whose_target_appears(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / TOOL).symlink_to(tmp_path / "later" / TOOL)
    assert listing(str(bindir)) == (False, False)
    assert listing(str(bindir)) == (False, True)
    tool(tmp_path / "later")
    assert listing(str(bindir)) == (True, False)


def test_a_path_folder_that_is_a_link_swapped(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    (tmp_path / "empty").mkdir()
    tool(tmp_path / "full")
    bindir = tmp_path / "bin"
    bindir.symlink_to("empty")
    assert listing(str(bindir)) == (False, False)
    bindir.unlink()
    bindir.symlink_to("full")
    assert listing(str(bindir)) == (True, False)


def test_path_changes(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    has, hasnt = tmp_path / "has", tmp_path / "hasnt"
    tool(has)
    hasnt.mkdir()
    assert listing(str(has)) == (True, False)
    assert listing(str(hasnt)) == (False, False)
    assert listing(f"{hasnt}:{has}") == (True, False)
    assert listing(f"{hasnt}:{has}") == (True, True)
    assert listing(str(hasnt)) == (False, False)


def test_a_relative_path_entry_follows_the_working_folder(tmp_path: Path) -> None:
    listing = Lister(tmp_path)
    here, there = tmp_path / "here", tmp_path / "there"
    tool(here / "bin")
    (there / "bin").mkdir(parents=True)
    assert listing("bin", cwd=here) == (True, False)
    assert listing("bin", cwd=here) == (True, True)
    assert listing("bin", cwd=there) == (False, False)


def test_a_command_with_a_slash(tmp_path: Path) -> None:
    found = tool(tmp_path / "opt")
    listing = Lister(tmp_path, command=str(found))
    path = str(tmp_path / "empty")
    assert listing(path) == (True, False)
    assert listing(path) == (True, True)
    found.chmod(0o600)
    assert listing(path) == (False, False)


@pytest.mark.parametrize(
    "damage",
    [b"", b"\x00garbage", b"\xe9" * 40],
    ids=["empty", "garbage", "not-marshal"],
)
def test_a_damaged_answers_file_is_not_trusted(tmp_path: Path, damage: bytes) -> None:
    listing = Lister(tmp_path)
    bindir = tmp_path / "bin"
    tool(bindir)
    assert listing(str(bindir)) == (True, False)
    (tmp_path / "cache" / "commands.found").write_bytes(damage)
    assert listing(str(bindir)) == (True, False)
    assert listing(str(bindir)) == (True, True)


def test_an_edited_answer_of_the_wrong_type_is_not_trusted(tmp_path: Path) -> None:
    import marshal

    listing = Lister(tmp_path)
    bindir = tmp_path / "bin"
    tool(bindir)
    assert listing(str(bindir)) == (True, False)
    kept = tmp_path / "cache" / "commands.found"
    stamp, path, who, answers = marshal.loads(kept.read_bytes())
    answers[TOOL] = (1, answers[TOOL][1])  # an int where a bool belongs
    kept.write_bytes(marshal.dumps((stamp, path, who, answers)))
    assert listing(str(bindir)) == (True, False)
