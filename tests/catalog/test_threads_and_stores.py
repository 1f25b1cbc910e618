"""Concurrency (20 threads) and the in-memory store behind the same Catalog API."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from skilldeck import (
    Catalog,
    FileNotFoundInSkillError,
    FileSystemStore,
    ManifestError,
    MemoryStore,
    PathNotAllowedError,
    SkillStatus,
    Source,
    Store,
    read_skill_file,
)

from .conftest import MakeSkill


def test_twenty_threads_get_identical_results(tmp_path: Path, make_skill: MakeSkill) -> None:
    for i in range(10):
        make_skill(
            tmp_path / "r",
            f"skill-{i}",
            body=f"body {i}\n" * 50,
            files={f"references/ref-{i}.md": f"reference {i}\n" * 100},
        )
    cat = Catalog.from_roots([tmp_path / "r"])

    def work(n: int) -> list[tuple[str, bool, bytes, tuple[str, ...]]]:
        out = []
        for i in range(10):
            if n % 5 == 0 and i == 5:
                cat.refresh()  # refreshes race with reads
            skill = cat.load(f"skill-{i}")
            data = cat.read_file(f"skill-{i}", f"references/ref-{i}.md")
            out.append((skill.body, skill.body_truncated, data, skill.files))
        return out

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(work, range(20)))
    assert all(r == results[0] for r in results)
    assert results[0][3][2] == b"reference 3\n" * 100


def test_stores_satisfy_the_protocol(tmp_path: Path) -> None:
    assert isinstance(MemoryStore(), Store)
    assert isinstance(FileSystemStore(tmp_path), Store)


SKILL = "---\nname: inline-one\ndescription: An inline skill.\nrequires: skd-none-xyz\n---\nHello\n"


def test_memory_store_in_a_catalog(tmp_path: Path, make_skill: MakeSkill) -> None:
    mem = MemoryStore()
    mem.add(
        "---\nname: inline-two\ndescription: Another.\n---\nBody two\n",
        {
            "references/r.md": "ref",
            "scripts/x.py": b"print()",
            "other.txt": "o",
            "docs/deep/x.md": "deep",
        },
    )
    mem.add(SKILL)
    make_skill(tmp_path / "r", "inline-two", "disk copy")
    cat = Catalog(
        [Source.of("disk", "root", [tmp_path / "r"]), Source("inline", "inline", store=mem)]
    )
    top = cat.get("inline-two")
    assert top.source == "inline" and top.path is None
    assert cat.get("disk:inline-two").status is SkillStatus.SHADOWED
    assert cat.get("inline-one").status is SkillStatus.UNAVAILABLE
    skill = cat.load("inline-two")
    assert skill.files == ("other.txt", "references/r.md", "scripts/x.py")
    assert skill.body == "Body two\n"
    assert cat.read_file("inline-two", "references/r.md") == b"ref"
    assert read_skill_file(cat, "inline-two", "scripts/x.py").text == "print()"
    # the index is the boundary of reads, as in a folder; index="all" opens every file
    with pytest.raises(PathNotAllowedError, match="not in the file index"):
        cat.read_file("inline-two", "docs/deep/x.md")
    assert cat.read_bundled("inline-two", "docs/deep/x.md", index="all").data == b"deep"
    assert cat.read_file("inline-two", "SKILL.md").startswith(b"---\nname: inline-two")
    with pytest.raises(PathNotAllowedError):
        cat.read_file("inline-two", "../r.md")
    with pytest.raises(FileNotFoundInSkillError):
        cat.read_file("inline-two", "references/none.md")
    assert cat.digest("inline-two").startswith("sha256:")
    assert cat.load("inline-two", max_bytes=30).body_truncated is True


def test_memory_store_rejects_invalid_text() -> None:
    with pytest.raises(ManifestError) as info:
        MemoryStore().add("no frontmatter")
    assert info.value.diagnostics


def test_digest_of_a_folder_skill(tmp_path: Path, make_skill: MakeSkill) -> None:
    from skilldeck import skill_digest

    folder = make_skill(tmp_path / "r", "d", files={"scripts/a.sh": "echo\n"})
    cat = Catalog.from_roots([tmp_path / "r"])
    assert cat.digest("d") == skill_digest(folder)


def test_extra_sources_rank_above_the_defaults(tmp_path: Path, make_skill: MakeSkill) -> None:
    from skilldeck.config import dirs

    make_skill(dirs().installed, "dup", "installed copy")
    mem = MemoryStore()
    mem.add("---\nname: dup\ndescription: inline copy\n---\nInline body\n")
    cat = Catalog.default(cwd=tmp_path, extra_sources=[Source("inline", "inline", store=mem)])
    assert cat.get("dup").metadata.description == "inline copy"
    assert cat.get("installed:dup").status is SkillStatus.SHADOWED
    assert [s.name for s in cat.sources][-1] == "inline"
