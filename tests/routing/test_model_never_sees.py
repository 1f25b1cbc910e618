"""A ``disable-model-invocation`` skill never reaches the model, through any front end,
while the user and the host can still invoke it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import skilldeck
from skilldeck.cli import main

SECRET = "deploy-prod"


def write(root: Path, name: str, front: str, body: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\n{front}---\n{body or f'# {name}'}\n")
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write(
        root,
        SECRET,
        "description: Deploy the application to production. Use when the user asks to deploy.\n"
        "disable-model-invocation: true\n"
        "argument-hint: '[environment]'\n"
        "arguments: [env]\n"
        "triggers:\n  keywords: [deploy]\n",
        "# Deploy\n\nDeploy to $env now ($ARGUMENTS).\n",
    )
    (root / SECRET / "references").mkdir()
    (root / SECRET / "references" / "checklist.md").write_text("- tests green\n")
    write(
        root,
        "release-notes",
        "description: Write release notes from the git log. Use when preparing a release.\n",
    )
    write(
        root,
        "legacy-auth",
        "description: Context about the legacy authentication system.\nuser-invocable: false\n"
        "when_to_use: Use when touching login or session code.\n",
    )
    return root


def runtime(root: Path, **options: object) -> skilldeck.SkillRuntime:
    return skilldeck.SkillRuntime(
        skilldeck.Catalog.from_roots([root], cache=False),
        **options,  # type: ignore[arg-type]
    )


QUERIES = [SECRET, "deploy", "deploy the application to production", "Deploy to production now"]


def test_runtime_front_ends(root: Path) -> None:
    rt = runtime(root)
    session = rt.session()
    for fmt in ("xml", "markdown", "json"):
        assert SECRET not in rt.available_skills(format=fmt)  # type: ignore[arg-type]
    listed = rt.call(session, "skills_list", {})
    assert SECRET not in json.dumps(listed)
    assert listed["data"]["total"] == 2
    for query in QUERIES:
        found = rt.call(session, "skills_search", {"query": query, "limit": 10})
        assert found["ok"] and SECRET not in json.dumps(found["data"]["results"])
        assert all(s.name != SECRET for s in rt.suggest(query, limit=None))
    assert all(m.name != SECRET for m in rt.visible_skills(session))
    loaded = rt.call(session, "skills_load", {"name": SECRET})
    assert loaded["error"]["code"] == "SKILL_NOT_FOUND"
    read = rt.call(session, "skills_read_file", {"name": SECRET, "path": "references/checklist.md"})
    assert read["error"]["code"] == "SKILL_NOT_FOUND"
    # a forked sub-session does not see it either
    child = session.fork()
    assert SECRET not in json.dumps(rt.call(child, "skills_list", {}))


def test_free_functions_and_adapters(root: Path) -> None:
    metas = skilldeck.Catalog.from_roots([root], cache=False).list()
    assert SECRET in {m.name for m in metas}  # the catalog (the host's view) has it
    assert SECRET not in skilldeck.render_skills(metas)
    assert all(s.name != SECRET for s in skilldeck.suggest("please deploy", metas, limit=None))
    assert all(m.name != SECRET for m in skilldeck.search.order_by_relevance("deploy", metas))
    assert SECRET not in skilldeck.adapters.render_compact_manifest(metas)


def test_integration_instructions_hide_it(root: Path) -> None:
    pytest.importorskip("langchain_core", reason="the langchain extra is not installed")
    from skilldeck.integrations.langchain import SkillsToolkit

    for list_format in ("xml", "markdown", "json", "compact"):
        toolkit = SkillsToolkit.for_runtime(runtime(root), list_format=list_format)
        text = toolkit.skill_list()
        assert "release-notes" in text and SECRET not in text, list_format


def test_cli_prompt_hides_it_and_load_still_works(root: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(main, ["prompt", "--root", str(root)])
    assert shown.exit_code == 0 and SECRET not in shown.output
    assert "release-notes" in shown.output
    loaded = runner.invoke(main, ["load", SECRET, "--root", str(root)])
    assert loaded.exit_code == 0, loaded.output
    assert "Deploy to $env" in loaded.output


def test_user_invokes_it(root: Path) -> None:
    rt = runtime(root)
    session = rt.session()
    invoked = rt.invoke(session, SECRET, "staging --fast")
    assert invoked.prompt.startswith("# Deploy\n\nDeploy to staging now (staging --fast).")
    assert invoked.session is session and not invoked.forked
    assert invoked.arguments == ("staging", "--fast")
    # once the user invoked it, the model may use it in this session
    path = "references/checklist.md"
    assert rt.call(session, "skills_read_file", {"name": SECRET, "path": path})["ok"]
    assert not rt.call(rt.session(), "skills_read_file", {"name": SECRET, "path": path})["ok"]
    assert rt.call(rt.session(), "skills_load", {"name": SECRET})["error"]["code"] == (
        "SKILL_NOT_FOUND"
    )


def test_user_invocable_false(root: Path) -> None:
    rt = runtime(root)
    session = rt.session()
    with pytest.raises(skilldeck.SkillUnavailableError, match="user-invocable"):
        rt.invoke(session, "legacy-auth")
    # the model sees it, with when_to_use appended to its description
    listed = rt.call(session, "skills_list", {})["data"]["skills"]
    (legacy,) = [s for s in listed if s["name"] == "legacy-auth"]
    assert legacy["description"] == (
        "Context about the legacy authentication system. Use when touching login or session code."
    )
    assert "Use when touching login" in rt.available_skills()
    assert rt.call(session, "skills_load", {"name": "legacy-auth"})["ok"]


mcp = pytest.importorskip("mcp", reason="the MCP server is the skilldeck[mcp] extra")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_tools_hide_it_and_prompts_offer_it(root: Path) -> None:
    from mcp import Client

    from skilldeck.mcp import create_server

    server = create_server(roots=[root])
    async with Client(server) as client:
        listed = await client.call_tool("skills_list", {})
        assert SECRET not in json.dumps(listed.structured_content)
        for query in QUERIES:
            found = await client.call_tool("skills_search", {"query": query})
            assert SECRET not in json.dumps(found.structured_content["data"]["results"])
        loaded = await client.call_tool("skills_load", {"name": SECRET})
        assert loaded.is_error
        catalog = await client.get_prompt("skills_catalog", {})
        assert SECRET not in json.dumps(catalog.model_dump(mode="json"))
        # prompts: what the user picks (a slash command), with the argument hint
        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert SECRET in prompts and "release-notes" in prompts
        assert "legacy-auth" not in prompts  # user-invocable: false
        (arg,) = prompts[SECRET].arguments or []
        assert (arg.name, arg.description, arg.required) == ("arguments", "[environment]", False)
        got = await client.get_prompt(SECRET, {"arguments": "staging"})
        text = got.messages[0].content.text  # type: ignore[union-attr]
        assert "Deploy to staging now (staging)." in text


@pytest.mark.anyio
async def test_mcp_skills_extension_list_hides_it(root: Path) -> None:
    """``skills/list`` (what an extension host builds the model's catalog from) never
    lists it, on any page; ``skills/get`` by its URI still answers the host."""
    from mcp import Client
    from mcp_types import PaginatedRequestParams

    from skilldeck.mcp import (
        GetSkillParams,
        GetSkillRequest,
        GetSkillResult,
        ListSkillsRequest,
        ListSkillsResult,
        create_server,
    )

    # more hidden skills, spelled the ways a frontmatter can say it, around the visible ones
    write(root, "a-hidden", "description: Send the newsletter.\ndisable-model-invocation: 'yes'\n")
    write(
        root,
        "zz-hidden",
        "description: Rotate the keys.\nmetadata:\n  disable-model-invocation: 'true'\n",
    )
    write(root, "shown-false", "description: Lint files.\ndisable-model-invocation: false\n")
    hidden = {SECRET, "a-hidden", "zz-hidden"}
    for page_size in (1, 2, 100):
        server = create_server(roots=[root], page_size=page_size)
        async with Client(server) as client:
            names: list[str] = []
            cursor: str | None = None
            while True:
                params = PaginatedRequestParams(cursor=cursor) if cursor else None
                result = await client.session.send_request(
                    ListSkillsRequest(params=params), ListSkillsResult
                )
                assert 0 < len(result.skills) <= page_size
                names.extend(s.frontmatter["name"] for s in result.skills)
                cursor = result.next_cursor
                if cursor is None:
                    break
            assert names == ["legacy-auth", "release-notes", "shown-false"], page_size
            assert not hidden & set(names)
            got = await client.session.send_request(
                GetSkillRequest(params=GetSkillParams(uri=f"skill://{SECRET}/SKILL.md")),
                GetSkillResult,
            )
            assert got.skill.frontmatter["disable-model-invocation"] is True
