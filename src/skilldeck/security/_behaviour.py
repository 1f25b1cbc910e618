"""What one file does as a whole: capabilities found anywhere in it that together
make an attack, however the steps are spread over its lines.

- a socket to a remote host, its stream, and code run from what arrives: a
  reverse shell (PowerShell, Python, Node);
- the clipboard read, a crypto-address pattern, and the clipboard written: an
  address swap;
- a package or repository published or pushed, after listing the user's own
  packages or repositories: worm-style republishing;
- an editor task that runs when a folder is opened, a ``.pth`` file with code,
  a ``.pth`` written into ``site-packages``, a CI workflow written with a
  download or the repository's secrets in it: code that runs later, elsewhere.

Every capability is one RE2 pattern searched once over the file (linear), and
only when the file holds one of a few plain words.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from skilldeck.security._engine import KEYWORDS, Pattern
from skilldeck.security._rules import DOWNLOAD_EXEC, HIJACK, PERSIST, REVERSE_SHELL, WORM
from skilldeck.security._text import Text

__all__ = ["Step", "behaviour_findings"]


@dataclass(frozen=True, slots=True)
class _Step:
    words: tuple[str, ...]
    pattern: Pattern


def _step(source: str, *words: str) -> _Step:
    KEYWORDS.add(words)  # found with every other rule's words in one pass over a file
    return _Step(words, Pattern(source))


_SOCKET = _step(
    r"net\.sockets\.tcpclient|\btcpclient\s*\(|\bsocket\.create_connection\s*\("
    r"|\.connect\s*\(\s*\(|\bnet\.(?:connect|createconnection)\s*\(|\bnew\s+net\.socket\b"
    r"|/dev/tcp/",
    "tcpclient",
    "socket",
    "net.",
    "/dev/tcp",
)
_STREAM = _step(
    r"\.getstream\s*\(|\.fileno\s*\(|\.pipe\s*\(|\bdup2\b|\bstdin\s*=|\bstreamreader\b",
    "getstream",
    "fileno",
    ".pipe",
    "dup2",
    "stdin",
    "streamreader",
)
_RUNS_INPUT = _step(
    r"\b(?:iex|invoke-expression)\b|\bspawn\s*\(\s*['\"](?:/bin/)?(?:ba|z)?sh|\bcmd\.exe\b"
    r"|['\"]/bin/(?:ba|z)?sh['\"]|\bpty\.spawn\b|\bexec\s*\(|\bpowershell(?:\.exe)?['\"]",
    "iex",
    "invoke-expression",
    "spawn",
    "cmd.exe",
    "/bin/",
    "exec(",
    "powershell",
)
_CLIP_READ = _step(
    r"\bpyperclip\.paste\b|\bclipboardy\.read|\bclipboard\.readtext\b|\bget-clipboard\b"
    r"|\bpbpaste\b|\bxclip\b[^\n]*-o\b|\bxsel\b[^\n]*-o\b|\bgetclipboarddata\b"
    r"|\bclipboard\.(?:read|paste|get)\w*\s*\(|\bwin32clipboard\.getclipboard",
    "clip",
    "pbpaste",
    "xsel",
)
_CLIP_WRITE = _step(
    r"\bpyperclip\.copy\b|\bclipboardy\.write|\bclipboard\.writetext\b|\bset-clipboard\b"
    r"|\bpbcopy\b|\bxclip\b|\bxsel\b|\bsetclipboarddata\b|\bclipboard\.(?:write|copy|set)\w*\s*\(",
    "clip",
    "pbcopy",
    "xsel",
)
_ADDRESS = _step(
    r"0x\[a-f|0x\[0-9a-f|\[a-fa-f0-9\]\{40\}|\(?bc1|\[13\]\[|\b0x[0-9a-f]{40}\b|\bbc1[0-9a-z]{20,}"
    r"|\b(?:wallet|bitcoin|ethereum|solana|monero|usdt|btc|eth)\b",
    "0x",
    "bc1",
    "[13]",
    "wallet",
    "bitcoin",
    "ethereum",
    "solana",
    "monero",
    "usdt",
    "btc",
    "eth",
)
_PUBLISH = _step(
    r"\b(?:npm|yarn|pnpm)\s+publish\b|\btwine\s+upload\b|\bgem\s+push\b|\bcargo\s+publish\b"
    r"|\bgit\s+push\b|\bgh\s+repo\s+(?:create|fork)\b",
    "publish",
    "twine",
    "gem push",
    "git push",
    "gh repo",
)
_MINE = _step(
    r"\bnpm\s+access\s+(?:ls-packages|list\s+packages)\b|\bnpm\s+search\b[^\n]*maintainer"
    r"|\bmaintainer:|\bgh\s+repo\s+list\b|/user/repos\b|/-/v1/search\b|/-/user/|\bls-packages\b"
    r"|\bgh\s+api\s+user/repos\b",
    "npm access",
    "npm search",
    "maintainer:",
    "gh repo list",
    "/user/repos",
    "/-/",
    "ls-packages",
)
_AUTORUN = _step(
    r"\"runon\"\s*:\s*\"folderopen\"|\"task\.allowautomatictasks\"\s*:\s*\"on\"",
    "runon",
    "allowautomatictasks",
)
_RUNS_HIDDEN = _step(
    r"\b(?:curl|wget|iwr|irm|invoke-webrequest|iex|base64)\b|https?://|\s\.[\w-]+/\.[\w.-]+"
    r"|\s\.[\w.-]+\.(?:js|py|sh|ps1)\b|\"reveal\"\s*:\s*\"never\"",
    "curl",
    "wget",
    "iwr",
    "irm",
    "invoke-",
    "iex",
    "base64",
    "http",
    "/.",
    " .",
    "reveal",
)
_PTH_WRITE = _step(
    r"[\w-]+\.pth\b|\b(?:site|user)customize\.py\b",
    ".pth",
    "customize.py",
)
_SITE = _step(
    r"site-packages|getsitepackages|getusersitepackages|get_path\s*\(\s*['\"]purelib"
    r"|usersitepackages|\bsite\.\w+",
    "site",
    "purelib",
)
_WORKFLOW = _step(
    r"\.github/workflows/|\.gitlab-ci\.ya?ml|azure-pipelines\.ya?ml|\.circleci/config",
    ".github/workflows",
    ".gitlab-ci",
    "azure-pipelines",
    ".circleci",
)
_WRITES = _step(
    r">>?\s*[\"']?\S*(?:workflows|gitlab-ci|pipelines|circleci)|\bcat\s*>|\btee\b|\bwrite_text\b"
    r"|\bwritefile\w*\b|\bopen\s*\(|\.write\s*\(|\bset-content\b|\bout-file\b|\bcp\s|\bmv\s",
    ">",
    "tee",
    "write",
    "open(",
    "set-content",
    "out-file",
    "cp ",
    "mv ",
)
_CI_PAYLOAD = _step(
    r"\b(?:curl|wget|iwr|base64)\b|\$\{\{\s*secrets\.|\btojson\s*\(\s*secrets\b",
    "curl",
    "wget",
    "iwr",
    "base64",
    "secrets",
)


_FETCH = _step(
    r"\b(?:https?\.get|https?\.request|fetch|axios(?:\.get)?|got|needle|request)\s*\("
    r"|\bdownloadstring\b|\bdownloaddata\b|\binvoke-webrequest\b|\binvoke-restmethod\b"
    r"|\biwr\b|\birm\b|\bnet\.webclient\b|\bxmlhttprequest\b",
    "get(",
    "request(",
    "fetch",
    "axios",
    "got(",
    "needle",
    "download",
    "invoke-",
    "iwr",
    "irm",
    "webclient",
    "xmlhttprequest",
)
_DYNAMIC = _step(
    r"\beval\s*\(|\bnew\s+function\s*\(|\bfunction\s*\(\s*['\"]|\bvm\.run\w*\s*\("
    r"|\brunin(?:new|this)context\b|\._compile\s*\(|\binvoke-expression\b|\biex\b"
    r"|\[scriptblock\]::create\b|\binvoke-command\b[^\n]*-scriptblock",
    "eval",
    "function",
    "vm.",
    "runin",
    "_compile",
    "invoke-expression",
    "iex",
    "scriptblock",
)
#: a file saved from a download (PowerShell, Node, .NET), its name in group ``f``
_SAVED = Pattern(
    r"-outfile\s+[\"'(]*(?P<f>[^\s\"')]+)|downloadfile\s*\([^,\n]+,\s*[\"'(]*(?P<f2>[^\s\"')]+)"
    r"|createwritestream\s*\(\s*[\"'(]*(?P<f3>[^\s\"')]+)"
)
_SAVED_WORDS = ("-outfile", "downloadfile", "createwritestream")
KEYWORDS.add(_SAVED_WORDS)
_RUN_VERBS = (
    "start-process",
    "invoke-item",
    "& ",
    "execsync(",
    "execfilesync(",
    "spawn(",
    "spawnsync(",
    "execfile(",
    "exec(",
    "fork(",
    "chmod",
    ".\\",
    "./",
)


def _download_run(doc: Text) -> tuple[int, str] | None:
    """A file saved from a download and run later in the same PowerShell or Node file."""
    if not doc.has_any(_SAVED_WORDS):
        return None
    names: list[str] = []
    for hit in _SAVED.finditer(doc.text, limit=20):
        raw = hit.text.replace("\\", "/").rstrip("\"');,").rsplit("/", 1)[-1].lower()
        if len(raw) >= 3 and raw not in names:
            names.append(raw)
    for n in range(doc.line_count):
        line = doc.line(n).lower()
        if any(v in line for v in _RUN_VERBS):
            for name in names:
                if name in line and not any(
                    w in line for w in ("-outfile", "downloadfile", "createwritestream")
                ):
                    return doc.starts[n], name
    return None


def _at(doc: Text, step: _Step) -> int | None:
    """The character offset of the first match of ``step`` in ``doc``, or ``None``."""
    if not doc.has_any(step.words):
        return None
    doc.budget.check()
    for bstart, _ in step.pattern.spans(doc.data):
        return doc.to_char(bstart)
    return None


#: ``(offset, code, message, raised)``: raised findings are one step above the code's grade
Step = tuple[int, str, str, bool]


def _finding(doc: Text, where: str, at: int, code: str, message: str, *, error: bool) -> Step:
    return (at, code, message, error)


def behaviour_findings(doc: Text, where: str, kind: str) -> Iterator[Step]:
    """Attacks made of steps anywhere in one file (``doc`` is its normalised view)."""
    name = where.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name.endswith(".pth"):
        for n in range(doc.line_count):
            if doc.line(n).lstrip().startswith("import"):
                yield _finding(
                    doc,
                    where,
                    doc.starts[n],
                    PERSIST,
                    "a .pth file with an import line: Python runs it at every start-up "
                    "once the file is in site-packages",
                    error=True,
                )
                break
    if kind == "script":
        yield from _script_behaviour(doc, where)
    if kind != "doc":
        at = _at(doc, _AUTORUN)
        if at is not None:
            risky = _at(doc, _RUNS_HIDDEN) is not None
            yield _finding(
                doc,
                where,
                at,
                PERSIST,
                "an editor task runs by itself when the folder is opened"
                + (" and it downloads or runs a hidden file" if risky else ""),
                error=risky,
            )


_TOGETHER: tuple[tuple[_Step, tuple[_Step, ...], str, str, bool], ...] = (
    (
        _SOCKET,
        (_STREAM, _RUNS_INPUT),
        REVERSE_SHELL,
        "opens a reverse shell: a socket to a remote host whose input is run as commands",
        False,
    ),
    (
        _CLIP_READ,
        (_CLIP_WRITE, _ADDRESS),
        HIJACK,
        "reads the clipboard, matches a crypto address and writes the clipboard (an address swap)",
        False,
    ),
    (
        _PUBLISH,
        (_MINE,),
        WORM,
        "lists the user's own packages or repositories and publishes or pushes to them",
        False,
    ),
    (
        _PTH_WRITE,
        (_SITE,),
        PERSIST,
        "writes a .pth file or sitecustomize into site-packages (it runs at every Python start-up)",
        True,
    ),
    (
        _WORKFLOW,
        (_WRITES, _CI_PAYLOAD),
        PERSIST,
        "writes a CI workflow that downloads code or reads the repository's secrets",
        True,
    ),
)
"""What a script does when one file holds each of these steps: the first step (where
the finding points), the steps that must be in the same file too, the code, the
message, and whether it is an error."""


def _script_behaviour(doc: Text, where: str) -> Iterator[Step]:
    if not where.lower().endswith((".py", ".pyw", ".sh", ".bash", ".zsh")):
        # Python and shell have their own data flow; JavaScript and PowerShell are
        # judged by the file: a download and code built at run time in one file
        fetched = _at(doc, _FETCH)
        dynamic = _at(doc, _DYNAMIC) if fetched is not None else None
        if fetched is not None and dynamic is not None:
            yield _finding(
                doc,
                where,
                dynamic,
                DOWNLOAD_EXEC,
                "downloads code and runs it as code (a fetch and eval, Function, iex or a "
                "script block in one file)",
                error=False,
            )
        saved = _download_run(doc)
        if saved is not None:
            yield _finding(
                doc,
                where,
                saved[0],
                DOWNLOAD_EXEC,
                f"runs {saved[1]!r}, which it downloads",
                error=False,
            )
    for anchor, also, code, message, error in _TOGETHER:
        at = _at(doc, anchor)
        if at is not None and all(_at(doc, step) is not None for step in also):
            yield _finding(doc, where, at, code, message, error=error)
