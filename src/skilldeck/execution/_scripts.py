"""Which file runs, with which interpreter, and whether the run-as user can reach it.

Scripts must live under the skill's ``scripts/`` folder (real paths, so links cannot
leave it). The interpreter comes from an allowlist by extension or shebang, never from
the file's exec bit; unknown kinds are refused with ``INVALID_ARGUMENTS``
(``reason: unsupported_script_kind``).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from skilldeck._errors import (
    FileNotFoundInSkillError,
    InvalidArgumentsError,
    PathNotAllowedError,
    ScriptFailedError,
    hint_command,
)
from skilldeck._paths import real, script_relpath
from skilldeck._tree import walk_skill
from skilldeck.execution._packages import python_for

__all__ = ["check_script_args", "interpreter_for", "list_scripts", "resolve_script"]

#: interpreter kinds by file extension; anything else is refused
_EXTENSIONS = {
    ".py": "python",
    ".sh": "sh",
    ".bash": "bash",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
}
_SHEBANG_NAMES = {
    "python": "python",
    "python3": "python",
    "sh": "sh",
    "dash": "sh",
    "bash": "bash",
    "node": "node",
    "nodejs": "node",
    "ruby": "ruby",
    "perl": "perl",
    "bun": "bun",
    "tsx": "tsx",
}
#: every script kind, the keys of ``[execution.interpreters]``
SCRIPT_KINDS = tuple(dict.fromkeys([*_EXTENSIONS.values(), *_SHEBANG_NAMES.values()]))
#: programs that run TypeScript, in the order tried (Node.js strips types from 22.6 on)
_TYPESCRIPT = (("bun", ()), ("tsx", ()), ("node", ("--experimental-strip-types",)))


def check_script_args(args: Sequence[str]) -> list[str]:
    """Script arguments as a list of strings (no NUL bytes)."""
    if isinstance(args, str):
        raise InvalidArgumentsError("args must be a list of strings", field="args")
    out = []
    for arg in args:
        if not isinstance(arg, str):
            raise InvalidArgumentsError(
                f"script arguments must be strings, not {type(arg).__name__}", field="args"
            )
        if "\x00" in arg:
            raise InvalidArgumentsError("a script argument contains a NUL byte", field="args")
        out.append(arg)
    return out


def resolve_script(skill: str, skill_dir: Path, script: str) -> Path:
    """The real path of ``script`` under ``skill_dir/scripts`` (refusing anything else)."""
    try:
        return _resolve_script(skill, skill_dir, script)
    except (OSError, ValueError) as exc:  # past the name limits; a lone surrogate
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a file name"
        raise FileNotFoundInSkillError(
            f"skill '{skill}' has no such script: {why}",
            skill=skill,
            path=repr(script)[1:201],
            hint=f"list its files with: {hint_command('show', skill)}",
        ) from None


def _resolve_script(skill: str, skill_dir: Path, script: str) -> Path:
    rel, problem = (
        script_relpath(script, exists=lambda r: (skill_dir / r).exists())
        if isinstance(script, str)
        else (None, "outside")
    )
    if rel is None:
        raise PathNotAllowedError(
            f"{script!r} is not a path inside the skill",
            skill=skill,
            path=str(script),
            hint="give a path under scripts/, e.g. scripts/run.py",
        )
    if problem:
        raise PathNotAllowedError(
            f"only files under scripts/ can run, not {rel}",
            skill=skill,
            path=rel,
            hint="move the program into scripts/",
        )
    scripts = real(skill_dir / "scripts")
    full = real(skill_dir / rel)
    if not scripts.is_relative_to(skill_dir) or not full.is_relative_to(scripts):
        raise PathNotAllowedError(
            f"{rel} leaves the skill's scripts/ folder",
            skill=skill,
            path=rel,
            hint="scripts must live under scripts/ and links must not leave it",
        )
    if not full.exists():
        scripts_list = list_scripts(skill_dir)
        raise FileNotFoundInSkillError(
            f"skill '{skill}' has no {rel}",
            skill=skill,
            path=rel,
            hint=(
                f"its scripts: {', '.join(scripts_list[:20])}; run one with: "
                + hint_command("run", skill, scripts_list[0])
                if scripts_list
                else f"skill '{skill}' has no scripts; list its files with: "
                + hint_command("show", skill)
            ),
        )
    if not full.is_file():
        raise PathNotAllowedError(f"{rel} is not a regular file", skill=skill, path=rel)
    return full


def list_scripts(skill_dir: Path, files: Collection[str] | None = None) -> list[str]:
    """The runnable files under ``scripts/`` of the skill's file set (``files``, or the
    one walker's list of ``skill_dir``: no hidden names, caches or links leaving it)."""
    if files is None:
        files = walk_skill(skill_dir, strict=False).paths
    return sorted(f for f in files if f.startswith("scripts/"))


def interpreter_for(
    skill: str,
    path: Path,
    overrides: Mapping[str, str] | None = None,
    *,
    root: Path | None = None,
    files: Collection[str] | None = None,
) -> list[str]:
    """The interpreter argv prefix for a script, from the allowlist by extension or shebang.

    ``overrides`` maps a kind (``python``, ``node``, ...) to the program to use. With
    ``root`` (the skill folder the script runs from), a Python script that declares
    packages runs with the environment built for them (``_packages``); ``files``: the
    file set of ``root`` where it is known (a run's copy), where package lists are looked for.
    """
    kind = _EXTENSIONS.get(path.suffix.lower())
    if kind is None:
        kind = _shebang_kind(path)
    if kind is None:
        raise InvalidArgumentsError(
            f"cannot run {path.name}: unknown script kind",
            field="script",
            skill=skill,
            reason="unsupported_script_kind",
            hint="supported: "
            + ", ".join(sorted(_EXTENSIONS))
            + " or a shebang naming python, sh, bash, node, ruby, perl, bun or tsx",
        )
    chosen = (overrides or {}).get(kind)
    if kind == "python":
        if chosen is None and root is not None:
            chosen = python_for(skill, root, path, files)
        return [chosen or sys.executable, "-E", "-s"]
    if kind == "sh" and chosen is None:
        return ["/bin/sh"]
    if kind == "typescript" and chosen is None:
        return _typescript(skill, path)
    found = shutil.which(chosen or kind)
    if found is None:
        raise ScriptFailedError(
            f"cannot run {path.name}: '{kind}' is not installed",
            skill=skill,
            hint=f'install {kind}, set [execution.interpreters] {kind} = "/path/to/{kind}", '
            "or ask the skill's author for another script",
        )
    return [found]


def _typescript(skill: str, path: Path) -> list[str]:
    for program, flags in _TYPESCRIPT:
        found = shutil.which(program)
        if found and (program != "node" or _node_strips_types(found)):
            return [found, *flags]
    raise ScriptFailedError(
        f"cannot run {path.name}: no TypeScript runner is installed (bun, tsx, or Node.js 22.6+)",
        skill=skill,
        reason="interpreter_missing",
        hint="install one, e.g.: npm install -g tsx  (or set [execution.interpreters] "
        'typescript = "/path/to/tsx")',
    )


@functools.lru_cache(maxsize=8)
def _node_strips_types(node: str) -> bool:
    """True when ``node`` is 22.6 or later (it runs .ts with --experimental-strip-types)."""
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
        major, minor = (int(x) for x in out.strip().lstrip("v").split(".")[:2])
    except (OSError, ValueError, subprocess.SubprocessError):
        return False
    return (major, minor) >= (22, 6)


def _shebang_kind(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            first = fh.readline(256)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    name = Path(words[0]).name
    if name == "env":
        rest = [w for w in words[1:] if not w.startswith("-")]
        if len(rest) != len(words) - 1 or not rest:
            return None  # env options such as -S are not followed
        name = Path(rest[0]).name
    if name.startswith("python3."):
        name = "python3"
    return _SHEBANG_NAMES.get(name)
