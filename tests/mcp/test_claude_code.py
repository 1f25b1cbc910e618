"""Claude Code sees skilldeck healthy: ``claude mcp add`` registers ``skilldeck serve``
in a fresh home and ``claude mcp list`` (its health check: it starts the server and
completes the MCP handshake, no model involved) reports it connected.

Claude Code is found as ``$SKILLDECK_TEST_CLAUDE`` or ``claude`` on PATH (``npm
install -g @anthropic-ai/claude-code``; ``.ci/run`` installs it where npm works);
without it the test skips.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests._skills import write_files

CLAUDE = os.environ.get("SKILLDECK_TEST_CLAUDE") or shutil.which("claude")

pytestmark = pytest.mark.skipif(
    CLAUDE is None or not os.access(CLAUDE, os.X_OK),
    reason="Claude Code is not installed (npm install -g @anthropic-ai/claude-code, "
    "or set SKILLDECK_TEST_CLAUDE to its claude binary)",
)


def _claude(
    home: Path, cwd: Path, *args: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env |= {
        "HOME": str(home),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
    }
    if path is not None:
        env["PATH"] = path
    assert CLAUDE is not None
    return subprocess.run(
        [CLAUDE, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180, check=False
    )


DOC = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"


def test_the_documented_claude_code_commands_connect(tmp_path: Path, h: Any) -> None:
    """docs/mcp.md's ``claude mcp add`` commands as printed (a real folder and a free
    port in place of the examples'): both servers connected."""
    home, project, skills = tmp_path / "home", tmp_path / "project", tmp_path / "skills"
    for folder in (home, project):
        folder.mkdir()
    write_files(
        skills / "release-notes",
        {
            "SKILL.md": "---\nname: release-notes\ndescription: Writes release notes. "
            "Use when the user asks for release notes.\n---\n# Release notes\n"
        },
    )
    commands = re.findall(r"^\$ (claude mcp .*)$", DOC.read_text(encoding="utf-8"), re.M)
    assert [c.split()[:3] for c in commands][-1] == ["claude", "mcp", "list"]
    port = str(h.free_port())
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    with h.serve_http([skills], int(port)):
        for command in commands:
            words = command.replace("/path/to/skills", str(skills)).replace("8000", port)
            done = _claude(home, project, *shlex.split(words)[1:], path=path)
            assert done.returncode == 0, done.stdout + done.stderr
    lines = {line.split(":", 1)[0]: line for line in done.stdout.splitlines() if ":" in line}
    assert {"skilldeck", "skilldeck-http"} <= set(lines), done.stdout
    for name in ("skilldeck", "skilldeck-http"):
        assert "Connected" in lines[name] and "✗" not in lines[name], done.stdout


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
