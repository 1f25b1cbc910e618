"""The minimal environment a skill's program sees (allowlist first, deny patterns always).

Passed through: ``PATH``, ``HOME``, ``USER``, ``LOGNAME``, ``LANG``, ``LANGUAGE``,
``LC_*``, ``TERM``, ``TZ``, plus the host's ``env_allow`` additions. Never passed,
whatever the allowlist says: ``*_TOKEN``, ``*_KEY``, ``*_SECRET``, ``*PASSWORD*``,
``*_CREDENTIALS``, ``AWS_*``, ``OPENAI_*``, ``ANTHROPIC_*``, ``GITHUB_*``,
``LD_*``, ``DYLD_*``, ``PYTHONPATH``/``PYTHONHOME``/``PYTHONSTARTUP``,
``NODE_OPTIONS``, ``PERL5LIB``, ``RUBYOPT``, ``BASH_ENV``, ``ENV`` and
``SKILLDECK_*`` (skilldeck sets its own). Injected: ``SKILLDECK_SKILL_NAME``,
``SKILLDECK_SKILL_DIR``, ``SKILLDECK_WORK_DIR``, ``SKILLDECK_MODE`` (when the
runtime has one), ``TMPDIR`` (the run's private scratch folder).
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Mapping, Sequence

__all__ = ["ALLOW", "DENY", "allowed_env", "build_env", "is_denied"]

ALLOW: tuple[str, ...] = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "TZ",
)

DENY: tuple[str, ...] = (
    "*_TOKEN",
    "*TOKEN",
    "*_KEY",
    "*_KEYS",
    "*_SECRET",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*_CREDENTIALS",
    "*_API_KEY*",
    "AWS_*",
    "OPENAI_*",
    "ANTHROPIC_*",
    "GITHUB_*",
    "GH_*",
    "LD_*",
    "DYLD_*",
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONSTARTUP",
    "PYTHONINSPECT",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PERL5LIB",
    "PERL5OPT",
    "RUBYOPT",
    "RUBYLIB",
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "IFS",
    "SKILLDECK_*",
)


@functools.lru_cache(maxsize=32)
def _compile(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(fnmatch.translate(p.upper()) for p in patterns))


def _match(name: str, patterns: Sequence[str]) -> bool:
    return _compile(tuple(patterns)).match(name.upper()) is not None


def is_denied(name: str) -> bool:
    """True for a variable that never reaches a skill's program."""
    return _match(name, DENY)


def allowed_env(
    parent: Mapping[str, str], allow: Sequence[str], *, deny: Sequence[str] = DENY
) -> dict[str, str]:
    """The variables of ``parent`` that ``allow`` names and ``deny`` does not (shell
    patterns, any case). A skill's program always gets ``DENY``; a host tool skilldeck
    runs for itself (``uv`` building an environment) may pass ``deny=()``."""
    allowed = _compile(tuple(allow)).match
    denied = _compile(tuple(deny)).match if deny else None
    return {
        k: v
        for k, v in parent.items()
        if allowed(k.upper()) and not (denied is not None and denied(k.upper()))
    }


def build_env(
    parent: Mapping[str, str],
    *,
    skill_name: str,
    skill_dir: str,
    work_dir: str,
    scratch_dir: str,
    mode: str | None = None,
    extra_allow: Sequence[str] = (),
    home: str | None = None,
) -> dict[str, str]:
    """The environment for one run; ``home`` replaces ``HOME`` (a hidden or foreign home)."""
    env = allowed_env(parent, (*ALLOW, *extra_allow))
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    if home is not None:
        env["HOME"] = home
    env["TMPDIR"] = scratch_dir
    env["SKILLDECK_SKILL_NAME"] = skill_name
    env["SKILLDECK_SKILL_DIR"] = skill_dir
    env["SKILLDECK_WORK_DIR"] = work_dir
    if mode:
        env["SKILLDECK_MODE"] = mode
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env
