"""Running the scan: one text, one file, a folder; and the installer's step."""

from __future__ import annotations

import bisect
import os
import re
import stat
import unicodedata
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from skilldeck._diagnostics import Diagnostic, Severity
from skilldeck._errors import ConfigError, InstallError
from skilldeck._scan._rules import (
    _BIDI,
    _COMMANDS,
    _CREDENTIALS,
    _FENCE,
    _HINTS,
    _HTML_COMMENT,
    _IMPERATIVE,
    _INJECTION,
    _INVISIBLE,
    _SKIP_DIRS,
    _SUSPECT,
    _TAGS,
    _VS_RUN,
    BIDI,
    BINARY,
    HIDDEN_COMMENT,
    INFO,
    INVISIBLE,
    ROLE,
    SKIPPED,
    SMUGGLED,
    W,
    _binary_kind,
    _kind,
    _Rule,
)

__all__ = ["SCAN_MODES", "ScanOptions", "install_scan", "scan_mode", "scan_skill", "scan_text"]


@dataclass(frozen=True, slots=True)
class ScanOptions:
    """Limits of one scan: files larger than ``max_file_bytes`` are skipped (SK614)."""

    max_file_bytes: int = 4 * 1024 * 1024
    max_files: int = 10_000
    ignore: frozenset[str] = frozenset()


# ---------------------------------------------------------------------------
# one text


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class _Text:
    """Line/column lookup and code/quote context for one decoded file."""

    def __init__(self, text: str, *, markdown: bool) -> None:
        self.text = text
        self.ascii = text.isascii()
        # same length as text (str.lower() may change it outside ASCII)
        lower = text.lower()
        self.lower = lower if len(lower) == len(text) else text.translate(_ASCII_LOWER)
        self._lines_of: dict[str, set[int]] = {}
        self.starts = [0]
        self.starts.extend(m.end() for m in re.finditer("\n", text))
        self.fenced: list[tuple[int, int]] = []
        self.front_end = 0
        if markdown:
            self._find_regions()

    def _find_regions(self) -> None:
        lines = self.text.split("\n")
        if lines and lines[0].strip() == "---":
            for i in range(1, len(lines)):
                if lines[i].strip() in ("---", "..."):
                    self.front_end = self.starts[i] if i < len(self.starts) else len(self.text)
                    break
        opened: tuple[int, str] | None = None
        for i, line in enumerate(lines):
            m = _FENCE.match(line)
            if m is None:
                continue
            mark = m.group(1)
            if opened is None:
                opened = (self.starts[i], mark)
            elif mark[0] == opened[1][0] and len(mark) >= len(opened[1]):
                self.fenced.append((opened[0], self.starts[i] + len(line)))
                opened = None
        if opened is not None:
            self.fenced.append((opened[0], len(self.text)))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def line_text(self, offset: int) -> str:
        line = bisect.bisect_right(self.starts, offset) - 1
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[line] : end]

    def matches(self, rule: _Rule) -> Iterator[re.Match[str]]:
        """Matches of ``rule`` on the lines that hold one of its keywords."""
        lines: set[int] = set()
        for word in rule.keywords:
            lines |= self._lines_with(word)
        for line in sorted(lines):
            end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
            yield from rule.pattern.finditer(self.text, self.starts[line], end)

    def _lines_with(self, word: str) -> set[int]:
        found = self._lines_of.get(word)
        if found is None:
            found = set()
            at = self.lower.find(word)
            while at != -1:
                line = bisect.bisect_right(self.starts, at) - 1
                found.add(line)
                nxt = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
                at = self.lower.find(word, nxt)
            self._lines_of[word] = found
        return found

    def in_frontmatter(self, offset: int) -> bool:
        return offset < self.front_end

    def quoted(self, offset: int) -> bool:
        """Inside a code fence, inline code or double quotes on its line?"""
        if any(a <= offset < b for a, b in self.fenced):
            return True
        line = bisect.bisect_right(self.starts, offset) - 1
        before = self.text[self.starts[line] : offset]
        if before.count("`") % 2 == 1:
            return True
        if before.count('"') % 2 == 1:
            return True
        return before.count("\u201c") > before.count("\u201d")


def _finding(
    doc: _Text,
    where: str,
    offset: int,
    code: str,
    message: str,
    severity: Severity | None = None,
) -> Diagnostic:
    """A finding at ``offset`` of ``doc``, with the code's hint."""
    line, col = doc.position(offset)
    return Diagnostic.make(
        code, message, path=where, line=line, column=col, hint=_HINTS[code], severity=severity
    )


def _char_name(char: str) -> str:
    return f"U+{ord(char):04X} ({unicodedata.name(char, f'U+{ord(char):04X}')})"


def _unicode_findings(doc: _Text, where: str) -> Iterator[Diagnostic]:
    if doc.ascii or not _SUSPECT.search(doc.text):
        return
    for m in _BIDI.finditer(doc.text):
        yield _finding(
            doc, where, m.start(), BIDI, f"bidirectional control character {_char_name(m.group())}"
        )
    for m in _INVISIBLE.finditer(doc.text):
        if m.group() == "\ufeff" and m.start() == 0:
            continue  # a byte-order mark at the start is harmless
        yield _finding(
            doc, where, m.start(), INVISIBLE, f"invisible character {_char_name(m.group())}"
        )
    for m in _TAGS.finditer(doc.text):
        if m.start() > 0 and doc.text[m.start() - 1] == "\U0001f3f4":
            continue  # subdivision flag emoji (e.g. England) are built from tag characters
        hidden = "".join(chr(ord(c) - 0xE0000) for c in m.group() if 0xE0020 <= ord(c) <= 0xE007E)
        shown = f": hidden text {hidden[:60]!r}" if hidden else ""
        yield _finding(
            doc, where, m.start(), SMUGGLED, f"{len(m.group())} Unicode tag character(s){shown}"
        )
    for m in _VS_RUN.finditer(doc.text):
        yield _finding(
            doc,
            where,
            m.start(),
            SMUGGLED,
            f"a run of {len(m.group())} variation selectors (can encode hidden bytes)",
        )


def _command_findings(doc: _Text, where: str, kind: str) -> Iterator[Diagnostic]:
    severity = None if kind == "script" else W
    context = "" if kind == "script" else " (in documentation: the model may be told to run it)"
    seen: set[tuple[str, int]] = set()
    for rule in (*_COMMANDS, _CREDENTIALS):
        for m in doc.matches(rule):
            line = doc.position(m.start())[0]
            if (rule.code, line) in seen:
                continue
            seen.add((rule.code, line))
            message = f"{rule.message}: {_excerpt(m.group())}{context}"
            yield _finding(doc, where, m.start(), rule.code, message, severity)


def _injection_findings(doc: _Text, where: str) -> Iterator[Diagnostic]:
    seen: set[int] = set()
    for rule in _INJECTION:
        code, what = rule.code, rule.message
        for m in doc.matches(rule):
            if m.start() in seen:
                continue
            seen.add(m.start())
            severity: Severity | None = None
            if doc.in_frontmatter(m.start()):
                note = " in the frontmatter (tier 1 shows it to the model on every turn)"
            elif doc.quoted(m.start()):
                note = " (quoted or in code; probably an example)"
                severity = W if code != ROLE else INFO
            else:
                note = ""
            message = f"{what}{note}: {_excerpt(m.group())}"
            yield _finding(doc, where, m.start(), code, message, severity)
    if "<!--" not in doc.text:
        return
    for m in _HTML_COMMENT.finditer(doc.text):
        inner = m.group(1)
        if len(inner.strip()) < 20 or not _IMPERATIVE.search(inner):
            continue
        if doc.quoted(m.start()):
            continue
        yield _finding(
            doc,
            where,
            m.start(),
            HIDDEN_COMMENT,
            "an HTML comment holds text the model reads but rendered Markdown hides: "
            + _excerpt(inner.strip()),
        )


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


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
    doc = _Text(text, markdown=kind == "doc")
    out = [*_unicode_findings(doc, path or "<text>")]
    out.extend(_command_findings(doc, path or "<text>", kind))
    if kind != "script":
        out.extend(_injection_findings(doc, path or "<text>"))
    if path is None:
        out = [_without_path(d) for d in out]
    return sorted(
        (d for d in out if d.code not in ignore),
        key=lambda d: (d.line or 0, d.column or 0, d.code),
    )


def _without_path(diag: Diagnostic) -> Diagnostic:
    return Diagnostic(
        diag.code, diag.severity, diag.message, None, diag.line, diag.column, diag.hint
    )


# ---------------------------------------------------------------------------
# a folder


def _walk(root: Path, limit: int) -> Iterator[tuple[str, Path]]:
    """``(relpath, path)`` of every regular file below ``root``; links are not followed
    out of it (the catalog and the installer report such links)."""
    real_root = os.path.realpath(root)
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            full = Path(dirpath) / name
            if full.is_symlink():
                target = os.path.realpath(full)
                if not target.startswith(real_root + os.sep):
                    continue
            count += 1
            if count > limit:
                return
            yield full.relative_to(root).as_posix(), full


def _scan_file(path: Path, rel: str, display: str, opts: ScanOptions) -> list[Diagnostic]:
    try:
        st = os.stat(path)
    except OSError as exc:
        return [_skipped(display, f"cannot read it: {exc.strerror}")]
    if not stat.S_ISREG(st.st_mode):
        return []
    try:
        with open(path, "rb") as fh:
            head = fh.read(64 * 1024)
            found = _binary_kind(head)
            if found is not None:
                return [
                    Diagnostic.make(
                        BINARY,
                        f"{rel} is {found}",
                        path=display,
                        line=None,
                        column=None,
                        hint=_HINTS[BINARY],
                    )
                ]
            if b"\x00" in head[:8192]:
                return []  # other binary data (images, archives): nothing textual to scan
            if st.st_size > opts.max_file_bytes:
                return [_skipped(display, f"{st.st_size} bytes, over the scan limit")]
            data = head + fh.read()
    except OSError as exc:
        return [_skipped(display, f"cannot read it: {exc.strerror}")]
    text = data.decode("utf-8", errors="replace")
    return scan_text(text, path=display, kind=_kind(rel, head, st.st_mode), ignore=opts.ignore)


def _skipped(display: str, why: str) -> Diagnostic:
    return Diagnostic.make(SKIPPED, f"not scanned: {why}", path=display, hint=_HINTS[SKIPPED])


def scan_skill(
    path: str | os.PathLike[str],
    *,
    ignore: Collection[str] = (),
    options: ScanOptions | None = None,
) -> list[Diagnostic]:
    """Scan a skill folder (every file below it) or one file; findings sorted by place.

    Never raises for what it finds; a path that does not exist raises
    ``FileNotFoundError``. ``ignore`` drops codes (a host's decision, not the
    skill's). The installer calls this between staging and swapping in.
    """
    opts = options or ScanOptions()
    if ignore:
        opts = ScanOptions(opts.max_file_bytes, opts.max_files, frozenset(ignore) | opts.ignore)
    root = Path(path)
    if not os.path.lexists(root):
        raise FileNotFoundError(2, "no such file or folder", str(root))
    if not root.is_dir():
        found = _scan_file(root, root.name, str(root), opts)
    else:
        found = []
        for rel, full in _walk(root, opts.max_files):
            found.extend(_scan_file(full, rel, str(full), opts))
    return [d for d in found if d.code not in opts.ignore]


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
    found = tuple(scan_skill(path, ignore=ignore))
    errors = [d for d in found if d.is_error]
    if mode == "block" and errors:
        name = skill or Path(path).name
        first = "; ".join(f"{d.code} {d.message}" for d in errors[:3])
        raise InstallError(
            f"the security scan blocked {name!r}: {len(errors)} error(s): {first}",
            skill=name,
            path=str(path),
            hint=f"review it with 'skilldeck scan {path}'; set [install] scan = \"warn\" "
            "to install anyway",
            findings=len(errors),
        )
    return found
