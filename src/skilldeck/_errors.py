"""The exception tree. Every error skilldeck raises is a ``SkillError``.

::

    SkillError                         code (raised itself: INTERNAL)
    ├── SkillNotFoundError             SKILL_NOT_FOUND
    ├── SkillUnavailableError          SKILL_UNAVAILABLE
    ├── ManifestError                  INVALID_SKILL      (carries diagnostics)
    │   ├── SkillRefError              INVALID_SKILL      (reason: not_found, not_directory, ...)
    │   └── SkillValidationError       INVALID_SKILL      (inline skills; skilldeck.inline)
    ├── FileAccessError                (group: no code of its own)
    │   ├── FileNotFoundInSkillError   FILE_NOT_FOUND
    │   ├── PathNotAllowedError        PATH_NOT_ALLOWED
    │   └── FileTooLargeError          FILE_TOO_LARGE
    ├── InvalidArgumentsError          INVALID_ARGUMENTS  (field=)
    ├── ToolError                      (group)
    │   ├── ToolNotAllowedError        TOOL_NOT_ALLOWED
    │   ├── ToolPolicyDeniedError      TOOL_POLICY_DENIED
    │   └── ToolConfirmationRequiredError  TOOL_CONFIRMATION_REQUIRED
    ├── ExecutionError                 (group)
    │   ├── ApprovalRequiredError      APPROVAL_REQUIRED
    │   ├── ScriptFailedError          SCRIPT_FAILED
    │   ├── ScriptTimeoutError         SCRIPT_TIMEOUT
    │   └── SandboxUnavailableError    SANDBOX_UNAVAILABLE
    ├── ConfigError                    CONFIG_INVALID
    ├── EmbedderUnavailableError       EMBEDDER_UNAVAILABLE (an embedding model cannot be loaded)
    ├── UnsafeStateError               UNSAFE_STATE      (state folder is a link / not yours)
    ├── InstallError                   INSTALL_FAILED
    │   └── SkillInstallationError     INSTALL_FAILED     (skill_name, skills_dir, cause)
    ├── FindingsError                  FINDINGS          (a check found problems: validate, ...)
    ├── Cancelled                      CANCELLED         (a person said no in a callback)
    └── InternalError                  INTERNAL

Errors carry their context as keyword-only attributes (``skill=``, ``path=``,
``hint=``) and their message says what to do next. ``code`` is stable: it is
the ``error.code`` of the tool result envelope.

A group (``FileAccessError``, ``ToolError``, ``ExecutionError``) exists to be
caught: ``except ToolError`` catches every refusal of a tool call. It has no code
of its own and cannot be raised itself (``TypeError``); every raised error is a
leaf with its own code. :func:`error_codes` lists the codes of the tree.

``Cancelled`` is how a person's "no" travels: a callback the library calls
(``confirm=``, ``choose=``, an approver) raises it, the operation stops and
undoes what it staged, and the front end says "cancelled".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self

    from skilldeck._diagnostics import Diagnostic

__all__ = [
    "FOLDER_GONE_HINT",
    "ApprovalRequiredError",
    "Cancelled",
    "ConfigError",
    "EmbedderUnavailableError",
    "ExecutionError",
    "FileAccessError",
    "FileNotFoundInSkillError",
    "FileTooLargeError",
    "FindingsError",
    "InstallError",
    "InternalError",
    "InvalidArgumentsError",
    "ManifestError",
    "PathNotAllowedError",
    "SandboxUnavailableError",
    "ScriptFailedError",
    "ScriptTimeoutError",
    "SkillError",
    "SkillNotFoundError",
    "SkillRefError",
    "SkillUnavailableError",
    "ToolConfirmationRequiredError",
    "ToolError",
    "ToolNotAllowedError",
    "ToolPolicyDeniedError",
    "UnsafeStateError",
    "error_codes",
    "files_hint",
    "root_flags",
    "with_roots",
]


class SkillError(Exception):
    """Root of every error skilldeck raises."""

    code: ClassVar[str] = "INTERNAL"
    #: True on a class that only groups others (it is caught, never raised)
    group: ClassVar[bool] = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        if cls.__dict__.get("group", False):
            leaves = ", ".join(sorted(c.__name__ for c in cls.__subclasses__()))
            raise TypeError(f"{cls.__name__} groups errors; raise one of them: {leaves}")
        return super().__new__(cls, *args, **kwargs)

    def __init__(
        self,
        message: str,
        *,
        skill: str | None = None,
        path: str | Path | None = None,
        hint: str | None = None,
        **context: Any,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.skill = skill
        self.path = str(path) if path is not None else None
        self.hint = hint
        self.context: dict[str, Any] = context

    def to_dict(self) -> dict[str, Any]:
        """The ``error`` object of the result envelope."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        if self.skill:
            out["skill"] = self.skill
        for key, value in self.context.items():
            if isinstance(value, str | int | float | bool) or value is None:
                out[key] = value
        return out


class SkillNotFoundError(SkillError):
    code = "SKILL_NOT_FOUND"


class SkillUnavailableError(SkillError):
    code = "SKILL_UNAVAILABLE"


class ManifestError(SkillError):
    """A SKILL.md could not be turned into a manifest; ``diagnostics`` say why."""

    code = "INVALID_SKILL"

    def __init__(
        self,
        message: str,
        *,
        diagnostics: Sequence[Diagnostic] = (),
        **kwargs: Any,
    ) -> None:
        super().__init__(message, **kwargs)
        self.diagnostics = tuple(diagnostics)


class SkillRefError(ManifestError):
    """A referenced skill folder is unusable; ``reason`` is one of
    ``not_found``, ``not_directory``, ``missing_skill_md``, ``invalid_frontmatter``."""

    def __init__(self, message: str, *, reason: str, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.reason = reason


class FileAccessError(SkillError):
    """A bundled file could not be served (group)."""

    group = True


class FileNotFoundInSkillError(FileAccessError):
    code = "FILE_NOT_FOUND"


class PathNotAllowedError(FileAccessError):
    code = "PATH_NOT_ALLOWED"


class FileTooLargeError(FileAccessError):
    code = "FILE_TOO_LARGE"


class InvalidArgumentsError(SkillError):
    """Tool arguments did not match the schema; ``field`` names the culprit."""

    code = "INVALID_ARGUMENTS"

    def __init__(self, message: str, *, field: str | None = None, **kwargs: Any) -> None:
        super().__init__(message, field=field, **kwargs)
        self.field = field


class ToolError(SkillError):
    """A tool call was refused (group)."""

    group = True


class ToolNotAllowedError(ToolError):
    code = "TOOL_NOT_ALLOWED"


class ToolPolicyDeniedError(ToolError):
    code = "TOOL_POLICY_DENIED"


class ToolConfirmationRequiredError(ToolError):
    code = "TOOL_CONFIRMATION_REQUIRED"


class ExecutionError(SkillError):
    """A script or command tool did not run to completion (group)."""

    group = True


class ApprovalRequiredError(ExecutionError):
    code = "APPROVAL_REQUIRED"


class ScriptFailedError(ExecutionError):
    code = "SCRIPT_FAILED"


class ScriptTimeoutError(ExecutionError):
    code = "SCRIPT_TIMEOUT"


class SandboxUnavailableError(ExecutionError):
    code = "SANDBOX_UNAVAILABLE"


class ConfigError(SkillError):
    code = "CONFIG_INVALID"


class EmbedderUnavailableError(SkillError):
    """The embedding model for semantic search cannot be loaded: its extra is not
    installed, the folder holds no model, or fetching it failed."""

    code = "EMBEDDER_UNAVAILABLE"


class UnsafeStateError(SkillError):
    """A state folder or file (``.skilldeck/...``) is a link, not the expected kind,
    or owned by another user: skilldeck refuses to act through it."""

    code = "UNSAFE_STATE"


class InstallError(SkillError):
    code = "INSTALL_FAILED"


class FindingsError(SkillError):
    """A check ran and found problems (``validate``, ``lint``, ``scan``, ``doctor``,
    ``verify``); the command line's JSON carries the report beside it."""

    code = "FINDINGS"


class Cancelled(SkillError):
    """Raised by a callback (``confirm``, ``choose``, an approver) to stop an
    operation on a person's "no"; the operation changes nothing."""

    code = "CANCELLED"

    def __init__(self, message: str = "cancelled", **context: Any) -> None:
        super().__init__(message, **context)


class InternalError(SkillError):
    code = "INTERNAL"


def error_codes() -> tuple[str, ...]:
    """Every ``code`` of the exception tree, each once, in the tree's order (groups,
    which have none of their own, are skipped)."""
    seen: dict[str, None] = {}
    pending: list[type[SkillError]] = [SkillError]
    while pending:
        cls = pending.pop()
        if cls is not SkillError and not cls.__dict__.get("group", False):
            seen.setdefault(cls.code, None)
        pending.extend(reversed(cls.__subclasses__()))
    return tuple(seen)


FOLDER_GONE_HINT = "the skill folder was moved or removed; refresh the catalog"
"""The hint of a read or load whose skill folder is gone since the catalog listed it."""


def hint_command(*words: object) -> str:
    """The command line a hint names: skilldeck, then ``words`` each quoted for a shell,
    so a name or path with spaces or quotes finds the same thing when it is pasted.
    Every hint that names a command builds it here (``with_roots`` adds a front end's
    folders)."""
    import shlex

    return shlex.join(["skilldeck", *map(str, words)])


def files_hint(skill: str | None, *, first: str = "") -> str:
    """The hint of a read that names no file the skill lists: ``first`` (what else to
    say, if anything), then where the files that can be read are listed, for a model
    (``skills_load``) and on the command line (a command a front end serving other
    folders completes with ``with_roots``)."""
    lead = f"{first}; " if first else ""
    shown = hint_command("show", skill or "NAME")
    return f"{lead}list the skill's files with skills_load, or run: {shown}"


def root_flags(roots: Sequence[str | os.PathLike[str]], *, recursive: bool = False) -> str:
    """`` --root DIR`` for each of ``roots`` (absolute, quoted for a shell), and
    `` --recursive``: what a pasted command needs to look where this one looked."""
    if not roots:
        return ""
    import shlex

    out = "".join(f" --root {shlex.quote(os.path.abspath(r))}" for r in roots)
    return out + (" --recursive" if recursive else "")


def with_roots(
    hint: str | None, roots: Sequence[str | os.PathLike[str]], *, recursive: bool = False
) -> str | None:
    """``hint`` with ``--root DIR`` added to each skilldeck command that names a skill.

    A front end serving the folders ``roots`` (``skilldeck run --root``, ``serve --root``,
    searched at any depth with ``recursive``) passes them, so a hint such as ``run:
    skilldeck approve NAME`` finds the same skill when pasted.
    """
    if not hint or not roots:
        return hint
    suffix = root_flags(roots, recursive=recursive)
    out = []
    for part in _clauses(hint):
        marker = part.find("skilldeck ")
        if marker >= 0 and part[marker:].split()[1:2] in (
            ["approve"],
            ["run"],
            ["show"],
            ["packages"],
            ["why"],
        ):
            part = part + suffix
        out.append(part)
    return "; ".join(out)


def _clauses(hint: str) -> list[str]:
    """``hint`` split at each ``"; "`` that ends a clause: not one inside a quoted word
    of a command (``hint_command`` quotes a skill named ``a; b`` as ``'a; b'``). Quotes
    count from ``skilldeck `` to the clause's end only: prose has apostrophes."""
    parts: list[str] = []
    start = i = 0
    command, quote = False, ""
    while i < len(hint):
        c = hint[i]
        if quote:
            quote = "" if c == quote else quote
        elif command and c in "'\"":
            quote = c
        elif hint.startswith("; ", i):
            parts.append(hint[start:i])
            start, command = i + 2, False
            i += 2
            continue
        elif hint.startswith("skilldeck ", i):
            command = True
        i += 1
    parts.append(hint[start:])
    return parts
