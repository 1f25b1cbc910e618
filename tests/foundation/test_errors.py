"""The exception tree: groups are caught, leaves are raised, codes come from the tree."""

from __future__ import annotations

import pytest

import skilldeck
from skilldeck import SkillError, SkillInstallationError, SkillValidationError
from skilldeck.tools import ERROR_CODES

GROUPS = (skilldeck.FileAccessError, skilldeck.ToolError, skilldeck.ExecutionError)


def _tree() -> list[type[SkillError]]:
    assert SkillInstallationError and SkillValidationError  # loaded: they join the tree
    out: list[type[SkillError]] = []
    pending = [SkillError]
    while pending:
        cls = pending.pop()
        out.append(cls)
        pending.extend(cls.__subclasses__())
    return out


def test_groups_have_no_code_and_cannot_be_raised() -> None:
    for group in GROUPS:
        assert "code" not in vars(group)
        assert group.__subclasses__()
        with pytest.raises(TypeError, match="raise one of them"):
            group("refused")
    assert {c for c in _tree() if vars(c).get("group")} == set(GROUPS)


def test_every_error_that_can_be_raised_has_a_code_of_a_non_group_class() -> None:
    for cls in _tree():
        if cls is SkillError or vars(cls).get("group"):
            continue
        owner = next(c for c in cls.__mro__ if "code" in vars(c))
        assert owner is not SkillError and not vars(owner).get("group"), cls
        assert cls.code in ERROR_CODES, cls


def test_the_code_list_is_the_tree_and_a_group_still_catches_its_leaves() -> None:
    leaves = [c for c in _tree() if c is not SkillError and not vars(c).get("group")]
    assert set(ERROR_CODES) == {c.code for c in leaves}
    assert len(ERROR_CODES) == len(set(ERROR_CODES))
    with pytest.raises(skilldeck.ToolError) as info:
        raise skilldeck.ToolNotAllowedError("not now", reason="hidden")
    assert info.value.to_dict()["code"] == "TOOL_NOT_ALLOWED"
