# ruff: noqa: S108  (temporary-folder names are matched, not used)
"""What a shell script does with what it downloads (``shlex`` tokens, not line patterns).

Follows, within one script (or one code block of a document): a file downloaded
(``curl -o F``, ``wget -O F``, ``wget URL``, ``> F``) and later run (``sh F``,
``chmod +x F``, ``./F``, ``source F``); a variable set from a download or a decoder
(``X=$(curl …)``) and later executed (``eval "$X"``, ``bash -c "$X"``, ``echo "$X" | sh``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from skilldeck.security._rules import DECODE_EXEC, DOWNLOAD_EXEC

__all__ = ["ShellFlow", "shell_flow"]

_FETCHERS = {"curl", "wget", "aria2c", "invoke-webrequest", "iwr", "lwp-download", "fetch"}
_RUNNERS = {
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "source",
    ".",
    "python",
    "python3",
    "perl",
    "ruby",
    "node",
    "php",
    "pwsh",
    "powershell",
    "exec",
    "sudo",
    "nohup",
    "setsid",
}
_PREFIX = {"sudo", "env", "time", "nohup", "exec", "command", "setsid", "-E"}
_SEPARATORS = {"|", "||", "&&", ";", "&", "(", ")", ";;", "|&", "\n", "{", "}", "$(", "`"}
_ASSIGN_FETCH = re.compile(
    r"^\s*(?:export\s+|local\s+|readonly\s+|declare\s+\S+\s+)?([A-Za-z_]\w*)=[\"']?(?:\$\(|`)\s*"
    r"(?:(?P<fetch>curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b|[^\n]*?\b(?P<dec>base64\s+(?:-d|--decode|-D)|xxd\s+-r|openssl\s+enc\b[^\n]*-d))"
)
_USE = r"[\"']?\$\{?%s\}?[\"']?"
_LINE_LIMIT = 4000


@dataclass(slots=True)
class ShellFlow:
    """``(code, 1-based line, message)`` findings and the files downloaded and run."""

    findings: list[tuple[str, int, str]] = field(default_factory=list)
    downloads: dict[str, int] = field(default_factory=dict)
    runs: dict[str, int] = field(default_factory=dict)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pending = ""
    start = 0
    for n, line in enumerate(text.split("\n")):
        if not pending:
            start = n
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((start, pending + line))
        pending = ""
    if pending:
        out.append((start, pending))
    return out


def _commands(line: str) -> list[list[str]]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars="();<>|&")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token in _SEPARATORS or (set(token) <= set("|&;()") and token):
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:  # an unclosed quote: fall back to words
        commands = [line.split()]
    return [c for c in commands if c]


def _strip_prefix(words: list[str]) -> list[str]:
    i = 0
    while i < len(words) and (
        words[i] in _PREFIX or ("=" in words[i] and not words[i].startswith("-"))
    ):
        i += 1
    return words[i:]


def _basename(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1].split("?", 1)[0]


def _resolve(word: str, variables: dict[str, str]) -> str:
    m = re.fullmatch(r"\$\{?(\w+)\}?(.*)", word)
    if m and m.group(1) in variables:
        return variables[m.group(1)] + m.group(2)
    return word


def _download_target(words: list[str], variables: dict[str, str]) -> str | None:
    prog = words[0].lower().rsplit("/", 1)[-1]
    url = next((w for w in words[1:] if "://" in w), None)
    for i, word in enumerate(words[1:], 1):
        nxt = words[i + 1] if i + 1 < len(words) else None
        if prog == "curl" and word in ("-o", "--output") and nxt:
            return _basename(_resolve(nxt, variables))
        if prog == "wget" and word in ("-O", "--output-document") and nxt and nxt != "-":
            return _basename(_resolve(nxt, variables))
        if word.startswith(("--output-document=", "--output=")):
            return _basename(_resolve(word.split("=", 1)[1], variables))
        if prog in ("invoke-webrequest", "iwr") and word.lower() == "-outfile" and nxt:
            return _basename(_resolve(nxt, variables))
        if word == ">" and nxt:
            return _basename(_resolve(nxt, variables))
    if url and (
        (prog == "wget" and "-O" not in words and "-qO-" not in words)
        or (prog == "curl" and ("-O" in words or "--remote-name" in words))
    ):
        name = _basename(url)
        return name or None
    return None


_FETCH_WORDS = ("curl", "wget", "aria2c", "iwr", "invoke-webrequest", "lwp-download", "fetch ")
_RUN_HINTS = (
    "chmod",
    "./",
    "/tmp/",
    "sh ",
    "source ",
    ". ",
    "python",
    "perl ",
    "ruby ",
    "node ",
    "php ",
    "eval",
    "exec ",
    "$home/",
    "~/",
)


def shell_flow(
    text: str, *, first_line: int = 0, check: Callable[[], None] | None = None
) -> ShellFlow:
    """Follow downloads and decoded values through one shell text; ``check`` is called
    every few lines (the scan's time budget)."""
    flow = ShellFlow()
    lower = text.lower()
    fetches = any(w in lower for w in _FETCH_WORDS) or "base64" in lower
    variables: dict[str, str] = {}
    tainted: dict[str, tuple[str, int]] = {}  # variable -> (code, line)
    for n, (start, line) in enumerate(_logical_lines(text)):
        if check is not None and n % 64 == 0:
            check()
        if len(line) > _LINE_LIMIT or not line.strip():
            continue
        if not fetches and not any(h in line.lower() for h in _RUN_HINTS):
            continue  # nothing downloaded here: only lines that may run a file matter
        lineno = first_line + start + 1
        m = _ASSIGN_FETCH.match(line)
        if m:
            tainted[m.group(1)] = (DOWNLOAD_EXEC if m.group("fetch") else DECODE_EXEC, lineno)
        simple = re.match(r"^\s*(?:export\s+|local\s+)?([A-Za-z_]\w*)=([^\s;&|`$()]+)\s*$", line)
        if simple:
            variables[simple.group(1)] = simple.group(2).strip("\"'")
        for name, (code, at) in tainted.items():
            use = _USE % re.escape(name)
            if (
                re.search(
                    rf"\b(?:eval|(?:ba|z|k|da)?sh\s+-c|python[0-9.]*\s+-c|node\s+-e|perl\s+-e|iex)\s+{use}",
                    line,
                )
                or re.search(
                    rf"(?:echo|printf)\s+(?:-\w+\s+)*(?:\"[^\"]*\"\s+)?{use}\s*\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b",
                    line,
                )
                or re.search(rf"(?:ba|z|k|da)?sh\s+<<<\s*{use}", line)
            ):
                what = "a download" if code == DOWNLOAD_EXEC else "decoded text"
                flow.findings.append((code, lineno, f"runs ${name}, set from {what} on line {at}"))
        for words in _commands(line):
            words = _strip_prefix(words)
            if not words:
                continue
            prog = words[0].lower().rsplit("/", 1)[-1]
            if prog in _FETCHERS:
                target = _download_target(words, variables)
                if target:
                    flow.downloads[target] = lineno
                continue
            ran = _ran_file(words, prog, variables)
            if ran and ran in flow.downloads:
                flow.findings.append(
                    (
                        DOWNLOAD_EXEC,
                        lineno,
                        f"runs {ran!r}, downloaded on line {flow.downloads[ran]}",
                    )
                )
            if ran:
                flow.runs.setdefault(ran, lineno - 1)
    return flow


def _ran_file(words: list[str], prog: str, variables: dict[str, str]) -> str | None:
    """The base name of the file a command runs (or makes executable), if any."""
    if prog in _RUNNERS and len(words) > 1:
        args = [w for w in words[1:] if not w.startswith("-")]
        if args and not args[0].startswith(("<", "$(")):
            return _basename(_resolve(args[0], variables))
        return None
    if prog == "chmod" and len(words) > 2 and any("x" in w or w[-1:] in "157" for w in words[1:-1]):
        return _basename(_resolve(words[-1], variables))
    first = _resolve(words[0], variables)
    if first.startswith(("./", "/tmp/", "~/", "$HOME/", "/var/tmp/", "/dev/shm/")):
        return _basename(first)
    return None
