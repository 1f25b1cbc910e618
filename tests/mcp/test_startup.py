"""``serve`` starts warm: the published snapshot is kept between runs and trusted only
while every file's (inode, mtime, size, ctime) is unchanged."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import skilldeck
from skilldeck.mcp import SkillServer, create_server


def _published(server: SkillServer) -> dict[str, Any]:
    index = server.index
    return {
        "skills": [dict(s.entry) for s in index.skills],
        "files": {u: (r.digest, r.size, r.mime) for u, r in index.files.items()},
        "dirs": dict(index.dirs),
    }


def _server(roots: list[Path], cache: Path) -> SkillServer:
    return create_server(catalog=skilldeck.Catalog.from_roots(roots), snapshot_cache=cache)


def test_warm_start_serves_what_a_cold_one_does(
    tree: dict[str, Path], tmp_path: Path, h: Any
) -> None:
    cache = tmp_path / "snap"
    roots = [tree["low"], tree["high"]]
    cold = _published(_server(roots, cache))
    (kept,) = cache.glob("*.snap")
    time.sleep(0.08)  # the files' stamps are older than the racy window
    assert _published(_server(roots, cache)) == cold
    written = kept.stat().st_mtime_ns
    # an unchanged catalog: the kept snapshot (stamps included) still says it all
    assert _published(_server(roots, cache)) == cold
    assert kept.stat().st_mtime_ns == written, "a warm start of an unchanged catalog writes nothing"
    assert _published(create_server(roots=roots, snapshot_cache=False)) == cold

    # same size, same mtime, other bytes: the ctime gives it away
    guide = tree["high"] / "alpha/references/guide.md"
    before = guide.stat()
    guide.write_bytes(guide.read_bytes().replace(b"Guide", b"GUIDE"))
    os.utime(guide, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert guide.stat().st_size == before.st_size
    warm = _published(_server(roots, cache))
    uri = "skill://alpha/references/guide.md"
    assert warm["files"][uri][0] == h.sha(guide.read_bytes())
    assert warm["files"][uri][0] != cold["files"][uri][0]

    # a renamed frontmatter field reaches the entry; a removed skill leaves
    md = tree["high"] / "beta/SKILL.md"
    md.write_text(md.read_text().replace("Beta does beta things", "Beta, edited"))
    (tree["low"] / "alpha/SKILL.md").unlink()
    warm = _published(_server(roots, cache))
    beta = next(s for s in warm["skills"] if s["uri"] == "skill://beta/SKILL.md")
    assert beta["frontmatter"]["description"] == "Beta, edited"
    assert not any(u.startswith("skill://root1/") for u in warm["files"])
    assert warm == _published(create_server(roots=roots, snapshot_cache=False))


def test_damaged_or_foreign_snapshot_is_ignored(tree: dict[str, Path], tmp_path: Path) -> None:
    cache = tmp_path / "snap"
    roots = [tree["high"]]
    cold = _published(_server(roots, cache))
    (snap,) = cache.glob("*.snap")
    for garbage in (b"", b"\x00" * 100, snap.read_bytes()[:-7], b"\x93\xa1x\xa1y\x90"):
        snap.write_bytes(garbage)
        assert _published(_server(roots, cache)) == cold
    other = _published(_server([tree["low"]], cache))  # another root set: its own file
    assert other != cold
    assert len(list(cache.glob("*.snap"))) == 2


def test_a_frontmatter_is_published_with_the_values_its_json_text_holds(tmp_path: Path) -> None:
    """The kept frontmatter's JSON text is decoded to the values ``json`` reads from it
    (numbers past 64 bits, nested values, text that is not ASCII)."""
    import json

    root = tmp_path / "root"
    for name, extra in (
        ("plain", "  big: 123456789012345678901234567890\n  small: -0.0\n  note: café\n"),
        ("odd", "  ratio: .nan\n  list: [1, 2.5, {a: b}]\n"),
    ):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Odd values.\nmetadata:\n{extra}---\nBody.\n",
            encoding="utf-8",
        )
    catalog = skilldeck.Catalog.from_roots([root], keep_frontmatter=True)
    server = create_server(catalog=catalog, snapshot_cache=False)
    published = {s.name: s.entry["frontmatter"] for s in server.index.skills}
    assert sorted(published) == ["odd", "plain"]
    for name, fm in published.items():
        kept = catalog.get(name).metadata.frontmatter_json
        assert kept is not None
        assert repr(fm) == repr(json.loads(kept))
