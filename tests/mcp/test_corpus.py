"""The real-world corpus served end to end: every entry complete, a sample verified byte by byte."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import skilldeck
from skilldeck.mcp import MAX_FILES, MAX_TOTAL_BYTES, create_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_corpus_is_served_and_verifiable(corpus: Path, h: Any) -> None:
    roots = sorted(p for p in corpus.iterdir() if p.is_dir())
    server = create_server(roots=roots, recursive=True, tools=False)
    index = server.index
    # Only skills the catalog cannot address are left out (a source holding two
    # candidates of one name, the first of them invalid); nothing fails to read.
    assert all(reason.startswith("SkillUnavailableError") for _, reason in index.skipped)
    assert len(index.skipped) < 50
    async with Client(server) as client:
        entries, _ = await h.list_all(client)
        assert len(entries) == len(index.skills) > 1500
        uris = [e.uri for e in entries]
        assert len(set(uris)) == len(uris)
        for entry in entries:
            assert entry.uri.rsplit("/", 2)[-2] == entry.frontmatter["name"]
            if entry.resources != "dynamic":
                assert entry.resources[0].uri == entry.uri
                assert len(entry.resources) <= MAX_FILES
                assert sum(r.size for r in entry.resources) <= MAX_TOTAL_BYTES
        for entry in random.Random(7).sample([e for e in entries if e.resources != "dynamic"], 40):
            files: dict[str, bytes] = {}
            for res in entry.resources:
                data, _, _ = await h.read_bytes(client, res.uri)
                assert (len(data), h.sha(data)) == (res.size, res.digest), res.uri
                files[res.uri] = data
            parsed = skilldeck.parse_skill_md(files[entry.uri])
            assert parsed.manifest is not None
            assert dict(parsed.manifest.frontmatter) == entry.frontmatter
