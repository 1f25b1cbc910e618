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


class _Patterns:
    """Shell patterns, upper-cased, as one test: ``match(NAME)`` (an upper-cased name)
    is true when one of them matches it as ``fnmatch`` matches. A pattern without
    ``?`` or ``[`` (every pattern of ``ALLOW`` and ``DENY``) is a name, ``X*``,
    ``*X`` or ``*X*``, tested with string methods; any other goes into a regular
    expression made by ``fnmatch.translate``, compiled only when there is one
    (compiling the union of ``DENY`` was about 2.5 ms of every ``skilldeck run``)."""

    __slots__ = ("exact", "inner", "other", "prefixes", "suffixes")

    def __init__(self, patterns: tuple[str, ...]) -> None:
        exact: set[str] = set()
        prefixes: list[str] = []
        suffixes: list[str] = []
        inner: list[str] = []
        other: list[str] = []
        for pattern in patterns:
            pattern = pattern.upper()
            parts = pattern.split("*")
            if "?" in pattern or "[" in pattern or len(parts) > 3:
                other.append(pattern)
            elif len(parts) == 1:
                exact.add(pattern)
            elif len(parts) == 2 and not parts[1]:
                prefixes.append(parts[0])  # X* (and *)
            elif len(parts) == 2 and not parts[0]:
                suffixes.append(parts[1])  # *X
            elif len(parts) == 3 and not parts[0] and not parts[2]:
                inner.append(parts[1])  # *X*
            else:
                other.append(pattern)  # X*Y, X*Y*, ...
        self.exact = frozenset(exact)
        self.prefixes = tuple(prefixes)
        self.suffixes = tuple(suffixes)
        self.inner = tuple(inner)
        self.other = (
            re.compile("|".join(fnmatch.translate(p) for p in other)).match if other else None
        )

    def match(self, name: str) -> bool:
        return (
            name in self.exact
            or name.startswith(self.prefixes)
            or name.endswith(self.suffixes)
            or any(part in name for part in self.inner)
            or (self.other is not None and self.other(name) is not None)
        )


@functools.lru_cache(maxsize=32)
def _compile(patterns: tuple[str, ...]) -> _Patterns:
    return _Patterns(patterns)


def _match(name: str, patterns: Sequence[str]) -> bool:
    return _compile(tuple(patterns)).match(name.upper())


def is_denied(name: str) -> bool:
    """True for a variable that never reaches a skill's program."""
    return _match(name, DENY)


#: names at most remembered per pair of lists (a host's environment has a few dozen)
_MEMO_NAMES = 4096


@functools.lru_cache(maxsize=32)
def _kept(allow: tuple[str, ...], deny: tuple[str, ...]) -> dict[str, bool]:
    """Each name's answer for one pair of lists, as it was first worked out: the
    patterns never change, and a run asked the same few dozen names every time."""
    return {}


def allowed_env(
    parent: Mapping[str, str], allow: Sequence[str], *, deny: Sequence[str] = DENY
) -> dict[str, str]:
    """The variables of ``parent`` that ``allow`` names and ``deny`` does not (shell
    patterns, any case). A skill's program always gets ``DENY``; a host tool skilldeck
    runs for itself (``uv`` building an environment) may pass ``deny=()``."""
    allow, deny = tuple(allow), tuple(deny)
    kept = _kept(allow, deny)
    allowed = _compile(allow).match
    denied = _compile(deny).match if deny else None
    out: dict[str, str] = {}
    # names first, each value only when kept: ``os.environ`` decodes every value it gives
    for name in parent:
        keep = kept.get(name)
        if keep is None:
            upper = name.upper()
            keep = allowed(upper) and not (denied is not None and denied(upper))
            if len(kept) < _MEMO_NAMES:
                kept[name] = keep
        if keep:
            out[name] = parent[name]
    return out


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
