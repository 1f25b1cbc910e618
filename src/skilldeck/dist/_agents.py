"""The agents skilldeck can place skills in, with their project and user folders.

The ids and folders are those of the ``skills`` installer on npm (its README's
supported-agents table), so ``skilldeck install --agent claude-code`` puts a
skill where ``npx skills add -a claude-code`` would, and ``npx skills list``
sees it. ``{VAR|default}`` is an environment variable with its default
(``CODEX_HOME``, ``CLAUDE_CONFIG_DIR``, ``XDG_CONFIG_HOME``...); ``~`` is the
user's home. An agent counts as detected on this machine when one of its
``detect`` folders exists (as the ``skills`` installer decides).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from skilldeck._errors import InstallError

__all__ = ["AGENTS", "ALIASES", "Agent", "agent_dir", "detected_agents", "resolve_agents"]

_VAR = re.compile(r"^\{([A-Z_]+)\|([^}]*)\}")


@dataclass(frozen=True, slots=True)
class Agent:
    """One agent: ``id`` for ``--agent``, its project folder (relative to the
    project root) and its user folder (``None``: project-only)."""

    id: str
    display: str
    project_dir: str
    user_dir: str | None
    detect: tuple[str, ...] = ()


# id | display name | project folder | user folder ("-": project only) | detect folders
# ("{VAR|default}" pieces may contain "|"; they are inside braces, so split outside them)
_TABLE = """
aider-desk | AiderDesk | .aider-desk/skills | ~/.aider-desk/skills | ~/.aider-desk
amp | Amp | .agents/skills | {XDG_CONFIG_HOME|~/.config}/agents/skills | {XDG_CONFIG_HOME|~/.config}/amp
antigravity | Antigravity | .agents/skills | ~/.gemini/antigravity/skills | ~/.gemini/antigravity
antigravity-cli | Antigravity CLI | .agents/skills | ~/.gemini/antigravity-cli/skills | ~/.gemini/antigravity-cli
astrbot | AstrBot | data/skills | ~/.astrbot/data/skills | ~/.astrbot
autohand-code | Autohand Code CLI | .autohand/skills | {AUTOHAND_HOME|~/.autohand}/skills | {AUTOHAND_HOME|~/.autohand}
augment | Augment | .augment/skills | ~/.augment/skills | ~/.augment
bob | IBM Bob | .bob/skills | ~/.bob/skills | ~/.bob
claude-code | Claude Code | .claude/skills | {CLAUDE_CONFIG_DIR|~/.claude}/skills | {CLAUDE_CONFIG_DIR|~/.claude}
openclaw | OpenClaw | skills | ~/.openclaw/skills | ~/.openclaw, ~/.clawdbot, ~/.moltbot
cline | Cline | .agents/skills | ~/.agents/skills | ~/.cline
codearts-agent | CodeArts Agent | .codeartsdoer/skills | ~/.codeartsdoer/skills | ~/.codeartsdoer
codebuddy | CodeBuddy | .codebuddy/skills | ~/.codebuddy/skills | ~/.codebuddy
codemaker | Codemaker | .codemaker/skills | ~/.codemaker/skills | ~/.codemaker
codestudio | Code Studio | .codestudio/skills | ~/.codestudio/skills | ~/.codestudio
codex | Codex | .agents/skills | {CODEX_HOME|~/.codex}/skills | {CODEX_HOME|~/.codex}
command-code | Command Code | .commandcode/skills | ~/.commandcode/skills | ~/.commandcode
continue | Continue | .continue/skills | ~/.continue/skills | ~/.continue
cortex | Cortex Code | .cortex/skills | ~/.snowflake/cortex/skills | ~/.snowflake/cortex
crush | Crush | .crush/skills | ~/.config/crush/skills | ~/.config/crush
cursor | Cursor | .agents/skills | ~/.cursor/skills | ~/.cursor
deepagents | Deep Agents | .agents/skills | ~/.deepagents/agent/skills | ~/.deepagents
devin | Devin for Terminal | .devin/skills | {XDG_CONFIG_HOME|~/.config}/devin/skills | {XDG_CONFIG_HOME|~/.config}/devin
dexto | Dexto | .agents/skills | ~/.agents/skills | ~/.dexto
droid | Droid | .factory/skills | ~/.factory/skills | ~/.factory
eve | Eve | agent/skills | - | -
firebender | Firebender | .agents/skills | ~/.firebender/skills | ~/.firebender
forgecode | ForgeCode | .forge/skills | ~/.forge/skills | ~/.forge
gemini-cli | Gemini CLI | .agents/skills | ~/.gemini/skills | ~/.gemini
github-copilot | GitHub Copilot | .agents/skills | ~/.copilot/skills | ~/.copilot
goose | Goose | .goose/skills | {XDG_CONFIG_HOME|~/.config}/goose/skills | {XDG_CONFIG_HOME|~/.config}/goose
hermes-agent | Hermes Agent | .hermes/skills | {HERMES_HOME|~/.hermes}/skills | {HERMES_HOME|~/.hermes}
inference-sh | inference.sh | .inferencesh/skills | ~/.inferencesh/skills | ~/.inferencesh
jazz | Jazz | .jazz/skills | ~/.jazz/skills | ~/.jazz
junie | Junie | .junie/skills | ~/.junie/skills | ~/.junie
iflow-cli | iFlow CLI | .iflow/skills | ~/.iflow/skills | ~/.iflow
kilo | Kilo Code | .kilocode/skills | ~/.kilocode/skills | ~/.kilocode
kimi-code-cli | Kimi Code CLI | .agents/skills | ~/.agents/skills | ~/.kimi-code, ~/.kimi
kiro-cli | Kiro CLI | .kiro/skills | ~/.kiro/skills | ~/.kiro
kode | Kode | .kode/skills | ~/.kode/skills | ~/.kode
lingma | Lingma | .lingma/skills | ~/.lingma/skills | ~/.lingma
loaf | Loaf | .agents/skills | ~/.agents/skills | ~/.loaf
mcpjam | MCPJam | .mcpjam/skills | ~/.mcpjam/skills | ~/.mcpjam
mistral-vibe | Mistral Vibe | .vibe/skills | {VIBE_HOME|~/.vibe}/skills | {VIBE_HOME|~/.vibe}
moxby | Moxby | .moxby/skills | ~/.moxby/skills | ~/.moxby
mux | Mux | .mux/skills | ~/.mux/skills | ~/.mux
opencode | OpenCode | .agents/skills | {XDG_CONFIG_HOME|~/.config}/opencode/skills | {XDG_CONFIG_HOME|~/.config}/opencode
openhands | OpenHands | .openhands/skills | ~/.openhands/skills | ~/.openhands
ona | Ona | .ona/skills | ~/.ona/skills | ~/.ona
pi | Pi | .pi/skills | ~/.pi/agent/skills | ~/.pi/agent
qoder | Qoder | .qoder/skills | ~/.qoder/skills | ~/.qoder
qoder-cn | Qoder CN | .qoder/skills | ~/.qoder-cn/skills | ~/.qoder-cn
qwen-code | Qwen Code | .qwen/skills | ~/.qwen/skills | ~/.qwen
replit | Replit | .agents/skills | {XDG_CONFIG_HOME|~/.config}/agents/skills | -
reasonix | Reasonix | .reasonix/skills | ~/.reasonix/skills | ~/.reasonix
rovodev | Rovo Dev | .rovodev/skills | ~/.rovodev/skills | ~/.rovodev
roo | Roo Code | .roo/skills | ~/.roo/skills | ~/.roo
tabnine-cli | Tabnine CLI | .tabnine/agent/skills | ~/.tabnine/agent/skills | ~/.tabnine
terramind | Terramind | .terramind/skills | ~/.terramind/skills | ~/.terramind
tinycloud | Tinycloud | .tinycloud/skills | ~/.tinycloud/skills | ~/.tinycloud
trae | Trae | .trae/skills | ~/.trae/skills | ~/.trae
trae-cn | Trae CN | .trae/skills | ~/.trae-cn/skills | ~/.trae-cn
warp | Warp | .agents/skills | ~/.agents/skills | ~/.warp
windsurf | Windsurf | .windsurf/skills | ~/.codeium/windsurf/skills | ~/.codeium/windsurf
zed | Zed | .agents/skills | ~/.agents/skills | {XDG_CONFIG_HOME|~/.config}/zed
zcode | ZCode | .zcode/skills | ~/.zcode/skills | -
zencoder | Zencoder | .zencoder/skills | ~/.zencoder/skills | ~/.zencoder
zenflow | Zenflow | .zencoder/skills | ~/.zencoder/skills | ~/.zencoder
neovate | Neovate | .neovate/skills | ~/.neovate/skills | ~/.neovate
pochi | Pochi | .pochi/skills | ~/.pochi/skills | ~/.pochi
promptscript | PromptScript | .agents/skills | - | -
adal | AdaL | .adal/skills | ~/.adal/skills | ~/.adal
universal | Universal | .agents/skills | {XDG_CONFIG_HOME|~/.config}/agents/skills | -
"""  # noqa: E501  (one agent a line reads better than wrapped rows)


def _cells(line: str) -> list[str]:
    cells, depth, start = [], 0, 0
    for i, ch in enumerate(line):
        depth += ch == "{"
        depth -= ch == "}"
        if ch == "|" and depth == 0:
            cells.append(line[start:i].strip())
            start = i + 1
    cells.append(line[start:].strip())
    return cells


def _parse(table: str) -> dict[str, Agent]:
    out: dict[str, Agent] = {}
    for line in table.strip().splitlines():
        ident, display, project, user, detect = _cells(line)
        found = tuple(d.strip() for d in detect.split(",")) if detect != "-" else ()
        out[ident] = Agent(ident, display, project, None if user == "-" else user, found)
    return out


AGENTS: dict[str, Agent] = _parse(_TABLE)

#: Older skilldeck spellings of ``export --to`` that stay accepted.
ALIASES: dict[str, str] = {"claude": "claude-code", "agents": "universal"}


def expand(spec: str, *, home: Path | None = None, env: Mapping[str, str] | None = None) -> Path:
    """A folder spec of the table as a path (``home`` replaces the user's home)."""
    environ = os.environ if env is None else env
    base = home if home is not None else Path(os.path.expanduser("~"))
    m = _VAR.match(spec)
    if m:
        value = (environ.get(m.group(1)) or "").strip() if home is None else ""
        head = Path(value) if value else _tilde(m.group(2), base)
        rest = spec[m.end() :].lstrip("/")
        return head / rest if rest else head
    return _tilde(spec, base)


def _tilde(spec: str, base: Path) -> Path:
    if spec == "~":
        return base
    if spec.startswith("~/"):
        return base / spec[2:]
    return Path(spec)


def agent_dir(
    agent: Agent,
    *,
    scope: str,
    project: Path | None = None,
    home: Path | None = None,
) -> Path:
    """The skills folder of ``agent`` for a scope (``user`` or ``project``)."""
    if scope == "project":
        if project is None:
            raise InstallError("no project folder", hint="run it inside the project")
        return project / agent.project_dir
    if agent.user_dir is None:
        raise InstallError(
            f"{agent.display} has no user-level skills folder (project only)",
            hint=f"use --scope project for --agent {agent.id}",
        )
    return expand(agent.user_dir, home=home)


def detected_agents(*, home: Path | None = None) -> list[Agent]:
    """Agents whose home folder exists on this machine."""
    return [a for a in AGENTS.values() if any(expand(d, home=home).exists() for d in a.detect)]


def resolve_agents(ids: Iterable[str], *, home: Path | None = None) -> list[Agent]:
    """Agents for ``--agent`` values (``*``: every detected agent); unknown ids are an error."""
    out: list[Agent] = []
    for raw in ids:
        key = ALIASES.get(raw, raw)
        if key == "*":
            found = detected_agents(home=home)
            if not found:
                raise InstallError(
                    "--agent '*' found no agent on this machine",
                    hint="name the agents with --agent ID (see `skilldeck agents`)",
                )
            picked = found
        elif key in AGENTS:
            picked = [AGENTS[key]]
        else:
            raise InstallError(
                f"unknown agent {raw!r}",
                hint="see `skilldeck agents` for the ids (claude-code, codex, cursor, ...)",
            )
        out.extend(a for a in picked if a not in out)
    return out
