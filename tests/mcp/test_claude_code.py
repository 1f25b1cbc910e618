"""Claude Code sees skilldeck healthy: ``claude mcp add`` registers ``skilldeck serve``
in a fresh home and ``claude mcp list`` (its health check: it starts the server and
completes the MCP handshake, no model involved) reports it connected.

Claude Code is found as ``$SKILLDECK_TEST_CLAUDE`` or ``claude`` on PATH (``npm
install -g @anthropic-ai/claude-code``; ``.ci/run`` installs it where npm works);
without it the test skips.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests._skills import write_files

CLAUDE = os.environ.get("SKILLDECK_TEST_CLAUDE") or shutil.which("claude")

pytestmark = pytest.mark.skipif(
    CLAUDE is None or not os.access(CLAUDE, os.X_OK),
    reason="Claude Code is not installed (npm install -g @anthropic-ai/claude-code, "
    "or set SKILLDECK_TEST_CLAUDE to its claude binary)",
)


def _claude(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env |= {
        "HOME": str(home),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }
    assert CLAUDE is not None
    return subprocess.run(
        [CLAUDE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False
    )


def test_claude_mcp_list_sees_skilldeck_serve_connected(tmp_path: Path) -> None:
    home, project, skills = tmp_path / "home", tmp_path / "project", tmp_path / "skills"
    for folder in (home, project):
        folder.mkdir()
    write_files(
        skills / "skills" / "release-notes",
        {
            "SKILL.md": "---\nname: release-notes\ndescription: Writes release notes. "
            "Use when the user asks for release notes.\n---\n# Release notes\n"
        },
    )
    serve = [sys.executable, "-m", "skilldeck", "serve", "--root", str(skills)]
    added = _claude(home, project, "mcp", "add", "skilldeck", "--", *serve)
    assert added.returncode == 0, added.stdout + added.stderr
    # a server that cannot start is reported as failing: the check can fail
    broken = [sys.executable, "-m", "skilldeck", "serve", "--transport", "nonsense"]
    assert _claude(home, project, "mcp", "add", "broken", "--", *broken).returncode == 0
    listed = _claude(home, project, "mcp", "list")
    lines = {line.split(":", 1)[0]: line for line in listed.stdout.splitlines() if ":" in line}
    assert "Connected" in lines["skilldeck"] and "✗" not in lines["skilldeck"], listed.stdout
    assert "Connected" not in lines["broken"], listed.stdout
