"""SEP-2640 through the SDK's own in-memory client: every method, every error."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from skilldeck.mcp import EXTENSION_ID, HANDLE_META_KEY, create_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    """2026-07-28 (per-request envelope) and the 2025-11-25 initialize handshake."""
    return str(request.param)


async def test_capability_declares_extension_and_resources(
    tree: dict[str, Path], mode: str
) -> None:
    server = create_server(roots=[tree["low"], tree["high"]])
    async with Client(server, mode=mode) as client:
        caps = client.session.server_capabilities
        assert caps is not None
        assert caps.extensions == {
            EXTENSION_ID: {"directoryRead": True},
            "dev.skilldeck/sessions": {"handleMeta": HANDLE_META_KEY},
        }
        assert caps.resources is not None
        assert caps.resources.list_changed is True
        assert caps.tools is not None
        assert caps.tools.list_changed is True


async def test_list_entries_are_complete_and_verifiable(
    tree: dict[str, Path], mode: str, h
) -> None:
    server = create_server(roots=[tree["low"], tree["high"]])
    async with Client(server, mode=mode) as client:
        entries, _pages = await h.list_all(client)
        uris = [e.uri for e in entries]
        assert uris == sorted(uris)
        assert len(uris) == 3
        assert {"skill://alpha/SKILL.md", "skill://beta/SKILL.md"} <= set(uris)
        alpha = next(e for e in entries if e.uri == "skill://alpha/SKILL.md")
        files = await h.verify_entry(client, alpha)
        assert set(files) == {
            "skill://alpha/SKILL.md",
            "skill://alpha/references/guide.md",
            "skill://alpha/references/deep/more.txt",
            "skill://alpha/assets/logo.bin",
            "skill://alpha/assets/latin1.txt",
            "skill://alpha/scripts/run.py",
        }
        assert alpha.frontmatter == {
            "name": "alpha",
            "description": "Alpha wins",
            "license": "MIT",
            "metadata": {"author": "me", "version": "2.0"},
        }
        for entry in entries:
            await h.verify_entry(client, entry)


async def test_shadowed_skill_is_reachable_under_its_source(tree: dict[str, Path], h) -> None:
    server = create_server(roots=[tree["low"], tree["high"]])
    async with Client(server) as client:
        entries, _ = await h.list_all(client)
        shadowed = [
            e
            for e in entries
            if e.uri != "skill://alpha/SKILL.md" and e.frontmatter["name"] == "alpha"
        ]
        assert len(shadowed) == 1
        (entry,) = shadowed
        assert entry.frontmatter["description"] == "Alpha from the low root"
        prefix = entry.uri.removeprefix("skill://").split("/")
        assert len(prefix) == 3 and prefix[1:] == ["alpha", "SKILL.md"]
        got = await h.get_skill(client, entry.uri)
        assert got.skill.frontmatter == entry.frontmatter
        await h.verify_entry(client, entry)


async def test_skill_md_resource_metadata_and_text_vs_blob(tree: dict[str, Path], h) -> None:
    server = create_server(roots=[tree["high"]])
    async with Client(server) as client:
        listed = {r.uri: r for r in (await client.list_resources()).resources}
        skill_md = listed["skill://alpha/SKILL.md"]
        assert skill_md.mime_type == "text/markdown"
        assert skill_md.name == "alpha"
        assert skill_md.description == "Alpha wins"
        data, kind, mime = await h.read_bytes(client, "skill://alpha/SKILL.md")
        assert (kind, mime) == ("text", "text/markdown")
        data, kind, _ = await h.read_bytes(client, "skill://alpha/assets/logo.bin")
        assert kind == "blob" and data == bytes(range(256))
        data, kind, _ = await h.read_bytes(client, "skill://alpha/assets/latin1.txt")
        assert kind == "blob" and data == "café".encode("latin-1")
        data, kind, _ = await h.read_bytes(client, "skill://alpha/references/guide.md")
        assert kind == "text" and b"\r\n" in data
        assert listed["skill://alpha/assets/logo.bin"].size == 256


async def test_get_answers_and_errors(tree: dict[str, Path], mode: str, h) -> None:
    server = create_server(roots=[tree["high"]])
    async with Client(server, mode=mode) as client:
        got = await h.get_skill(client, "skill://beta/SKILL.md")
        assert got.skill.uri == "skill://beta/SKILL.md"
        assert got.ttl_ms >= 0 and got.cache_scope in ("public", "private")
        for bad in (
            "skill://nope/SKILL.md",
            "skill://beta/references/b.md",  # a file, not a SKILL.md
            "skill://beta",
            "file:///etc/passwd",
            "skill://beta/../alpha/SKILL.md",
        ):
            with pytest.raises(MCPError) as err:
                await h.get_skill(client, bad)
            assert err.value.error.code == -32602, bad


async def test_directory_read(tree: dict[str, Path], h) -> None:
    server = create_server(roots=[tree["high"]])
    async with Client(server) as client:
        root = await h.read_dir(client, "skill://alpha")
        kids = {r.uri: r.mime_type for r in root.resources}
        assert kids == {
            "skill://alpha/SKILL.md": "text/markdown",
            "skill://alpha/assets": "inode/directory",
            "skill://alpha/references": "inode/directory",
            "skill://alpha/scripts": "inode/directory",
        }
        refs = await h.read_dir(client, "skill://alpha/references/")
        assert {r.uri for r in refs.resources} == {
            "skill://alpha/references/guide.md",
            "skill://alpha/references/deep",
        }
        for bad in ("skill://alpha/SKILL.md", "skill://alpha/nothing", "skill://zzz", "http://x/y"):
            with pytest.raises(MCPError) as err:
                await h.read_dir(client, bad)
            assert err.value.error.code == -32602, bad


async def test_resource_read_errors(tree: dict[str, Path]) -> None:
    server = create_server(roots=[tree["high"]])
    async with Client(server) as client:
        for bad in ("skill://alpha/missing.md", "skill://alpha", "skill://alpha/../beta/SKILL.md"):
            with pytest.raises(MCPError) as err:
                await client.read_resource(bad)
            assert err.value.error.code == -32602, bad


async def test_bad_cursor_is_invalid_params(tree: dict[str, Path]) -> None:
    from mcp_types import PaginatedRequestParams

    from skilldeck.mcp import ListSkillsRequest, ListSkillsResult

    server = create_server(roots=[tree["high"]])
    async with Client(server) as client:
        for cursor in ("garbage", "eyJ4Ijox", ""):
            with pytest.raises(MCPError) as err:
                await client.session.send_request(
                    ListSkillsRequest(params=PaginatedRequestParams(cursor=cursor)),
                    ListSkillsResult,
                )
            assert err.value.error.code == -32602


async def test_pagination_over_2000_skills(tmp_path: Path, h) -> None:
    root = tmp_path / "many"
    for i in range(2000):
        h.write_skill(
            root, f"skill-{i:04d}", f"Generated skill number {i}", {"references/r.md": f"ref {i}\n"}
        )
    server = create_server(roots=[root], page_size=100)
    async with Client(server) as client:
        entries, pages = await h.list_all(client)
        assert pages == 20
        uris = [e.uri for e in entries]
        assert len(uris) == len(set(uris)) == 2000
        assert uris == sorted(uris)
        assert all(e.resources != "dynamic" and len(e.resources) == 2 for e in entries)
        await h.verify_entry(client, entries[1234])


async def test_large_skill_is_dynamic(tmp_path: Path, h) -> None:
    root = tmp_path / "big"
    h.write_skill(
        root, "huge", "Too many files", {f"assets/f{i:03d}.txt": f"{i}\n" for i in range(520)}
    )
    server = create_server(roots=[root])
    async with Client(server) as client:
        (entry,) = (await h.list_all(client))[0]
        assert entry.resources == "dynamic"
        data, _, _ = await h.read_bytes(client, "skill://huge/assets/f007.txt")
        assert data == b"7\n"
        listing = await h.read_dir(client, "skill://huge/assets")
        assert len(listing.resources) == 500 and listing.next_cursor
        rest = await h.read_dir(client, "skill://huge/assets", listing.next_cursor)
        assert len(rest.resources) == 20 and rest.next_cursor is None


async def test_internal_error_when_a_served_file_cannot_be_returned(tree: dict[str, Path]) -> None:
    server = create_server(roots=[tree["high"]])
    async with Client(server) as client:
        # grows past the 16 MiB limit after the scan: still served, no longer readable
        (tree["high"] / "beta/references/b.md").write_bytes(b"x" * (16 * 1024 * 1024 + 1))
        with pytest.raises(MCPError) as err:
            await client.read_resource("skill://beta/references/b.md")
        assert err.value.error.code == -32603


async def test_nested_skill_files_belong_to_the_enclosing_skill(tmp_path: Path, h) -> None:
    root = tmp_path / "nest"
    outer = h.write_skill(root, "outer", "Holds another skill", {"notes.md": "n\n"})
    h.write_skill(outer, "inner", "Lives inside outer", {"references/i.md": "i\n"})
    server = create_server(roots=[root], recursive=True)
    async with Client(server) as client:
        entries, _ = await h.list_all(client)
        by_name = {e.frontmatter["name"]: e for e in entries}
        assert set(by_name) == {"outer", "inner"}
        outer_files = {r.uri for r in by_name["outer"].resources}
        assert {
            "skill://outer/inner/SKILL.md",
            "skill://outer/inner/references/i.md",
        } <= outer_files
        assert {r.uri for r in by_name["inner"].resources} == {
            "skill://inner/SKILL.md",
            "skill://inner/references/i.md",
        }
        for entry in entries:
            await h.verify_entry(client, entry)


async def test_skill_over_16_mib_is_dynamic(tmp_path: Path, h) -> None:
    root = tmp_path / "heavy"
    half = b"\xff" * (8 * 1024 * 1024 + 1)
    h.write_skill(root, "heavy", "Two big blobs", {"assets/a.bin": half, "assets/b.bin": half})
    h.write_skill(root, "light", "Small", {"assets/c.bin": b"\x01"})
    server = create_server(roots=[root])
    async with Client(server) as client:
        entries = {e.frontmatter["name"]: e for e in (await h.list_all(client))[0]}
        assert entries["heavy"].resources == "dynamic"
        assert entries["light"].resources != "dynamic"
        data, kind, _ = await h.read_bytes(client, "skill://heavy/assets/a.bin")
        assert kind == "blob" and data == half
