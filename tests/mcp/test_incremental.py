"""A refresh rebuilds only what changed, and the result is what a fresh server builds.

Property-style: random sequences of real edits (files written, renamed, removed,
links swapped, skills added, removed, shadowed, broken) on two roots; after each,
the refreshed server's index, prompts and reported changes equal those of a
server built from scratch on the same folders.
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import ResourceListChangedNotification

import skilldeck
from skilldeck.mcp import SkillIndex, SkillServer, create_server

pytestmark = pytest.mark.anyio

NAMES = ["alpha", "beta", "gamma", "delta"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server(roots: list[Path], *, keep: bool = False) -> SkillServer:
    catalog = skilldeck.Catalog.from_roots(roots, cache=False, keep_frontmatter=keep)
    return create_server(catalog, tools=False, snapshot_cache=False)


def _published(index: SkillIndex) -> dict[str, Any]:
    return {
        "skills": [
            (s.uri, s.root, s.name, s.ref, s.source, s.status, dict(s.entry), s.files)
            for s in index.skills
        ],
        "by_uri": sorted(index.by_uri),
        "files": {u: (r.ref, r.relpath, r.size, r.digest, r.mime) for u, r in index.files.items()},
        "dirs": dict(index.dirs),
        "file_uris": index.file_uris,
        "skill_uris": index.skill_uris,
        "skipped": sorted(index.skipped),
    }


async def _prompts(server: SkillServer) -> list[tuple[str, str | None]]:
    return sorted((p.name, p.description) for p in await server.list_prompts())


def _write_skill(root: Path, name: str, rng: random.Random) -> None:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    hint = f"argument-hint: <{rng.randrange(99)}>\n" if rng.random() < 0.3 else ""
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {name} v{rng.randrange(10**6)}\n{hint}---\nBody.\n"
    )


def _files(root: Path) -> list[Path]:
    return sorted(
        p for p in root.rglob("*") if (p.is_file() or p.is_symlink()) and p.name != "SKILL.md"
    )


def _edit(roots: list[Path], rng: random.Random) -> str:
    """One random change on disk; returns its name (for failure messages)."""
    root = rng.choice(roots)
    skills = sorted(p for p in root.iterdir() if p.is_dir())
    op = rng.choice(
        ["write", "write", "new_file", "rename", "remove_file", "link", "add_skill",
         "remove_skill", "describe", "license", "break", "hidden", "nested", "big"]
    )  # fmt: skip
    if op == "add_skill" or not skills:
        _write_skill(root, rng.choice(NAMES), rng)
        return "add_skill"
    skill = rng.choice(skills)
    files = _files(skill)
    if op == "write" and files:
        target = rng.choice(files)
        if not target.is_symlink():
            target.write_text("x" * rng.randrange(1, 200) + "\n")
    elif op == "new_file":
        sub = rng.choice(["", "references/", "scripts/", "assets/deep/"])
        (skill / sub).mkdir(parents=True, exist_ok=True)
        (skill / f"{sub}f{rng.randrange(1000)}.md").write_text(f"{rng.random()}\n")
    elif op == "rename" and files:
        src = rng.choice(files)
        src.rename(src.with_name(f"r{rng.randrange(1000)}{src.suffix}"))
    elif op == "remove_file" and files:
        rng.choice(files).unlink()
    elif op == "link":
        plain = [f for f in files if not f.is_symlink() and f.parent == skill]
        if plain:
            tmp = skill / ".next"
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(rng.choice(plain).name)
            os.replace(tmp, skill / "current.md")
    elif op == "remove_skill":
        for f in sorted(skill.rglob("*"), key=lambda p: -len(p.parts)):
            f.rmdir() if f.is_dir() and not f.is_symlink() else f.unlink()
        skill.rmdir()
    elif op == "describe":
        _write_skill(root, skill.name, rng)
    elif op == "license":  # a field the catalog's metadata does not hold
        md = skill / "SKILL.md"
        text = "\n".join(x for x in md.read_text().split("\n") if not x.startswith("license:"))
        md.write_text(text.replace("\n", f"\nlicense: L{rng.randrange(99)}\n", 1))
    elif op == "break":
        (skill / "SKILL.md").write_text("---\nname: [unclosed\n---\n")
    elif op == "hidden":
        (skill / ".cache").write_text(f"{rng.random()}\n")
    elif op == "nested":
        (skill / "a" / "b").mkdir(parents=True, exist_ok=True)
        (skill / "a" / "b" / f"n{rng.randrange(9)}.txt").write_text("nested\n")
    elif op == "big":
        (skill / "assets").mkdir(exist_ok=True)
        (skill / "assets" / "big.bin").write_bytes(bytes(rng.randrange(256) for _ in range(64)))
    return op


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_incremental_index_equals_a_fresh_build(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    roots = [tmp_path / "low", tmp_path / "high"]
    for root in roots:
        root.mkdir()
        for name in rng.sample(NAMES, 3):
            _write_skill(root, name, rng)
    time.sleep(0.06)
    # the frontmatter kept by the catalog's scans (seeds 1, 3) or read again (seed 2)
    server = _server(roots, keep=seed != 2)
    previous = server.index
    for step in range(30):
        ops = [_edit(roots, rng) for _ in range(rng.choice([1, 1, 2, 3]))]
        if rng.random() < 0.7:  # else refresh at once: stamps may still be settling
            await anyio.sleep(0.06)
        changed = await server.refresh()
        fresh = _server(roots)
        where = f"seed {seed}, step {step}, {ops}"
        assert _published(server.index) == _published(fresh.index), where
        assert await _prompts(server) == await _prompts(fresh), where
        before, after = previous.fingerprint(), server.index.fingerprint()
        expected = {u for u in before.keys() | after.keys() if before.get(u) != after.get(u)}
        assert changed == expected, where
        previous = server.index


async def test_only_changed_skills_are_mapped_again(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    rng = random.Random(5)
    for i in range(40):
        _write_skill(root, f"skill-{i:02d}", rng)
    time.sleep(0.06)
    server = _server([root])
    before = {s.uri: s for s in server.index.skills}
    files_before = dict(server.index.files)
    (root / "skill-07" / "SKILL.md").write_text(
        "---\nname: skill-07\ndescription: edited\n---\nNew body.\n"
    )
    await anyio.sleep(0.06)
    assert await server.refresh() == {"skill://skill-07/SKILL.md"}
    after = {s.uri: s for s in server.index.skills}
    same = [u for u in after if after[u] is before[u]]
    assert len(same) == 39 and "skill://skill-07/SKILL.md" not in same
    kept = [u for u, r in server.index.files.items() if files_before.get(u) is r]
    assert len(kept) == 39


async def test_list_changed_is_sent_only_when_something_changed(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    rng = random.Random(9)
    for name in NAMES:
        _write_skill(root, name, rng)
    time.sleep(0.06)
    server = _server([root])
    seen: list[float] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceListChangedNotification):
            seen.append(time.monotonic())

    async with Client(server, mode="legacy", message_handler=on_message):
        for noop in (
            lambda: (root / "alpha" / ".hidden").write_text("not served\n"),
            lambda: (root / "beta" / "empty").mkdir(),
            lambda: os.mkfifo(root / "gamma" / "pipe"),
            lambda: (root / "delta" / "SKILL.md").write_text(
                (root / "delta" / "SKILL.md").read_text()  # the same bytes again
            ),
        ):
            noop()
            await anyio.sleep(0.06)
            assert await server.refresh() == set()
        await anyio.sleep(0.3)
        assert seen == []
        (root / "alpha" / "new.md").write_text("served\n")
        await anyio.sleep(0.06)
        assert await server.refresh() == {"skill://alpha/new.md"}
        with anyio.fail_after(10):
            while not seen:
                await anyio.sleep(0.02)
        await anyio.sleep(0.2)
        assert len(seen) == 1
