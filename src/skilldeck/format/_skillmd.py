"""Read and parse one SKILL.md: bounded reads, frontmatter, YAML, manifest."""

from __future__ import annotations

import os
import stat as _stat
from pathlib import Path
from typing import Literal

from skilldeck._diagnostics import Diagnostic
from skilldeck._frozen import new, slots_twin, value
from skilldeck._tree import read_file
from skilldeck.format import _codes as C
from skilldeck.format._frontmatter import decode, split_frontmatter
from skilldeck.format._manifest import Manifest, build_manifest
from skilldeck.format._yaml import load_yaml

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FRONTMATTER_LIMIT",
    "Mode",
    "ParsedSkillMd",
    "cut_text",
    "parse_read",
    "parse_skill_md",
    "read_limit",
    "read_skill_md",
]

Mode = Literal["lenient", "strict"]

FRONTMATTER_LIMIT = 64 * 1024
"""Bytes read for metadata-only parsing; a longer frontmatter is a diagnostic."""

DEFAULT_MAX_BYTES = 4 * 1024 * 1024
"""Default bound of a full read of SKILL.md."""


@value
class ParsedSkillMd:
    """A parsed SKILL.md. ``manifest`` is ``None`` when errors prevent one."""

    manifest: Manifest | None
    body: str
    body_line: int
    diagnostics: tuple[Diagnostic, ...]
    body_truncated: bool = False
    size: int | None = None
    raw_name: str | None = None
    """The frontmatter's ``name`` as written, even when it breaks the rules."""

    @property
    def ok(self) -> bool:
        return self.manifest is not None and not any(d.is_error for d in self.diagnostics)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.is_error)


_PARSED_TWIN = slots_twin(ParsedSkillMd)


def _parsed(
    manifest: Manifest | None,
    body: str,
    body_line: int,
    diagnostics: tuple[Diagnostic, ...],
    truncated: bool,
    size: int | None,
    raw_name: str | None = None,
) -> ParsedSkillMd:
    """``ParsedSkillMd(...)`` built on its twin (``_frozen``): one per SKILL.md read,
    three times as fast as the frozen ``__init__``."""
    p = new(_PARSED_TWIN)
    p.manifest = manifest
    p.body = body
    p.body_line = body_line
    p.diagnostics = diagnostics
    p.body_truncated = truncated
    p.size = size
    p.raw_name = raw_name
    p.__class__ = ParsedSkillMd
    parsed: ParsedSkillMd = p
    return parsed


def parse_skill_md(
    data: str | bytes,
    *,
    path: str | os.PathLike[str] | None = None,
    mode: Mode = "lenient",
    folder_name: str | None = None,
    complete: bool = True,
    limit: int | None = None,
) -> ParsedSkillMd:
    """Parse SKILL.md content. Never raises for bad content: problems are diagnostics."""
    spath = os.fspath(path) if path is not None else None
    return _parse(data, spath, mode == "strict", folder_name, complete, limit)


def _parse(
    data: str | bytes,
    spath: str | None,
    strict: bool,
    folder_name: str | None,
    complete: bool,
    limit: int | None,
    body: bool = True,
    truncated: bool = False,
    size: int | None = None,
) -> ParsedSkillMd:
    """``parse_skill_md``; ``body=False`` leaves the body out (a metadata read), and
    ``truncated`` and ``size`` are passed through to the result."""
    diags: list[Diagnostic] = []
    if isinstance(data, bytes):
        text, decode_diags = decode(data, path=spath, strict=strict)
        diags.extend(decode_diags)
        # (a byte 13 is a carriage return in UTF-8, and U+FFFD replaces none)
        has_cr = b"\r" in data
    else:
        text, has_cr = data, True
    split = split_frontmatter(
        text, path=spath, strict=strict, complete=complete, limit=limit, body=body, has_cr=has_cr
    )
    diags.extend(split.diagnostics)
    fm = split.frontmatter
    if fm is None:
        return _parsed(None, split.body, split.body_line, tuple(diags), truncated, size)
    # a character is at most 4 bytes of UTF-8: most frontmatters need no encoding to tell
    if len(fm) > FRONTMATTER_LIMIT // 4 and len(fm.encode("utf-8", "replace")) > FRONTMATTER_LIMIT:
        diags.append(
            Diagnostic.make(
                C.FRONTMATTER_TOO_LARGE,
                f"the frontmatter is larger than {FRONTMATTER_LIMIT} bytes",
                path=spath,
                line=split.frontmatter_line - 1,
                column=1,
                hint="keep the frontmatter short; move long text into the body",
            )
        )
        return _parsed(None, split.body, split.body_line, tuple(diags), truncated, size)
    loaded = load_yaml(fm, line0=split.frontmatter_line, path=spath, strict=strict)
    if loaded.diagnostics:
        diags.extend(
            d.with_severity(d.severity.ERROR) if strict and d.code == C.DUPLICATE_KEY else d
            for d in loaded.diagnostics
        )
    if not loaded.ok:
        return _parsed(None, split.body, split.body_line, tuple(diags), truncated, size)
    data_ = loaded.data
    if not isinstance(data_, dict):
        kind = "empty" if data_ is None else type(data_).__name__
        diags.append(
            Diagnostic.make(
                C.EMPTY_FRONTMATTER if data_ is None else C.NOT_A_MAPPING,
                f"the frontmatter must be a mapping of keys to values (it is {kind})",
                path=spath,
                line=split.frontmatter_line,
                column=1,
                hint="write 'key: value' lines, e.g. 'name: my-skill'",
            )
        )
        return _parsed(None, split.body, split.body_line, tuple(diags), truncated, size)
    manifest, mdiags = build_manifest(
        data_,
        positions=loaded.positions,
        frontmatter_text=fm,
        path=spath,
        folder_name=folder_name,
        strict=strict,
        origin=(split.frontmatter_line - 1, 1),
    )
    diags.extend(mdiags)
    raw_name = data_.get("name")
    return _parsed(
        manifest,
        split.body,
        split.body_line,
        tuple(diags),
        truncated,
        size,
        raw_name if isinstance(raw_name, str) else None,
    )


def read_limit(*, metadata_only: bool = False, max_bytes: int | None = None) -> int:
    """How many bytes of a SKILL.md a parse reads: ``FRONTMATTER_LIMIT`` and the
    closing delimiter for ``metadata_only``, else ``max_bytes`` (default
    ``DEFAULT_MAX_BYTES``). A read of one byte more tells that the file is longer."""
    return FRONTMATTER_LIMIT + 8 if metadata_only else (max_bytes or DEFAULT_MAX_BYTES)


def read_skill_md(
    path: str | os.PathLike[str],
    *,
    max_bytes: int | None = None,
    metadata_only: bool = False,
    mode: Mode = "lenient",
    folder_name: str | None = None,
) -> ParsedSkillMd:
    """Read a SKILL.md from disk with a bounded read (``skilldeck._tree.read_file``).

    ``metadata_only`` reads at most ``FRONTMATTER_LIMIT`` bytes (+ the delimiter)
    and returns an empty body. Otherwise at most ``max_bytes`` (default
    ``DEFAULT_MAX_BYTES``) are read and ``body_truncated`` says whether the file
    was longer. I/O problems (missing file, a folder named SKILL.md, no
    permission) are returned as an SK113 diagnostic, not raised. The path is
    followed as it is: a skill of a catalog is read through the catalog's
    contained read and ``parse_read``.
    """
    spath = os.fspath(path)
    if folder_name is None:
        folder_name = Path(spath).parent.name or None
    bound = read_limit(metadata_only=metadata_only, max_bytes=max_bytes)
    try:
        got, st = read_file(spath, bound)
    except OSError as exc:
        return _unreadable(spath, f"cannot read {spath}: {exc.strerror or exc}")
    except ValueError:  # a NUL byte or a lone surrogate: no file has such a path
        shown = repr(spath)[1:-1]
        return _unreadable(shown, f"no file can have the path {shown}")
    if got is None:
        what = "a folder" if _stat.S_ISDIR(st.st_mode) else "not a regular file"
        return _unreadable(spath, f"{spath} is {what}")
    return parse_read(
        got,
        size=st.st_size,
        path=spath,
        max_bytes=max_bytes,
        metadata_only=metadata_only,
        mode=mode,
        folder_name=folder_name,
    )


def parse_read(
    data: bytes,
    *,
    size: int,
    truncated: bool = False,
    path: str | os.PathLike[str] | None = None,
    max_bytes: int | None = None,
    metadata_only: bool = False,
    mode: Mode = "lenient",
    folder_name: str | None = None,
) -> ParsedSkillMd:
    """Parse what a bounded read of a SKILL.md gave, as ``read_skill_md`` parses
    what it reads: ``data`` holds at least the first ``read_limit(...)`` bytes of a
    file of ``size`` bytes, or all of it; more than that, or ``truncated``, says the
    file is longer (only the first ``read_limit`` bytes count). For a read made
    elsewhere, such as a catalog's read that never leaves the skill's folder."""
    spath = os.fspath(path) if path is not None else None
    bound = read_limit(metadata_only=metadata_only, max_bytes=max_bytes)
    if len(data) > bound:
        truncated = True
        data = data[:bound]
    if truncated and not metadata_only:
        data = _cut_utf8(data)
    return _parse(
        data,
        spath,
        mode == "strict",
        folder_name,
        not truncated,
        FRONTMATTER_LIMIT if metadata_only else bound,
        body=not metadata_only,
        truncated=False if metadata_only else truncated,
        size=size,
    )


def cut_text(text: str, max_bytes: int | None) -> tuple[str, bool]:
    """``text`` cut to at most ``max_bytes`` bytes of UTF-8 (never inside a character),
    and whether it was cut; ``None`` is no limit. A body shown within a budget."""
    data = text.encode("utf-8")
    if max_bytes is None or len(data) <= max_bytes:
        return text, False
    return _cut_utf8(data[:max_bytes]).decode("utf-8"), True


def _cut_utf8(data: bytes) -> bytes:
    """Drop a partial UTF-8 sequence at the end of a truncated read."""
    for back in range(1, 4):
        if len(data) < back:
            break
        byte = data[-back]
        if byte & 0xC0 == 0xC0:  # lead byte of a sequence
            need = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4
            return data[:-back] if back < need else data
        if byte & 0x80 == 0:
            return data
    return data


def _unreadable(path: str, message: str) -> ParsedSkillMd:
    diag = Diagnostic.make(
        C.UNREADABLE, message, path=path, hint="check that SKILL.md is a readable regular file"
    )
    return ParsedSkillMd(None, "", 1, (diag,))
