"""Parse the ``SOURCE`` argument of ``install`` into a ``SourceSpec``.

Accepted forms:

- a git URL: ``https://...``, ``ssh://...``, ``git@host:owner/repo``, ``file://...``;
- ``owner/repo``: shorthand for ``https://github.com/owner/repo.git``;
- a local folder (a git repository is fetched with git, so its commit is
  recorded; any other folder is copied as it is);
- a local archive: ``.zip``, ``.skill`` (a zip), ``.tar.gz``/``.tgz``;
- any of these with ``#SUBDIR`` to select a folder inside.

Transports that run commands (``ext::`` and every other ``<helper>::``
form), plain ``http://`` and ``git://``, and URLs carrying a password or token
(they would be written to the lockfile and config) are refused.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from skilldeck._errors import InstallError
from skilldeck._paths import safe_relpath, shown_path

from ._model import SourceSpec

__all__ = [
    "ARCHIVE_SUFFIXES",
    "archive_kind",
    "on_this_machine",
    "parse_source",
    "source_folder_name",
    "validate_ref",
]

ARCHIVE_SUFFIXES = (".zip", ".skill", ".tar.gz", ".tgz")
_SHORTHAND = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_SCP_LIKE = re.compile(r"^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:[^/].*$")
_REF = re.compile(r"^[A-Za-z0-9._/@+-]+$")
_CREDENTIALS = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/@]*:[^/@]*@")
_HELPER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")


def archive_kind(path: str | Path) -> str | None:
    """``"zip"`` or ``"tar"`` for an archive file name, else ``None``."""
    name = str(path).lower()
    if name.endswith((".zip", ".skill")):
        return "zip"
    if name.endswith((".tar.gz", ".tgz")):
        return "tar"
    return None


def source_folder_name(spec: SourceSpec) -> str:
    """The name a fetched copy of ``spec`` gets in the stage: the repository's or the
    archive's (``owner/tools.git`` and ``tools.tar.gz`` are ``tools``), so a message
    about a skill at the source's root names what the user gave, not a staging folder.
    ``source`` when the name would be empty, hidden or not one folder name."""
    if spec.kind == "local":
        return Path(spec.url).name or "source"
    tail = unquote(urlsplit(spec.url).path if "://" in spec.url else spec.url)
    name = tail.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    for suffix in (*ARCHIVE_SUFFIXES, ".git"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    if not name or name.startswith(".") or "\0" in name or "\\" in name:
        return "source"
    return name


def validate_ref(ref: str) -> str:
    """A branch, tag or commit name safe to hand to git as one argument."""
    if not ref or ref.startswith("-") or not _REF.fullmatch(ref) or ".." in ref:
        raise InstallError(
            f"invalid git ref {ref!r}",
            hint="give a branch, tag or commit (letters, digits, '.', '_', '-', '/')",
        )
    return ref


def _clean_subpath(sub: str | None) -> str | None:
    if sub is None or sub.strip("/") == "":
        return None
    clean = safe_relpath(sub.strip("/"))
    if clean is None:
        raise InstallError(
            f"invalid sub-folder {sub!r}",
            hint="give a relative folder inside the source, without '..'",
        )
    return clean


def parse_source(
    source: str,
    *,
    ref: str | None = None,
    subpath: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> SourceSpec:
    """Turn ``SOURCE`` (plus ``--ref``/``--path``) into a ``SourceSpec``.

    Raises ``InstallError`` for anything unusable or unsafe.
    """
    try:
        spec = _parse_source(source, ref=ref, subpath=subpath, cwd=cwd)
    except (OSError, RuntimeError) as exc:  # a path past the limits; ~user with no home
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InstallError(
            f"source not usable: {source[:200]}: {why}",
            hint="give a git URL, owner/repo, an existing folder or a .zip/.skill/.tar.gz file",
        ) from None
    for value in (spec.url, spec.ref or "", spec.subpath or "", spec.display):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # the lockfile and config record the source as text
            shown = shown_path(value)
            raise InstallError(
                f"the source {shown} is not valid UTF-8 (a folder named in another encoding)",
                hint="rename the folder with a UTF-8 name, or install from a copy of it",
            ) from None
    return spec


def _parse_source(
    source: str,
    *,
    ref: str | None,
    subpath: str | None,
    cwd: str | os.PathLike[str] | None,
) -> SourceSpec:
    text = source.strip()
    if not text or "\x00" in text or any(ord(c) < 32 for c in text):
        raise InstallError("empty or malformed source", hint="give a git URL, folder or archive")
    if text.startswith("-"):
        raise InstallError(f"invalid source {source!r}", hint="a source never starts with '-'")
    if _HELPER.match(text):
        raise InstallError(
            f"refusing transport in {source!r}: '<helper>::' URLs (such as ext::) run commands",
            hint="use an https://, ssh:// or file:// URL, or a local folder",
        )
    base_dir = Path(cwd) if cwd is not None else Path.cwd()

    fragment: str | None = None
    whole = base_dir / Path(text).expanduser()
    if "#" in text and not whole.exists():
        text, fragment = text.split("#", 1)
    if fragment is not None and subpath is not None and fragment.strip("/") != subpath.strip("/"):
        raise InstallError(
            f"two different sub-folders given: #{fragment} and --path {subpath}",
            hint="give the sub-folder once",
        )
    sub = _clean_subpath(subpath if subpath is not None else fragment)
    if ref is not None:
        validate_ref(ref)

    lowered = text.lower()
    if lowered.startswith(("http://", "git://")):
        raise InstallError(
            f"refusing unauthenticated transport in {source!r}",
            hint="use https:// (or ssh://) instead",
        )
    if _CREDENTIALS.match(text):
        raise InstallError(
            "refusing a URL with a password or token in it: it would be saved in the "
            "lockfile and config",
            hint="use a git credential helper or an ssh key, and give the URL without it",
        )
    if lowered.startswith(("https://", "ssh://", "file://")) or _SCP_LIKE.fullmatch(text):
        if lowered.startswith("https://") and archive_kind(lowered):
            raise InstallError(
                "installing an archive from a URL is not supported",
                hint="download the archive, then install the local file",
            )
        if lowered.startswith("file://"):
            local = Path(unquote(urlsplit(text).path))
            if archive_kind(local) or (local.is_dir() and not (local / ".git").exists()):
                return _local(local, ref=ref, sub=sub, display=source)
        return SourceSpec(kind="git", url=text, ref=ref, subpath=sub, display=source)

    local = Path(text).expanduser()
    if not local.is_absolute():
        local = base_dir / local
    if local.exists():
        return _local(local, ref=ref, sub=sub, display=source)
    if _SHORTHAND.fullmatch(text) and not text.startswith("."):
        url = f"https://github.com/{text.removesuffix('.git')}.git"
        return SourceSpec(kind="git", url=url, ref=ref, subpath=sub, display=source)
    raise InstallError(
        f"source not found: {source}",
        hint="give a git URL, owner/repo, an existing folder or a .zip/.skill/.tar.gz file",
    )


def _local(path: Path, *, ref: str | None, sub: str | None, display: str) -> SourceSpec:
    path = path.resolve()
    if path.is_file():
        if archive_kind(path) is None:
            raise InstallError(
                f"not an archive or folder: {path}",
                hint="archives must end in .zip, .skill, .tar.gz or .tgz",
            )
        if ref is not None:
            raise InstallError("--ref applies to git sources only", hint="drop --ref")
        return SourceSpec(kind="archive", url=str(path), subpath=sub, display=display)
    if not path.is_dir():
        raise InstallError(f"source not found: {path}", hint="check the path")
    if (path / ".git").exists():
        return SourceSpec(kind="git", url=path.as_uri(), ref=ref, subpath=sub, display=display)
    if ref is not None:
        raise InstallError(f"--ref given but {path} is not a git repository", hint="drop --ref")
    return SourceSpec(kind="local", url=str(path), subpath=sub, display=display)


def on_this_machine(kind: str, url: str) -> str | None:
    """The path of a recorded source on this machine's disk (a folder, an archive, a
    git repository by path or ``file://`` URL), or ``None`` for a remote repository."""
    if kind != "git":
        return url
    lowered = url.lower()
    if lowered.startswith("file://"):
        return unquote(urlsplit(url).path)
    if lowered.startswith(("https://", "ssh://")) or _SCP_LIKE.fullmatch(url):
        return None
    return url  # a plain path, which git reads from the disk
