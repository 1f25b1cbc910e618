"""``skilldeck serve --root`` honours the user's ``[catalog]`` settings, as ``list --root`` does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _user_config(text: str) -> None:
    folder = Path(os.environ["SKILLDECK_HOME"]) / "config"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


async def test_serve_root_keeps_disabled_skills_out(tmp_path: Path, h: Any) -> None:
    root = tmp_path / "skills"
    h.write_skill(root, "kept", "A skill the user wants")
    h.write_skill(root, "switched-off", "A skill the user disabled")
    _user_config('[catalog]\ndisabled = ["switched-off"]\n')
    listed = subprocess.run(
        [sys.executable, "-m", "skilldeck", "list", "--root", str(root), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    enabled = {
        s["name"] for s in json.loads(listed.stdout)["data"]["skills"] if s["status"] == "enabled"
    }
    assert enabled == {"kept"}

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "skilldeck", "serve", "--root", str(root)],
        env=dict(os.environ),
    )
    async with Client(params) as client:
        entries, _ = await h.list_all(client)
        served = {e.frontmatter["name"] for e in entries}
        listed_tool = await client.call_tool("skills_list", {})
        loaded = await client.call_tool("skills_load", {"name": "switched-off"})
    assert served == {"kept"}
    names = {s["name"] for s in listed_tool.structured_content["data"]["skills"]}
    assert names == {"kept"}
    assert loaded.structured_content["ok"] is False
