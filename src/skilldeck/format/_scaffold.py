"""Create a new skill folder that passes strict validation and lint as it is."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from skilldeck._errors import InstallError, InvalidArgumentsError
from skilldeck.format._manifest import check_name

#: How the placeholder description of a new skill starts (``lint`` flags it as SK312).
TEMPLATE_MARKER = "Replace this sentence with"

__all__ = ["RESOURCE_FOLDERS", "scaffold_skill"]

RESOURCE_FOLDERS = ("scripts", "references", "assets")

_SKILL_MD = """\
---
name: {name}
description: {description}
---

# {title}

Instructions an agent follows once this skill is loaded. Keep them short,
concrete and in the order the work is done.

## Steps

1. First step.
2. Second step.
3. How to check the result.
{sections}"""

_SCRIPTS_SECTION = """
## Scripts

Run `scripts/example.py` with the arguments the task needs; it prints one JSON
object. Replace it with the scripts this skill really uses, and say here when
to run each one.
"""

_REFERENCES_SECTION = """
## Reference material

Read [references/REFERENCE.md](references/REFERENCE.md) only when the steps
above are not enough: details live there so this file stays short.
"""

_ASSETS_SECTION = """
## Assets

Start from the template in [assets/template.md](assets/template.md) instead of
writing the output from scratch.
"""

_EXAMPLE_SCRIPT = '''\
#!/usr/bin/env python3
"""Example script for the {name} skill: prints its arguments as JSON."""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    json.dump({{"skill": "{name}", "arguments": argv}}, sys.stdout)
    sys.stdout.write("\\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''

_REFERENCE = """\
# {title}: reference

Detailed material the agent reads on demand: API tables, long examples,
edge cases. Link each file from SKILL.md and keep files one level deep.
"""

_TEMPLATE = """\
# Title

Fill in this template; it is used as the starting point of the output.
"""


def scaffold_skill(path: str | os.PathLike[str], *, resources: Iterable[str] = ()) -> Path:
    """Create the skill folder ``path`` (its name is the skill name) and return it.

    ``resources`` picks optional folders from ``scripts``, ``references`` and
    ``assets``; each gets a starter file that SKILL.md mentions. Raises
    ``InvalidArgumentsError`` for a name that breaks the naming rule or an unknown
    resource folder, and ``InstallError`` when ``path`` already exists or cannot be
    created (nothing is left behind).
    """
    folder = Path(path)
    name = folder.name
    chosen = list(dict.fromkeys(resources))
    unknown = [r for r in chosen if r not in RESOURCE_FOLDERS]
    if unknown:
        raise InvalidArgumentsError(
            f"unknown resource folder(s): {', '.join(unknown)}",
            field="resources",
            hint="choose from " + ", ".join(RESOURCE_FOLDERS),
        )
    problems = check_name(name, strict=True, path=None, pos=(None, None))
    if problems:
        raise InvalidArgumentsError(
            problems[0].message, field="name", hint=problems[0].hint, path=folder
        )
    if os.path.lexists(folder):
        raise InstallError(
            f"{folder} already exists", path=folder, hint="choose another name or folder"
        )
    title = name.replace("-", " ").capitalize()
    sections = ""
    if "scripts" in chosen:
        sections += _SCRIPTS_SECTION
    if "references" in chosen:
        sections += _REFERENCES_SECTION
    if "assets" in chosen:
        sections += _ASSETS_SECTION
    description = (
        f"{TEMPLATE_MARKER} what the {name} skill does. Use when the user asks "
        "for it; name the requests, file types or situations that should make an agent "
        "load this skill."
    )
    text = _SKILL_MD.format(name=name, title=title, description=description, sections=sections)
    try:
        folder.mkdir(parents=True)
    except OSError as exc:  # a parent that is a file or a dangling link, no permission
        raise InstallError(
            f"cannot create {folder}: {exc.strerror or exc}",
            path=folder,
            hint="choose a folder you can write to (--dir)",
        ) from None
    try:
        _fill(folder, name, title, text, chosen)
    except OSError as exc:  # the disk filled, a quota: no half-made skill is left
        shutil.rmtree(folder, ignore_errors=True)
        raise InstallError(
            f"cannot write the skill {folder}: {exc.strerror or exc}",
            path=folder,
            hint="free some space or choose another folder (--dir)",
        ) from None
    return folder


def _fill(folder: Path, name: str, title: str, text: str, chosen: list[str]) -> None:
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    if "scripts" in chosen:
        script = folder / "scripts" / "example.py"
        script.parent.mkdir()
        script.write_text(_EXAMPLE_SCRIPT.format(name=name), encoding="utf-8")
        script.chmod(0o755)
    if "references" in chosen:
        (folder / "references").mkdir()
        (folder / "references" / "REFERENCE.md").write_text(
            _REFERENCE.format(title=title), encoding="utf-8"
        )
    if "assets" in chosen:
        (folder / "assets").mkdir()
        (folder / "assets" / "template.md").write_text(_TEMPLATE, encoding="utf-8")
