"""``skill://`` URIs.

A file of a skill is ``skill://<skill-path>/<file-path>``; the skill's root
directory is ``skill://<skill-path>`` (no trailing slash). The last segment of
``<skill-path>`` is always the skill's name. The winning skill of a name sits at
``skill://<name>``; a shadowed one at ``skill://<source>/<name>``, so two
skills of one name are both reachable and neither hides the other.

Segments are percent-encoded where a character is not allowed in a URI path
(spaces, non-ASCII); lookups accept either spelling.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import quote, unquote

__all__ = [
    "MAX_LENGTH",
    "SCHEME",
    "join",
    "normalise",
]

SCHEME: Final = "skill://"

#: no served file has a longer URI: a path is at most 4,096 bytes (PATH_MAX), each
#: byte at most three characters once escaped, plus the skill's own path. A longer
#: one is refused before its segments are decoded (it cost a pass per segment).
MAX_LENGTH: Final = 16 * 1024

# RFC 3986 pchar minus "/" (kept as the separator) and "%" (escaped).
_SAFE: Final = "-._~!$&'()*+,;=:@"
_SAFE_PATH: Final = _SAFE + "/"  # a path's segments quoted at once, "/" between them


# a path with nothing to quote (most are): kept as it is, without quote()'s work
_PLAIN_PATH: Final = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/]*").fullmatch


def _quote(segment: str) -> str:
    return quote(segment, safe=_SAFE)


def _quote_path(path: str) -> str:
    return path if _PLAIN_PATH(path) else quote(path, safe=_SAFE_PATH)


def join(skill_path: str, relpath: str | None = None) -> str:
    """The URI of ``relpath`` inside the skill at ``skill_path`` (or of its root folder):
    each segment quoted, ``/`` between them."""
    root = SCHEME + _quote_path(skill_path)
    return root + "/" + _quote_path(relpath) if relpath else root


def normalise(uri: str) -> str | None:
    """The canonical spelling of a ``skill://`` URI, or ``None`` when it is not one.

    A trailing slash is dropped (directories are written without it); empty,
    ``.`` and ``..`` segments make the URI invalid rather than being resolved, as
    does a length over ``MAX_LENGTH``.
    """
    if not uri.startswith(SCHEME) or len(uri) > MAX_LENGTH:
        return None
    rest = uri[len(SCHEME) :].rstrip("/")
    if not rest or "?" in rest or "#" in rest:
        return None
    segments = [unquote(s) for s in rest.split("/")]
    if any(s in ("", ".", "..") or "/" in s or "\x00" in s for s in segments):
        return None
    return SCHEME + "/".join(_quote(s) for s in segments)
