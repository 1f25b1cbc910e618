"""The scan's codes and hints, and what kind of file a path is."""

from __future__ import annotations

import os

DOWNLOAD_EXEC = "SK601"
DECODE_EXEC = "SK602"
CREDENTIALS = "SK603"
BINARY = "SK604"
BIDI = "SK605"
INVISIBLE = "SK606"
SMUGGLED = "SK607"
OVERRIDE = "SK608"
CONCEAL = "SK609"
ROLE = "SK610"
FAKE_SYSTEM = "SK611"
HIDDEN_COMMENT = "SK612"
EXFILTRATE = "SK613"
SKIPPED = "SK614"
LEAK = "SK615"
REVERSE_SHELL = "SK616"
PERSIST = "SK617"
SUPPLY = "SK618"
DESTROY = "SK619"
OBFUSCATED = "SK620"
SOCIAL = "SK621"
HIJACK = "SK622"
WORM = "SK623"

#: Every code the scan can emit, in order.
SCAN_CODES: tuple[str, ...] = tuple(f"SK6{n:02d}" for n in range(1, 25))

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
    LEAK: "send only the fields a service needs, named one by one; never the whole "
    "environment, credential files or instance metadata",
    REVERSE_SHELL: "remove it: a skill has no reason to hand a shell to a remote host",
    PERSIST: "a skill should not install itself into shell start-up files, schedulers, "
    "login items or agent settings; document the step for the user to take instead",
    SUPPLY: "depend on released packages from the default index over HTTPS, pinned; "
    "avoid install hooks that download or run code",
    DESTROY: "scope deletions to a folder the skill created; never the home or root folder",
    OBFUSCATED: "ship the code in readable form; obfuscation hides what runs",
    SOCIAL: "remove it: a skill must not have the user run pasted commands, open "
    "password-protected archives or hand over passwords and codes",
    HIJACK: "remove it: a skill must not change how other tools are used, add hidden "
    "recipients or addresses, or write instructions into another agent's memory",
    WORM: "remove it: a skill must not publish or push with the user's tokens",
}


# ---------------------------------------------------------------------------
# file kinds

_BYTECODE_EXT = (".pyc", ".pyo")
_SCRIPT_EXT = frozenset(
    ".sh .bash .zsh .ksh .fish .py .pyw .js .mjs .cjs .ts .rb .pl .pm .php .ps1 .psm1 "
    ".bat .cmd .lua .r .tcl .awk .applescript .scpt .vbs".split()
)
_DOC_EXT = frozenset(".md .markdown .mdx .txt .rst .adoc .org".split())
_PYTHON_EXT = frozenset({".py", ".pyw"})
_SHELL_EXT = frozenset({".sh", ".bash", ".zsh", ".ksh", ""})


def kind_of(rel: str, head: bytes, mode: int) -> str:
    """``script``, ``doc`` or ``data`` (everything else that is text)."""
    name = rel.rsplit("/", 1)[-1]
    ext = os.path.splitext(name)[1].lower()
    if ext in _SCRIPT_EXT or head.startswith(b"#!") or rel.startswith("scripts/"):
        return "script"
    if name.lower().startswith(("requirements", "constraints")) and ext in (".txt", ".in"):
        return "data"
    if ext in _DOC_EXT or name.lower() == "skill.md":
        return "doc"
    if mode & 0o111 and not ext:
        return "script"
    return "data"


def language_of(path: str, text: str) -> str:
    """``python``, ``shell``, ``js``, ``powershell`` or ``other`` for a script."""
    name = path.rsplit("/", 1)[-1]
    ext = os.path.splitext(name)[1].lower()
    first = text[:200].split("\n", 1)[0] if text.startswith("#!") else ""
    if ext in _PYTHON_EXT or "python" in first:
        return "python"
    if ext in (".js", ".mjs", ".cjs", ".ts") or "node" in first:
        return "js"
    if ext in (".ps1", ".psm1"):
        return "powershell"
    if ext in _SHELL_EXT or "sh" in first:
        return "shell"
    return "other"


# ---------------------------------------------------------------------------
# binary executables


def binary_kind(head: bytes, name: str = "") -> str | None:
    """What executable ``head`` starts, or ``None`` (``name`` tells Python bytecode,
    whose magic number changes with every Python release)."""
    if name.lower().endswith(_BYTECODE_EXT) and head[2:4] == b"\r\n" and len(head) >= 16:
        return "compiled Python bytecode"
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
