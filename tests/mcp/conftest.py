"""Skill trees on disk and SDK-client helpers shared by the MCP server tests."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml

if TYPE_CHECKING:
    from mcp import Client

    from skilldeck.mcp import DirectoryReadResult, GetSkillResult, SkillEntry

# The server is an extra (skilldeck[mcp]): without the SDK these tests are not collected.
collect_ignore_glob = [] if importlib.util.find_spec("mcp") else ["test_*.py"]


def write_skill(
    root: Path,
    name: str,
    description: str,
    files: dict[str, bytes | str] | None = None,
    extra: str = "",
) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n\nDo the thing.\n",
        encoding="utf-8",
    )
    for rel, data in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)
    return folder


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """Two roots: ``low`` is shadowed by ``high`` for ``alpha``; assorted file kinds."""
    low, high = tmp_path / "low", tmp_path / "high"
    write_skill(low, "alpha", "Alpha from the low root")
    write_skill(
        high,
        "alpha",
        "Alpha wins",
        {
            "references/guide.md": "# Guide\n\nUnicode ✓ and CRLF\r\nline\n",
            "references/deep/more.txt": "more\n",
            "assets/logo.bin": bytes(range(256)),
            "scripts/run.py": "print('hi')\n",
            "assets/latin1.txt": "café".encode("latin-1"),
        },
        extra="license: MIT\nmetadata:\n  author: me\n  version: '2.0'\n",
    )
    write_skill(high, "beta", "Beta does beta things", {"references/b.md": "b\n"})
    (high / "empty-dir-skill").mkdir()
    return {"low": low, "high": high}


async def list_all(client: Client) -> tuple[list[SkillEntry], int]:
    """Every entry of skills/list, following cursors; returns (entries, pages)."""
    from mcp_types import PaginatedRequestParams

    from skilldeck.mcp import ListSkillsRequest, ListSkillsResult

    entries: list[SkillEntry] = []
    cursor: str | None = None
    pages = 0
    while True:
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await client.session.send_request(
            ListSkillsRequest(params=params), ListSkillsResult
        )
        pages += 1
        entries.extend(result.skills)
        cursor = result.next_cursor
        if cursor is None:
            return entries, pages


async def get_skill(client: Client, uri: str) -> GetSkillResult:
    from skilldeck.mcp import GetSkillParams, GetSkillRequest, GetSkillResult

    return await client.session.send_request(
        GetSkillRequest(params=GetSkillParams(uri=uri)), GetSkillResult
    )


async def read_dir(client: Client, uri: str, cursor: str | None = None) -> DirectoryReadResult:
    from skilldeck.mcp import DirectoryReadParams, DirectoryReadRequest, DirectoryReadResult

    return await client.session.send_request(
        DirectoryReadRequest(params=DirectoryReadParams(uri=uri, cursor=cursor)),
        DirectoryReadResult,
    )


async def read_bytes(client: Client, uri: str) -> tuple[bytes, str, str]:
    """(bytes, kind 'text'|'blob', mimeType) of one resource as the client received it."""
    from mcp_types import BlobResourceContents, TextResourceContents

    result = await client.read_resource(uri, cache_mode="refresh")
    (content,) = result.contents
    if isinstance(content, TextResourceContents):
        return content.text.encode("utf-8"), "text", content.mime_type or ""
    assert isinstance(content, BlobResourceContents)
    return base64.b64decode(content.blob), "blob", content.mime_type or ""


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


async def verify_entry(client: Client, entry: SkillEntry) -> dict[str, bytes]:
    """Read every listed file; digests and sizes recomputed here must match the entry."""
    assert entry.resources != "dynamic"
    got: dict[str, bytes] = {}
    for res in entry.resources:
        data, _, _ = await read_bytes(client, res.uri)
        assert len(data) == res.size, res.uri
        assert sha(data) == res.digest, res.uri
        got[res.uri] = data
    skill_md = got[entry.uri]
    text = skill_md.decode("utf-8")
    frontmatter = yaml.safe_load(text.split("---\n", 2)[1])
    assert frontmatter == entry.frontmatter
    assert entry.uri.rsplit("/", 2)[-2] == entry.frontmatter["name"]
    return got


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve_http(
    roots: list[Path],
    port: int,
    *extra: str,
    env: dict[str, str] | None = None,
    host: str = "127.0.0.1",
) -> Iterator[subprocess.Popen[bytes]]:
    """``skilldeck serve --transport http`` on ``host``:``port`` until the block ends."""
    cmd = [sys.executable, "-m", "skilldeck", "serve", "--transport", "http", "--port", str(port)]
    cmd += ["--host", host]
    for root in roots:
        cmd += ["--root", str(root)]
    cmd += list(extra)
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=log, env={**os.environ, **(env or {})}
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(
                        "server did not start: " + log.read().decode(errors="replace")
                    )
                family = socket.AF_INET6 if ":" in host else socket.AF_INET
                with socket.socket(family) as s:
                    if s.connect_ex((host.rstrip("."), port)) == 0:
                        break
                time.sleep(0.05)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def declared_tool_body(tool: str) -> str:
    """A SKILL.md body declaring command tool ``tool`` that prints its ``word`` argument."""
    return (
        f"# Tool\n\n### {tool}\n\nRepeat a word.\n\n#### Parameters\n\n"
        "| Name | Type | Required | Description |\n|---|---|---|---|\n"
        "| word | string | yes | what to say |\n\n"
        f'#### Command\n\n```bash\n{sys.executable} -c "import sys; print(sys.argv[1])" '
        "{{word}}\n```\n"
    )


def write_tool_skill(root: Path, name: str, tool: str, extra: str = "") -> Path:
    """A skill whose body declares one command tool (shown only once the skill is loaded)."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Skill {name} brings tool {tool}\n{extra}---\n\n"
        + declared_tool_body(tool),
        encoding="utf-8",
    )
    return folder


@pytest.fixture
def tool_root(tmp_path: Path) -> Path:
    """``echo`` declares the tool ``say``; ``narrow`` allows only ``skills_search``;
    both approved to run (``skilldeck approve``)."""
    from click.testing import CliRunner

    from skilldeck.cli import main

    root = tmp_path / "tools"
    write_tool_skill(root, "echo", "say")
    write_skill(root, "narrow", "Narrow tool set", extra="allowed-tools: skills_search\n")
    for name in ("echo", "narrow"):
        done = CliRunner().invoke(main, ["approve", name, "--root", str(root)])
        assert done.exit_code == 0, done.output
    return root


class Helpers:
    """Test helpers, handed to tests by the ``h`` fixture."""

    write_skill = staticmethod(write_skill)
    list_all = staticmethod(list_all)
    get_skill = staticmethod(get_skill)
    read_dir = staticmethod(read_dir)
    read_bytes = staticmethod(read_bytes)
    verify_entry = staticmethod(verify_entry)
    sha = staticmethod(sha)
    free_port = staticmethod(free_port)
    serve_http = staticmethod(serve_http)
    write_tool_skill = staticmethod(write_tool_skill)


@pytest.fixture
def h() -> type[Helpers]:
    return Helpers
