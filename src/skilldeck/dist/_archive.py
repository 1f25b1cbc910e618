"""Extract ``.zip``/``.skill`` and ``.tar.gz`` archives, refusing anything hostile.

Every member name must be a plain relative path (no absolute path, drive
letter, backslash or ``..``: zip-slip). Only regular files and folders are
extracted: link, hard-link, device and fifo members are refused, as are
encrypted zip members. The member count and the bytes actually written are
capped while extracting (declared sizes can lie), so an archive bomb stops
at the cap instead of filling the disk. A damaged archive (truncated, a bad
checksum, corrupt compressed data) is an ``InstallError``, never a partial skill:
a compressed tar is read to its end, where gzip and xz check their checksums.
"""

from __future__ import annotations

import os
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import IO

from skilldeck._errors import InstallError
from skilldeck._paths import safe_relpath

from ._model import InstallLimits, InstallProgress, ProgressCallback
from ._source import archive_kind

__all__ = ["extract_archive"]

_CHUNK = 1 << 16

#: what reading a damaged archive raises: the formats' own errors, a stream that ends
#: early, corrupt deflate data (``zlib.error``, which is not an ``OSError``)
_DAMAGED = (tarfile.TarError, zipfile.BadZipFile, zlib.error, EOFError, OSError)


class _Budget:
    def __init__(self, archive: Path, limits: InstallLimits) -> None:
        self.archive = archive
        self.limits = limits
        self.members = 0
        self.bytes = 0

    def member(self) -> None:
        self.members += 1
        if self.members > self.limits.archive_max_members:
            raise self._refused(f"has more than {self.limits.archive_max_members} members")

    def add(self, n: int) -> None:
        self.bytes += n
        if self.bytes > self.limits.archive_max_bytes:
            raise self._refused(
                f"expands to more than {self.limits.archive_max_bytes} bytes (archive bomb?)"
            )

    def _refused(self, what: str) -> InstallError:
        return InstallError(
            f"archive {self.archive.name} {what}",
            path=str(self.archive),
            hint="an archive this large is refused; unpack it yourself if you trust it",
        )


def _member_path(archive: Path, name: str, dest: Path) -> Path | None:
    raw = name
    stripped = raw.rstrip("/")
    while stripped.startswith("./"):
        stripped = stripped[2:]
    if stripped in ("", "."):
        return None
    rel = safe_relpath(stripped)
    if rel is None or raw.startswith("/"):
        raise InstallError(
            f"archive {archive.name}: member {name!r} would land outside the target "
            "(absolute path, '..' or backslash)",
            path=str(archive),
            hint="the archive is malformed or hostile; it was not installed",
        )
    return dest / rel


def _write(src: IO[bytes], target: Path, executable: bool, budget: _Budget) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o755 if executable else 0o644
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except FileExistsError as exc:
        raise InstallError(
            f"archive {budget.archive.name}: duplicate member {target.name}",
            path=str(budget.archive),
            hint="the archive is malformed; it was not installed",
        ) from exc
    with os.fdopen(fd, "wb") as out:
        while chunk := src.read(_CHUNK):
            budget.add(len(chunk))
            out.write(chunk)


_HINT = "the archive is damaged or not an archive; it was not installed"


def _refuse(archive: Path, name: str, what: str) -> InstallError:
    return InstallError(
        f"archive {archive.name}: member {name!r} is a {what}; only files and folders are allowed",
        path=str(archive),
        hint="the archive was not installed",
    )


def _extract_zip(archive: Path, dest: Path, budget: _Budget) -> None:
    try:
        zf = zipfile.ZipFile(archive)
    except _DAMAGED as exc:
        raise InstallError(
            f"{archive.name} is not a valid zip archive: {exc}", path=str(archive), hint=_HINT
        ) from exc
    with zf:
        infos = zf.infolist()
        declared = 0
        for info in infos:
            budget.member()
            declared += info.file_size
            if declared > budget.limits.archive_max_bytes:
                budget.add(declared)
            mode = (info.external_attr >> 16) & 0xFFFF
            kind = stat.S_IFMT(mode)
            if kind == stat.S_IFLNK:
                raise _refuse(archive, info.filename, "symbolic link")
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise _refuse(archive, info.filename, "device, fifo or socket")
            if info.flag_bits & 0x1:
                raise InstallError(
                    f"archive {archive.name}: member {info.filename!r} is encrypted",
                    path=str(archive),
                )
            _member_path(archive, info.filename, dest)
        for info in infos:
            target = _member_path(archive, info.filename, dest)
            if target is None:
                continue
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            mode = (info.external_attr >> 16) & 0xFFFF
            try:
                with zf.open(info) as src:
                    _write(src, target, bool(mode & 0o111), budget)
            except _DAMAGED as exc:
                raise InstallError(
                    f"archive {archive.name}: cannot extract {info.filename!r}: {exc}",
                    path=str(archive),
                    hint=_HINT,
                ) from exc


def _extract_tar(archive: Path, dest: Path, budget: _Budget) -> None:
    try:
        tf = tarfile.open(archive, mode="r:*")  # noqa: SIM115  (closed by the with below)
    except tarfile.ReadError as exc:  # its text lists every compression it tried
        raise InstallError(
            f"{archive.name} is not a valid tar archive", path=str(archive), hint=_HINT
        ) from exc
    except _DAMAGED as exc:
        raise InstallError(
            f"{archive.name} is not a valid tar archive: {exc}", path=str(archive), hint=_HINT
        ) from exc
    with tf:
        try:
            for member in tf:
                budget.member()
                if member.issym() or member.islnk():
                    raise _refuse(archive, member.name, "link")
                if not (member.isreg() or member.isdir()):
                    raise _refuse(archive, member.name, "device, fifo or socket")
                target = _member_path(archive, member.name, dest)
                if target is None:
                    continue
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                if member.size > budget.limits.archive_max_bytes:
                    budget.add(member.size)
                src = tf.extractfile(member)
                if src is None:
                    raise _refuse(archive, member.name, "special member")
                with src:
                    _write(src, target, bool(member.mode & 0o111), budget)
            # the members end before the compressed stream does: read on to its end,
            # where gzip and xz check what was read against their checksums (what is
            # read counts against the cap: the rest of a stream can be a bomb too)
            while tf.fileobj is not None and (rest := tf.fileobj.read(_CHUNK)):
                budget.add(len(rest))
        except _DAMAGED as exc:
            raise InstallError(
                f"archive {archive.name} is damaged: {exc}", path=str(archive), hint=_HINT
            ) from exc


def extract_archive(
    archive: Path,
    dest: Path,
    limits: InstallLimits,
    *,
    on_progress: ProgressCallback | None = None,
) -> None:
    """Extract ``archive`` into the new folder ``dest`` (raises ``InstallError``)."""
    kind = archive_kind(archive)
    dest.mkdir(parents=True)
    budget = _Budget(archive, limits)
    if on_progress:
        on_progress(InstallProgress("extract", f"extracting {archive.name}"))
    if kind == "zip":
        _extract_zip(archive, dest, budget)
    elif kind == "tar":
        _extract_tar(archive, dest, budget)
    else:
        raise InstallError(f"unknown archive type: {archive.name}", path=str(archive))
