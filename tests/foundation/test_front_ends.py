"""The tool, the CLI and MCP give the same answer for the same path; no front end
lists or reads a hidden file; every front end publishes the walker's file set."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.shared.exceptions import MCPError
from tests.foundation._trees import HIDDEN, OUTSIDE_BYTES, VISIBLE, build_tree

import skilldeck
from skilldeck.catalog import skill_file_digests
from skilldeck.cli import main
from skilldeck.mcp import create_server

pytestmark = pytest.mark.anyio

PATHS = [
    *VISIBLE,  # 10 readable files, links and SKILL.md among them
    *HIDDEN,  # 7 hidden files at several depths
    "escape.md",
    "references/outdir/secret.md",
    "dangling.md",
    "references/up/SKILL.md",
    "env-link.md",
    "assets/pipe",
    "references",
    "nothing.md",
    "../outside/secret.md",
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _tool(root: Path, path: str, index: str = "all") -> str:
    # a host exposing every file (index "all") reads what MCP publishes
    rt = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], index=index))  # type: ignore[arg-type]
    envelope = rt.call(rt.session(), "skills_read_file", {"name": "tricky", "path": path})
    if envelope["ok"]:
        assert OUTSIDE_BYTES.decode() not in json.dumps(envelope)
        return "ok"
    return str(envelope["error"]["code"])


def _cli(root: Path, path: str) -> str:
    result = CliRunner().invoke(
        main, ["read", "tricky", path, "--all-files", "--root", str(root), "--format", "json"]
    )
    assert OUTSIDE_BYTES.decode() not in result.output
    if result.exit_code == 0:
        return "ok"
    return str(json.loads(result.output)["error"]["code"])


async def _mcp(root: Path, paths: list[str]) -> tuple[dict[str, str], set[str]]:
    answers: dict[str, str] = {}
    async with Client(create_server(roots=[root])) as client:
        listed = set()
        cursor = None
        while True:
            page = await client.list_resources(cursor=cursor)
            listed |= {str(r.uri) for r in page.resources}
            cursor = page.next_cursor
            if not cursor:
                break
        for path in paths:
            try:
                result = await client.read_resource(f"skill://tricky/{path}")
            except MCPError:
                answers[path] = "error"
                continue
            assert OUTSIDE_BYTES.decode() not in str(result.contents)
            answers[path] = "ok"
    prefix = "skill://tricky/"
    return answers, {u[len(prefix) :] for u in listed if u.startswith(prefix)}


async def test_tool_cli_and_mcp_agree_on_every_path(tmp_path: Path) -> None:
    assert len(PATHS) >= 20
    root = tmp_path / "skills"
    root.mkdir()
    build_tree(root)
    # the skill's folder is root/tricky; "outside" sits beside it in root, not a skill
    mcp_answers, mcp_listed = await _mcp(root, PATHS)
    table = {p: (_tool(root, p), _cli(root, p), mcp_answers[p]) for p in PATHS}
    for path, (tool, cli, mcp) in table.items():
        assert tool == cli, (path, table[path])
        assert (tool == "ok") == (mcp == "ok"), (path, table[path])
        assert (tool == "ok") == (path in VISIBLE), (path, table[path])
        if tool != "ok":
            assert tool in {"PATH_NOT_ALLOWED", "FILE_NOT_FOUND"}, (path, table[path])
    # MCP lists exactly the walker's set: nothing hidden, nothing outside
    assert mcp_listed == set(VISIBLE)
    # with the default index, reads are bounded by what skills_load lists (and SKILL.md)
    listed = {*skilldeck.Catalog.from_roots([root]).load("tricky").files, "SKILL.md"}
    for path in PATHS:
        assert (_tool(root, path, "bundled") == "ok") == (path in listed), path


def test_every_consumer_sees_the_same_file_set(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    root.mkdir()
    skill = build_tree(root)
    shutil.rmtree(skill / ".git")  # a .git folder would make install treat it as a repository
    catalog = skilldeck.Catalog.from_roots([root])
    digest_set = set(skill_file_digests(skill))
    index_set = {*catalog.files("tricky", index="all"), "SKILL.md"}
    result = skilldeck.dist.install(str(skill))
    copy = Path(result.skills[0].path)
    install_set = {p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file()}
    scanned = skilldeck.scan_skill(skill)
    assert digest_set == index_set == install_set == set(VISIBLE)
    assert set(skill_file_digests(copy)) == digest_set
    assert not any(h.split("/")[-1] in {p.rsplit("/", 1)[-1] for p in install_set} for h in HIDDEN)
    # the scan reports what it left out and the hidden .env, never reads outside
    codes = {d.code for d in scanned}
    assert {"SK514", "SK504", "SK515", "SK518"} <= codes
