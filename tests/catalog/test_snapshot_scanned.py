"""A catalog that keeps frontmatter for a publisher (``serve``) hands the digest of each
SKILL.md its scan read whole to its first snapshot, which then does not read that file
again while the walk finds it with the stamp the scan validated. Digests never change
for it: a file changed between the scan and the snapshot is hashed from its new bytes."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from skilldeck import Catalog
from skilldeck.catalog import CatalogSnapshot

from .conftest import write_skill

LIMITS = (100, 8 * 1024 * 1024)  # as serve hashes a skill with its walk


def _settle() -> None:
    time.sleep(1.1)  # past the window in which a scan trusts no stamp (a second)


def _sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def _digests(snap: CatalogSnapshot) -> dict[str, list[tuple[str, int, str, bool]]]:
    """Every listed file of every readable entry with its digest, by entry key."""
    out = {}
    for entry in snap.entries:
        sized, _fits = entry.within(*LIMITS)
        got = snap.digests(entry, [f.path for f in sized], max_bytes=LIMITS[1])
        out[entry.key] = [
            (f.path, d.size, d.digest, d.text) for f, d in zip(sized, got, strict=True)
        ]
    return out


def _read_with_walk(snap: CatalogSnapshot) -> dict[str, bool]:
    """Whether each entry's SKILL.md was read (and hashed) with its walk."""
    return {
        e.key: next(f.digest is not None for f in e.files if f.path == "SKILL.md")
        for e in snap.entries
        if e.files
    }


def test_the_scans_bytes_stand_for_a_second_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for name in ("alpha", "beta"):
        write_skill(root, name, files={"references/a.md": "a\n"})
    _settle()
    catalog = Catalog.from_roots([root], cache=False, keep_frontmatter=True)
    catalog.list()
    snap = catalog.snapshot(digest_within=LIMITS)
    assert _read_with_walk(snap) == {str(root / "alpha"): False, str(root / "beta"): False}
    for entry in snap.entries:
        got = snap.digest(entry, "SKILL.md", max_bytes=LIMITS[1])
        assert got.digest == _sha(root / entry.name / "SKILL.md")
    # a catalog that keeps nothing for a publisher reads and hashes them with the walk
    plain = Catalog.from_roots([root], cache=False)
    plain.list()
    other = plain.snapshot(digest_within=LIMITS)
    assert set(_read_with_walk(other).values()) == {True}
    assert _digests(other) == _digests(snap)
    assert other.token == snap.token


def test_a_skill_md_changed_after_the_scan_is_hashed_from_its_new_bytes(tmp_path: Path) -> None:
    root = tmp_path / "root"
    md = write_skill(root, "alpha", body="# Old\n") / "SKILL.md"
    _settle()
    catalog = Catalog.from_roots([root], cache=False, keep_frontmatter=True)
    catalog.list()
    before = md.read_bytes()
    md.write_bytes(before.replace(b"# Old", b"# New"))  # the same size
    assert os.path.getsize(md) == len(before)
    _settle()
    snap = catalog.snapshot(digest_within=LIMITS)
    (entry,) = snap.entries
    got = snap.digest(entry, "SKILL.md", max_bytes=LIMITS[1])
    assert got.digest == _sha(md) != "sha256:" + hashlib.sha256(before).hexdigest()


def test_a_skill_md_swapped_for_a_link_after_the_scan_is_not_taken_for_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    folder = write_skill(root, "alpha", files={"references/copy.md": "copy\n"})
    _settle()
    catalog = Catalog.from_roots([root], cache=False, keep_frontmatter=True)
    catalog.list()
    link = folder / "SKILL.md.new"
    link.symlink_to("references/copy.md")
    os.replace(link, folder / "SKILL.md")
    _settle()
    snap = catalog.snapshot(digest_within=LIMITS)
    (entry,) = snap.entries
    got = snap.digest(entry, "SKILL.md", max_bytes=LIMITS[1])
    assert got.digest == _sha(folder / "references" / "copy.md")


@pytest.mark.timeout(600)  # 2,200 real skills scanned, walked and hashed twice
def test_the_corpus_snapshot_is_the_same_with_the_scans_bytes(corpus: Path) -> None:
    _settle()
    kept = Catalog.from_roots([corpus], recursive=True, cache=False, keep_frontmatter=True)
    kept.list()
    with_scan = kept.snapshot(digest_within=LIMITS)
    plain = Catalog.from_roots([corpus], recursive=True, cache=False)
    plain.list()
    without = plain.snapshot(digest_within=LIMITS)
    assert [(e.key, e.token, e.files and [f[:3] for f in e.files]) for e in with_scan.entries] == [
        (e.key, e.token, e.files and [f[:3] for f in e.files]) for e in without.entries
    ]
    assert with_scan.token == without.token
    assert _digests(with_scan) == _digests(without)
    taken = [key for key, read in _read_with_walk(with_scan).items() if not read]
    assert len(taken) > 1500  # most SKILL.md files were not read a second time
