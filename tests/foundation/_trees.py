"""A hostile skill tree shared by the foundation tests."""

from __future__ import annotations

import os
from pathlib import Path

SKILL_MD = """---
name: tricky
description: A skill folder full of links, dotfiles and odd files. Use in tests.
---
Read references/guide.md and run scripts/run.py.
"""

# every file the walker must list (relative path -> bytes), links included
VISIBLE = {
    "SKILL.md": SKILL_MD.encode(),
    "guide-link.md": b"guide\n",
    "references/guide.md": b"guide\n",
    "references/deep/a/b/c/note.md": b"deep note\n",
    "references/abs-link.md": b"guide\n",
    "refs/guide.md": b"guide\n",
    "refs/deep/a/b/c/note.md": b"deep note\n",
    "refs/abs-link.md": b"guide\n",
    "scripts/run.py": b"print('hi')\n",
    "assets/data.csv": b"a,b\n1,2\n",
}
# hidden paths (never listed or served), at several depths
HIDDEN = (
    ".env",
    ".git/config",
    ".DS_Store",
    "references/.secret.md",
    "references/deep/.cache/x.md",
    "references/deep/a/.x.md.swp",
    "scripts/.hidden/tool.py",
)
OUTSIDE_BYTES = b"OUTSIDE-SECRET\n"


def build_tree(base: Path) -> Path:
    """``base/tricky``: the skill, beside ``base/outside`` (what links must never reach)."""
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.md").write_bytes(OUTSIDE_BYTES)
    (outside / "guide.md").write_bytes(OUTSIDE_BYTES)
    skill = base / "tricky"
    for rel, data in VISIBLE.items():
        if rel.startswith("refs/") or rel in ("guide-link.md", "references/abs-link.md"):
            continue
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_bytes(data)
    for rel in HIDDEN:
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_bytes(b"SECRET=1\n")
    os.chmod(skill / "scripts" / "run.py", 0o755)
    os.symlink("references/guide.md", skill / "guide-link.md")  # in-skill link to a file
    os.symlink(skill / "references" / "guide.md", skill / "references" / "abs-link.md")
    os.symlink("references", skill / "refs")  # in-skill link to a folder
    os.symlink("../outside/secret.md", skill / "escape.md")  # leaves the skill
    os.symlink(outside, skill / "references" / "outdir")  # a folder outside
    os.symlink("missing.md", skill / "dangling.md")
    os.symlink("..", skill / "references" / "up")  # a loop
    os.symlink(".env", skill / "env-link.md")  # into a hidden path
    os.mkfifo(skill / "assets" / "pipe")
    return skill


def build_deep(folder: Path, levels: int, name: str = "d") -> None:
    """``levels`` nested folders below ``folder``, made by descriptor (the full path
    would pass PATH_MAX)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(levels):
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
    finally:
        os.close(fd)


def remove_deep(folder: Path, name: str = "d") -> None:
    """Remove what ``build_deep`` made (shutil.rmtree recurses and would overflow),
    holding two descriptors at a time: one per level passed the usual limit of 1,024
    open files, and the tests that build 1,200 levels failed for a user with it."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    depth = 0
    try:
        while True:  # down to the deepest folder
            try:
                nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            except FileNotFoundError:
                break
            os.close(fd)
            fd, depth = nxt, depth + 1
        for _ in range(depth):  # up again, emptying each folder's parent
            up = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = up
            for entry in os.listdir(fd):
                if entry != name:
                    os.unlink(entry, dir_fd=fd)
            os.rmdir(name, dir_fd=fd)
    finally:
        os.close(fd)
