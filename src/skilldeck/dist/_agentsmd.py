"""``skilldeck sync --agents-md``: the skill catalog in a marked block of AGENTS.md.

Agents without native skill support read ``AGENTS.md``. This writes the
catalog's skill list (names, descriptions, locations) there between skilldeck's
own markers, with how to load a skill, replacing only that block: the rest of
the file is kept byte for byte. The file is written atomically; a file with a
broken block (a start marker and no end, or several blocks) is refused rather
than guessed at.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

from skilldeck._atomic import atomic_write_text
from skilldeck._errors import ConfigError
from skilldeck._paths import shown_path

__all__ = ["BEGIN", "END", "agents_md_block", "sync_agents_md"]

BEGIN = "<!-- skilldeck:skills:start -->"
END = "<!-- skilldeck:skills:end -->"
_MAX_BYTES = 4 * 1024 * 1024

_USAGE = """\
## Skills

Skills are folders of instructions for tasks. When a task matches a skill
listed below, run `skilldeck load NAME` in the shell and follow what it prints;
`skilldeck read NAME PATH` prints one of the skill's bundled files. Load a
skill only when the task needs it, and only skills listed here.
"""


def agents_md_block(catalog_text: str) -> str:
    """The marked block for ``catalog_text`` (the skill list as ``skilldeck prompt`` renders it)."""
    body = catalog_text.strip() or "<available_skills>\n</available_skills>"
    return f"{BEGIN}\n{_USAGE}\n{body}\n{END}"


def sync_agents_md(path: str | os.PathLike[str], catalog_text: str) -> bool:
    """Write the block into ``path`` (created when missing). Returns True when it changed.

    The file keeps its permissions; a file its owner may not write (``chmod a-w``) is
    refused, as is anything but a regular file, and a write that fails leaves the old
    file whole (``ConfigError`` each time)."""
    target = Path(path)
    block = agents_md_block(catalog_text)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _cannot("read", target, exc) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise ConfigError(
            f"{shown_path(str(target))} is not a regular file",
            path=target,
            hint="give a plain file's path",
        )
    if st is not None and not st.st_mode & stat.S_IWUSR:
        raise ConfigError(
            f"{shown_path(str(target))} is read-only",
            path=target,
            hint=f"make it writable (chmod u+w {shlex.quote(str(target))}) or give another file",
        )
    try:
        raw = target.read_bytes() if st is not None else b""
    except OSError as exc:
        raise _cannot("read", target, exc) from None
    if len(raw) > _MAX_BYTES:
        raise ConfigError(f"{target} is larger than 4 MiB", path=target)
    try:
        old = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{target} is not UTF-8 text", path=target) from exc
    starts, ends = old.count(BEGIN), old.count(END)
    if starts == 0 and ends == 0:
        gap = 0 if not old else 2 - len(old) + len(old.rstrip("\n")[: len(old)])
        sep = "\n" * max(gap, 0)
        new = f"{old}{sep}{block}\n"
    elif starts == 1 and ends == 1 and old.index(BEGIN) < old.index(END):
        head, rest = old.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        new = f"{head}{block}{tail}"
    else:
        raise ConfigError(
            f"{target} has a damaged skilldeck block ({starts} start and {ends} end markers)",
            path=target,
            hint=f"keep one '{BEGIN}' ... '{END}' pair (or delete both), then run it again",
        )
    if new == old:
        return False
    try:
        atomic_write_text(target, new, mode=stat.S_IMODE(st.st_mode) if st else 0o644)
    except OSError as exc:
        raise _cannot("write", target, exc) from None
    return True


def _cannot(what: str, target: Path, exc: OSError) -> ConfigError:
    where = os.fsdecode(exc.filename or target)
    at = "" if where in (str(target), os.path.abspath(target)) else f" ({shown_path(where)})"
    return ConfigError(
        f"cannot {what} {shown_path(str(target))}{at}: {exc.strerror or exc}",
        path=target,
        hint="give a file in a folder you can write (--agents-md PATH)",
    )
