"""``skill://`` URIs, MIME types and the text-or-blob choice.

A file of a skill is ``skill://<skill-path>/<file-path>``; the skill's root
directory is ``skill://<skill-path>`` (no trailing slash). The last segment of
``<skill-path>`` is always the skill's name. The winning skill of a name sits at
``skill://<name>``; a shadowed one at ``skill://<source>/<name>``, so two
skills of one name are both reachable and neither hides the other.

Segments are percent-encoded where a character is not allowed in a URI path
(spaces, non-ASCII); lookups accept either spelling.
"""

from __future__ import annotations

import mimetypes
import re
from typing import Final
from urllib.parse import quote, unquote

__all__ = [
    "SCHEME",
    "is_text",
    "join",
    "mime_type",
    "normalise",
    "valid_skill_name",
]

SCHEME: Final = "skill://"

_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# RFC 3986 pchar minus "/" (kept as the separator) and "%" (escaped).
_SAFE: Final = "-._~!$&'()*+,;=:@"

_EXTRA_TYPES: Final = {
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


def valid_skill_name(name: str) -> bool:
    """True when ``name`` obeys the Agent Skills naming rule (the URI's last segment must)."""
    return len(name) <= 64 and bool(_NAME.match(name))


def _quote(segment: str) -> str:
    return quote(segment, safe=_SAFE)


def join(skill_path: str, relpath: str | None = None) -> str:
    """The URI of ``relpath`` inside the skill at ``skill_path`` (or of its root folder)."""
    parts = skill_path.split("/")
    if relpath:
        parts.extend(relpath.split("/"))
    return SCHEME + "/".join(_quote(p) for p in parts)


def normalise(uri: str) -> str | None:
    """The canonical spelling of a ``skill://`` URI, or ``None`` when it is not one.

    A trailing slash is dropped (directories are written without it); empty,
    ``.`` and ``..`` segments make the URI invalid rather than being resolved.
    """
    if not uri.startswith(SCHEME):
        return None
    rest = uri[len(SCHEME) :].rstrip("/")
    if not rest or "?" in rest or "#" in rest:
        return None
    segments = [unquote(s) for s in rest.split("/")]
    if any(s in ("", ".", "..") or "/" in s or "\x00" in s for s in segments):
        return None
    return SCHEME + "/".join(_quote(s) for s in segments)


def mime_type(relpath: str, *, text: bool) -> str:
    """The MIME type served for a file: ``SKILL.md`` is ``text/markdown``."""
    name = relpath.rsplit("/", 1)[-1]
    if name == "SKILL.md":
        return "text/markdown"
    dot = name.rfind(".")
    ext = name[dot:].lower() if dot > 0 else ""
    guessed = _EXTRA_TYPES.get(ext) or mimetypes.guess_type(name, strict=False)[0]
    if guessed:
        return guessed
    return "text/plain" if text else "application/octet-stream"


def is_text(data: bytes) -> bool:
    """Serve as text only when the UTF-8 text re-encodes to exactly these bytes.

    Valid UTF-8 without NUL bytes round-trips exactly; anything else is a blob,
    so the digest a client computes always matches.
    """
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
