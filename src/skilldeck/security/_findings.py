"""Findings in one decoded text: line rules, prose rules, hidden Unicode, comments,
and what one file does as a whole (secrets meeting a network sink)."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field

from skilldeck._diagnostics import CODES, Diagnostic, Severity
from skilldeck.security._behaviour import behaviour_findings
from skilldeck.security._engine import KEYWORDS, Hit, Pattern
from skilldeck.security._linechecks import download_origin, known_installer
from skilldeck.security._normal import normalise
from skilldeck.security._patterns import (
    BROWSER_STORE,
    CREDENTIAL_WORDS,
    HOME_CREDENTIAL,
    KEY_FILE,
    LINE_RULES,
    METADATA_HOST,
    METADATA_HOSTS,
    LineRule,
)
from skilldeck.security._prose import INJECTION, MODEL_ADDRESS, SCRIPT_COMMENTS
from skilldeck.security._pyflow import python_findings
from skilldeck.security._rules import (
    _HINTS,
    BIDI,
    CREDENTIALS,
    DECODE_EXEC,
    DESTROY,
    DOWNLOAD_EXEC,
    HIDDEN_COMMENT,
    INVISIBLE,
    LEAK,
    PERSIST,
    REVERSE_SHELL,
    SKIPPED,
    SMUGGLED,
    SOCIAL,
    SUPPLY,
)
from skilldeck.security._shflow import shell_flow
from skilldeck.security._text import Rule, Text

__all__ = ["Facts", "finding", "grade", "text_findings"]

_LEVELS = (Severity.INFO, Severity.WARNING, Severity.ERROR)
#: At most this many findings of one code in one file (the first ones, by line).
_PER_CODE = 50
#: Codes reported at each occurrence (others once per line).
_EACH = frozenset({BIDI, SMUGGLED})


@dataclass(slots=True)
class Facts:
    """What one file does, for the checks that join files of a skill."""

    kind: str = "data"
    #: ``(line, excerpt)`` of secrets gathered (whole environment, credential files)
    sources: list[tuple[int, str]] = field(default_factory=list)
    #: ``(line, excerpt)`` of network sinks that carry data out
    sinks: list[tuple[int, str]] = field(default_factory=list)
    #: base names of files downloaded, and of files run, with a line
    downloads: dict[str, int] = field(default_factory=dict)
    runs: dict[str, int] = field(default_factory=dict)
    #: temporary files named (``/tmp/x``): where one file may hand data to another
    staged: set[str] = field(default_factory=set)


def grade(code: str, shift: int) -> Severity:
    """The code's severity moved ``shift`` steps (clamped to info..error)."""
    level = _LEVELS.index(CODES[code].severity) + shift
    return _LEVELS[max(0, min(2, level))]


def finding(
    doc: Text, where: str, offset: int, code: str, message: str, severity: Severity
) -> Diagnostic:
    line, col = doc.position(offset)
    return Diagnostic.make(
        code, message, path=where, line=line, column=col, hint=_HINTS[code], severity=severity
    )


def excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text[: limit * 4].split())
    return repr(flat if len(flat) <= limit else flat[: limit - 1] + "…")


# ---------------------------------------------------------------------------
# hidden Unicode (character classes only: linear in Python's engine too)

import re  # noqa: E402  (kept next to the only patterns that use it)

_SUSPECT = re.compile(
    "[\u00ad\u180e\u200b-\u200d\u202a-\u202e\u2060-\u2069\ufe00-\ufe0f\ufeff\U000e0000-\U000e01ef]"
)
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_INVISIBLE = re.compile("[\u200b\u2060-\u2064\u180e\u00ad\ufeff]|(?<=[ -~])[\u200c\u200d](?=[ -~])")
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_VS_RUN = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}")


def _char_name(char: str) -> str:
    return f"U+{ord(char):04X} ({unicodedata.name(char, f'U+{ord(char):04X}')})"


def _fence_escape(doc: Text, at: int) -> bool:
    """U+200B between backticks or tildes: the usual way to show a code fence inside one."""
    if not doc.markdown or doc.text[at] != "\u200b":
        return False
    near = doc.text[max(0, at - 1) : at] + doc.text[at + 1 : at + 2]
    return any(c in "`~" for c in near)


def _paired(line: str) -> bool:
    """Does every bidirectional control on ``line`` close on it, in order (isolates by
    U+2069, embeddings and overrides by U+202C)? Translations wrap placeholders so."""
    stack: list[str] = []
    for char in _BIDI.findall(line):
        if char in "\u2066\u2067\u2068":
            stack.append("\u2069")
        elif char in "\u202a\u202b\u202d\u202e":
            stack.append("\u202c")
        elif not stack or stack.pop() != char:
            return False
    return not stack


def _unicode(doc: Text, where: str, kind: str = "script") -> Iterator[Diagnostic]:
    if doc.ascii or not _SUSPECT.search(doc.text):
        return
    reported = 0
    for m in _BIDI.finditer(doc.text):
        if reported >= _PER_CODE:
            break
        if kind != "script" and _paired(doc.line(doc.line_at(m.start()))):
            continue  # text direction in a translation or document, closed where it opens
        reported += 1
        message = f"bidirectional control character {_char_name(m.group())}"
        yield finding(doc, where, m.start(), BIDI, message, grade(BIDI, 0))
    first: dict[str, tuple[int, str]] = {}
    counts: dict[str, int] = {}
    for m in _INVISIBLE.finditer(doc.text):
        if m.group() == "\ufeff" and m.start() == 0:
            continue  # a byte-order mark at the start is harmless
        if _fence_escape(doc, m.start()):
            continue
        first.setdefault(INVISIBLE, (m.start(), f"invisible character {_char_name(m.group())}"))
        counts[INVISIBLE] = counts.get(INVISIBLE, 0) + 1
    for code in (INVISIBLE,):
        if code in first:
            at, message = first[code]
            more = counts[code] - 1
            if more:
                message += f" (and {more} more in this file)"
            yield finding(doc, where, at, code, message, grade(code, 0))
    shown_tags = 0
    for m in _TAGS.finditer(doc.text):
        if m.start() > 0 and doc.text[m.start() - 1] == "\U0001f3f4":
            continue  # subdivision flag emoji (e.g. England) are built from tag characters
        hidden = "".join(chr(ord(c) - 0xE0000) for c in m.group() if 0xE0020 <= ord(c) <= 0xE007E)
        shown = f": hidden text {hidden[:60]!r}" if hidden else ""
        yield finding(
            doc,
            where,
            m.start(),
            SMUGGLED,
            f"{len(m.group())} Unicode tag character(s){shown}",
            grade(SMUGGLED, 0),
        )
        shown_tags += 1
        if shown_tags >= _PER_CODE:
            break
    for n, m in enumerate(_VS_RUN.finditer(doc.text)):
        if n >= _PER_CODE:
            break
        yield finding(
            doc,
            where,
            m.start(),
            SMUGGLED,
            f"a run of {len(m.group())} variation selectors (can encode hidden bytes)",
            grade(SMUGGLED, 0),
        )


# ---------------------------------------------------------------------------
# line rules


#: Consequences that are errors in documentation too (a page that tells the model to
#: decode into a shell, open a reverse shell or wipe a home folder asks for it)
_DOC_ERRORS = frozenset({REVERSE_SHELL, DESTROY})
_BLOB = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}|(?:[0-9a-fA-F]{2}){12,}")
_PERMISSION_RULE = re.compile(r"\s*[\"'`]?(?:Bash|Shell|Run|PowerShell)\(")


def _command_shift(doc: Text, rule: LineRule, kind: str, offset: int, end: int, where: str) -> int:
    """How far a command finding's severity moves for where it stands."""
    if kind == "script":
        return 1 if rule.script_raises else 0
    if kind == "data" and rule.code in (SUPPLY, PERSIST):
        return 0
    if _PERMISSION_RULE.match(doc.line(doc.line_at(offset))):
        return -2  # "Bash(curl * | bash)" in an allow or deny list names a command
    keeps = rule.doc_keeps or rule.code in _DOC_ERRORS
    if rule.code == DOWNLOAD_EXEC:
        # a document that runs a download from a host that is not the skill's own
        # (named in its frontmatter or folder) asks the model to run a stranger's code;
        # the skill's own installer is documented like a vendor's: a note
        origin = download_origin(doc.line(doc.line_at(offset)), doc, where)
        if origin == "own":
            return -2
        keeps = origin == "stranger"
    elif rule.code == DECODE_EXEC:
        # an opaque literal decoded into a shell has no honest reading; ``-enc $cmd``
        # built from readable text a few lines up is how admins document remoting
        keeps = _BLOB.search(doc.line(doc.line_at(offset))) is not None
    shift = 0 if keeps else -1
    if doc.teaching(offset, end):
        # a lesson about attacks shows them: a note, whatever the command
        shift = -2 if keeps and not rule.doc_keeps else shift - 1
    return shift


def _prose_shift(doc: Text, offset: int, end: int, code: str = "") -> tuple[int, str]:
    if doc.in_frontmatter(offset):
        note = " in the frontmatter (the skill list shows it to the model on every turn)"
        return (
            (-1, note + ", in a passage about attacks") if doc.teaching(offset, end) else (0, note)
        )
    shift, note = 0, ""
    if code != SOCIAL and (doc.quoted(offset) or doc.in_table(offset)):
        # (a command the user is asked to paste is naturally in code)
        shift, note = -1, " (quoted or in code; probably an example)"
    if doc.teaching(offset, end):
        shift -= 1
        note = " (in a passage about attacks; probably an example)"
    return shift, note


def _run_rule(doc: Text, rule: LineRule) -> Iterator[tuple[int, Hit, int]]:
    """Matches of ``rule`` that pass its check, with the check's verdict; stops after
    ``_PER_CODE`` (more of the same would be dropped anyway)."""
    shown = 0
    for offset, hit in doc.matches(rule):
        if shown >= _PER_CODE:
            return
        verdict = 0
        if rule.check is not None:
            # the check reads the line with the one before it (a sentence may wrap)
            line = doc.line_at(offset)
            before = doc.line(line - 1)[-300:] + "\n" if line > 0 else ""
            shifted = Hit(hit.start + len(before), hit.end + len(before), hit.text)
            found = rule.check(before + doc.line(line), shifted)
            if found is None:
                continue
            verdict = found
        shown += 1
        yield offset, hit, verdict


_ACCESS = Pattern(
    r"\b(?:cat|cp|tar|zip|base64|scp|rsync|curl|wget|upload|send|read|open|copy|exfil\w*"
    r"|steal|grab|collect|harvest|dump|post|nc|type|Get-Content|readFile\w*|xxd|strings)\b"
)


def _line_findings(doc: Text, where: str, kind: str) -> Iterator[Diagnostic]:
    context = "" if kind == "script" else " (in documentation: the model may be told to run it)"
    for rule in LINE_RULES:
        for offset, hit, verdict in _run_rule(doc, rule):
            end = offset + len(hit.text)
            shift = verdict + _command_shift(doc, rule, kind, offset, end, where)
            # documentation names credential files to configure tools; it is the
            # reading or sending of them that matters
            quiet_doc = rule.code == CREDENTIALS and kind != "script"
            if quiet_doc and _ACCESS.search(doc.line(doc.line_at(offset))) is None:
                shift -= 1
            message = f"{rule.message}: {excerpt(hit.text)}{context}"
            yield finding(doc, where, offset, rule.code, message, grade(rule.code, shift))
    if kind == "script":
        for offset, hit, verdict in _run_rule(doc, SCRIPT_COMMENTS):
            message = f"{SCRIPT_COMMENTS.message}: {excerpt(hit.text)}"
            yield finding(
                doc, where, offset, HIDDEN_COMMENT, message, grade(HIDDEN_COMMENT, verdict)
            )


def _prose_findings(doc: Text, where: str) -> Iterator[Diagnostic]:
    for rule in INJECTION:
        for offset, hit, verdict in _run_rule(doc, rule):
            shift, note = _prose_shift(doc, offset, offset + len(hit.text), rule.code)
            message = f"{rule.message}{note}: {excerpt(hit.text)}"
            yield finding(doc, where, offset, rule.code, message, grade(rule.code, verdict + shift))
    yield from _comments(doc, where)


def _comments(doc: Text, where: str) -> Iterator[Diagnostic]:
    """HTML comments addressed to the model; found with ``str.find`` (linear)."""
    text = doc.text
    at = text.find("<!--")
    shown = 0
    while at != -1 and shown < _PER_CODE:
        end = text.find("-->", at + 4)
        if end == -1:
            break
        doc.budget.check()
        inner = text[at + 4 : end]
        addressed = len(inner.strip()) >= 12 and not doc.in_fence(at)
        if addressed and MODEL_ADDRESS.search(inner[:20_000]) is not None:
            shown += 1
            yield finding(
                doc,
                where,
                at,
                HIDDEN_COMMENT,
                "an HTML comment speaks to the model, and rendered Markdown hides it: "
                + excerpt(inner.strip()),
                grade(HIDDEN_COMMENT, 0),
            )
        at = text.find("<!--", end + 3)


# ---------------------------------------------------------------------------
# one file as a whole: secrets gathered, and a sink that carries data out

_SOURCES = (
    r"\bdict\s*\(\s*os\.environ\s*\)|\bos\.environ\.copy\s*\(\s*\)|\*\*\s*os\.environ\b"
    r"|\bos\.environ\.items\s*\(|\b(?:json\.dumps|str|repr)\s*\(\s*(?:dict\s*\(\s*)?os\.environ\b"
    r"|\bJSON\.stringify\s*\(\s*process\.env\b|\bObject\.(?:entries|keys|values)\s*\(\s*process\.env\b"
    r"|(?:^|[\s;|&(`])(?:env|printenv|export\s+-p)\s*(?:\||>|\)|`|$)"
    r"|\$\(\s*(?:env|printenv)\s*\)|\bGet-ChildItem\s+env:|\bgci\s+env:|\bls\s+env:"
    r"|\[(?:System\.)?Environment\]::GetEnvironmentVariables"
    r"|\bENV\.to_h\b|%ENV\b|\$_ENV\b|\bgetenv\s*\(\s*\)"
    r"|(?P<at>(?:~|\$HOME|\$\{HOME\}|expanduser\s*\(\s*[\"']~)[^\s\"']*?/\."
    rf"{HOME_CREDENTIAL})"
    rf"|{METADATA_HOST}"
    rf"|\b{KEY_FILE}\b(?:[^.]|$)|\bsecurity\s+(?:find|dump)-|{BROWSER_STORE}"
)
_SOURCE_WORDS = (
    "environ",
    "process.env",
    "env",
    "printenv",
    "export -p",
    "env:",
    "getenvironment",
    "%env",
    "$_env",
    "getenv",
    *CREDENTIAL_WORDS,
    "netrc",
    *METADATA_HOSTS,
    "security ",
)
_SINKS = (
    r"\b(?:requests|httpx|session|sess|client|aiohttp|s)\.(?:post|put|patch)\s*\("
    r"|\brequests\.request\s*\(\s*[\"'](?:POST|PUT|PATCH)|\burlopen\s*\([^\n]*\bdata\s*="
    r"|\bRequest\s*\([^\n]*\bdata\s*=|\.request\s*\(\s*[\"'](?:POST|PUT)[\"']"
    r"|\bsmtplib\b|\.send(?:all|to)?\s*\(|\bsendmail\b"
    r"|\bcurl\b[^\n]*\s(?:-d|--data(?:-binary|-raw|-urlencode|-ascii)?|-F|--form|-T"
    r"|--upload-file|-X\s*(?:POST|PUT))(?:\s|=|$|@)"
    r"|\bwget\b[^\n]*--post-(?:data|file)|(?:^|[\s|;&(])(?:nc|ncat|netcat)\s+(?:-\w+\s+)*[\w.-]+\s+\d+"
    r"|/dev/(?:tcp|udp)/|\bscp\s+\S+\s+\S+@|\brsync\b[^\n]*\s\S+@\S+:"
    r"|\bInvoke-(?:WebRequest|RestMethod)\b[^\n]*-(?:Method\s+(?:Post|Put)|Body|InFile)"
    r"|\bfetch\s*\([^\n]*\bmethod\s*:\s*[\"'](?:POST|PUT)|\baxios\.(?:post|put)\s*\("
    r"|\bXMLHttpRequest\b|\bnavigator\.sendBeacon\b|\bhttps?\.request\s*\("
    r"|\.UploadString\s*\(|\.UploadFile\s*\(|\bftplib\b|\bparamiko\b"
)
_SINK_WORDS = (
    ".post",
    ".put",
    ".patch",
    "request",
    "urlopen",
    "smtplib",
    ".send",
    "sendmail",
    "curl",
    "wget",
    "nc ",
    "ncat",
    "netcat",
    "/dev/tcp",
    "/dev/udp",
    "scp ",
    "rsync",
    "invoke-",
    "fetch",
    "axios",
    "xmlhttprequest",
    "sendbeacon",
    "upload",
    "ftplib",
    "paramiko",
)


_SOURCE_RULE = Rule(LEAK, _SOURCES, _SOURCE_WORDS, "secrets gathered")
_SINK_RULE = Rule(LEAK, _SINKS, _SINK_WORDS, "a network sink")


_STAGED = re.compile(r"(?:/tmp|/var/tmp|/dev/shm|\$TMPDIR|%TEMP%|\$env:TEMP)[/\\][\w.-]+")


_STAGED_WORDS = ("tmp", "temp", "/dev/shm")  # noqa: S108  (names matched, not used)
KEYWORDS.add(_STAGED_WORDS)


def collect_facts(doc: Text, kind: str) -> Facts:
    facts = Facts(kind=kind)
    if doc.has_any(_STAGED_WORDS):
        facts.staged = set(_STAGED.findall(doc.text)[:100])
    for offset, hit in doc.matches(_SOURCE_RULE):
        if len(facts.sources) < _PER_CODE:
            facts.sources.append((doc.line_at(offset), hit.text))
    for offset, hit in doc.matches(_SINK_RULE):
        if len(facts.sinks) < _PER_CODE:
            facts.sinks.append((doc.line_at(offset), hit.text))
    return facts


def leak_findings(doc: Text, where: str, facts: Facts, *, near: int | None) -> Iterator[Diagnostic]:
    """Secrets gathered and a network sink in the same file (within ``near`` lines
    of each other in documentation, where unrelated commands share a page)."""
    for src_line, src in facts.sources:
        for sink_line, sink in facts.sinks:
            if near is not None and abs(sink_line - src_line) > near:
                continue
            at = doc.starts[max(src_line, sink_line)]
            shift = 0 if facts.kind == "script" else -1
            if facts.kind != "script" and doc.teaching(at):
                shift -= 1
            message = (
                f"secrets are gathered ({excerpt(src, 50)}, line {src_line + 1}) in the same "
                f"file as a network sink ({excerpt(sink, 50)}, line {sink_line + 1})"
            )
            yield finding(doc, where, at, LEAK, message, grade(LEAK, shift))
            return


def text_findings(
    doc: Text, where: str, kind: str, *, language: str = "other"
) -> tuple[list[Diagnostic], Facts]:
    """Every finding of one text, capped per code, and the file's facts."""
    out: list[Diagnostic] = [*_unicode(doc, where, kind)]
    out.extend(_line_findings(doc, where, kind))
    view = _view(doc, kind, language)
    if view is not None:
        out.extend(_view_findings(doc, view, where, kind))
    if kind != "script":
        out.extend(_prose_findings(doc, where))
    for whole in (doc, view) if view is not None else (doc,):
        for at, code, message, raised in behaviour_findings(whole, where, kind):
            out.append(finding(whole, where, at, code, message, grade(code, 1 if raised else 0)))
    facts = collect_facts(view or doc, kind)
    if not (kind == "script" and language == "python" and _parses(doc.text)):
        # Python that parses is followed by its data flow instead (an environment copy
        # handed to a subprocess is not a leak because the file also posts a report)
        out.extend(leak_findings(doc, where, facts, near=None if kind == "script" else 6))
    out.extend(flow_findings(doc, where, kind, language, facts))
    return _capped(out), facts


def _view(doc: Text, kind: str, language: str) -> Text | None:
    """The normalised view of a script or document (``_normal``), when it differs."""
    if kind == "data" and not doc.markdown:
        language = "other"
    elif kind != "script":
        language = "doc"
    elif language == "other":
        language = "shell"
    doc.budget.check()
    text = normalise(doc.text, language, markdown=doc.markdown, check=doc.budget.check)
    return None if text is None else Text(text, markdown=doc.markdown, budget=doc.budget)


_RESOLVED = " (with its variables, continued lines and encodings resolved)"


def _view_findings(doc: Text, view: Text, where: str, kind: str) -> Iterator[Diagnostic]:
    """The command rules on the normalised view; a finding on a line that reads
    differently there says so."""
    for diag in _line_findings(view, where, kind):
        line = (diag.line or 1) - 1
        if line < doc.line_count and view.line(line) == doc.line(line):
            continue  # the original line was checked already
        yield Diagnostic(
            diag.code,
            diag.severity,
            diag.message + _RESOLVED,
            diag.path,
            diag.line,
            1,
            diag.hint,
        )


def _parses(source: str) -> bool:
    try:
        compile(source, "<scan>", "exec", flags=0x400, dont_inherit=True)  # PyCF_ONLY_AST
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


_SHELL_FENCES = ("", "sh", "bash", "shell", "console", "zsh", "terminal", "shell-session")


def flow_findings(
    doc: Text, where: str, kind: str, language: str, facts: Facts
) -> Iterator[Diagnostic]:
    """Data flow within a Python or shell script, or within a shell block of a document."""
    doc.budget.check()
    if kind == "script" and language == "python":
        try:
            found, downloads, runs = python_findings(doc.text)
        except RecursionError:  # padding a call until ast gives up hid what it runs
            yield Diagnostic.make(
                SKIPPED,
                "not fully scanned: the Python is nested too deeply to follow its data flow",
                path=where,
                hint=_HINTS[SKIPPED],
                severity=Severity.WARNING,
            )
            return
        facts.downloads.update(downloads)
        facts.runs.update(runs)
        for item in found:
            offset = doc.starts[min(item.line, len(doc.starts)) - 1] + item.column - 1
            raised = item.message.endswith("(error)")
            message = item.message.removesuffix(" (error)")
            level = grade(item.code, 1 if raised else 0)
            yield finding(doc, where, offset, item.code, message, level)
        return
    if kind == "script" and language == "shell":
        yield from _shell_blocks(doc, where, [(0, doc.text)], 0, facts)
        return
    if kind == "doc" and ("`" in doc.text or "~~~" in doc.text):
        blocks = _inline_commands(doc)
        for start, end in zip(doc.fence_starts, doc.fence_ends, strict=True):
            first = doc.line_at(start)
            lang = doc.line(first).strip(" `~").split(" ", 1)[0].lower()
            if lang in _SHELL_FENCES:
                body_start = doc.starts[first + 1] if first + 1 < len(doc.starts) else end
                blocks.append((first + 1, doc.text[body_start:end]))
        yield from _shell_blocks(doc, where, blocks, -1, facts)


_INLINE = re.compile(r"`([^`\n]{3,300})`")
_RUNS_A_FILE = re.compile(
    r"\s*(?:sudo\s+)?(?:(?:ba|z|k|da)?sh|source|\.|python[0-9.]*|node|perl|ruby|php|pwsh|chmod"
    r"|powershell)\s|\s*(?:\./|~/|/tmp/)"
)


def _inline_commands(doc: Text) -> list[tuple[int, str]]:
    """Inline code spans outside fences ("run `bash tool.sh`"), each a one-line block."""
    out: list[tuple[int, str]] = []
    for m in _INLINE.finditer(doc.text):
        if len(out) >= 500:
            break
        if _RUNS_A_FILE.match(m.group(1)) and not doc.in_fence(m.start()):
            out.append((doc.line_at(m.start()), m.group(1)))
    return out


def _shell_blocks(
    doc: Text, where: str, blocks: list[tuple[int, str]], shift: int, facts: Facts
) -> Iterator[Diagnostic]:
    for first, body in blocks:
        doc.budget.check()
        flow = shell_flow(body[:200_000], first_line=first, check=doc.budget.check)
        facts.downloads.update(flow.downloads)
        for name, line in flow.runs.items():
            facts.runs.setdefault(name, line)
        for code, line, message in flow.findings:
            offset = doc.starts[min(line, len(doc.starts)) - 1]
            level = shift
            if shift and (known_installer(body) or doc.teaching(offset)):
                level -= 1
            yield finding(doc, where, offset, code, message, grade(code, level))


def _capped(found: list[Diagnostic]) -> list[Diagnostic]:
    """One finding per code and line (the most severe), at most ``_PER_CODE`` per code."""
    best: dict[tuple[str, int | None, int | None], Diagnostic] = {}
    for diag in found:
        key = (diag.code, diag.line, diag.column if diag.code in _EACH else 0)
        held = best.get(key)
        if held is None or _LEVELS.index(diag.severity) > _LEVELS.index(held.severity):
            best[key] = diag
    per_code: dict[str, int] = {}
    out: list[Diagnostic] = []
    for diag in sorted(best.values(), key=lambda d: (d.line or 0, d.column or 0, d.code)):
        per_code[diag.code] = per_code.get(diag.code, 0) + 1
        if per_code[diag.code] <= _PER_CODE:
            out.append(diag)
    return out
