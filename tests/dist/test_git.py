"""Installing from real git repositories: refs, tags, commits, updates, refused transports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.dist._helpers import GitRepo, make_skill

import skilldeck


def test_install_records_the_commit_and_a_local_repo_is_fetched_with_git(
    git_repo: GitRepo,
) -> None:
    make_skill(git_repo.path, "git-skill", files={"scripts/a.py": "print(1)\n"})
    head = git_repo.commit("first")
    # an uncommitted change is not installed: git fetched the commit, not the folder
    (git_repo.path / "scripts" / "a.py").write_text("print('dirty')\n")
    result = skilldeck.dist.install(str(git_repo.path))
    assert result.source.kind == "git"
    assert result.commit == head
    installed = Path(result.skills[0].path)
    assert (installed / "scripts" / "a.py").read_text() == "print(1)\n"
    assert not (installed / ".git").exists()
    info = skilldeck.dist.list_installed()[0]
    assert info.commit == head and info.kind == "git"


def test_tags_branches_and_commits_pin_what_is_installed(git_repo: GitRepo) -> None:
    make_skill(git_repo.path, "pinned", body="version one\n")
    v1 = git_repo.commit("v1")
    git_repo.tag("v1.0.0")
    make_skill(git_repo.path, "pinned", body="version two\n")
    v2 = git_repo.commit("v2")
    git_repo.git("branch", "stable", v1)

    by_tag = skilldeck.dist.install(git_repo.url, ref="v1.0.0")
    assert by_tag.commit == v1
    assert "version one" in (Path(by_tag.skills[0].path) / "SKILL.md").read_text()

    by_branch = skilldeck.dist.install(git_repo.url, ref="stable", name="pinned-branch")
    assert by_branch.commit == v1
    by_commit = skilldeck.dist.install(git_repo.url, ref=v1, name="pinned-commit")
    assert by_commit.commit == v1
    by_short = skilldeck.dist.install(git_repo.url, ref=v1[:10], name="pinned-short")
    assert by_short.commit == v1
    head = skilldeck.dist.install(git_repo.url, name="pinned-head")
    assert head.commit == v2

    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(git_repo.url, ref="no-such-tag", name="missing")


def test_subdirectory_of_a_repository(git_repo: GitRepo) -> None:
    make_skill(git_repo.path / "skills" / "one", "one")
    make_skill(git_repo.path / "skills" / "two", "two")
    git_repo.commit()
    result = skilldeck.dist.install(f"{git_repo.url}#skills/two")
    assert result.names == ("two",)
    assert result.available == ("two",)


def test_update_follows_the_branch_and_reports_changed_files(git_repo: GitRepo) -> None:
    make_skill(git_repo.path, "moving", files={"a.txt": "a\n", "b.txt": "b\n"})
    old = git_repo.commit("one")
    skilldeck.dist.install(git_repo.url)

    assert skilldeck.dist.update(all_skills=True).skills[0].status == "unchanged"

    (git_repo.path / "a.txt").write_text("A\n")
    (git_repo.path / "b.txt").unlink()
    (git_repo.path / "c.txt").write_text("c\n")
    new = git_repo.commit("two")

    dry = skilldeck.dist.update(["moving"], dry_run=True)
    assert dry.skills[0].status == "would-update"
    info = skilldeck.dist.list_installed()[0]
    assert info.commit == old

    result = skilldeck.dist.update(["moving"])
    upd = result.skills[0]
    assert upd.status == "updated" and upd.old_commit == old and upd.new_commit == new
    assert upd.changes.added == ("c.txt",)
    assert upd.changes.removed == ("b.txt",)
    assert upd.changes.modified == ("a.txt",)
    folder = Path(skilldeck.dist.list_installed()[0].path)
    assert sorted(p.name for p in folder.iterdir()) == ["SKILL.md", "a.txt", "c.txt"]
    assert skilldeck.dist.verify().ok


def test_a_skill_pinned_to_a_commit_stays_there(git_repo: GitRepo) -> None:
    make_skill(git_repo.path, "fixed", body="one\n")
    first = git_repo.commit()
    skilldeck.dist.install(git_repo.url, ref=first)
    make_skill(git_repo.path, "fixed", body="two\n")
    git_repo.commit()
    upd = skilldeck.dist.update(all_skills=True).skills[0]
    assert upd.status == "unchanged" and upd.new_commit == first


def test_a_source_that_disappeared_fails_its_skills_only(git_repo: GitRepo, tmp_path: Path) -> None:
    make_skill(git_repo.path, "doomed")
    git_repo.commit()
    skilldeck.dist.install(git_repo.url)
    keeper = make_skill(tmp_path / "keeper", "keeper")
    skilldeck.dist.install(str(keeper))
    os.rename(git_repo.path, tmp_path / "moved")
    result = skilldeck.dist.update(all_skills=True)
    status = {u.name: u.status for u in result.skills}
    assert status == {"doomed": "failed", "keeper": "unchanged"}
    assert not result.ok
    assert Path(skilldeck.dist.list_installed()[0].path).is_dir()  # the old copy stays


def test_a_git_failure_says_why(tmp_path: Path) -> None:
    # git's last line is boilerplate ("... and the repository exists."); the reason is
    # its first fatal line
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.install((tmp_path / "no-repo-here").as_uri())
    assert "does not appear to be a git repository" in info.value.message
    assert "and the repository exists" not in info.value.message


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the repository to another user")
def test_a_repository_of_another_user_names_git_s_refusal(git_repo: GitRepo) -> None:
    make_skill(git_repo.path, "theirs")
    git_repo.commit()
    for folder, _dirs, files in os.walk(git_repo.path):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            os.lchown(name, 12345, 12345)
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.install(git_repo.url)
    assert "dubious ownership" in info.value.message
    assert info.value.hint is not None and "a clone or copy you own" in info.value.hint


def test_hooks_in_the_source_never_run(git_repo: GitRepo, tmp_path: Path) -> None:
    make_skill(git_repo.path, "hooked")
    (git_repo.path / ".gitmodules").write_text('[submodule "x"]\n\tpath = x\n\turl = ./x\n')
    git_repo.commit()
    marker = tmp_path / "hook-ran"
    for hook in ("post-checkout", "post-merge", "reference-transaction", "pre-upload-pack"):
        script = git_repo.path / ".git" / "hooks" / hook
        script.write_text(f"#!/bin/sh\ntouch {marker}\n")
        script.chmod(0o755)
    # the user's global template would install hooks in a fresh repository
    template = tmp_path / "template" / "hooks"
    template.mkdir(parents=True)
    (template / "post-checkout").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (template / "post-checkout").chmod(0o755)
    Path.home().joinpath(".gitconfig").write_text(f"[init]\n\ttemplateDir = {template.parent}\n")
    result = skilldeck.dist.install(git_repo.url)
    assert result.names == ("hooked",)
    assert not marker.exists()


@pytest.mark.parametrize(
    "source",
    [
        "ext::sh -c touch% /tmp/skilldeck-pwned",
        "fd::17",
        "http://example.invalid/repo.git",
        "git://example.invalid/repo.git",
        "--upload-pack=touch /tmp/x",
        "https://example.invalid/skills.zip",
    ],
)
def test_dangerous_sources_are_refused_before_git_runs(source: str) -> None:
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(source)
    assert not Path("/tmp/skilldeck-pwned").exists()


def test_a_ref_that_looks_like_an_option_is_refused(git_repo: GitRepo) -> None:
    make_skill(git_repo.path, "opt")
    git_repo.commit()
    with pytest.raises(skilldeck.InstallError):
        skilldeck.dist.install(git_repo.url, ref="--upload-pack=touch /tmp/x")


@pytest.mark.parametrize("ref", ["main\n", "v1.0\n", "abc1234\n"])
def test_a_ref_with_a_line_break_after_it_is_refused(git_repo: GitRepo, ref: str) -> None:
    # '$' in a pattern matches before a final line break: the whole ref must match
    make_skill(git_repo.path, "nl")
    git_repo.commit()
    with pytest.raises(skilldeck.InstallError, match="invalid git ref"):
        skilldeck.dist.install(git_repo.url, ref=ref)


def test_parse_source_reads_the_shorthands(tmp_path: Path) -> None:
    gh = skilldeck.dist.parse_source("acme/skills")
    assert gh.kind == "git" and gh.url == "https://github.com/acme/skills.git"
    folder = tmp_path / "plain"
    folder.mkdir()
    assert skilldeck.dist.parse_source(str(folder)).kind == "local"
    sub = skilldeck.dist.parse_source(f"{folder}#a/b")
    assert sub.subpath == "a/b"


def test_a_repository_s_folder_names_reach_messages_escaped(git_repo: GitRepo) -> None:
    # the folder name of a skill in the repository, and a --skill value, were quoted
    # into the error as they were: an escape sequence retitled the user's terminal
    hostile = "a\x1b]0;pwned\x07"
    make_skill(git_repo.path / "skills" / hostile, "first")
    make_skill(git_repo.path / "skills" / "second", "second")
    git_repo.commit()
    with pytest.raises(skilldeck.InstallError) as several:
        skilldeck.dist.install(git_repo.url)
    with pytest.raises(skilldeck.InstallError) as missing:
        skilldeck.dist.install(git_repo.url, skills=["x\x1b[2J"])
    for caught in (several, missing):
        text = f"{caught.value} {caught.value.hint}"
        assert text.isprintable() and "a\\x1b]0;pwned\\x07" in text, text
    assert skilldeck.dist.list_installed() == ()


def _with_submodule(repo: GitRepo, path: str, tmp_path: Path) -> GitRepo:
    """``repo`` with a real git submodule at ``path`` (a repository holding a skill)."""
    other = GitRepo(tmp_path / "other")
    other.path.mkdir()
    other.git("init", "-q", "-b", "main")
    make_skill(other.path, "vendored", files={"lib/helper.py": "print(1)\n"})
    other.commit()
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", "../other", path)
    repo.commit()
    return other


def test_a_submodule_inside_a_skill_is_left_out_with_a_warning(
    git_repo: GitRepo, tmp_path: Path
) -> None:
    make_skill(git_repo.path / "skills" / "tool", "tool", files={"scripts/run.py": "print(1)\n"})
    _with_submodule(git_repo, "skills/tool/vendor", tmp_path)
    result = skilldeck.dist.install(git_repo.url)
    installed = Path(result.skills[0].path)
    # git leaves a submodule an empty folder: it was installed as if part of the skill
    assert not (installed / "vendor").exists()
    (warning,) = [w for w in result.skills[0].warnings if w.code == "SK521"]
    assert warning.message.startswith("vendor: a git submodule")
    assert warning.hint is not None and "skilldeck install" in warning.hint


def test_a_source_whose_skills_are_submodules_says_where_they_come_from(
    git_repo: GitRepo, tmp_path: Path
) -> None:
    make_skill(git_repo.path / "skills" / "own", "own")
    git_repo.commit()
    other = _with_submodule(git_repo, "skills/vendored", tmp_path)
    # a sub-folder that is a submodule names the submodule's own repository
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.install(git_repo.url, subpath="skills/vendored")
    assert "skills/vendored is a git submodule" in info.value.message
    assert info.value.hint == f"install from the submodule's own repository: " \
        f"skilldeck install {other.url}"  # fmt: skip
    # a skill name no folder has may be the submodule's
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.install(git_repo.url, skills=["vendored"])
    assert "never fetched: skills/vendored" in info.value.message
    # --all installs the source's own skills and says which submodules it left out
    result = skilldeck.dist.install(git_repo.url, all_skills=True)
    assert result.names == ("own",)
    assert result.skipped == ("skills/vendored: a git submodule, never fetched",)
    # the hint works when pasted: it installs the submodule's skill
    skilldeck.dist.install(other.url)
    assert {i.name for i in skilldeck.dist.list_installed()} == {"own", "vendored"}


def test_a_source_of_submodules_only_is_refused_with_their_repository(
    git_repo: GitRepo, tmp_path: Path
) -> None:
    _with_submodule(git_repo, "skills/vendored", tmp_path)
    # a hostile .gitmodules URL is quoted for the shell the hint is pasted into
    git_repo.git("config", "-f", ".gitmodules", "submodule.skills/vendored.url", "x; touch y")
    git_repo.commit()
    with pytest.raises(skilldeck.InstallError) as info:
        skilldeck.dist.install(git_repo.url)
    assert "holds no skill of its own" in info.value.message
    assert info.value.hint is not None and info.value.hint.endswith("install 'x; touch y'")


def test_a_skill_at_a_repository_s_root_is_named_after_the_repository(tmp_path: Path) -> None:
    """Errors about a skill at the root of a git source named the staging folder the
    checkout sat in (``src: invalid SKILL.md``); they name the repository."""
    repo = GitRepo(tmp_path / "pdf-helpers")
    repo.path.mkdir()
    repo.git("init", "-q", "-b", "main")
    (repo.path / "SKILL.md").write_text("---\nname: pdf-helpers\n---\nNo description.\n")
    repo.commit()
    with pytest.raises(skilldeck.SkillError) as invalid:
        skilldeck.dist.install(repo.url)
    assert str(invalid.value).startswith("pdf-helpers: invalid SKILL.md"), invalid.value
    make_skill(repo.path, "pdf-helpers", files={f"references/{i}.md": "x\n" for i in range(4)})
    repo.commit()
    few = skilldeck.dist.InstallLimits(max_files=3)
    with pytest.raises(skilldeck.InstallError) as large:
        skilldeck.dist.install(str(repo.path), limits=few)
    assert str(large.value).startswith("skill pdf-helpers: more than 3 files"), large.value
    assert skilldeck.dist.list_installed() == ()
