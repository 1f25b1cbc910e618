"""Running the scan: one text, one file, a folder; and the installer's step."""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._errors import (
    ConfigError,
    FileAccessError,
    InstallError,
    PathNotAllowedError,
    hint_command,
)
from skilldeck._paths import within
from skilldeck._tree import (
    SkillTree,
    Walk,
    WalkLimits,
    find_skill_folders,
    secret_findings,
    walk_skill,
)
from skilldeck.security._engine import Budget, BudgetExceeded
from skilldeck.security._findings import Facts, text_findings
from skilldeck.security._joined import joined_findings
from skilldeck.security._judge import Judge, apply_judge
from skilldeck.security._rules import (
    _HINTS,
    BINARY,
    SKIPPED,
    binary_kind,
    kind_of,
    language_of,
)
from skilldeck.security._text import Text

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a lone path that is a FIFO must not hang

__all__ = [
    "SCAN_MODES",
    "ScanOptions",
    "install_scan",
    "scan_mode",
    "scan_skill",
    "scan_skills",
    "scan_text",
]


@dataclass(frozen=True, slots=True)
class ScanOptions:
    """Limits of one scan: files larger than ``max_file_bytes`` are skipped (SK614);
    a file whose checks take longer than ``file_seconds`` is reported as not fully
    scanned (SK614, a warning: what was found before the limit is kept)."""

    max_file_bytes: int = 4 * 1024 * 1024
    max_files: int = 10_000
    ignore: frozenset[str] = frozenset()
    file_seconds: float = 5.0


# ---------------------------------------------------------------------------
# one text


def _scan(text: str, where: str, kind: str, seconds: float) -> tuple[list[Diagnostic], Facts]:
    budget = Budget(seconds)
    try:
        doc = Text(text, markdown=kind == "doc", budget=budget)
        return text_findings(doc, where, kind, language=language_of(where, text))
    except BudgetExceeded:
        note = Diagnostic.make(
            SKIPPED,
            f"not fully scanned: the checks took longer than {seconds:g} s",
            path=where,
            hint=_HINTS[SKIPPED],
            severity=Severity.WARNING,
        )
        return [note], Facts(kind=kind)
    except RecursionError:
        note = Diagnostic.make(
            SKIPPED,
            "not fully scanned: nested too deeply",
            path=where,
            hint=_HINTS[SKIPPED],
            severity=Severity.WARNING,
        )
        return [note], Facts(kind=kind)


def scan_text(
    text: str,
    *,
    path: str | None = None,
    kind: str = "doc",
    ignore: Collection[str] = (),
) -> list[Diagnostic]:
    """Scan one decoded text; ``kind`` is ``script``, ``doc`` (Markdown) or ``data``.

    Inline skills use it on their rendered SKILL.md; ``scan_skill`` on every file.
    """
    found, _ = _scan(text, path or "<text>", kind, ScanOptions().file_seconds)
    if path is None:
        found = [_without_path(d) for d in found]
    return [d for d in found if d.code not in ignore]


def _without_path(diag: Diagnostic) -> Diagnostic:
    return Diagnostic(
        diag.code, diag.severity, diag.message, None, diag.line, diag.column, diag.hint
    )


# ---------------------------------------------------------------------------
# a folder


def _walk(
    tree: SkillTree, limit: int, nested: Collection[str] = ()
) -> tuple[Walk, list[Diagnostic]]:
    """The one walker's files of a folder (``skilldeck._tree``), what it left out
    (links out, special files) and files that look like secrets, as findings.

    Too deep a tree raises a coded ``PathNotAllowedError`` (as digests and
    installs do); past ``limit`` files the rest is not scanned (SK516).
    """
    skip = frozenset(p.replace(os.sep, "/") for p in nested)
    enter = (lambda rel: rel not in skip) if skip else None
    walk = tree.walk(limits=WalkLimits(max_files=limit), strict=False, enter=enter)
    deep = next((p for p in walk.problems if p.kind == "too_deep"), None)
    if deep is not None:
        raise PathNotAllowedError(
            f"{tree.root}: {deep.message}",
            path=tree.root,
            hint="skills must stay shallow; nothing was scanned",
            reason="too_deep",
        )
    notes = [p.diagnostic(tree.root) for p in walk.problems]
    return walk, notes + secret_findings(tree.root, walk)


def _scan_file(
    path: Path,
    rel: str,
    display: str,
    opts: ScanOptions,
    tree: SkillTree | None = None,
    *,
    follow: bool = True,
) -> tuple[list[Diagnostic], Facts | None]:
    try:  # a folder's files are read beneath it (``tree``), a lone file by its path
        fd = (
            tree.open(rel)
            if tree is not None
            else os.open(path, os.O_RDONLY | _NONBLOCK | (0 if follow else _NOFOLLOW))
        )
    except (OSError, FileAccessError) as exc:
        return [_skipped(display, f"cannot read it: {getattr(exc, 'strerror', None) or exc}")], None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return [], None
    try:
        with open(fd, "rb") as fh:
            head = fh.read(64 * 1024)
            found = binary_kind(head, rel)
            if found is not None:
                diag = Diagnostic.make(
                    BINARY, f"{rel} is {found}", path=display, hint=_HINTS[BINARY]
                )
                return [diag], None
            if b"\x00" in head[:8192]:
                return [], None  # other binary data (images, archives): nothing textual to scan
            if st.st_size > opts.max_file_bytes:
                return [_skipped(display, f"{st.st_size} bytes, over the scan limit")], None
            data = head + fh.read(opts.max_file_bytes + 1 - len(head))
    except OSError as exc:
        return [_skipped(display, f"cannot read it: {exc.strerror}")], None
    text = data.decode("utf-8", errors="replace")
    found_list, facts = _scan(text, display, kind_of(rel, head, st.st_mode), opts.file_seconds)
    return found_list, facts


#: Hidden folders an editor or agent reads when it opens the folder (tasks that run on
#: open, agent settings): skilldeck never serves them, but they are scanned.
_OPENED_BY_TOOLS = frozenset(
    ".vscode .idea .devcontainer .claude .cursor .gemini .codex .windsurf .zed".split()
)
_HIDDEN_FILES = 200


def _hidden_to_scan(root: Path, hidden: tuple[str, ...]) -> list[str]:
    """Hidden files worth reading: compiled Python (``*.pyc``), and the files of the
    folders editors and agents act on when they open a folder (as the one walker lists
    them, rooted there). Links are not followed and nothing outside ``root`` is read."""
    out: list[str] = []
    base = os.path.realpath(root)
    for rel in hidden:
        name = rel.rsplit("/", 1)[-1]
        full = os.path.join(root, rel)
        if not within(os.path.realpath(os.path.dirname(full)), (base,)):
            continue
        if name.lower().endswith((".pyc", ".pyo")):
            out.append(rel)
        elif name in _OPENED_BY_TOOLS and os.path.isdir(full) and not os.path.islink(full):
            # the one walker, rooted at the hidden folder: four folders deep at most
            inner = walk_skill(
                full,
                limits=WalkLimits(max_depth=4, max_files=_HIDDEN_FILES),
                strict=False,
                follow_root=False,
            )
            out += [f"{rel}/{entry.path}" for entry in inner.files if not entry.link]
            if len(out) >= _HIDDEN_FILES:
                return out[:_HIDDEN_FILES]
    return out


def _by_skill(
    facts: dict[str, tuple[str, Facts]],
) -> dict[str, dict[str, tuple[str, Facts]]]:
    """The files of each skill below a scanned folder (the nearest folder above a file
    that holds a SKILL.md): attacks split over files are looked for within one skill."""
    roots = sorted(
        {rel.rsplit("/", 1)[0] if "/" in rel else "" for rel in facts if _is_skill_md(rel)},
        key=len,
        reverse=True,
    )
    groups: dict[str, dict[str, tuple[str, Facts]]] = {}
    for rel, value in facts.items():
        owner = next((r for r in roots if not r or rel.startswith(r + "/")), "")
        groups.setdefault(owner, {})[rel] = value
    return groups


def _is_skill_md(rel: str) -> bool:
    return rel.rsplit("/", 1)[-1].lower() == "skill.md"


def _skipped(display: str, why: str) -> Diagnostic:
    return Diagnostic.make(SKIPPED, f"not scanned: {why}", path=display, hint=_HINTS[SKIPPED])


def _start(
    path: str | os.PathLike[str], ignore: Collection[str], options: ScanOptions | None
) -> tuple[Path, ScanOptions]:
    """The path to scan, which must exist (else ``FileNotFoundError``), and the
    options with the host's ``ignore`` codes added."""
    opts = options or ScanOptions()
    if ignore:
        opts = replace(opts, ignore=frozenset(ignore) | opts.ignore)
    root = Path(path)
    if not os.path.lexists(root):
        raise FileNotFoundError(2, "no such file or folder", str(root))
    return root, opts


def _judged(root: str | Path, found: list[Diagnostic], judge: Judge | None) -> list[Diagnostic]:
    return found if judge is None else apply_judge(root, found, judge)


def scan_skill(
    path: str | os.PathLike[str],
    *,
    ignore: Collection[str] = (),
    options: ScanOptions | None = None,
    judge: Judge | None = None,
) -> list[Diagnostic]:
    """Scan a skill folder (every file below it) or one file; findings sorted by place.

    Never raises for what it finds; a path that does not exist raises
    ``FileNotFoundError``. ``ignore`` drops codes (a host's decision, not the
    skill's). The installer calls this between staging and swapping in. Files of
    one skill are also checked together (a download in one file run by another).
    """
    root, opts = _start(path, ignore, options)
    return _judged(root, _scan_path(root, opts), judge)


def _scan_path(root: Path, opts: ScanOptions, nested: Collection[str] = ()) -> list[Diagnostic]:
    """Findings of one file or folder; folders in ``nested`` (relative) are not entered."""
    if not root.is_dir():
        found, _ = _scan_file(root, root.name, str(root), opts)
    else:
        facts: dict[str, tuple[str, Facts]] = {}
        with SkillTree(root) as tree:
            walk, found = _walk(tree, opts.max_files, nested)
            for entry in walk.files:
                full = root / entry.path
                diags, fact = _scan_file(full, entry.path, str(full), opts, tree)
                found.extend(diags)
                if fact is not None:
                    facts[entry.path] = (str(full), fact)
            for rel in _hidden_to_scan(root, walk.hidden):
                full = root / rel
                diags, _ = _scan_file(full, rel, str(full), opts, follow=False)
                found.extend(diags)
        for group in _by_skill(facts).values():
            found.extend(joined_findings(group))
    return [d for d in found if d.code not in opts.ignore]


def scan_skills(
    path: str | os.PathLike[str],
    *,
    ignore: Collection[str] = (),
    options: ScanOptions | None = None,
    judge: Judge | None = None,
) -> list[tuple[str, list[Diagnostic]]]:
    """Scan one file, one skill folder, or every skill of a folder of skills.

    The skills are those the one discovery finds (``skilldeck._tree``, as
    ``validate``, ``list --recursive`` and ``install --all`` find them): one
    ``(skill folder, findings)`` per skill, a skill nested in another scanned on
    its own (not again with the outer one). A file, or a folder holding no skill,
    gives one entry for itself (``scan_skill``). ``FileNotFoundError`` when
    ``path`` does not exist.
    """
    root, opts = _start(path, ignore, options)
    folders = find_skill_folders(root) if root.is_dir() else []
    if not folders:
        return [(str(root), _judged(root, _scan_path(root, opts), judge))]
    out: list[tuple[str, list[Diagnostic]]] = []
    for folder in folders:
        prefix = folder.rstrip(os.sep) + os.sep
        nested = [os.path.relpath(f, folder) for f in folders if f.startswith(prefix)]
        out.append((folder, _judged(folder, _scan_path(Path(folder), opts, nested), judge)))
    return out


# ---------------------------------------------------------------------------
# the installer's step

#: Values of ``[install] scan``: findings become warnings (``warn``, the default),
#: an error-level finding stops the install (``block``), or no scan (``off``).
SCAN_MODES = ("warn", "block", "off")


def scan_mode(config: object) -> str:
    """``[install] scan`` of a ``Config`` (``warn`` when unset); ``ConfigError`` if invalid."""
    table = getattr(config, "table", None)
    install = table("install") if callable(table) else {}
    mode = install.get("scan", "warn") if hasattr(install, "get") else "warn"
    if mode not in SCAN_MODES:
        raise ConfigError(
            f"install.scan must be one of {', '.join(SCAN_MODES)}, not {mode!r}",
            hint='[install]\nscan = "warn"',
        )
    return str(mode)


def install_scan(
    path: str | os.PathLike[str],
    *,
    mode: str = "warn",
    skill: str | None = None,
    ignore: Collection[str] = (),
    judge: Judge | None = None,
) -> tuple[Diagnostic, ...]:
    """The scan step of ``install``: run it on a staged skill before it is swapped in.

    Returns the findings for the install's warnings (empty with ``mode="off"``).
    With ``mode="block"``, an error-level finding raises ``InstallError`` naming
    the skill and the first findings, so nothing is installed.
    """
    if mode not in SCAN_MODES:
        raise ConfigError(f"unknown scan mode {mode!r}", hint="use warn, block or off")
    if mode == "off":
        return ()
    found = tuple(scan_skill(path, ignore=ignore, judge=judge))
    errors = [d for d in found if d.is_error]
    if mode == "block" and errors:
        name = skill or Path(path).name
        first = "; ".join(f"{d.code} {d.message}" for d in errors[:3])
        raise InstallError(
            f"the security scan blocked {name!r}: {len(errors)} error(s): {first}",
            skill=name,
            path=str(path),
            hint=f'review it with: {hint_command("scan", path)}; set [install] scan = "warn" '
            "to install anyway",
            findings=len(errors),
        )
    return found
