"""A framework-free agent loop over skilldeck, with a scripted model standing in for an LLM.

The "model" lists the skills, loads ``conventional-commits`` (whose SKILL.md says
``allowed-tools: Bash(git:*)``), reads one of its references, runs ``git`` through the
host's ``Bash`` tool, then tries ``web_fetch`` — which allowed-tools now blocks with
``TOOL_NOT_ALLOWED`` — and answers. The host also has a governance hook that only lets
``Bash`` run commands named by the skill's constraint (``git:*``).

Run it::

    python examples/agent_loop.py [SKILLS_ROOT ...] [--json]

With no root it uses the skills bundled with skilldeck. To drive a real model, replace
``ScriptedModel`` with an adapter: ``OpenAIChatAdapter().model(send)`` where ``send``
posts the request body to the API and returns the JSON response.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import skilldeck

BUNDLED = Path(skilldeck.__file__).parent / "_bundled"


class ScriptedModel:
    """Plays a fixed plan, one step per turn, and reads the results it gets back."""

    def __init__(self) -> None:
        self.turn = 0
        self.seen_tools: list[list[str]] = []

    def __call__(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> skilldeck.adapters.ModelReply:
        self.turn += 1
        self.seen_tools.append([t["name"] for t in tools])
        call = skilldeck.adapters.ToolCallRequest
        if self.turn == 1:
            return skilldeck.adapters.ModelReply(
                "Let me see which skills exist.", (call("c1", "skills_list"),)
            )
        if self.turn == 2:
            return skilldeck.adapters.ModelReply(
                None, (call("c2", "skills_load", {"name": "conventional-commits"}),)
            )
        if self.turn == 3:
            args = {"name": "conventional-commits", "path": "references/types.md"}
            return skilldeck.adapters.ModelReply(None, (call("c3", "skills_read_file", args),))
        if self.turn == 4:
            return skilldeck.adapters.ModelReply(
                None,
                (
                    call("c4", "Bash", {"command": "git diff --staged --stat"}),
                    call("c5", "web_fetch", {"url": "https://example.com/commit-guide"}),
                ),
            )
        last = json.loads(messages[-1]["content"])
        reason = last["error"]["code"] if not last["ok"] else "ok"
        return skilldeck.adapters.ModelReply(f"feat(cli): add --json output (web_fetch: {reason})")


def bash(arguments: Mapping[str, Any]) -> dict[str, Any]:
    # a stand-in for the host's shell tool: it only reports what it would run
    return {"would_run": arguments.get("command", "")}


def web_fetch(arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {"status": 200, "url": arguments.get("url")}


def governance(request: skilldeck.GovernanceRequest) -> str:
    """Host policy: Bash may only run what the active skill's constraint names."""
    if request.tool != "Bash" or request.phase == "expose":
        return "allow"
    command = str((request.arguments or {}).get("command", ""))
    prefixes = [c.split(":", 1)[0] for c in request.constraints]
    return "allow" if any(command.split()[:1] == [p] for p in prefixes) else "deny"


def build_runtime(roots: list[Path], *, audit_log: Path | None = None) -> skilldeck.SkillRuntime:
    command = {"type": "object", "properties": {"command": {"type": "string"}}}
    url = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
    return skilldeck.SkillRuntime.from_roots(
        roots,
        allowed_tools_enforcement="enforce",
        governance=governance,
        host_tools=[
            skilldeck.HostTool("Bash", "Run a command.", bash, command),
            skilldeck.HostTool("web_fetch", "Fetch a URL.", web_fetch, url, read_only=True),
        ],
        audit_log=audit_log,
    )


def run(roots: list[Path], *, audit_log: Path | None = None) -> skilldeck.adapters.LoopResult:
    runtime = build_runtime(roots, audit_log=audit_log)
    session = runtime.session()
    system = "You can use skills.\n" + runtime.available_skills(budget=4000)
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": "Write a commit message for my staged change."},
    ]
    return skilldeck.adapters.run_tool_loop(
        runtime, session, ScriptedModel(), messages, max_turns=8
    )


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in args
    roots = [Path(a) for a in args if a != "--json"] or [BUNDLED]
    result = run(roots)
    if as_json:
        print(json.dumps({"final": result.final, "trace": list(result.trace)}, indent=2))
        return 0
    for turn in result.trace:
        calls = ", ".join(f"{c['tool']} -> {'ok' if c['ok'] else c['code']}" for c in turn["calls"])
        policy = turn["skills_allowed_tools"]
        print(
            f"turn {turn['turn']}: offered {len(turn['tools_offered'])} tools; {calls or 'answer'}"
            f"  [allowed-tools: {'on' if policy['enforced'] else 'off'}]"
        )
    print(f"final: {result.final}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
