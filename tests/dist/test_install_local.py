"""Installing from local folders: selection, naming, conflicts, limits, hostile trees."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.dist._helpers import make_skill, tree_files

import skilldeck


def _lock(result: skilldeck.dist.InstallResult) -> dict[str, object]:
    lockfile = Path(result.installed_dir).parent / "skills.lock"
    data: dict[str, object] = json.loads(lockfile.read_text())
    return data


def test_a_single_skill_folder_installs_whole_and_is_catalogued(tmp_path: Path) -> None:
    src = make_skill(
        tmp_path / "src" / "pdf",
        "pdf-tools",
        files={"scripts/run.py": "print('hi')\n", "reference/notes.md": "notes\n"},
    )
    os.chmod(src / "scripts" / "run.py", 0o755)
    result = skilldeck.dist.install(str(src))
    assert result.names == ("pdf-tools",)
    installed = Path(result.skills[0].path)
    assert installed.name == "pdf-tools"
    assert tree_files(installed) == tree_files(src)
    assert os.stat(installed / "scripts" / "run.py").st_mode & 0o777 == 0o755
    assert os.stat(installed / "SKILL.md").st_mode & 0o777 == 0o644
    assert result.skills[0].file_count == 3
    # the catalog sees it as an installed skill
    meta = skilldeck.Catalog.default().get("pdf-tools")
    assert meta is not None and Path(meta.path).resolve() == installed.resolve()
    infos = skilldeck.dist.list_installed()
    assert [(i.name, i.kind, i.enabled) for i in infos] == [("pdf-tools", "local", True)]


def test_a_multi_skill_source_needs_a_choice_and_installs_nothing_without_one(
    tmp_path: Path,
) -> None:
    root = tmp_path / "src"
    make_skill(root / "skills" / "alpha", "alpha")
    make_skill(root / "skills" / "beta", "beta")
    make_skill(root / "other" / "gamma", "gamma")
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.install(str(root))
    assert "holds 3 skills" in info.value.message
    assert "--skill" in (info.value.hint or "")
    assert skilldeck.dist.list_installed() == ()

    one = skilldeck.dist.install(str(root), skills=["beta"])
    assert one.names == ("beta",)
    by_path = skilldeck.dist.install(str(root), skills=["other/gamma"])
    assert by_path.names == ("gamma",)
    with pytest.raises(skilldeck.InstallError, match="no skill named nope"):
        skilldeck.dist.install(str(root), skills=["nope"])


def test_all_and_subpath_select_skills(tmp_path: Path) -> None:
    root = tmp_path / "src"
    make_skill(root / "skills" / "alpha", "alpha")
    make_skill(root / "skills" / "beta", "beta")
    make_skill(root / "other" / "gamma", "gamma")
    result = skilldeck.dist.install(f"{root}#skills", all_skills=True)
    assert result.names == ("alpha", "beta")
    assert [e["source"]["skill_path"] for e in _lock(result)["skills"].values()] == [  # type: ignore[index, union-attr]
        "skills/alpha",
        "skills/beta",
    ]
    with pytest.raises(skilldeck.InstallError, match="sub-folder"):
        skilldeck.dist.install(str(root), subpath="../..", all_skills=True)


def test_name_renames_the_copy_and_keeps_it_valid(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "helper")
    result = skilldeck.dist.install(str(src), name="team-helper")
    installed = Path(result.skills[0].path)
    assert installed.name == "team-helper"
    assert "name: team-helper" in (installed / "SKILL.md").read_text()
    assert "name: helper" in (src / "SKILL.md").read_text()  # the source is untouched
    assert skilldeck.validate_skill(installed).valid
    with pytest.raises(skilldeck.InstallError, match="not a valid skill name"):
        skilldeck.dist.install(str(src), name="Bad Name")


def test_a_second_install_of_the_same_name_needs_force(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "dup", body="one\n")
    first = skilldeck.dist.install(str(src))
    installed = Path(first.skills[0].path)
    (src / "SKILL.md").write_text((src / "SKILL.md").read_text().replace("one", "two"))
    with pytest.raises(skilldeck.InstallError, match="already installed") as info:
        skilldeck.dist.install(str(src))
    assert "--force" in (info.value.hint or "")
    assert "one" in (installed / "SKILL.md").read_text()
    again = skilldeck.dist.install(str(src), force=True)
    assert again.skills[0].replaced
    assert "two" in (installed / "SKILL.md").read_text()


def test_an_invalid_skill_md_installs_nothing(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "SKILL.md").write_text("---\nname: Not Valid!\n---\nbody\n")
    with pytest.raises(skilldeck.ManifestError) as info:
        skilldeck.dist.install(str(src))
    assert info.value.diagnostics
    assert skilldeck.dist.list_installed() == ()


def test_no_skill_md_is_a_coded_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(skilldeck.InstallError, match=r"no SKILL\.md found"):
        skilldeck.dist.install(str(tmp_path / "empty"))
    with pytest.raises(skilldeck.InstallError, match="not found"):
        skilldeck.dist.install(str(tmp_path / "missing"))


def test_a_link_leaving_the_skill_is_left_out_with_a_warning(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("private key\n")
    src = make_skill(tmp_path / "src", "linky")
    (src / "leak.txt").symlink_to(secret)
    result = skilldeck.dist.install(str(src))
    copy = Path(result.skills[0].path)
    assert not os.path.lexists(copy / "leak.txt")
    assert "private key" not in "".join(p.read_text() for p in copy.rglob("*") if p.is_file())
    warnings = result.skills[0].warnings
    assert any(w.code == "SK514" and "leak.txt" in w.message for w in warnings)


def test_a_link_inside_the_skill_becomes_a_plain_file(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "inner", files={"docs/a.md": "A\n"})
    (src / "b.md").symlink_to("docs/a.md")
    result = skilldeck.dist.install(str(src))
    copy = Path(result.skills[0].path) / "b.md"
    assert not copy.is_symlink() and copy.read_text() == "A\n"


def test_dangling_and_looping_links_and_fifos_are_left_out(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "d", "odd", files={"docs/a.md": "A\n"})
    (src / "gone").symlink_to(tmp_path / "d" / "nowhere")
    (src / "a").symlink_to("b")
    (src / "b").symlink_to("a")
    (src / "docs" / "up").symlink_to("..")
    os.mkfifo(src / "pipe")
    result = skilldeck.dist.install(str(src))
    copy = Path(result.skills[0].path)
    assert set(tree_files(copy)) == {"SKILL.md", "docs/a.md"}
    assert {w.code for w in result.skills[0].warnings} >= {"SK504", "SK505", "SK515"}


def test_names_that_are_not_utf8_are_left_out_not_a_crash(tmp_path: Path) -> None:
    # a real-world archive or a Latin-1 machine leaves such names; digests, JSON and
    # URIs only carry text, so the walker leaves them out with SK519 (was a traceback)
    src = make_skill(tmp_path / "src", "latin", files={"docs/a.md": "A\n"})
    try:
        (src / os.fsdecode(b"r\xe9sum\xe9.txt")).write_bytes(b"x")
        (src / os.fsdecode(b"d\xff")).mkdir()
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    (src / os.fsdecode(b"d\xff") / "inner.md").write_text("in\n")
    assert skilldeck.catalog.skill_digest(src).startswith("sha256:")
    result = skilldeck.dist.install(str(src))
    copy = Path(result.skills[0].path)
    assert set(tree_files(copy)) == {"SKILL.md", "docs/a.md"}
    warnings = [w for w in result.skills[0].warnings if w.code == "SK519"]
    assert sorted(w.message.split(":")[0] for w in warnings) == ["d\\xff", "r\\xe9sum\\xe9.txt"]
    for w in warnings:
        w.format().encode("utf-8")  # printable, loggable, JSON-safe


def test_a_source_folder_named_in_another_encoding_installs_nothing(tmp_path: Path) -> None:
    # the lockfile records the source and the skill's folder as text: a name that is
    # not UTF-8 crashed the lockfile write after the skill was already swapped in
    try:
        src = make_skill(tmp_path / os.fsdecode(b"src\xff") / "one", "one")
    except OSError:
        pytest.skip("this file system refuses names that are not UTF-8")
    make_skill(tmp_path / os.fsdecode(b"src\xff") / "two", "two")
    multi = make_skill(tmp_path / "multi" / os.fsdecode(b"b\xe9") / "three", "three").parent
    make_skill(tmp_path / "multi" / "four", "four")
    with pytest.raises(skilldeck.InstallError, match="not valid UTF-8"):
        skilldeck.dist.install(str(src))
    with pytest.raises(skilldeck.InstallError, match=r"b\\xe9/three .* not valid UTF-8"):
        skilldeck.dist.install(str(multi.parent), all_skills=True)
    assert skilldeck.dist.list_installed() == ()
    result = skilldeck.dist.install(str(multi.parent), skills=["four"])
    assert result.names == ("four",)


def test_a_skill_md_that_is_a_link_to_a_secret_is_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("---\nname: stolen\ndescription: x. Use when x.\n---\n")
    src = tmp_path / "src"
    src.mkdir()
    (src / "SKILL.md").symlink_to(secret)
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(str(src))
    assert skilldeck.dist.list_installed() == ()


def test_too_many_files_and_too_many_bytes_stop_the_install(tmp_path: Path) -> None:
    many = make_skill(tmp_path / "many", "many", files={f"f/{i}.txt": "x" for i in range(30)})
    with pytest.raises(skilldeck.InstallError, match="files"):
        skilldeck.dist.install(str(many), limits=skilldeck.dist.InstallLimits(max_files=10))
    big = make_skill(tmp_path / "big", "big", files={"blob.bin": b"\0" * 200_000})
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(str(big), limits=skilldeck.dist.InstallLimits(max_bytes=100_000))
    assert skilldeck.dist.list_installed() == ()
    # the default limits accept both
    assert skilldeck.dist.install(str(many)).names == ("many",)


def test_skip_invalid_installs_the_skills_that_can_be(tmp_path: Path) -> None:
    # one broken skill, or two of one name, in a real repository of dozens stopped
    # `install --all` (3 of the 9 repositories of the test corpus)
    src = tmp_path / "repo"
    make_skill(src / "good", "good")
    make_skill(src / "a" / "twin", "twin")
    make_skill(src / "b" / "twin", "twin")
    (src / "broken").mkdir()
    (src / "broken" / "SKILL.md").write_text("../../elsewhere/SKILL.md")
    with pytest.raises(skilldeck.InstallError, match="both named 'twin'") as info:
        skilldeck.dist.install(str(src), all_skills=True)
    assert info.value.hint is not None and "--skip-invalid" in info.value.hint
    assert skilldeck.dist.list_installed() == ()
    result = skilldeck.dist.install(str(src), all_skills=True, skip_invalid=True)
    assert result.names == ("twin", "good")
    assert [why.split(":")[0] for why in result.skipped] == ["b/twin", "broken"]
    only_bad = tmp_path / "only-bad"
    (only_bad / "x").mkdir(parents=True)
    (only_bad / "x" / "SKILL.md").write_text("no frontmatter")
    with pytest.raises(skilldeck.InstallError, match="nothing was installed"):
        skilldeck.dist.install(str(only_bad), all_skills=True, skip_invalid=True)


def test_default_limit_refuses_a_skill_over_512_files(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "huge", files={f"d/{i}.txt": "" for i in range(600)})
    with pytest.raises(skilldeck.InstallError, match="512") as info:
        skilldeck.dist.install(str(src))
    # the hint says what the limits are and how to raise them (it said only "raise the limit")
    assert info.value.hint is not None
    assert "512 files and 16 MiB" in info.value.hint and "InstallLimits(" in info.value.hint


def test_setuid_bits_are_dropped(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "suid", files={"tool.sh": "#!/bin/sh\n"})
    os.chmod(src / "tool.sh", 0o4755)
    result = skilldeck.dist.install(str(src))
    assert os.stat(Path(result.skills[0].path) / "tool.sh").st_mode & 0o7777 == 0o755


def test_project_scope_installs_under_the_repository_root(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    src = make_skill(tmp_path / "src", "proj-skill")
    result = skilldeck.dist.install(str(src), scope="project", cwd=project / "sub")
    assert Path(result.skills[0].path) == project / ".skilldeck" / "skills" / "proj-skill"
    assert (project / ".skilldeck" / "skills.lock").is_file()
    assert [i.scope for i in skilldeck.dist.list_installed(cwd=project)] == ["project"]


def test_events_and_progress_are_reported(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "evented")
    events: list[object] = []
    stages: list[str] = []
    skilldeck.dist.install(
        str(src), events=events.append, on_progress=lambda p: stages.append(p.stage)
    )
    assert [type(e).__name__ for e in events] == ["SkillsInstalled"]
    assert "validate" in stages


def test_confirm_sees_the_plan_and_can_cancel(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "asked")
    plans: list[skilldeck.dist.InstallPlan] = []

    def no(plan: skilldeck.dist.InstallPlan) -> bool:
        plans.append(plan)
        return False

    with pytest.raises(skilldeck.InstallError, match="cancelled"):
        skilldeck.dist.install(str(src), confirm=no)
    assert [s.name for s in plans[0].skills] == ["asked"]
    assert skilldeck.dist.list_installed() == ()


def test_a_callback_cancels_by_raising_cancelled(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "declined")

    def no(plan: skilldeck.dist.InstallPlan) -> bool:
        raise skilldeck.Cancelled()

    with pytest.raises(skilldeck.Cancelled):
        skilldeck.dist.install(str(src), confirm=no)
    assert skilldeck.dist.list_installed() == ()
