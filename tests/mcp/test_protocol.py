"""Protocol errors with the envelope's code, logging/setLevel, completion/complete."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    LoggingMessageNotificationParams,
    PromptReference,
    ResourceTemplateReference,
)

import skilldeck
from skilldeck.mcp import create_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("budget", ["abc", "-5", "1000 lines", "0"])
async def test_bad_prompt_argument_names_the_field(
    tree: dict[str, Path], mode: str, budget: str
) -> None:
    server = create_server(roots=[tree["high"]])
    async with Client(server, mode=mode) as client:
        with pytest.raises(MCPError) as err:
            await client.get_prompt("skills_catalog", {"budget": budget})
        assert err.value.error.code == -32602
        assert "budget" in err.value.error.message
        assert err.value.error.data["code"] == "INVALID_ARGUMENTS"
        assert err.value.error.data["field"] == "budget"
        # an argument the prompt does not take (the SDK's own rendering said -32603)
        for prompt, takes in (("skills_catalog", "budget"), ("alpha", "arguments")):
            with pytest.raises(MCPError) as err:
                await client.get_prompt(prompt, {"x": "y"})
            assert err.value.error.code == -32602
            assert err.value.error.data == {
                "code": "INVALID_ARGUMENTS",
                "hint": f"its arguments: {takes}",
                "field": "x",
            }
        with pytest.raises(MCPError) as err:
            await client.get_prompt("nope")
        assert err.value.error.code == -32602
        assert err.value.error.data == {
            "code": "INVALID_ARGUMENTS",
            "hint": "available prompts: alpha, beta, skills_catalog",
            "field": "name",
        }


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_errors_carry_the_envelope_code(tree: dict[str, Path], mode: str, h: Any) -> None:
    server = create_server(roots=[tree["low"], tree["high"]])
    async with Client(server, mode=mode) as client:
        cases = [
            (h.get_skill(client, "skill://nope/SKILL.md"), "SKILL_NOT_FOUND"),
            (h.read_dir(client, "skill://nope"), "FILE_NOT_FOUND"),
            (h.read_dir(client, "skill://alpha/SKILL.md"), "FILE_NOT_FOUND"),
            (h.read_dir(client, "skill://alpha", cursor="garbage"), "INVALID_ARGUMENTS"),
            (client.read_resource("skill://alpha/nope.md"), "FILE_NOT_FOUND"),
            (client.read_resource("skill://alpha/references"), "FILE_NOT_FOUND"),
        ]
        for call, code in cases:
            with pytest.raises(MCPError) as err:
                await call
            assert err.value.error.code == -32602
            assert err.value.error.data["code"] == code, err.value.error


async def _logs_until(inbox: list[LoggingMessageNotificationParams], text: str) -> None:
    with anyio.fail_after(10):
        while not any(text in str(m.data) for m in inbox):
            await anyio.sleep(0.02)


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_set_level_sends_logs_to_that_client(tool_root: Path) -> None:
    catalog = skilldeck.Catalog.from_roots([tool_root])
    runtime = skilldeck.SkillRuntime(catalog, scripts=True, declared_tools=True)
    server = create_server(catalog, runtime=runtime, allow_exec=True)
    got_a: list[LoggingMessageNotificationParams] = []
    got_b: list[LoggingMessageNotificationParams] = []
    got_c: list[LoggingMessageNotificationParams] = []

    def inbox(into: list[LoggingMessageNotificationParams]) -> Any:
        async def callback(params: LoggingMessageNotificationParams) -> None:
            into.append(params)

        return callback

    async with (
        Client(server, mode="legacy", logging_callback=inbox(got_a)) as a,
        Client(server, mode="legacy", logging_callback=inbox(got_b)) as b,
        Client(server, mode="legacy", logging_callback=inbox(got_c)) as c,
    ):
        caps = a.session.server_capabilities
        assert caps is not None and caps.logging is not None
        await a.session.set_logging_level("info")
        await b.session.set_logging_level("error")
        await a.call_tool("skills_load", {"name": "echo"})
        await _logs_until(got_a, "say")  # A's own request: only A hears it
        assert got_a[-1].level == "info" and got_a[-1].logger == "skilldeck.mcp"
        (tool_root / "echo" / "notes.md").write_text("new\n")
        await server.refresh()  # not a request: every client at that level hears it
        await _logs_until(got_a, "catalog changed")
        await c.session.set_logging_level("debug")
        await c.call_tool("skills_load", {"name": "echo"})
        await _logs_until(got_c, "tools of this session changed")
        await anyio.sleep(0.2)
        assert got_b == []  # at "error", B hears none of these
        changes = [m for m in got_a if "tools of this session changed" in str(m.data)]
        assert len(changes) == 1  # C's change stays C's


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_completion_of_skill_names_and_paths(tree: dict[str, Path], mode: str) -> None:
    server = create_server(roots=[tree["low"], tree["high"]])
    async with Client(server, mode=mode) as client:
        caps = client.session.server_capabilities
        assert caps is not None and caps.completions is not None
        templates = (await client.list_resource_templates()).resource_templates
        template = next(t.uri_template for t in templates if t.uri_template.startswith("skill://"))
        ref = ResourceTemplateReference(type="ref/resource", uri=template)
        names = await client.complete(ref, {"name": "skill", "value": ""})
        assert names.completion.values == ["alpha", "beta", "root1"]
        some = await client.complete(ref, {"name": "skill", "value": "b"})
        assert some.completion.values == ["beta"]
        paths = await client.complete(
            ref, {"name": "path", "value": "references/"}, context_arguments={"skill": "alpha"}
        )
        assert paths.completion.values == ["references/deep/more.txt", "references/guide.md"]
        shadowed = await client.complete(
            ref, {"name": "path", "value": ""}, context_arguments={"skill": "root1"}
        )
        assert shadowed.completion.values == ["alpha/SKILL.md"]
        none = await client.complete(
            ref, {"name": "path", "value": ""}, context_arguments={"skill": "nope"}
        )
        assert none.completion.values == []
        prompt = PromptReference(type="ref/prompt", name="skills_catalog")
        budgets = await client.complete(prompt, {"name": "budget", "value": "1"})
        assert budgets.completion.values == ["1000 tokens", "16000"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_set_level_reaches_neither_another_server_nor_the_process_log(
    tmp_path: Path, h: Any
) -> None:
    # two servers in one process (two tenants of serve --store): A's client asks for
    # debug; B's rescan is not A's business, and the process's own log stays at its level
    import logging

    roots = {n: tmp_path / n for n in ("a", "b")}
    for name, root in roots.items():
        h.write_skill(root, f"skill-{name}", f"Skill of server {name}")
    server_a = create_server(roots=[roots["a"]], snapshot_cache=False)
    server_b = create_server(roots=[roots["b"]], snapshot_cache=False)
    for server in (server_a, server_b):  # else a slow first snapshot may see the edits
        server.prepare()
    got: list[LoggingMessageNotificationParams] = []

    async def callback(params: LoggingMessageNotificationParams) -> None:
        got.append(params)

    seen: list[logging.LogRecord] = []
    process = logging.Handler()
    process.emit = seen.append  # type: ignore[method-assign]
    root_logger = logging.getLogger()
    root_logger.addHandler(process)
    try:
        async with Client(server_a, mode="legacy", logging_callback=callback) as a:
            await a.session.set_logging_level("debug")
            (roots["b"] / "skill-b" / "new.md").write_text("b\n")
            await server_b.refresh()
            (roots["a"] / "skill-a" / "new.md").write_text("a\n")
            await server_a.refresh()
            await _logs_until(got, "catalog changed")
            await anyio.sleep(0.2)
            assert [str(m.data) for m in got if "catalog changed" in str(m.data)] == [
                "catalog changed: 1 file(s)"
            ]
            logging.getLogger("skilldeck.mcp").info("the server's own detail")
        assert not [r for r in seen if r.name.startswith("skilldeck") and r.levelno < 30]
    finally:
        root_logger.removeHandler(process)
