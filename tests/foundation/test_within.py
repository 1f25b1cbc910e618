"""The one containment rule (``_paths.within``) every check of "is this path inside
that folder" calls: the sandbox's hidden state, the contained reader's link
targets, installs, trust, the catalog's plugins and links, the scanner."""

from __future__ import annotations

import os

import pytest

from skilldeck._paths import within


@pytest.mark.parametrize(
    ("path", "bases", "inside"),
    [
        ("/a/b", ["/a/b"], True),
        ("/a/b/c", ["/a/b"], True),
        ("/a/b/c", ["/a/b/"], True),
        ("/a/bc", ["/a/b"], False),  # a sibling that shares the prefix
        ("/a/b-evil/x", ["/a/b"], False),
        ("/a", ["/a/b"], False),  # above is not inside
        ("/anything", ["/"], True),  # the root holds everything
        ("/", ["/"], True),
        ("/a/b", [], False),
        ("/x/y", ["/a", "/x"], True),
    ],
)
def test_within_is_a_string_check_on_whole_components(
    path: str, bases: list[str], inside: bool
) -> None:
    assert within(path, bases) is inside


def test_relative_skill_paths_use_their_own_separator() -> None:
    assert within(".github/skills", (".github",), sep="/")
    assert not within(".github-old/skills", (".github",), sep="/")
    assert within("a/b", ("a",), sep="/") and not within("ab/c", ("a",), sep="/")


def test_no_copy_of_the_rule_is_left() -> None:
    """Every ``x == b or x.startswith(b + sep)`` of the package calls ``within``."""
    import re

    import skilldeck

    shape = re.compile(r"(\w+) == (\w+) or \1\.startswith\(\2")
    root = os.path.dirname(skilldeck.__file__)
    copies = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        if shape.search(line) and name != "_paths.py":
                            copies.append(f"{os.path.relpath(path, root)}:{n}")
    assert copies == []
