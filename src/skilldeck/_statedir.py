"""State folders a repository can ship: opened without following links, owned by the user.

skilldeck keeps state in folders that a cloned repository may also contain
(``.skilldeck/``, its ``skills/``, ``.staging/``, lock and intent files), and git
stores symbolic links. Everything here works from directory descriptors:
each component is opened with ``O_NOFOLLOW`` relative to its parent's
descriptor, and a component that is a link, the wrong kind of file, or owned
by another user is refused with ``UNSAFE_STATE`` instead of being followed.
Folders this module creates get private modes (``0o700`` unless the caller
asks otherwise), files ``0o600``.

Staging folders carry an unguessable id: ``<pid>-<nonce>-<mac>`` where the
MAC is keyed by a secret kept in the user's data folder (a place no repository
can ship). Clean-up touches only folders whose id verifies, so a staging
folder planted by a repository is never entered, moved or deleted.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from skilldeck._errors import UnsafeStateError
from skilldeck._paths import dirs

__all__ = [
    "check_entry",
    "keep_out_of_commits",
    "open_below",
    "open_dir",
    "open_state_dir",
    "open_state_subdir",
    "read_file_at",
    "read_state_file",
    "remove_tree_at",
    "safe_dirs",
    "stage_id",
    "stage_id_is_ours",
    "state_key",
    "user_mac",
    "user_mac_matches",
    "write_file_at",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_DIR = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC

_KEY_NAME = "staging.key"


def _euid() -> int:
    geteuid = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else -1


def refuse(path: Path | str, problem: str, hint: str | None = None) -> UnsafeStateError:
    """The ``UNSAFE_STATE`` error for ``path``."""
    return UnsafeStateError(
        f"{path} {problem}; skilldeck does not act through it",
        path=path,
        hint=hint
        or "skilldeck never follows links or enters other users' folders in its state "
        "folders; if the repository shipped this entry, remove it (or work in another "
        "scope, e.g. --scope user)",
    )


def check_stat(
    st: os.stat_result,
    path: Path | str,
    *,
    want_dir: bool,
    any_owner: bool = False,
    private: bool = False,
) -> None:
    """Refuse a link, the wrong kind of entry, or one owned by another user
    (unless ``any_owner``: the user allowed that folder); with ``private`` (skilldeck's
    own state) also one that others may write (group or world write bit: git's
    ``safe.directory`` idea), while root's is accepted."""
    if stat.S_ISLNK(st.st_mode):
        raise refuse(path, "is a symbolic link")
    if want_dir and not stat.S_ISDIR(st.st_mode):
        raise refuse(path, "is not a folder")
    if not want_dir and not stat.S_ISREG(st.st_mode):
        raise refuse(path, "is not a regular file")
    uid = _euid()
    # skilldeck's own state may also be root's (a shared, read-only configuration)
    trusted = any_owner or (private and st.st_uid == 0)
    if uid >= 0 and st.st_uid != uid and not trusted:
        raise refuse(
            path,
            f"belongs to another user (uid {st.st_uid})",
            "skilldeck keeps its state only in folders you own; remove it or ask its owner",
        )
    if private and st.st_mode & 0o022:
        import shlex

        raise refuse(
            path,
            f"can be changed by other users (mode {stat.S_IMODE(st.st_mode):04o})",
            f"chmod go-w {shlex.quote(str(path))}",
        )


def check_entry(
    dir_fd: int | None, name: str, path: Path | str, *, want_dir: bool
) -> os.stat_result | None:
    """``lstat`` of ``name`` in ``dir_fd``, checked; ``None`` when it does not exist."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    check_stat(st, path, want_dir=want_dir)
    return st


def open_dir(
    name: str | Path,
    *,
    dir_fd: int | None = None,
    path: Path | str | None = None,
    create: bool = False,
    mode: int = 0o700,
    any_owner: bool = False,
    private: bool = False,
) -> int | None:
    """Open folder ``name`` (relative to ``dir_fd``) without following a link at it.

    Returns a descriptor, or ``None`` when it does not exist and ``create`` is
    false. A created folder gets ``mode``. Raises ``UnsafeStateError`` for a
    link, a file, or a folder owned by another user (``private``: or writable by
    others).
    """
    shown = path if path is not None else name
    try:
        fd = os.open(name, O_DIR, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            return None
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, mode, dir_fd=dir_fd)
        return open_dir(name, dir_fd=dir_fd, path=path, any_owner=any_owner, private=private)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise refuse(shown, "is a symbolic link or not a folder") from None
        raise
    try:
        check_stat(os.fstat(fd), shown, want_dir=True, any_owner=any_owner, private=private)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_below(
    root: Path, rel: str | os.PathLike[str], *, create: bool = False, mode: int = 0o755
) -> int | None:
    """Open folder ``root/rel``, each component of ``rel`` with :func:`open_dir`.

    ``root`` (the place the folder belongs to: a project's root) is opened as
    given; below it no link is followed and every folder must be the user's
    (``UnsafeStateError`` otherwise). Returns ``None`` when a component is
    missing and ``create`` is false; created folders get ``mode``.
    """
    parts = Path(rel).parts
    if Path(rel).is_absolute() or any(p in (".", "..") for p in parts):
        raise ValueError(f"{rel} is not a plain relative path")
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    shown = Path(root)
    for part in parts:
        shown = shown / part
        try:
            nxt = open_dir(part, dir_fd=fd, path=shown, create=create, mode=mode)
        finally:
            os.close(fd)
        if nxt is None:
            return None
        fd = nxt
    return fd


#: ``<project>/.skilldeck/.gitignore``: skilldeck's working files never reach a commit.
GITIGNORE = """\
# Written by skilldeck: its working files (operation locks, staging folders,
# temporary files) stay out of commits. config.toml, skills.lock and skills/
# are the project's to commit or to ignore.
/.staging/
/*.lock.lock
/config.toml.lock
/.*.tmp
"""


def keep_out_of_commits(fd: int, path: Path) -> None:
    """Write ``.gitignore`` in the project state folder ``fd`` (at ``path``) unless
    one is there: the user's own file wins."""
    if check_entry(fd, ".gitignore", path / ".gitignore", want_dir=False) is None:
        with contextlib.suppress(FileExistsError):
            write_file_at(fd, ".gitignore", GITIGNORE.encode("utf-8"), mode=0o644)


def read_file_at(
    dir_fd: int | None,
    name: str,
    *,
    path: Path | str,
    max_bytes: int,
    any_owner: bool = False,
    private: bool = False,
) -> bytes | None:
    """Read a state file without following a link (``None`` when missing).

    Refuses links, non-regular files (a fifo never blocks the read) and other
    users' files; a file larger than ``max_bytes`` is refused too.
    """
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise refuse(path, "is a symbolic link") from None
        raise
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        check_stat(st, path, want_dir=False, any_owner=any_owner, private=private)
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise refuse(path, f"is larger than {max_bytes} bytes")
    return data


def write_file_at(dir_fd: int, name: str, data: bytes, *, mode: int = 0o600) -> None:
    """Write ``name`` in ``dir_fd`` durably and atomically (``_atomic.replacing``:
    a new temp file, fsync'd, renamed over)."""
    from skilldeck._atomic import atomic_write_bytes

    atomic_write_bytes(name, data, mode=mode, dir_fd=dir_fd)


def remove_tree_at(dir_fd: int, name: str) -> None:
    """Remove ``name`` in ``dir_fd`` (a folder tree or a file); never follows a link.

    Read-only folders inside are made writable first. Missing is fine.
    """
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dir_fd)
        return
    import shutil

    shutil.rmtree(name, ignore_errors=True, dir_fd=dir_fd)
    if not _exists_at(dir_fd, name):
        return
    # Read-only folders: make each one writable (checked not to be a link), then retry.
    with contextlib.suppress(OSError):
        os.chmod(name, 0o700, dir_fd=dir_fd)
    for _root, dirnames, _files, rootfd in os.fwalk(name, dir_fd=dir_fd):
        for d in dirnames:
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.stat(d, dir_fd=rootfd, follow_symlinks=False).st_mode):
                    os.chmod(d, 0o700, dir_fd=rootfd)
    shutil.rmtree(name, ignore_errors=True, dir_fd=dir_fd)


def _exists_at(dir_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def safe_dirs(*paths: Path) -> bool:
    """True when every path is a real folder (not a link) owned by the current user."""
    for path in paths:
        try:
            check_stat(os.lstat(path), path, want_dir=True)
        except (OSError, UnsafeStateError):
            return False
    return True


# --- staging ids -------------------------------------------------------------


def _key(data_dir: Path) -> bytes:
    """The user's secret for staging ids (created on first use, ``0o600``)."""
    fd = open_state_dir(data_dir)
    try:
        got = read_file_at(fd, _KEY_NAME, path=data_dir / _KEY_NAME, max_bytes=4096, private=True)
        if got is not None and len(got) >= 32:
            return got
        try:
            new = os.open(
                _KEY_NAME,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                0o600,
                dir_fd=fd,
            )
        except FileExistsError:  # another process made it first (or a damaged one)
            got = read_file_at(fd, _KEY_NAME, path=data_dir / _KEY_NAME, max_bytes=4096)
            if got is not None and len(got) >= 32:
                return got
            raise refuse(data_dir / _KEY_NAME, "is damaged", "delete it; it is remade") from None
        key = os.urandom(32)  # what secrets.token_bytes reads
        with os.fdopen(new, "wb") as fh:
            fh.write(key)
            fh.flush()
            os.fsync(fh.fileno())
        return key
    finally:
        os.close(fd)


def _mac(key: bytes, text: str) -> str:
    import hashlib
    import hmac

    return hmac.new(key, text.encode("utf-8", "surrogateescape"), hashlib.sha256).hexdigest()[:32]


def stage_id(data_dir: Path) -> str:
    """A new staging folder name: ``<pid>-<nonce>-<mac>``."""
    prefix = f"{os.getpid()}-{os.urandom(8).hex()}"
    return f"{prefix}-{_mac(_key(data_dir), prefix)}"


def stage_id_is_ours(name: str, data_dir: Path) -> bool:
    """True when ``name`` was made by :func:`stage_id` with this user's key."""
    parts = name.split("-")
    if len(parts) != 3 or not all(p.isalnum() and p.isascii() for p in parts):
        return False
    try:
        key = _key(data_dir)
    except (OSError, UnsafeStateError):
        return False
    import hmac

    return hmac.compare_digest(_mac(key, f"{parts[0]}-{parts[1]}"), parts[2])


def open_state_dir(path: Path, *, create: bool = True) -> int:
    """Open (and create, ``0o700``) one of skilldeck's own folders, checked like git's
    ``safe.directory``: it must be a folder the current user (or root) owns that no
    other user may write; else ``UNSAFE_STATE``. The folder may be reached through a link the
    user made (a moved cache); what is opened is checked."""
    if create:
        os.makedirs(path, mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        check_stat(os.fstat(fd), path, want_dir=True, private=True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_state_subdir(dir_fd: int, name: str, *, path: Path) -> int:
    """Open (and create, ``0o700``) folder ``name`` in a state folder: not a link,
    owned by the user, not writable by others."""
    fd = open_dir(name, dir_fd=dir_fd, path=path, create=True, private=True)
    if fd is None:  # removed between making and opening it
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    return fd


def read_state_file(path: Path, *, max_bytes: int) -> bytes | None:
    """Read one of skilldeck's own files (``None`` when missing): its folder and the
    file must be the user's and not writable by others, the file not a link."""
    try:
        fd = open_state_dir(path.parent, create=False)
    except FileNotFoundError:
        return None
    try:
        return read_file_at(fd, path.name, path=path, max_bytes=max_bytes, private=True)
    finally:
        os.close(fd)


def state_key() -> bytes:
    """The user's secret (in the data folder) that signs staging ids and the launch helper."""
    return _key(dirs().data)


def user_mac(text: str) -> str:
    """``text`` signed with the user's secret: a value skilldeck writes into a file a
    repository can ship too (a project's lockfile) is told apart by it from one the
    repository wrote."""
    return _mac(state_key(), text)


def user_mac_matches(text: str, mac: object) -> bool:
    """True when ``mac`` is :func:`user_mac` of ``text``."""
    import hmac

    if not isinstance(mac, str) or not mac.isascii():
        return False
    try:
        return hmac.compare_digest(user_mac(text), mac)
    except (OSError, UnsafeStateError):
        return False
