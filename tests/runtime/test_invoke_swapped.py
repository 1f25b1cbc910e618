"""A skill the user invokes whose SKILL.md was swapped for a link out of its folder
after the listing: the invocation is refused with the read's code, and nothing of the
link target's frontmatter (a fork, its allowed tools) is acted on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import skilldeck


def test_invoking_a_swapped_skill_md_is_path_not_allowed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    folder = root / "own"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: own\ndescription: The skill's own words.\n---\n# Own\n", encoding="utf-8"
    )
    catalog = skilldeck.Catalog.from_roots([root], cache=False)
    runtime = skilldeck.SkillRuntime(catalog)
    session = runtime.session()
    assert runtime.invoke(session, "own").prompt.startswith("# Own")
    target = tmp_path / "elsewhere.md"
    target.write_text(
        "---\nname: own\ndescription: Elsewhere.\ncontext: fork\nallowed-tools: Read\n---\nX\n",
        encoding="utf-8",
    )
    again = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root], cache=False))
    session = again.session()
    again.catalog.list()  # listed before the swap
    link = folder / "SKILL.md.new"
    link.symlink_to(target)
    os.replace(link, folder / "SKILL.md")
    with pytest.raises(skilldeck.PathNotAllowedError) as err:
        again.invoke(session, "own")
    assert err.value.code == "PATH_NOT_ALLOWED"
