"""``Executor.run``: one entry for a skill's scripts and declared tools, and a run copy
hashed once (again only when time passed while someone was asked)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import skilldeck

from .conftest import MODES, MakeSkill, executor

TOOLS = """\
---
name: {name}
description: A skill with a declared tool.
---

Greets.

### greet

Says hello to someone.

#### Parameters

| Name | Type | Required | Description |
|---|---|---|---|
| who | string | yes | whom to greet |
| times | integer | no | how often (default: 1) |

#### Command

```bash
echo hello {{{{who}}}} {{{{times}}}}
```
"""


def _loaded(make_skill: MakeSkill, world: Path) -> tuple[skilldeck.Catalog, skilldeck.Skill]:
    make_skill(
        "greeter",
        scripts={"echo.sh": 'echo "args: $*"\n'},
        skill_md=TOOLS.format(name="greeter"),
    )
    catalog = skilldeck.Catalog.from_roots([world])
    return catalog, catalog.load("greeter")


def test_a_target_is_a_declared_tool_or_a_script(make_skill: MakeSkill, world: Path) -> None:
    _, skill = _loaded(make_skill, world)
    ex = executor(sandbox="none")
    ex.approver = lambda request: True
    typed = ex.run(skill, "greet", arguments=["who=ada", "times=2"], trust="bundled")
    assert typed.output == "hello ada 2\n"  # KEY=VALUE strings, coerced by the tool's types
    given = ex.run(skill, "greet", arguments={"who": "bob"}, trust="bundled")
    assert given.output == "hello bob 1\n"
    script = ex.run(skill, "scripts/echo.sh", ["a", "b"], trust="bundled")
    assert script.output == "args: a b\n"


def test_arguments_of_the_wrong_kind_are_refused(make_skill: MakeSkill, world: Path) -> None:
    _, skill = _loaded(make_skill, world)
    ex = executor(sandbox="none")
    with pytest.raises(skilldeck.InvalidArgumentsError) as info:
        ex.run(skill, "greet", ["ada"], trust="bundled")
    assert "--arg KEY=VALUE" in (info.value.hint or "")
    with pytest.raises(skilldeck.InvalidArgumentsError) as info:
        ex.run(skill, "scripts/echo.sh", arguments={"who": "x"}, trust="bundled")
    assert "tools: greet" in info.value.message
    with pytest.raises(skilldeck.FileNotFoundInSkillError) as missing:
        ex.run(skill, "scripts/nope.sh", trust="bundled")
    assert (missing.value.hint or "").startswith("its declared tools: greet;")


def test_a_change_to_the_run_copy_while_the_approver_is_asked_never_runs(
    make_skill: MakeSkill,
) -> None:
    skill = make_skill(scripts={"run.sh": "echo approved\n"}, read_only=False)
    ex = executor(sandbox="none")

    def approver(request: skilldeck.execution.ApprovalRequest) -> bool:
        # the copy the run will start from, as the request shows it, is changed
        copy = next(arg for arg in request.argv if arg.endswith("/scripts/run.sh"))
        Path(copy).write_text("echo swapped\n")
        return True

    with pytest.raises(skilldeck.ApprovalRequiredError) as info:
        ex.run(skill, "scripts/run.sh", trust="user", approver=approver)
    assert "changed before it could run" in info.value.message


def test_a_file_changed_after_approval_is_refused(make_skill: MakeSkill) -> None:
    skill = make_skill(scripts={"run.sh": "echo approved\n"}, read_only=False)
    ex = executor(sandbox="none")
    first = ex.run(skill, "scripts/run.sh", trust="user", approver=lambda request: True)
    assert first.output == "approved\n"
    assert ex.approvals.get("demo").digest == first.isolation["digest"]  # type: ignore[union-attr]
    (skill.path / "scripts" / "run.sh").write_text("echo changed\n")
    with pytest.raises(skilldeck.ApprovalRequiredError) as info:
        ex.run(skill, "scripts/run.sh", trust="user")
    assert info.value.to_dict()["reason"] == "changed"
    # the digest a run is decided on is the digest of the bytes it copied
    again = ex.run(skill, "scripts/run.sh", trust="user", approver=lambda request: True)
    assert again.output == "changed\n"
    assert again.isolation["digest"] == skilldeck.skill_digest(skill.path)
    assert again.isolation["digest"] != first.isolation["digest"]


@pytest.mark.parametrize("mode", MODES)
def test_a_small_skill_is_copied_into_memory_a_large_one_is_not(
    make_skill: MakeSkill, mode: str
) -> None:
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        pytest.skip("no memory file system at /dev/shm")
    script = {"where.sh": 'echo "$SKILLDECK_SKILL_DIR"; cat "$SKILLDECK_SKILL_DIR/SKILL.md"\n'}
    small = make_skill("small", scripts=script)
    ran = executor(sandbox=mode).run(small, "scripts/where.sh", trust="bundled")
    assert ran.output.startswith("/dev/shm/skilldeck-skill-"), ran.output
    assert "name: small" in ran.output
    large = make_skill("large", scripts=script)
    (large.path / "assets").mkdir()
    (large.path / "assets" / "big.bin").write_bytes(b"\0" * (17 << 20))
    (large.path / "assets").chmod(0o755)
    (large.path / "assets" / "big.bin").chmod(0o644)
    ran = executor(sandbox=mode).run(large, "scripts/where.sh", trust="bundled")
    assert not ran.output.startswith("/dev/shm/") and "name: large" in ran.output
