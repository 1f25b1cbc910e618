"""``skilldeck search`` shows how far a first search has read the skills, on stderr
when it is a terminal, and nothing otherwise (nor when the saved index is loaded)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import skilldeck


def make_root(tmp_path: Path, count: int) -> Path:
    root = tmp_path / "skills"
    for i in range(count):
        folder = root / f"skill-{i:03d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:03d}\ndescription: Skill {i} about soil and seeds.\n---\n"
            "# Garden\n\nPlant the seeds in spring.\n"
        )
    (root / "pdf").mkdir()
    (root / "pdf" / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: Extract text and tables from PDF files.\n---\n# PDF\n"
    )
    return root


def search(root: Path, *, terminal: bool) -> tuple[int, str, str]:
    """``skilldeck search`` in a new process, stderr a pty or a pipe."""
    args = [sys.executable, "-m", "skilldeck", "search", "--root", str(root), "pdf", "tables"]
    if not terminal:
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
        return proc.returncode, proc.stdout, proc.stderr
    leader, follower = pty.openpty()
    try:
        proc2 = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=follower, text=True)
        os.close(follower)
        chunks = []
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # the follower side closed: the process is done
                break
            if not data:
                break
            chunks.append(data)
        out, _ = proc2.communicate(timeout=120)
    finally:
        os.close(leader)
    return proc2.returncode, out, b"".join(chunks).decode()


def test_progress_on_a_terminal_only_while_building(tmp_path: Path) -> None:
    root = make_root(tmp_path, 600)
    code, out, err = search(root, terminal=True)
    assert code == 0 and out.startswith("pdf ")
    assert "indexing skills for search: 250 of 601" in err
    assert "500 of 601" in err and err.endswith("\r\x1b[K")  # erased at the end
    code, out, err = search(root, terminal=True)  # the saved index: nothing to show
    assert code == 0 and out.startswith("pdf ") and "indexing" not in err


def test_no_progress_without_a_terminal(tmp_path: Path) -> None:
    root = make_root(tmp_path, 300)
    code, out, err = search(root, terminal=False)
    assert code == 0 and out.startswith("pdf ") and err == ""


def test_the_library_reports_progress_to_a_callback(tmp_path: Path) -> None:
    root = make_root(tmp_path, 520)
    seen: list[tuple[int, int]] = []
    runtime = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    runtime.search_index(progress=lambda done, total: seen.append((done, total)))
    assert seen == [(250, 521), (500, 521), (521, 521)]
    runtime.search_index(progress=lambda done, total: seen.append((done, total)))
    assert len(seen) == 3  # reused: nothing read
