"""A SKILL.md swapped for a link out of its folder after the catalog listed it: the
server never publishes the link target's frontmatter; the skill is left out, with the
read's error (``PathNotAllowedError``) as the reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp import Client

import skilldeck
from skilldeck.mcp import create_server

from .conftest import list_all, write_skill

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_swapped_skill_md_is_not_served_with_its_targets_frontmatter(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    folder = write_skill(root, "own", "The skill's own words.")
    write_skill(root, "other", "Another skill.")
    catalog = skilldeck.Catalog.from_roots([root], cache=False)  # keeps no frontmatter
    assert len(catalog.list()) == 2
    target = tmp_path / "elsewhere.md"
    target.write_text("---\nname: own\ndescription: SECRET words.\n---\n", encoding="utf-8")
    link = folder / "SKILL.md.new"
    link.symlink_to(target)
    os.replace(link, folder / "SKILL.md")
    server = create_server(catalog=catalog, snapshot_cache=False)
    async with Client(server) as client:
        entries, _pages = await list_all(client)
    assert [e.frontmatter["name"] for e in entries] == ["other"]
    assert "SECRET" not in repr(entries)
    ((ref, reason),) = server.index.skipped
    assert ref == "own" and reason.startswith("PathNotAllowedError: ")
