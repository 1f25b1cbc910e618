"""Pipelined hostile requests over a real ``skilldeck serve`` stdio pipe: every one is
answered, also when the client closes its end right after writing them.

Requests read before the end of input used to be cancelled when stdin ended: the
replies that were not ready by then never came and the client waited for them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROUNDS = 10


def _hostile(first_id: int) -> list[dict[str, Any]]:
    """Seven requests a hostile client sends, ids from ``first_id`` on."""
    calls: list[tuple[str, dict[str, Any]]] = [
        (
            "tools/call",
            {"name": "skills_run_script", "arguments": {"name": "alpha", "script": "x"}},
        ),
        (
            "tools/call",
            {
                "name": "skills_read_file",
                "arguments": {"name": "alpha", "path": "../beta/SKILL.md"},
            },
        ),
        ("resources/read", {"uri": "skill://alpha/../beta/SKILL.md"}),
        ("resources/read", {"uri": "skill://alpha/%2e%2e/beta/SKILL.md"}),
        ("prompts/get", {"name": "skills_catalog", "arguments": {"budget": "9" * 40}}),
        ("resources/directory/read", {"uri": "skill://alpha/.."}),
        (
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "skill://{name}/{+path}"},
                "argument": {"name": "path", "value": "../" * 2000},
            },
        ),
    ]
    return [
        {"jsonrpc": "2.0", "id": first_id + i, "method": method, "params": params}
        for i, (method, params) in enumerate(calls)
    ]


def _session(root: Path) -> tuple[list[str], int]:
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "pipeline", "version": "1"},
        },
    }
    messages: list[dict[str, Any]] = [
        init,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for r in range(ROUNDS):
        messages += _hostile(1 + 7 * r)
    return [json.dumps(m) for m in messages], 1 + 7 * ROUNDS


def _check(replies: dict[Any, dict[str, Any]]) -> None:
    for r in range(ROUNDS):
        base = 1 + 7 * r
        run, read, up, encoded, prompt, folder, _complete = (replies[base + i] for i in range(7))
        assert run["result"]["structuredContent"]["error"]["reason"] == "exec_disabled"
        assert read["result"]["structuredContent"]["error"]["code"] == "PATH_NOT_ALLOWED"
        for refused in (up, encoded, folder):
            assert refused["error"]["data"]["code"] == "FILE_NOT_FOUND"
        assert "<available_skills>" in prompt["result"]["messages"][0]["content"]["text"]


def _serve(root: Path) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "skilldeck", "serve", "--root", str(root), "--no-watch"]
    return subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )


def _tree(tmp_path: Path, h: Any) -> Path:
    root = tmp_path / "skills"
    h.write_skill(root, "alpha", "Alpha", {"scripts/run.py": "print(1)\n"})
    h.write_skill(root, "beta", "Beta secret")
    return root


def test_every_pipelined_request_is_answered_with_stdin_open(tmp_path: Path, h: Any) -> None:
    lines, count = _session(_tree(tmp_path, h))
    replies: dict[Any, dict[str, Any]] = {}
    with _serve(tmp_path / "skills") as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("\n".join(lines) + "\n")
        proc.stdin.flush()
        while len(replies) < count:
            line = proc.stdout.readline()
            assert line, (
                f"the server ended with {sorted(set(range(count)) - set(replies))} unanswered"
            )
            reply = json.loads(line)
            replies[reply["id"]] = reply
        proc.stdin.close()
        assert proc.wait(30) == 0
    _check(replies)


def test_requests_written_before_the_end_of_input_are_all_answered(tmp_path: Path, h: Any) -> None:
    # the client writes everything and closes its end at once, three times over: what
    # was read before the end of input is answered, then the server exits
    lines, count = _session(_tree(tmp_path, h))
    for _ in range(3):
        with _serve(tmp_path / "skills") as proc:
            started = time.monotonic()
            out, _ = proc.communicate("\n".join(lines) + "\n", timeout=120)
            assert proc.returncode == 0
        replies = {r["id"]: r for r in map(json.loads, out.splitlines())}
        assert sorted(replies) == list(range(count))
        _check(replies)
        assert time.monotonic() - started < 60
