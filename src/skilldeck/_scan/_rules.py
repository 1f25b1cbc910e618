"""The scan's codes and patterns: what is looked for, in which files, with which hint."""

from __future__ import annotations

import os
import re

from skilldeck._diagnostics import Severity, register_code

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

DOWNLOAD_EXEC = register_code("SK601", E, "a script runs what it downloads")
DECODE_EXEC = register_code("SK602", E, "a script decodes text and executes it")
CREDENTIALS = register_code("SK603", E, "a file reads a credential location")
BINARY = register_code("SK604", E, "a binary executable is bundled")
BIDI = register_code("SK605", E, "bidirectional control characters (Trojan Source)")
INVISIBLE = register_code("SK606", W, "invisible characters (zero-width, word joiner)")
SMUGGLED = register_code("SK607", E, "Unicode tag characters or variation-selector runs")
OVERRIDE = register_code("SK608", E, "text tells the model to ignore earlier instructions")
CONCEAL = register_code("SK609", E, "text tells the model to hide something from the user")
ROLE = register_code("SK610", W, "role reassignment or jailbreak phrasing")
FAKE_SYSTEM = register_code("SK611", E, "fake system-prompt or chat-template markup")
HIDDEN_COMMENT = register_code("SK612", W, "instructions hidden in an HTML comment")
EXFILTRATE = register_code("SK613", E, "text asks to send the conversation or secrets elsewhere")
SKIPPED = register_code("SK614", INFO, "a file could not be scanned")

#: Every code the scan can emit, in order.
SCAN_CODES: tuple[str, ...] = tuple(f"SK6{n:02d}" for n in range(1, 15))


# ---------------------------------------------------------------------------
# file kinds

_SCRIPT_EXT = frozenset(
    ".sh .bash .zsh .ksh .fish .py .pyw .js .mjs .cjs .ts .rb .pl .pm .php .ps1 .psm1 "
    ".bat .cmd .lua .r .tcl .awk .applescript .scpt .vbs".split()
)
_DOC_EXT = frozenset(".md .markdown .mdx .txt .rst .adoc .org".split())
_SKIP_DIRS = frozenset({".git", ".hg", ".svn"})


def _kind(rel: str, head: bytes, mode: int) -> str:
    """``script``, ``doc`` or ``data`` (everything else that is text)."""
    name = rel.rsplit("/", 1)[-1]
    ext = os.path.splitext(name)[1].lower()
    if ext in _SCRIPT_EXT or head.startswith(b"#!") or rel.startswith("scripts/"):
        return "script"
    if ext in _DOC_EXT or name.lower() == "skill.md":
        return "doc"
    if mode & 0o111 and not ext:
        return "script"
    return "data"


# ---------------------------------------------------------------------------
# binary executables


_MACHO = (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe")


def _binary_kind(head: bytes) -> str | None:
    if head.startswith(b"\x7fELF"):
        return "an ELF executable or shared library"
    magic = head[:4]
    if magic in (
        b"\xfe\xed\xfa\xce",
        b"\xfe\xed\xfa\xcf",
        b"\xce\xfa\xed\xfe",
        b"\xcf\xfa\xed\xfe",
    ):
        return "a Mach-O executable"
    if magic in (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca") and len(head) >= 8:
        second = int.from_bytes(head[4:8], "big" if magic[0] == 0xCA else "little")
        return "a Mach-O universal binary" if 0 < second < 30 else "a compiled Java class"
    if head.startswith(b"MZ") and len(head) >= 0x40:
        offset = int.from_bytes(head[0x3C:0x40], "little")
        if head[offset : offset + 4] == b"PE\x00\x00":
            return "a Windows PE executable or DLL"
    if head.startswith(b"\x00asm"):
        return "a WebAssembly module"
    return None


# ---------------------------------------------------------------------------
# command patterns (scripts, and commands quoted in documentation)


class _Rule:
    """One pattern, the lower-case words one of which a line must hold for it to
    be tried there (a cheap prefilter: most files hold none), and its message."""

    __slots__ = ("code", "keywords", "message", "pattern")

    def __init__(
        self, code: str, pattern: str, keywords: tuple[str, ...], message: str, flags: int = 0
    ) -> None:
        self.code = code
        self.pattern = re.compile(pattern, flags | re.IGNORECASE)
        self.keywords = keywords
        self.message = message


_SHELLS = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:/usr(?:/local)?/bin/|/bin/)?"
    r"(?:(?:ba|z|k|da|fi|tc|c)?sh|python[0-9.]*|perl|ruby|node|php|pwsh|powershell"
    r"|source\s+/dev/stdin)\b"
)
_FETCH = r"(?:curl|wget|aria2c|lwp-request)"
_FETCH_WORDS = ("curl", "wget", "aria2c", "lwp-request")

_DOWNLOAD = "runs what it downloads"
_DECODED = "decodes text and executes it"
_DECODE = (
    r"(?:base64\s+(?:-[a-zA-Z]*[dD][a-zA-Z]*|--decode)|openssl\s+(?:enc\s+)?[^\n|]*?-d\b"
    r"|xxd\s+-r|uudecode)"
)
_DECODE_WORDS = ("base64", "openssl", "xxd", "uudecode")

_COMMANDS: list[_Rule] = [
    _Rule(DOWNLOAD_EXEC, rf"\b{_FETCH}\b[^\n;&]*?\|\s*{_SHELLS}", _FETCH_WORDS, _DOWNLOAD),
    _Rule(
        DOWNLOAD_EXEC,
        rf"(?:\b(?:ba|z|k)?sh|\bsource|(?<!\S)\.)\s+(?:-\S+\s+)*<\(\s*{_FETCH}\b"
        rf"|\b(?:eval|(?:ba|z|k)?sh\s+-c)\s+[\"']?\$\(\s*{_FETCH}\b",
        _FETCH_WORDS,
        _DOWNLOAD,
    ),
    _Rule(
        DOWNLOAD_EXEC,
        r"\b(?:iex|Invoke-Expression)\b[^\n]*?(?:DownloadString|\biwr\b|Invoke-WebRequest"
        r"|\birm\b|Invoke-RestMethod|Net\.WebClient)"
        r"|(?:\birm\b|\biwr\b|Invoke-RestMethod|Invoke-WebRequest|DownloadString)[^\n]*?\|\s*"
        r"(?:iex|Invoke-Expression)\b",
        ("iex", "invoke-expression"),
        _DOWNLOAD,
    ),
    _Rule(
        DOWNLOAD_EXEC,
        r"\b(?:exec|eval)\s*\(\s*[^\n]*?\b(?:urlopen|requests\.get|httpx\.get"
        r"|urllib\.request\.urlopen)\s*\("
        r"|\b(?:eval|new\s+Function)\s*\(\s*(?:await\s+)?[^\n]*?\b(?:fetch|axios\.get"
        r"|https?\.get)\s*\(",
        ("exec", "eval", "function"),
        _DOWNLOAD,
    ),
    _Rule(DECODE_EXEC, rf"{_DECODE}[^\n;&]*?\|\s*{_SHELLS}", _DECODE_WORDS, _DECODED),
    _Rule(
        DECODE_EXEC,
        rf"\b(?:eval|(?:ba|z|k)?sh\s+-c|source)\s+[\"']?(?:\$\(|<\()[^\n)]*?{_DECODE}",
        _DECODE_WORDS,
        _DECODED,
    ),
    _Rule(
        DECODE_EXEC,
        r"\b(?:eval|new\s+Function|setTimeout|setInterval)\s*\(\s*(?:window\.)?atob\s*\("
        r"|\b(?:eval|new\s+Function)\s*\(\s*(?:Buffer\.from\s*\([^\n]*?base64|unescape\s*\("
        r"|String\.fromCharCode\s*\(|decodeURIComponent\s*\(\s*escape)"
        r"|\b(?:exec|eval|compile)\s*\(\s*(?:(?:base64|codecs|zlib|bz2|lzma|gzip|marshal"
        r"|pickle)\.|b64decode|b32decode|b16decode|a85decode|b85decode|urlsafe_b64decode"
        r"|bytes\.fromhex|bytearray\.fromhex|__import__\s*\(\s*['\"](?:base64|zlib|codecs"
        r"|marshal))"
        r"|\beval\s*\(?\s*(?:decode_base64|MIME::Base64|Base64\.decode64|base64_decode)\b",
        ("eval", "exec", "compile", "function", "settimeout", "setinterval"),
        _DECODED,
    ),
    _Rule(
        DECODE_EXEC,
        r"\b(?:powershell|pwsh)(?:\.exe)?\b[^\n]*?\s-(?:e|ec|en|enc|enco|encod|encode"
        r"|encoded|encodedc\w*)\s+[A-Za-z0-9+/=]{16,}"
        r"|\b(?:iex|Invoke-Expression)\b[^\n]*?FromBase64String",
        ("powershell", "pwsh", "iex", "invoke-expression"),
        _DECODED,
    ),
]

_CREDENTIALS = _Rule(
    CREDENTIALS,
    r"(?<![\w.\-])\.ssh(?=[/\\'\"\s)`]|$)"
    r"|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b"
    r"|(?<![\w.\-])\.aws[/\\](?:credentials|config)\b"
    r"|(?<![\w\-])[._]netrc\b"
    r"|(?<![\w.\-])\.git-credentials\b"
    r"|(?<![\w.\-])\.docker[/\\]config\.json"
    r"|(?<![\w.\-])\.kube[/\\]config\b"
    r"|(?<![\w.\-])\.config[/\\](?:gcloud|gh[/\\]hosts\.yml)"
    r"|\bapplication_default_credentials\.json"
    r"|(?<![\w.\-])\.(?:gnupg|password-store)\b"
    r"|(?<![\w.\-])\.(?:npmrc|pypirc)\b"
    r"|/etc/shadow\b"
    r"|\bsecurity\s+(?:find|dump)-(?:generic|internet)-password|\bsecurity\s+dump-keychain"
    r"|Library[/\\]Keychains|\blogin\.keychain|\bsecret-tool\s+lookup"
    r"|Google[/\\]Chrome[/\\]User Data|\.config[/\\](?:google-chrome|chromium|BraveSoftware)"
    r"|Application Support[/\\](?:Google[/\\]Chrome|BraveSoftware|Microsoft Edge|Firefox)"
    r"|\.mozilla[/\\]firefox|Firefox[/\\]Profiles"
    r"|\bLogin Data\b|\bkey[34]\.db\b|\blogins\.json\b|\bcookies\.sqlite\b",
    (
        ".ssh",
        "id_",
        ".aws",
        "netrc",
        ".git-cred",
        ".docker",
        ".kube",
        ".config",
        "application_d",
        ".gnupg",
        ".password-store",
        ".npmrc",
        ".pypirc",
        "/etc/shadow",
        "security ",
        "keychain",
        "secret-tool",
        "chrome",
        "firefox",
        "login data",
        "key3",
        "key4",
        "logins.json",
        "cookies.sqlite",
    ),
    "refers to a credential location",
)

# ---------------------------------------------------------------------------
# hidden Unicode

_SUSPECT = re.compile(
    "[\u00ad\u180e\u200b-\u200d\u202a-\u202e\u2060-\u2069\ufe00-\ufe0f\ufeff\U000e0000-\U000e01ef]"
)
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_INVISIBLE = re.compile("[\u200b\u2060-\u2064\u180e\u00ad\ufeff]|(?<=[ -~])[\u200c\u200d](?=[ -~])")
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_VS_RUN = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}")

# ---------------------------------------------------------------------------
# prompt injection (documentation, descriptions, data the model may read)

_INJECTION: list[_Rule] = [
    _Rule(
        OVERRIDE,
        r"\b(?:ignore|disregard|forget|override|bypass|discard)\s+(?:(?:all|any|every|each"
        r"|the|your|of|these|those|my)\s+){0,3}(?:previous|prior|above|earlier|preceding"
        r"|former|original|initial|system|developer|other|existing|safety)\s+(?:\w+\s+)?"
        r"(?:instructions?|prompts?|messages?|rules|directives?|guidelines|context"
        r"|commands?|constraints|policies|guardrails)\b",
        ("ignore", "disregard", "forget", "override", "bypass", "discard"),
        "text tells the model to ignore its earlier instructions",
    ),
    _Rule(
        OVERRIDE,
        r"\b(?:your|the)\s+(?:new|real|actual|updated|true)\s+instructions\s+are\b"
        r"|\bfrom\s+now\s+on,?\s+(?:you\s+(?:will|must|are)\s+(?:ignore|disregard|obey|only)"
        r"|ignore|disregard|only\s+obey)"
        r"|\bthese\s+instructions\s+(?:override|supersede|take\s+precedence\s+over)\b",
        ("instructions are", "from now on", "these instructions"),
        "text tries to replace the host's instructions",
    ),
    _Rule(
        CONCEAL,
        r"\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:tell|inform|notify|alert)\s+the\s+"
        r"(?:user|human|operator)\s+(?:about|of)\s+(?:this|these|that|it|what)\b"
        r"|\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:mention|reveal|disclose|show)\s+"
        r"(?:this|these|that|it|the\s+following)(?:\s+\w+){0,3}\s+to\s+the\s+(?:user|human)\b"
        r"|\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+(?:user|human)\b"
        r"|\b(?:hide|conceal|keep)\s+(?:this|these|it|that|the\s+\w+)(?:\s+\w+){0,2}\s+"
        r"(?:from|secret\s+from|hidden\s+from)\s+the\s+(?:user|human)\b"
        r"|\bthe\s+(?:user|human)\s+(?:must|should)\s+(?:not|never)\s+(?:know|find\s+out"
        r"|notice|learn)\b",
        ("user", "human", "operator"),
        "text tells the model to hide something from the user",
    ),
    _Rule(
        ROLE,
        r"\byou\s+are\s+now\s+(?:an?\s|the\s|my\s|no\s+longer\b|free\b|unrestricted\b"
        r"|jailbroken\b|DAN\b|in\s+(?:\w+\s+)?(?:developer|god|admin|debug|unrestricted"
        r"|jailbreak|DAN)\s+mode)"
        r"|\b(?:developer|god|DAN|jailbreak)\s+mode\s+(?:enabled|activated|on)\b"
        r"|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+)?"
        r"(?:\w+\s+){0,3}with(?:out)?\s+(?:no\s+)?(?:restrictions|filters|limits)\b",
        ("you are now", " mode", "restrictions", "filters", "limits"),
        "role reassignment or jailbreak phrasing",
    ),
    _Rule(
        FAKE_SYSTEM,
        r"</?\s*(?:system|system[_-]prompt|im_start|im_end)\s*>"
        r"|<\|(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\|>"
        r"|\[/?(?:SYSTEM|INST)\]|<<\s*/?SYS\s*>>"
        r"|\b(?:override|overriding|hidden|secret)\s+system\s+(?:prompt|message"
        r"|instructions?)\b"
        r"|\bBEGIN\s+SYSTEM\s+PROMPT\b|\bSYSTEM\s+OVERRIDE\b",
        ("system", "im_", "<|", "inst]", "sys"),
        "fake system-prompt or chat-template markup",
    ),
    _Rule(
        EXFILTRATE,
        r"\b(?:send|post|upload|forward|transmit|exfiltrate|leak|email)\s+(?:\w+\s+){0,3}"
        r"(?:conversation|chat\s+history|system\s+prompt|context\s+window|api[\s_-]?keys?"
        r"|credentials|secrets|passwords|tokens|environment\s+variables|env\s+vars|ssh\s+keys?"
        r"|private\s+keys?)\s+(?:\w+\s+){0,3}(?:to|at)\s+(?:https?://|\S+@|(?:this|the"
        r"|our|my|an?)\s+(?:url|server|endpoint|webhook|address))",
        (
            "conversation",
            "history",
            "prompt",
            "context",
            "key",
            "credential",
            "secret",
            "password",
            "token",
            "environment",
            "env var",
        ),
        "text asks to send the conversation or secrets elsewhere",
    ),
]

_HTML_COMMENT = re.compile(r"<!--(.*?)-->", re.DOTALL)
_IMPERATIVE = re.compile(
    r"\b(?:you|assistant|the\s+model|the\s+AI|claude|the\s+agent|LLMs?)\s+(?:must|should|shall"
    r"|will|are\s+to|need\s+to|have\s+to|may\s+now)\b"
    r"|^\s*(?:(?:note|instructions?)\s+(?:to|for)\s+(?:the\s+)?(?:assistant|AI|model|agent|LLM)"
    r"|ignore|always|never|do\s+not|don'?t|run|execute|send|delete|remove)\b",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")

_HINTS = {
    DOWNLOAD_EXEC: "download to a file, check its digest, then run it; or vendor the script "
    "into the skill so its content is reviewed and pinned",
    DECODE_EXEC: "ship the code in readable form; decoding then executing hides what runs",
    CREDENTIALS: "skills should not touch credentials; if this is intended, review what the "
    "file does with them before enabling the skill",
    BINARY: "ship source code or install the tool through a package manager; a binary "
    "cannot be reviewed",
    BIDI: "remove the control characters; they make code read differently from how it runs",
    INVISIBLE: "remove the invisible characters (they can hide words from a reviewer)",
    SMUGGLED: "remove them: these characters are invisible but a model reads them as text",
    OVERRIDE: "remove the sentence; a skill must not countermand the host's instructions",
    CONCEAL: "remove the sentence; a skill must not keep things from the user",
    ROLE: "describe the task instead of reassigning the model's role",
    FAKE_SYSTEM: "remove the markup; skill text must not pose as system or chat-template text",
    HIDDEN_COMMENT: "move the text out of the comment so readers see what the model sees",
    EXFILTRATE: "remove the request; a skill must not send conversation data or secrets out",
    SKIPPED: "review the file by hand",
}
