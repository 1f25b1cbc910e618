"""Text or binary, and the MIME type of a skill file: one rule for every front end.

``skilldeck read``, ``skills_read_file``, MCP resources and the snapshot's text flag
all ask these functions, so one file is text (and has one MIME type) wherever it
is served.
"""

from __future__ import annotations

import mimetypes

__all__ = ["decode_text", "is_text", "mime_type"]

_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".txt": "text/plain",
    ".py": "text/x-python",
    ".sh": "text/x-shellscript",
    ".toml": "application/toml",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".json": "application/json",
    ".ts": "text/typescript",
    ".js": "text/javascript",
}
"""Types of the files skills hold most, where the platform's table is missing or
says otherwise (``.ts`` is TypeScript here, not a Qt translation file)."""


def is_text(data: bytes) -> bool:
    """Are ``data`` UTF-8 text without NUL? Such bytes round-trip exactly through a
    string, so text served from them digests the same as the bytes."""
    if b"\x00" in data:
        return False
    if data.isascii():  # ASCII is UTF-8: no need to build the text to know it
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decode_text(data: bytes, *, truncated: bool = False) -> str | None:
    """``data`` as text, or ``None`` when it is binary (``is_text``). A prefix cut
    by a size limit (``truncated``) may end inside a character: that character is
    dropped rather than the file called binary."""
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if truncated and exc.start >= len(data) - 3:
            try:
                return data[: exc.start].decode("utf-8")
            except UnicodeDecodeError:
                return None
        return None


def mime_type(relpath: str, *, text: bool) -> str:
    """The MIME type of a skill file: ``SKILL.md`` is ``text/markdown``; otherwise
    by extension, else ``text/plain`` for text and ``application/octet-stream``."""
    name = relpath.rsplit("/", 1)[-1]
    if name == "SKILL.md":
        return "text/markdown"
    dot = name.rfind(".")
    ext = name[dot:].lower() if dot > 0 else ""
    guessed = _TYPES.get(ext) or mimetypes.guess_type(name, strict=False)[0]
    if guessed:
        return guessed
    return "text/plain" if text else "application/octet-stream"
