"""The official TypeScript MCP SDK's client, the one most hosts are built on, against
``skilldeck serve`` over stdio and over streamable HTTP.

Its SDK checks every reply against the protocol's schemas and a tool's structured
result against the tool's output schema, so a reply the Python SDK accepts and it
refuses fails here. The client (``typescript_client.cjs``) lists tools, resources,
templates and prompts, calls each read tool, reads a resource, asks for a completion,
runs an approved script and reads a skill that is not there.

The SDK is found in ``$SKILLDECK_TEST_NPM_BIN/../lib/node_modules`` (``.ci/run``
installs it there with npm) or ``$SKILLDECK_TEST_NODE_PATH``; without it and ``node``
the tests skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tests._skills import write_files

from skilldeck.cli import main

CLIENT = Path(__file__).with_name("typescript_client.cjs")
SDK = "@modelcontextprotocol/sdk"


def _node_path() -> str | None:
    given = os.environ.get("SKILLDECK_TEST_NODE_PATH")
    npm_bin = os.environ.get("SKILLDECK_TEST_NPM_BIN")
    if not given and npm_bin:
        given = str(Path(npm_bin).parent / "lib" / "node_modules")
    if given and (Path(given) / SDK / "package.json").is_file():
        return given
    return None


NODE = shutil.which("node")
NODE_PATH = _node_path()

pytestmark = pytest.mark.skipif(
    NODE is None or NODE_PATH is None,
    reason=f"node or the TypeScript MCP SDK is missing (npm install -g --prefix DIR {SDK}, "
    "then SKILLDECK_TEST_NODE_PATH=DIR/lib/node_modules)",
)


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    """One skill with a reference and a script, approved to run."""
    root = tmp_path / "skills"
    write_files(
        root / "hello",
        {
            "SKILL.md": "---\nname: hello\ndescription: Says hello to a name. Use when the "
            "user wants a greeting.\n---\n# Hello\n\nRun scripts/hello.py NAME; "
            "see references/notes.md.\n",
            "references/notes.md": "Some notes.\n",
            "scripts/hello.py": "import json, sys\nprint(json.dumps({'hello': sys.argv[1:]}))\n",
        },
    )
    done = CliRunner().invoke(main, ["approve", "hello", "--root", str(root)])
    assert done.exit_code == 0, done.output
    return root


def _client(*args: str) -> dict[str, Any]:
    assert NODE is not None and NODE_PATH is not None
    done = subprocess.run(
        [NODE, str(CLIENT), *args],
        env={**os.environ, "NODE_PATH": NODE_PATH},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def _result(reply: dict[str, Any]) -> dict[str, Any]:
    """A tool call's envelope, as text and as structured content (the same)."""
    text = json.loads(reply["content"][0]["text"])
    assert reply["structuredContent"] == text
    return dict(text)


def _check(seen: dict[str, Any]) -> None:
    assert seen["server"]["name"] == "skilldeck"
    tools = {tool["name"] for tool in seen["tools"]}
    assert {"skills_list", "skills_load", "skills_read_file", "skills_search"} <= tools
    assert "skills_run_script" in tools  # served with --allow-exec
    assert "skill://hello/SKILL.md" in {r["uri"] for r in seen["resources"]}
    assert [t["uriTemplate"] for t in seen["templates"]] == ["skill://{skill}/{+path}"]
    assert "skills_catalog" in {p["name"] for p in seen["prompts"]}

    listed = _result(seen["list"])
    assert [s["name"] for s in listed["data"]["skills"]] == ["hello"]
    assert _result(seen["search"])["data"]["results"][0]["name"] == "hello"
    loaded = _result(seen["load"])["data"]
    assert loaded["name"] == "hello" and "references/notes.md" in loaded["files"]
    assert _result(seen["readFile"])["data"]["content"] == "Some notes.\n"
    outside = _result(seen["outside"])
    assert seen["outside"]["isError"] is True
    assert outside["error"]["code"] == "PATH_NOT_ALLOWED"

    (content,) = seen["resource"]["contents"]
    assert content["uri"] == "skill://hello/SKILL.md" and "name: hello" in content["text"]
    assert "<name>hello</name>" in seen["prompt"]["messages"][0]["content"]["text"]
    assert seen["completion"]["completion"]["values"] == ["hello"]

    ran = _result(seen["run"])
    assert ran["ok"] is True, ran
    assert ran["data"]["parsed"] == {"hello": ["typescript"]}
    assert seen["missing"]["code"] == -32602
    assert seen["missing"]["data"]["code"] == "FILE_NOT_FOUND"


def test_the_typescript_sdk_client_over_stdio(skills: Path) -> None:
    serve = ["-m", "skilldeck", "serve", "--root", str(skills), "--no-watch", "--allow-exec"]
    _check(_client("stdio", sys.executable, "hello", "hello.py", *serve))


def test_the_typescript_sdk_client_over_http(skills: Path, h: Any) -> None:
    port = h.free_port()
    with h.serve_http([skills], port, "--no-watch", "--allow-exec"):
        _check(_client("http", f"http://127.0.0.1:{port}/mcp", "hello", "hello.py"))
