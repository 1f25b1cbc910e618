"""What a SKILL.md body refers to: links, link definitions and resource paths in code.

The catalog's default file index adds these paths to the bundled folders, and
lint checks that each one exists; both read them here, so a listing does not
import lint. Also the token estimate every size limit uses.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from urllib.parse import unquote

__all__ = [
    "CHARS_PER_TOKEN", "CODE", "EXAMPLE", "PROSE", "SCHEME", "candidate_refs", "code_lines",
    "estimate_tokens", "linked_paths", "ref_target",
]  # fmt: skip

CHARS_PER_TOKEN = 4

_FENCE = re.compile(r"^[ ]{0,3}(```+|~~~+)")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+[\"'(][^)]*)?\)")
_LINK_DEFINITION = re.compile(r"^[ ]{0,3}\[[^\]]+\]:[ \t]*(<[^>]*>|\S+)")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_RESOURCE_PATH = re.compile(
    r"(?<![\w./-])(?:\./)?(?P<path>(?:scripts|references|assets)/[\w@%+=.,~-]+(?:/[\w@%+=.,~-]+)*)"
)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def estimate_tokens(text: str) -> int:
    """A model-independent token estimate: about four characters per token."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


PROSE, CODE, EXAMPLE = 0, 1, 2
_EXAMPLE_LANGS = frozenset({"markdown", "md", "text", "txt", "yaml", "yml", "diff"})


def code_lines(lines: Sequence[str]) -> list[int]:
    """Classify each body line: ``PROSE``, ``CODE`` (a fenced block or its fence) or
    ``EXAMPLE`` (a fenced Markdown/text/YAML block: sample content, not instructions)."""
    mask: list[int] = []
    fence: str | None = None
    kind = PROSE
    for text in lines:
        match = _FENCE.match(text)
        if fence is None:
            if match:
                fence = match.group(1)[0] * len(match.group(1))
                lang = text[match.end() :].strip().split(" ", 1)[0].lower()
                kind = EXAMPLE if lang in _EXAMPLE_LANGS else CODE
                mask.append(kind)
            else:
                mask.append(PROSE)
        else:
            mask.append(kind)
            if match and match.group(1).startswith(fence) and not text.strip(" `~"):
                fence = None
    return mask


def candidate_refs(
    lines: Sequence[str], code_mask: Sequence[int]
) -> Iterator[tuple[int, int, str, bool]]:
    """(body line index, 0-based column, target, is_link) for each file reference."""
    for index, text in enumerate(lines):
        if code_mask[index] == EXAMPLE:
            continue
        if code_mask[index] == CODE:
            if not _FENCE.match(text):
                for match in _RESOURCE_PATH.finditer(text):
                    yield index, match.start("path"), match.group("path"), False
            continue
        links = [*_LINK.finditer(text), *_LINK_DEFINITION.finditer(text)]
        for match in links:
            target = match.group(1)
            if target.startswith("<") and target.endswith(">"):
                target = target[1:-1]
            yield index, match.start(1), target, True
        for code in _INLINE_CODE.finditer(text):
            for match in _RESOURCE_PATH.finditer(code.group(2)):
                yield index, code.start(2) + match.start("path"), match.group("path"), False


def ref_target(raw: str, is_link: bool) -> str:
    """The relative path a reference found by ``candidate_refs`` names, or ``""``: a
    link's target without its fragment and query, percent-decoded (``""`` for an
    anchor, an absolute or home path and a URL), and trailing sentence punctuation
    dropped. The one reading of a reference, for the file index and for lint."""
    target = raw
    if is_link:
        if not target or target.startswith(("#", "/", "~")) or SCHEME.match(target):
            return ""
        target = unquote(target.split("#", 1)[0].split("?", 1)[0])
    return target.rstrip(".,;:")


def linked_paths(body: str) -> frozenset[str]:
    """The relative paths a SKILL.md body refers to (links, link definitions and
    resource paths in code), normalised (``a/b``), fragments and queries dropped;
    absolute paths, URLs and paths leaving the folder are left out. The catalog's
    default file index adds these to the bundled folders."""
    lines = body.splitlines()
    out: set[str] = set()
    for _index, _column, raw, is_link in candidate_refs(lines, code_lines(lines)):
        target = ref_target(raw, is_link)
        normal = os.path.normpath(target).replace(os.sep, "/") if target else ""
        if normal in ("", ".", "..") or normal.startswith(("../", "/")):
            continue
        out.add(normal)
    return frozenset(out)
