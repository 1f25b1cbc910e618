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


def _copy(fd: int, dst: Path, executable: bool) -> str:
    """Copy an open file into ``dst``, returning the digest of the bytes copied."""
    h = hashlib.sha256()
    with os.fdopen(fd, "rb") as fi, open(dst, "xb") as fo:
        while chunk := fi.read(_CHUNK):
            h.update(chunk)
            fo.write(chunk)
    os.chmod(dst, 0o755 if executable else 0o644)
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
            for entry in files:
                try:
                    fd = tree.open(entry.path)
                except FileNotFoundInSkillError:
                    continue  # removed since it was listed
                target = dest / entry.path
                for parent in reversed(Path(entry.path).parents):
                    folder = dest / parent
                    if not folder.is_dir():
                        folder.mkdir()
                        os.chmod(folder, 0o755)  # noqa: S103
                copied[entry.path] = _copy(fd, target, entry.executable)
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
