"""Lint: style and quality findings about a skill (``SK3xx``), never blocking.

``lint_skill(path)`` validates the skill (lenient) and adds these findings:

- the body is long (over 500 lines, or about 5,000 tokens at ~4 characters a token);
- the description does not say *when* to use the skill, is over 256 characters
  (a common host limit; a hint), or contains ``<tags>``;
- the body refers to a file (a Markdown link, or a ``scripts/``, ``references/``,
  ``assets/`` path in code) that does not exist, lies outside the skill, or is more
  than one folder deep;
- a file in ``scripts/`` is never mentioned in the body;
- the body names a tool (``the Bash tool``, `` `Read` ``, ``Bash(git:*)``) that
  ``allowed-tools`` does not allow, or ``allowed-tools`` lists a tool the body
  never mentions.

It also reports the findings about command tools declared in the body
(``SK4xx``, see ``_mdtools``); those can be errors, since such a tool cannot run.

Every finding carries the SKILL.md line and column it is about and a hint.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._errors import FileAccessError
from skilldeck._tree import is_hidden, secret_findings, walk_skill
from skilldeck.format._links import (
    PROSE,
    candidate_refs,
    code_lines,
    estimate_tokens,
    ref_target,
)
from skilldeck.format._manifest import Manifest, ToolPattern
from skilldeck.format._mdtools import check_programs, parse_declared_tools
from skilldeck.format._scaffold import TEMPLATE_MARKER
from skilldeck.format._validate import ValidationReport, validate_skill

__all__ = ["estimate_tokens", "lint_report", "lint_skill", "skill_scripts"]


BODY_TOO_LONG = "SK301"
BODY_TOO_MANY_TOKENS = "SK302"
NO_WHEN_TO_USE = "SK303"
DESCRIPTION_OVER_256 = "SK304"
DESCRIPTION_TAGS = "SK305"
MISSING_REFERENCE = "SK306"
DEEP_REFERENCE = "SK307"
OUTSIDE_REFERENCE = "SK308"
UNMENTIONED_SCRIPT = "SK309"
TOOL_NOT_ALLOWED = "SK310"
TOOL_UNUSED = "SK311"
TEMPLATE_DESCRIPTION = "SK312"
HIDDEN_REFERENCE = "SK313"
UNKNOWN_MODE = "SK330"

# The modes of the SKILL.md format that introduced ``modes`` (the focused app decides).
DEFAULT_MODES = ("Global", "Dev", "Meeting")

MAX_BODY_LINES = 500
MAX_BODY_TOKENS = 5000
SEED_DESCRIPTION_LIMIT = 256

# Tool names agents commonly expose (Claude Code, the Agent SDK). A capitalised
# word in prose is only taken as a tool in a tool-like context (see _TOOL_MENTION).
KNOWN_TOOLS = frozenset(
    {
        "Agent",
        "Bash",
        "BashOutput",
        "Edit",
        "Glob",
        "Grep",
        "KillShell",
        "LS",
        "MultiEdit",
        "NotebookEdit",
        "NotebookRead",
        "Read",
        "Skill",
        "SlashCommand",
        "Task",
        "TodoRead",
        "TodoWrite",
        "WebFetch",
        "WebSearch",
        "Write",
    }
)
_TOOL_WORDS = "|".join(sorted(KNOWN_TOOLS, key=len, reverse=True))
# `Read`, Bash(git:*), "the Grep tool", "Grep tool", and mcp__server__tool names.
_TOOL_MENTION = re.compile(
    rf"`(?P<tick>{_TOOL_WORDS})(?:\([^`)]*\))?`"
    rf"|\b(?P<call>{_TOOL_WORDS})\([^)\n]*\)"
    rf"|\b(?P<named>{_TOOL_WORDS})\s+tool\b"
    r"|\b(?P<mcp>mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+)"
)

_WHEN = re.compile(
    r"\b(?:use\s+(?:it\s+|this\s+(?:skill\s+)?)?(?:when|whenever|for|to|if|on|before|after|while)"
    r"|when(?:ever)?|if\s+(?:the\s+)?(?:user|you|an?\s)|trigger(?:s|ed)?\s+(?:on|when|by|if)|invoke"
    r"|use\s+with|use\s+proactively|should\s+be\s+used|helps?\s+(?:with|when)"
    r"|applies\s+(?:to|when)|triggers?\s+for)\b"
    # a list of triggers: "TRIGGERS - zigzag, swings", "Triggers: ..."
    r"|\btriggers?(?:\s*:|\s+[-\u2013\u2014]\s)"
    # Japanese and Chinese: "use when ...", "use if told ...", "trigger conditions: ...".
    r"|(?:とき|時|場合|たら|際)に?(?:使|利用)|(?:时|時|需要)(?:使用|调用|調用)"
    r"|(?:触发|觸發)(?:条件|條件|词|詞|场景|場景)|(?:使用|适用|適用)(?:场景|場景)",
    re.IGNORECASE,
)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:_-]*(?:\s[^<>]*)?/?>")


def lint_skill(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    modes: Sequence[str] | None = None,
) -> ValidationReport:
    """Validate the skill at ``path`` and add the lint findings (``SK3xx``, ``SK4xx``).

    ``path`` is a skill folder or its SKILL.md. ``SK3xx`` findings are warnings or
    information only; an ``SK4xx`` error (a body-declared tool that cannot run) makes
    the report invalid. ``modes`` are the modes the host uses (default: ``Global``,
    ``Dev``, ``Meeting``); a skill naming another one gets ``SK330``. Never raises for
    a bad skill.
    """
    return lint_report(validate_skill(path, strict=strict), modes=modes)


def lint_report(
    report: ValidationReport, *, modes: Sequence[str] | None = None
) -> ValidationReport:
    """Add lint findings to an existing validation report."""
    if report.skill_md is None:
        return report
    found = sorted(
        _lint(report, DEFAULT_MODES if modes is None else tuple(modes)),
        key=lambda d: (d.line or 0, d.column or 0, d.code),
    )
    if not found:
        return report
    return replace(report, diagnostics=(*report.diagnostics, *found))


def _lint(report: ValidationReport, modes: Sequence[str]) -> Iterator[Diagnostic]:
    skill_md = str(report.skill_md)
    folder = report.path
    body = report.body or ""
    body_line = report.body_line
    manifest = report.manifest
    lines = body.split("\n")
    code_mask = code_lines(lines)

    yield from _body_size(body, lines, skill_md, body_line)
    if manifest is not None:
        yield from _description(manifest, skill_md)
        yield from _modes(manifest, modes, skill_md)
    yield from _references(lines, code_mask, folder, skill_md, body_line)
    yield from _scripts(body, folder, skill_md, body_line)
    yield from _tree(folder)
    if manifest is not None and manifest.allowed_tools:
        yield from _tools(lines, code_mask, manifest, skill_md, body_line)
    # Command tools declared in the body: their findings are SK4xx.
    tools, tool_diags = parse_declared_tools(body, path=skill_md, body_line=body_line)
    yield from tool_diags
    yield from check_programs(tools, exists=lambda rel: (folder / rel).is_file(), path=skill_md)


# --- modes -------------------------------------------------------------------


def _modes(manifest: Manifest, known: Sequence[str], path: str) -> Iterator[Diagnostic]:
    if not manifest.modes:
        return
    folded = {m.casefold(): m for m in known}
    line, column = manifest.position("modes")
    for mode in manifest.modes:
        if mode in known:
            continue
        near = folded.get(mode.casefold())
        yield Diagnostic.make(
            UNKNOWN_MODE,
            f"modes names {mode!r}, which is not one of the known modes: {', '.join(known)}",
            path=path,
            line=line,
            column=column,
            hint=f"write {near!r} (modes are case-sensitive)"
            if near
            else "use one of the known modes; the skill is hidden in every other mode",
        )


# --- body size -------------------------------------------------------------


def _body_size(body: str, lines: list[str], path: str, body_line: int) -> Iterator[Diagnostic]:
    count = len(lines) - (1 if lines and lines[-1] == "" else 0)
    if count > MAX_BODY_LINES:
        yield Diagnostic.make(
            BODY_TOO_LONG,
            f"the body has {count} lines (recommended: at most {MAX_BODY_LINES})",
            path=path,
            line=body_line + MAX_BODY_LINES,
            column=1,
            hint="move detailed material into references/ files and link them from the body",
        )
    tokens = estimate_tokens(body)
    if tokens > MAX_BODY_TOKENS:
        yield Diagnostic.make(
            BODY_TOO_MANY_TOKENS,
            f"the body is about {tokens:,} tokens (recommended: under {MAX_BODY_TOKENS:,})",
            path=path,
            line=body_line,
            column=1,
            hint="the whole body enters the context when the skill loads; keep it to the "
            "essential steps and move the rest into references/",
        )


# --- description -------------------------------------------------------------


def _description(manifest: Manifest, path: str) -> Iterator[Diagnostic]:
    text = manifest.description
    if not isinstance(text, str) or not text.strip():
        return
    line, column = manifest.position("description")
    if text.strip().startswith(TEMPLATE_MARKER):
        yield Diagnostic.make(
            TEMPLATE_DESCRIPTION,
            "the description is the placeholder from `skilldeck new`; agents choose "
            "skills from the description alone",
            path=path,
            line=line,
            column=column,
            hint="say what the skill does and when to use it (the requests, file types "
            "or situations that should make an agent load it)",
        )
    if not _WHEN.search(text):
        yield Diagnostic.make(
            NO_WHEN_TO_USE,
            "the description says what the skill does but not when to use it",
            path=path,
            line=line,
            column=column,
            hint="add a sentence such as 'Use when the user asks to ...': agents choose "
            "skills from the description alone",
        )
    if len(text) > SEED_DESCRIPTION_LIMIT:
        yield Diagnostic.make(
            DESCRIPTION_OVER_256,
            f"the description has {len(text)} characters; some agents cut it at "
            f"{SEED_DESCRIPTION_LIMIT}",
            path=path,
            line=line,
            column=column,
            hint=f"put the purpose and the trigger in the first {SEED_DESCRIPTION_LIMIT} "
            "characters",
        )
    tag = _TAG.search(text)
    if tag is not None:
        yield Diagnostic.make(
            DESCRIPTION_TAGS,
            f"the description contains the tag {tag.group(0)!r}",
            path=path,
            line=line,
            column=column,
            hint="descriptions are shown to the model inside <available_skills> XML; "
            "write the text without angle-bracket tags",
        )


# --- file references -----------------------------------------------------------


def _references(
    lines: Sequence[str],
    code_mask: Sequence[int],
    folder: Path,
    path: str,
    body_line: int,
) -> Iterator[Diagnostic]:
    seen: set[str] = set()
    root = folder.resolve()
    for index, column, raw, is_link in candidate_refs(lines, code_mask):
        target = ref_target(raw, is_link)
        if not target or target in seen:
            continue
        seen.add(target)
        line = body_line + index
        parts = [p for p in target.split("/") if p not in ("", ".")]
        if not parts:
            continue
        candidate = folder.joinpath(*parts)
        normal = os.path.normpath("/".join(parts))
        try:
            outside = normal == ".." or normal.startswith("../")
            outside = outside or not candidate.resolve().is_relative_to(root)
        except (OSError, RuntimeError):
            outside = True
        except ValueError:  # a NUL byte: no such file can exist (SK306 below)
            outside = False
        if outside:
            yield Diagnostic.make(
                OUTSIDE_REFERENCE,
                f"'{raw}' points outside the skill folder",
                hint="a skill is installed and moved as one folder: copy what it needs "
                "inside it and refer to it relative to SKILL.md",
                path=path,
                line=line,
                column=column + 1,
            )
            continue
        hidden = next((p for p in parts if is_hidden(p)), None)
        if hidden is not None:
            dotted = hidden.startswith(".")
            yield Diagnostic.make(
                HIDDEN_REFERENCE,
                f"'{raw}' is {'a hidden path' if dotted else 'a compiled Python cache'}: "
                "skilldeck never lists or reads hidden files or compiled caches",
                hint="rename it without the leading dot (e.g. references/config.md)"
                if dotted
                else "refer to the Python source (.py) instead",
                path=path,
                line=line,
                column=column + 1,
            )
            continue
        if not os.path.lexists(candidate) or not candidate.exists():
            yield Diagnostic.make(
                MISSING_REFERENCE,
                f"'{raw}' does not exist in the skill folder",
                hint="fix the path (it is relative to SKILL.md) or add the file",
                path=path,
                line=line,
                column=column + 1,
            )
            continue
        depth = len(parts) - 1 if candidate.is_file() else len(parts)
        if depth > 1:
            yield Diagnostic.make(
                DEEP_REFERENCE,
                f"'{raw}' is {depth} folders deep",
                hint="keep referenced files one level below SKILL.md (e.g. references/x.md) "
                "so agents find them without listing folders",
                path=path,
                line=line,
                column=column + 1,
            )


# --- scripts ----------------------------------------------------------------


def skill_scripts(folder: Path) -> list[str]:
    """Relative paths of the files under ``scripts/`` (no caches, no hidden files)."""

    def enter(rel: str) -> bool:
        return rel.split("/", 1)[0] == "scripts" and "__pycache__" not in rel.split("/")

    try:
        walk = walk_skill(folder, strict=False, enter=enter)
    except FileAccessError:
        return []
    return [
        rel
        for rel in walk.paths
        if rel.startswith("scripts/")
        and not rel.endswith((".pyc", ".pyo"))
        and rel.rsplit("/", 1)[-1] != "__init__.py"
    ]


def _tree(folder: Path) -> Iterator[Diagnostic]:
    """What the walk leaves out, as install and serve will (links that leave the skill
    or lead nowhere, special files, names no skill may hold: SK504-SK520, warnings; a
    tree too deep to use, SK507, is an error), and files that look like secrets (SK518)."""
    try:
        walk = walk_skill(folder, strict=False)
    except FileAccessError:
        return
    for problem in walk.problems:
        found = problem.diagnostic(folder)
        yield found.with_severity(Severity.ERROR) if problem.kind == "too_deep" else found
    yield from secret_findings(folder, walk)


def _scripts(body: str, folder: Path, path: str, body_line: int) -> Iterator[Diagnostic]:
    for rel in skill_scripts(folder):
        name = rel.rsplit("/", 1)[-1]
        if rel in body or re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", body):
            continue
        yield Diagnostic.make(
            UNMENTIONED_SCRIPT,
            f"{rel} is never mentioned in the body",
            path=path,
            line=body_line,
            column=1,
            hint=f"say when and how to run it (e.g. 'Run `{rel}` to ...'), or delete it: "
            "agents only use scripts the instructions point them to",
        )


# --- tools ------------------------------------------------------------------


def _tool_mentions(
    lines: Sequence[str], code_mask: Sequence[int]
) -> Iterator[tuple[int, int, str]]:
    for index, text in enumerate(lines):
        if code_mask[index] != PROSE:
            continue
        for match in _TOOL_MENTION.finditer(text):
            group = match.lastgroup or "tick"
            yield index, match.start(group), match.group(group)


def _allowed(name: str, patterns: Sequence[ToolPattern]) -> bool:
    return any(p.matches(name) for p in patterns)


def _tools(
    lines: Sequence[str],
    code_mask: Sequence[int],
    manifest: Manifest,
    path: str,
    body_line: int,
) -> Iterator[Diagnostic]:
    patterns = manifest.allowed_tools or ()
    flagged: set[str] = set()
    for index, column, name in _tool_mentions(lines, code_mask):
        if name in flagged or _allowed(name, patterns):
            continue
        flagged.add(name)
        yield Diagnostic.make(
            TOOL_NOT_ALLOWED,
            f"the body uses the {name} tool, which allowed-tools does not list",
            path=path,
            line=body_line + index,
            column=column + 1,
            hint=f"add '{name}' to allowed-tools, or change the instructions",
        )
    body = "\n".join(lines)
    words = set(re.findall(r"[A-Za-z_][\w.-]*", body))
    key_line, key_column = manifest.position("allowed-tools")
    for pattern in patterns:
        if _mentioned(pattern, body, words):
            continue
        yield Diagnostic.make(
            TOOL_UNUSED,
            f"allowed-tools lists '{pattern.raw}' but the body never mentions it",
            path=path,
            line=key_line,
            column=key_column,
            hint="name the tool where the instructions use it (e.g. 'with the "
            f"{pattern.name} tool'), or drop it from allowed-tools",
        )


def _mentioned(pattern: ToolPattern, body: str, words: set[str]) -> bool:
    name = pattern.name
    if any(ch in name for ch in "*?["):
        return any(fnmatch.fnmatchcase(word, name) for word in words)
    if name in words:
        return True
    # Bash(git:*) is used by a body that says "run `git status`".
    if pattern.argument:
        command = re.split(r"[:\s*]", pattern.argument.strip(), maxsplit=1)[0]
        if command and re.search(rf"(?<![\w-]){re.escape(command)}(?![\w-])", body):
            return True
    return False
