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


AGENTS: dict[str, Agent] = {
    a.id: a
    for a in (
        Agent(
            "aider-desk",
            "AiderDesk",
            ".aider-desk/skills",
            "~/.aider-desk/skills",
            ("~/.aider-desk",),
        ),
        Agent(
            "amp",
            "Amp",
            ".agents/skills",
            "{XDG_CONFIG_HOME|~/.config}/agents/skills",
            ("{XDG_CONFIG_HOME|~/.config}/amp",),
        ),
        Agent(
            "antigravity",
            "Antigravity",
            ".agents/skills",
            "~/.gemini/antigravity/skills",
            ("~/.gemini/antigravity",),
        ),
        Agent(
            "antigravity-cli",
            "Antigravity CLI",
            ".agents/skills",
            "~/.gemini/antigravity-cli/skills",
            ("~/.gemini/antigravity-cli",),
        ),
        Agent("astrbot", "AstrBot", "data/skills", "~/.astrbot/data/skills", ("~/.astrbot",)),
        Agent(
            "autohand-code",
            "Autohand Code CLI",
            ".autohand/skills",
            "{AUTOHAND_HOME|~/.autohand}/skills",
            ("{AUTOHAND_HOME|~/.autohand}",),
        ),
        Agent("augment", "Augment", ".augment/skills", "~/.augment/skills", ("~/.augment",)),
        Agent("bob", "IBM Bob", ".bob/skills", "~/.bob/skills", ("~/.bob",)),
        Agent(
            "claude-code",
            "Claude Code",
            ".claude/skills",
            "{CLAUDE_CONFIG_DIR|~/.claude}/skills",
            ("{CLAUDE_CONFIG_DIR|~/.claude}",),
        ),
        Agent(
            "openclaw",
            "OpenClaw",
            "skills",
            "~/.openclaw/skills",
            ("~/.openclaw", "~/.clawdbot", "~/.moltbot"),
        ),
        Agent("cline", "Cline", ".agents/skills", "~/.agents/skills", ("~/.cline",)),
        Agent(
            "codearts-agent",
            "CodeArts Agent",
            ".codeartsdoer/skills",
            "~/.codeartsdoer/skills",
            ("~/.codeartsdoer",),
        ),
        Agent(
            "codebuddy", "CodeBuddy", ".codebuddy/skills", "~/.codebuddy/skills", ("~/.codebuddy",)
        ),
        Agent(
            "codemaker", "Codemaker", ".codemaker/skills", "~/.codemaker/skills", ("~/.codemaker",)
        ),
        Agent(
            "codestudio",
            "Code Studio",
            ".codestudio/skills",
            "~/.codestudio/skills",
            ("~/.codestudio",),
        ),
        Agent(
            "codex",
            "Codex",
            ".agents/skills",
            "{CODEX_HOME|~/.codex}/skills",
            ("{CODEX_HOME|~/.codex}",),
        ),
        Agent(
            "command-code",
            "Command Code",
            ".commandcode/skills",
            "~/.commandcode/skills",
            ("~/.commandcode",),
        ),
        Agent("continue", "Continue", ".continue/skills", "~/.continue/skills", ("~/.continue",)),
        Agent(
            "cortex",
            "Cortex Code",
            ".cortex/skills",
            "~/.snowflake/cortex/skills",
            ("~/.snowflake/cortex",),
        ),
        Agent("crush", "Crush", ".crush/skills", "~/.config/crush/skills", ("~/.config/crush",)),
        Agent("cursor", "Cursor", ".agents/skills", "~/.cursor/skills", ("~/.cursor",)),
        Agent(
            "deepagents",
            "Deep Agents",
            ".agents/skills",
            "~/.deepagents/agent/skills",
            ("~/.deepagents",),
        ),
        Agent(
            "devin",
            "Devin for Terminal",
            ".devin/skills",
            "{XDG_CONFIG_HOME|~/.config}/devin/skills",
            ("{XDG_CONFIG_HOME|~/.config}/devin",),
        ),
        Agent("dexto", "Dexto", ".agents/skills", "~/.agents/skills", ("~/.dexto",)),
        Agent("droid", "Droid", ".factory/skills", "~/.factory/skills", ("~/.factory",)),
        Agent("eve", "Eve", "agent/skills", None, ()),
        Agent(
            "firebender", "Firebender", ".agents/skills", "~/.firebender/skills", ("~/.firebender",)
        ),
        Agent("forgecode", "ForgeCode", ".forge/skills", "~/.forge/skills", ("~/.forge",)),
        Agent("gemini-cli", "Gemini CLI", ".agents/skills", "~/.gemini/skills", ("~/.gemini",)),
        Agent(
            "github-copilot",
            "GitHub Copilot",
            ".agents/skills",
            "~/.copilot/skills",
            ("~/.copilot",),
        ),
        Agent(
            "goose",
            "Goose",
            ".goose/skills",
            "{XDG_CONFIG_HOME|~/.config}/goose/skills",
            ("{XDG_CONFIG_HOME|~/.config}/goose",),
        ),
        Agent(
            "hermes-agent",
            "Hermes Agent",
            ".hermes/skills",
            "{HERMES_HOME|~/.hermes}/skills",
            ("{HERMES_HOME|~/.hermes}",),
        ),
        Agent(
            "inference-sh",
            "inference.sh",
            ".inferencesh/skills",
            "~/.inferencesh/skills",
            ("~/.inferencesh",),
        ),
        Agent("jazz", "Jazz", ".jazz/skills", "~/.jazz/skills", ("~/.jazz",)),
        Agent("junie", "Junie", ".junie/skills", "~/.junie/skills", ("~/.junie",)),
        Agent("iflow-cli", "iFlow CLI", ".iflow/skills", "~/.iflow/skills", ("~/.iflow",)),
        Agent("kilo", "Kilo Code", ".kilocode/skills", "~/.kilocode/skills", ("~/.kilocode",)),
        Agent(
            "kimi-code-cli",
            "Kimi Code CLI",
            ".agents/skills",
            "~/.agents/skills",
            ("~/.kimi-code", "~/.kimi"),
        ),
        Agent("kiro-cli", "Kiro CLI", ".kiro/skills", "~/.kiro/skills", ("~/.kiro",)),
        Agent("kode", "Kode", ".kode/skills", "~/.kode/skills", ("~/.kode",)),
        Agent("lingma", "Lingma", ".lingma/skills", "~/.lingma/skills", ("~/.lingma",)),
        Agent("loaf", "Loaf", ".agents/skills", "~/.agents/skills", ("~/.loaf",)),
        Agent("mcpjam", "MCPJam", ".mcpjam/skills", "~/.mcpjam/skills", ("~/.mcpjam",)),
        Agent(
            "mistral-vibe",
            "Mistral Vibe",
            ".vibe/skills",
            "{VIBE_HOME|~/.vibe}/skills",
            ("{VIBE_HOME|~/.vibe}",),
        ),
        Agent("moxby", "Moxby", ".moxby/skills", "~/.moxby/skills", ("~/.moxby",)),
        Agent("mux", "Mux", ".mux/skills", "~/.mux/skills", ("~/.mux",)),
        Agent(
            "opencode",
            "OpenCode",
            ".agents/skills",
            "{XDG_CONFIG_HOME|~/.config}/opencode/skills",
            ("{XDG_CONFIG_HOME|~/.config}/opencode",),
        ),
        Agent(
            "openhands", "OpenHands", ".openhands/skills", "~/.openhands/skills", ("~/.openhands",)
        ),
        Agent("ona", "Ona", ".ona/skills", "~/.ona/skills", ("~/.ona",)),
        Agent("pi", "Pi", ".pi/skills", "~/.pi/agent/skills", ("~/.pi/agent",)),
        Agent("qoder", "Qoder", ".qoder/skills", "~/.qoder/skills", ("~/.qoder",)),
        Agent("qoder-cn", "Qoder CN", ".qoder/skills", "~/.qoder-cn/skills", ("~/.qoder-cn",)),
        Agent("qwen-code", "Qwen Code", ".qwen/skills", "~/.qwen/skills", ("~/.qwen",)),
        Agent(
            "replit", "Replit", ".agents/skills", "{XDG_CONFIG_HOME|~/.config}/agents/skills", ()
        ),
        Agent("reasonix", "Reasonix", ".reasonix/skills", "~/.reasonix/skills", ("~/.reasonix",)),
        Agent("rovodev", "Rovo Dev", ".rovodev/skills", "~/.rovodev/skills", ("~/.rovodev",)),
        Agent("roo", "Roo Code", ".roo/skills", "~/.roo/skills", ("~/.roo",)),
        Agent(
            "tabnine-cli",
            "Tabnine CLI",
            ".tabnine/agent/skills",
            "~/.tabnine/agent/skills",
            ("~/.tabnine",),
        ),
        Agent(
            "terramind", "Terramind", ".terramind/skills", "~/.terramind/skills", ("~/.terramind",)
        ),
        Agent(
            "tinycloud", "Tinycloud", ".tinycloud/skills", "~/.tinycloud/skills", ("~/.tinycloud",)
        ),
        Agent("trae", "Trae", ".trae/skills", "~/.trae/skills", ("~/.trae",)),
        Agent("trae-cn", "Trae CN", ".trae/skills", "~/.trae-cn/skills", ("~/.trae-cn",)),
        Agent("warp", "Warp", ".agents/skills", "~/.agents/skills", ("~/.warp",)),
        Agent(
            "windsurf",
            "Windsurf",
            ".windsurf/skills",
            "~/.codeium/windsurf/skills",
            ("~/.codeium/windsurf",),
        ),
        Agent(
            "zed", "Zed", ".agents/skills", "~/.agents/skills", ("{XDG_CONFIG_HOME|~/.config}/zed",)
        ),
        Agent("zcode", "ZCode", ".zcode/skills", "~/.zcode/skills", ()),
        Agent("zencoder", "Zencoder", ".zencoder/skills", "~/.zencoder/skills", ("~/.zencoder",)),
        Agent("zenflow", "Zenflow", ".zencoder/skills", "~/.zencoder/skills", ("~/.zencoder",)),
        Agent("neovate", "Neovate", ".neovate/skills", "~/.neovate/skills", ("~/.neovate",)),
        Agent("pochi", "Pochi", ".pochi/skills", "~/.pochi/skills", ("~/.pochi",)),
        Agent("promptscript", "PromptScript", ".agents/skills", None, ()),
        Agent("adal", "AdaL", ".adal/skills", "~/.adal/skills", ("~/.adal",)),
        Agent(
            "universal",
            "Universal",
            ".agents/skills",
            "{XDG_CONFIG_HOME|~/.config}/agents/skills",
            (),
        ),
    )
}

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
