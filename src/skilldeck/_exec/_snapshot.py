"""Run from a private copy of exactly the files an approval covers.

The file set is the one the content digest covers (``skill_file_digests``: no
hidden files or folders). Each file is read once, hashed and written into a fresh
folder, so the digest of the copy is the digest of what runs. Approval is decided
on that digest, and the copy is hashed again right before the program starts: a
file changed while the approver was asked, or a hidden file added to the skill,
never runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from skilldeck._digest import digest_of_files, file_digest, skill_file_digests
from skilldeck._errors import ScriptFailedError

__all__ = ["Snapshot", "take_snapshot"]

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A private copy of a skill's file set: ``path``, its ``digest`` and relative ``files``."""

    path: Path
    digest: str
    files: frozenset[str]

    def verify(self) -> bool:
        """True when the copy still has exactly the digest it was made with."""
        found: dict[str, str] = {}
        for rel in self.files:
            try:
                found[rel] = file_digest(self.path / rel)
            except OSError:
                return False
        return digest_of_files(found) == self.digest

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _copy(src: Path, dst: Path) -> str:
    """Copy one file (never following a final link), returning the digest of the bytes copied."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    h = hashlib.sha256()
    fd = os.open(src, flags)
    try:
        st = os.fstat(fd)
        mode = 0o755 if st.st_mode & 0o111 else 0o644
        with os.fdopen(fd, "rb") as fi, open(dst, "xb") as fo:
            fd = -1
            while chunk := fi.read(_CHUNK):
                h.update(chunk)
                fo.write(chunk)
        os.chmod(dst, mode)
    finally:
        if fd >= 0:
            os.close(fd)
    return "sha256:" + h.hexdigest()


def take_snapshot(skill: str, skill_dir: Path) -> Snapshot:
    """Copy the digested file set of ``skill_dir`` into a new private folder."""
    base = skill_dir.resolve()
    listing = skill_file_digests(base)
    dest = Path(tempfile.mkdtemp(prefix="skilldeck-skill-"))
    try:
        os.chmod(dest, 0o755)  # noqa: S103  (an unprivileged run-as user must read it)
        copied: dict[str, str] = {}
        for rel in sorted(listing):
            real = (base / rel).resolve()
            if not real.is_relative_to(base):
                continue  # a link changed to leave the folder since it was listed
            target = dest / rel
            for parent in reversed(target.relative_to(dest).parents):
                folder = dest / parent
                if not folder.is_dir():
                    folder.mkdir(mode=0o755)
                    os.chmod(folder, 0o755)  # noqa: S103
            try:
                copied[rel] = _copy(real, target)
            except FileNotFoundError:
                continue  # removed since it was listed
    except OSError as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise ScriptFailedError(
            f"cannot copy skill '{skill}' for the run: {exc}",
            skill=skill,
            hint="check that the skill's files are readable and the temporary folder has room",
        ) from exc
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(dest, ignore_errors=True)
        raise
    return Snapshot(dest, digest_of_files(copied), frozenset(copied))
