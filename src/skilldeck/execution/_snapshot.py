"""Run from a private copy of exactly the files an approval covers.

The file set is the one the content digest covers (the walker's, as in
``skill_digest``: no hidden files or folders, no links leaving the folder).
Each file is read once, hashed and written into a fresh folder, so the digest
of the copy is the digest of what runs. Approval is decided on that digest, and
the copy is hashed again right before the program starts: a file changed while
the approver was asked, or a hidden file added to the skill, never runs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from skilldeck._digest import digest_of_files, file_digest, require_skill_md
from skilldeck._errors import FileNotFoundInSkillError, ScriptFailedError
from skilldeck._tree import SkillTree, WalkLimits

__all__ = ["Snapshot", "take_snapshot"]

_CHUNK = 1 << 20


class Snapshot:
    """A private copy of a skill's file set: ``path``, its ``digest`` and relative
    ``files`` (never changed once made; not a dataclass, like a run's plan)."""

    __slots__ = ("digest", "files", "path")

    def __init__(self, path: Path, digest: str, files: frozenset[str]) -> None:
        self.path = path
        self.digest = digest
        self.files = files

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


_CREATE = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
)  # fmt: skip
_fchmod = getattr(os, "fchmod", None)  # not on Windows before 3.13


def _copy(fd: int, dst: str, executable: bool) -> str:
    """Copy an open file into the new file ``dst``, returning the digest of the bytes
    copied; both descriptors are closed. Plain descriptors, no buffered file objects:
    a skill's files are mostly small, and a run copies each of them."""
    h = hashlib.sha256()
    mode = 0o755 if executable else 0o644
    try:
        out = os.open(dst, _CREATE, 0o600)
        try:
            while chunk := os.read(fd, _CHUNK):
                h.update(chunk)
                view = memoryview(chunk)
                while view:
                    view = view[os.write(out, view) :]
            if _fchmod is not None:
                _fchmod(out, mode)
        finally:
            os.close(out)
    finally:
        os.close(fd)
    if _fchmod is None:
        os.chmod(dst, mode)
    return "sha256:" + h.hexdigest()


#: a skill up to this size is copied into memory (``/dev/shm``) where there is one:
#: creating and deleting folders and files on a journaling disk costs a run more CPU
#: than everything else skilldeck does for it
IN_MEMORY_BYTES = 16 << 20
_SHM = "/dev/shm"  # noqa: S108


def _base(total: int) -> str | None:
    """Where the copy goes: the memory file system for a small skill, else ``TMPDIR``."""
    if total > IN_MEMORY_BYTES:
        return None
    try:
        st = os.statvfs(_SHM)
    except OSError:
        return None
    noexec = getattr(os, "ST_NOEXEC", None)  # Linux; elsewhere it cannot be told
    if noexec is None or st.f_flag & (noexec | os.ST_RDONLY):
        return None  # a skill may load native code from its folder; it must be executable
    if not os.access(_SHM, os.W_OK | os.X_OK):
        return None
    return _SHM


def _folders(base: str, folder: str, made: set[str]) -> None:
    """Make ``folder`` (relative, ``/``-separated) and its missing parents in ``base``."""
    parts = folder.split("/")
    for depth in range(1, len(parts) + 1):
        rel = "/".join(parts[:depth])
        if rel not in made:
            path = f"{base}/{rel}"
            os.mkdir(path, 0o700)
            os.chmod(path, 0o755)  # noqa: S103  (whatever the umask: the run-as user reads it)
            made.add(rel)


def take_snapshot(skill: str, skill_dir: Path) -> Snapshot:
    """Copy the digested file set of ``skill_dir`` into a new private folder.

    The files are the walker's (``skilldeck._tree``), read through its contained
    reader: the same set ``skill_digest`` and ``verify`` cover.
    """
    dest: Path | None = None
    try:
        copied: dict[str, str] = {}
        with SkillTree(skill_dir, skill=skill) as tree:
            files = tree.walk(limits=WalkLimits()).files
            dest = Path(
                tempfile.mkdtemp(prefix="skilldeck-skill-", dir=_base(sum(e.size for e in files)))
            )
            os.chmod(dest, 0o755)  # noqa: S103  (an unprivileged run-as user must read it)
            base = str(dest)
            made = {""}  # the folders made in the new (private) copy so far
            for entry in files:
                try:
                    fd = tree.open(entry.path)
                except FileNotFoundInSkillError:
                    continue  # removed since it was listed
                folder, _, _ = entry.path.rpartition("/")
                if folder not in made:
                    try:
                        _folders(base, folder, made)
                    except BaseException:
                        os.close(fd)
                        raise
                copied[entry.path] = _copy(fd, f"{base}/{entry.path}", entry.executable)
        require_skill_md(copied, skill_dir)  # never a run bound to a partial set
    except OSError as exc:
        if dest is not None:
            shutil.rmtree(dest, ignore_errors=True)
        raise ScriptFailedError(
            f"cannot copy skill '{skill}' for the run: {exc}",
            skill=skill,
            hint="check that the skill's files are readable and the temporary folder has room",
        ) from exc
    except BaseException:
        if dest is not None:
            shutil.rmtree(dest, ignore_errors=True)
        raise
    return Snapshot(dest, digest_of_files(copied), frozenset(copied))
