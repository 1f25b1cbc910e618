"""One walker and one contained reader of a skill folder, and the one discovery of
skill folders (``_discover``: which folders are skills, with the one skip list).

Every part of skilldeck that lists or reads a skill's files goes through this
module (digests, the file index, install copies, the security scan, MCP), so
what is digested is exactly what is served and what a run can see.

The rules, in one place:

- **Hidden names** (any path component starting with ``.``: ``.env``, ``.git/``,
  ``.DS_Store``, ``.x.swp``) are never listed and never read.
- **Links**: a link whose target stays inside the skill folder is followed and
  listed under the link's own path (a link to a folder is entered, once per
  path; one leading back to a folder above it is a loop). Links leaving the
  folder, dangling links, loops and links into hidden paths are skipped with a
  ``Problem`` and never read.
- **Special files** (FIFOs, devices, sockets) are skipped, and a read of one is
  refused.
- **Limits**: depth, file count, folder count and total size are capped; past a
  cap the walk raises a coded ``PathNotAllowedError`` (or, with
  ``strict=False``, stops there and says so).

Two modules, one rule set: ``_reader`` resolves and reads one path beneath the
folder without a window for a swap (``openat2`` where the kernel has it, else a
component-by-component ``O_NOFOLLOW`` walk from a descriptor), and holds the
bounded read every read shares; ``_walk`` lists the folder, resolving each link
with the reader, so what is listed is exactly what can be read. This facade is
the only way in from outside the package.
"""

from skilldeck._tree._discover import (
    LINK_DUPLICATE,
    LINK_ESCAPES,
    MAX_DEPTH,
    NOT_A_SKILL_FILE,
    PLACEHOLDER,
    REPOSITORY_CONTAINERS,
    REPOSITORY_DEPTH,
    ROOT_UNREADABLE,
    SKILL_MD_ESCAPES,
    SKIP_FOLDERS,
    Found,
    SkillFinder,
    find_skill_folders,
    linked_skill_md,
    skill_md_escapes,
    skipped_folder,
    within,
)
from skilldeck._tree._reader import (
    MAX_LINKS,
    ContainedFolder,
    FileBytes,
    ProblemKind,
    is_hidden,
    read_beneath,
    read_fd,
    read_file,
)
from skilldeck._tree._text import decode_text, is_text, mime_type
from skilldeck._tree._walk import (
    FILE_LINK_ESCAPES,
    LINK_DANGLING,
    LINK_LOOP,
    SECRET_FILE,
    SPECIAL_FILE,
    TOO_DEEP,
    TOO_MANY_FILES,
    Entry,
    Problem,
    SkillTree,
    Walk,
    WalkLimits,
    looks_like_secret,
    secret_findings,
    walk_skill,
)

__all__ = [
    "FILE_LINK_ESCAPES",
    "LINK_DANGLING",
    "LINK_DUPLICATE",
    "LINK_ESCAPES",
    "LINK_LOOP",
    "MAX_DEPTH",
    "MAX_LINKS",
    "NOT_A_SKILL_FILE",
    "PLACEHOLDER",
    "REPOSITORY_CONTAINERS",
    "REPOSITORY_DEPTH",
    "ROOT_UNREADABLE",
    "SECRET_FILE",
    "SKILL_MD_ESCAPES",
    "SKIP_FOLDERS",
    "SPECIAL_FILE",
    "TOO_DEEP",
    "TOO_MANY_FILES",
    "ContainedFolder",
    "Entry",
    "FileBytes",
    "Found",
    "Problem",
    "ProblemKind",
    "SkillFinder",
    "SkillTree",
    "Walk",
    "WalkLimits",
    "decode_text",
    "find_skill_folders",
    "is_hidden",
    "is_text",
    "linked_skill_md",
    "looks_like_secret",
    "mime_type",
    "read_beneath",
    "read_fd",
    "read_file",
    "secret_findings",
    "skill_md_escapes",
    "skipped_folder",
    "walk_skill",
    "within",
]
