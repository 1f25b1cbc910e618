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
from pathlib import Path

from skilldeck._atomic import atomic_write_text
from skilldeck._errors import ConfigError

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
    """Write the block into ``path`` (created when missing). Returns True when it changed."""
    target = Path(path)
    block = agents_md_block(catalog_text)
    try:
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise ConfigError(
                f"{target} is not a regular file", path=target, hint="give a plain file's path"
            )
        raw = target.read_bytes() if target.exists() else b""
    except OSError as exc:
        raise ConfigError(f"cannot read {target}: {exc.strerror or exc}", path=target) from exc
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
    atomic_write_text(target, new)
    return True
