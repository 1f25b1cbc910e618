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
the only way in from outside the package; its names load on first use
(``skilldeck._facade``), so a listing that walks nothing imports neither: the
codes it names are in ``_consts``.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck._tree._consts import (
        FILE_LINK_ESCAPES as FILE_LINK_ESCAPES,
        LINK_DANGLING as LINK_DANGLING,
        LINK_DUPLICATE as LINK_DUPLICATE,
        LINK_ESCAPES as LINK_ESCAPES,
        LINK_LOOP as LINK_LOOP,
        NOT_A_SKILL_FILE as NOT_A_SKILL_FILE,
        PLACEHOLDER as PLACEHOLDER,
        ROOT_UNREADABLE as ROOT_UNREADABLE,
        SECRET_FILE as SECRET_FILE,
        SKILL_MD_ESCAPES as SKILL_MD_ESCAPES,
        SPECIAL_FILE as SPECIAL_FILE,
        TOO_DEEP as TOO_DEEP,
        TOO_MANY_FILES as TOO_MANY_FILES,
        WALK_DEPTH as WALK_DEPTH,
        below_walk_depth as below_walk_depth,
    )
    from skilldeck._tree._discover import (
        MAX_DEPTH as MAX_DEPTH,
        REPOSITORY_CONTAINERS as REPOSITORY_CONTAINERS,
        REPOSITORY_DEPTH as REPOSITORY_DEPTH,
        SKIP_FOLDERS as SKIP_FOLDERS,
        SkillFinder as SkillFinder,
        find_skill_folders as find_skill_folders,
        frontmatter_start as frontmatter_start,
        linked_skill_md as linked_skill_md,
        skill_md_escapes as skill_md_escapes,
        skipped_folder as skipped_folder,
    )
    from skilldeck._tree._reader import (
        MAX_LINKS as MAX_LINKS,
        ContainedFolder as ContainedFolder,
        FileBytes as FileBytes,
        is_hidden as is_hidden,
        read_beneath as read_beneath,
        read_fd as read_fd,
        read_file as read_file,
    )
    from skilldeck._tree._text import (
        decode_text as decode_text,
        is_text as is_text,
        mime_type as mime_type,
    )
    from skilldeck._tree._types import Found as Found, ProblemKind as ProblemKind
    from skilldeck._tree._walk import (
        Entry as Entry,
        Problem as Problem,
        SkillTree as SkillTree,
        Walk as Walk,
        WalkLimits as WalkLimits,
        looks_like_secret as looks_like_secret,
        secret_findings as secret_findings,
        walk_skill as walk_skill,
    )
else:
    # name -> the module defining it (relative: this package)
    _PUBLIC = {
        "FILE_LINK_ESCAPES": "._consts",
        "LINK_DANGLING": "._consts",
        "LINK_DUPLICATE": "._consts",
        "LINK_ESCAPES": "._consts",
        "LINK_LOOP": "._consts",
        "NOT_A_SKILL_FILE": "._consts",
        "PLACEHOLDER": "._consts",
        "ROOT_UNREADABLE": "._consts",
        "SECRET_FILE": "._consts",
        "SKILL_MD_ESCAPES": "._consts",
        "SPECIAL_FILE": "._consts",
        "TOO_DEEP": "._consts",
        "TOO_MANY_FILES": "._consts",
        "WALK_DEPTH": "._consts",
        "below_walk_depth": "._consts",
        "MAX_DEPTH": "._discover",
        "REPOSITORY_CONTAINERS": "._discover",
        "REPOSITORY_DEPTH": "._discover",
        "SKIP_FOLDERS": "._discover",
        "Found": "._types",
        "SkillFinder": "._discover",
        "find_skill_folders": "._discover",
        "frontmatter_start": "._discover",
        "linked_skill_md": "._discover",
        "skill_md_escapes": "._discover",
        "skipped_folder": "._discover",
        "MAX_LINKS": "._reader",
        "ContainedFolder": "._reader",
        "FileBytes": "._reader",
        "ProblemKind": "._types",
        "is_hidden": "._reader",
        "read_beneath": "._reader",
        "read_fd": "._reader",
        "read_file": "._reader",
        "decode_text": "._text",
        "is_text": "._text",
        "mime_type": "._text",
        "Entry": "._walk",
        "Problem": "._walk",
        "SkillTree": "._walk",
        "Walk": "._walk",
        "WalkLimits": "._walk",
        "looks_like_secret": "._walk",
        "secret_findings": "._walk",
        "walk_skill": "._walk",
    }
    lazy(__name__, globals(), _PUBLIC, {})
