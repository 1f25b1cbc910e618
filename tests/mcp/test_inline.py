"""Inline skills (``SkillsSection``, a ``MemoryStore`` source) are published like folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client

from skilldeck import Catalog, InlineSkill, MemoryStore, SkillRef, SkillsSection, Source
from skilldeck.mcp import create_server

pytestmark = pytest.mark.anyio

INLINE_URI = "skill://linting/SKILL.md"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def lint_code(paths: list[str]) -> dict[str, int]:
    """Run the linter on the given paths."""
    return {"issues": 0, "files": len(paths)}


def _section(tmp_path: Path, h: Any) -> SkillsSection:
    folder = h.write_skill(
        tmp_path / "refs", "security", "Security review steps", {"references/owasp.md": "top 10\n"}
    )
    linting = InlineSkill(
        name="linting",
        description="Code linting workflows. Use when code needs checking.",
        title="Linting",
        template="# Linting workflow\n\n1. Call `lint_code` on the files changed in $branch.\n",
        default_params={"branch": "main"},
        tools=[lint_code],
    )
    return SkillsSection(skills=[linting], skill_refs=[SkillRef(folder)])


def _frontmatter(data: bytes) -> dict[str, Any]:
    loaded = yaml.safe_load(data.decode("utf-8").split("---\n", 2)[1])
    assert isinstance(loaded, dict)
    return loaded


async def test_inline_and_referenced_skills_are_listed_and_verifiable(
    tmp_path: Path, h: Any
) -> None:
    catalog = _section(tmp_path, h).catalog(cache=False)
    stored = catalog.skill_md_bytes("linting").data
    assert b"lint_code" in stored  # the skill-list text names the tool loading unlocks
    server = create_server(catalog=catalog)
    async with Client(server) as client:
        entries, _ = await h.list_all(client)
        by_uri = {e.uri: e for e in entries}
        assert set(by_uri) == {INLINE_URI, "skill://security/SKILL.md"}
        inline = by_uri[INLINE_URI]
        assert inline.resources != "dynamic"
        assert [(r.uri, r.size, r.digest) for r in inline.resources] == [
            (INLINE_URI, len(stored), h.sha(stored))
        ]
        files = await h.verify_entry(client, inline)
        assert files[INLINE_URI] == stored
        manifest = catalog.get("linting").metadata.manifest
        assert manifest is not None
        assert inline.frontmatter == _frontmatter(stored) == dict(manifest.frontmatter)
        assert inline.frontmatter["name"] == "linting"
        # the referenced folder is served from disk, as before
        files = await h.verify_entry(client, by_uri["skill://security/SKILL.md"])
        assert files["skill://security/references/owasp.md"] == b"top 10\n"

        got = (await h.get_skill(client, INLINE_URI)).skill
        assert got.resources == inline.resources
        assert got.frontmatter == inline.frontmatter
        data, kind, mime = await h.read_bytes(client, INLINE_URI)
        assert (data, kind) == (stored, "text")
        assert mime.startswith("text/markdown")
        listing = await h.read_dir(client, "skill://linting")
        assert [(r.uri, r.size) for r in listing.resources] == [(INLINE_URI, len(stored))]
        resources = {r.uri: r for r in (await client.list_resources()).resources}
        assert resources[INLINE_URI].size == len(stored)
        assert resources[INLINE_URI].name == "linting"


async def test_memory_skill_files_non_utf8_and_changes(tmp_path: Path, h: Any) -> None:
    store = MemoryStore(index="all", source="mem")
    text = "---\nname: notes\ndescription: Notes kept in memory\n---\n\n# Notes\n\nCafé ☕\n"
    blob = b"\x00\xff\xfe binary"
    store.add(text, {"references/deep/a.md": "deep\n", "assets/logo.bin": blob})
    catalog = Catalog([Source.of("mem", "inline", [], store=store)], cache=False)
    server = create_server(catalog=catalog)
    async with Client(server) as client:
        (entry,) = (await h.list_all(client))[0]
        files = await h.verify_entry(client, entry)
        assert files == {
            "skill://notes/SKILL.md": text.encode("utf-8"),
            "skill://notes/references/deep/a.md": b"deep\n",
            "skill://notes/assets/logo.bin": blob,
        }
        _, kind, _ = await h.read_bytes(client, "skill://notes/assets/logo.bin")
        assert kind == "blob"
        deep = await h.read_dir(client, "skill://notes/references")
        assert [r.uri for r in deep.resources] == ["skill://notes/references/deep"]

        store.add(text.replace("Café", "Tea"), {"assets/logo.bin": blob})
        changed = await server.refresh()
        assert changed == {"skill://notes/SKILL.md", "skill://notes/references/deep/a.md"}
        (after,) = (await h.list_all(client))[0]
        files = await h.verify_entry(client, after)
        assert b"Tea" in files["skill://notes/SKILL.md"]
        assert "skill://notes/references/deep/a.md" not in files
        assert await server.refresh() == set()


async def test_memory_skill_over_the_file_limit_is_dynamic(h: Any) -> None:
    store = MemoryStore(index="all", source="mem")
    text = "---\nname: many\ndescription: Many files\n---\n\nbody\n"
    store.add(text, {f"assets/f{i:03d}.txt": f"{i}\n" for i in range(520)})
    server = create_server(catalog=Catalog([Source.of("mem", "inline", [], store=store)]))
    async with Client(server) as client:
        (entry,) = (await h.list_all(client))[0]
        assert entry.resources == "dynamic"
        data, _, _ = await h.read_bytes(client, "skill://many/assets/f007.txt")
        assert data == b"7\n"
        data, _, _ = await h.read_bytes(client, "skill://many/SKILL.md")
        assert data == text.encode("utf-8")
