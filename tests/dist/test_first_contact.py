"""What a new user meets first: hints that work when pasted, read-only commands that
write nothing, project state kept out of commits, and the gh/uv conventions.

Each hint test runs the real CLI, takes the command the hint prints (or the flag
it names, added to the same command), runs it, and checks that it works.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.dist._helpers import CliResult, GitRepo, make_skill, run_cli


def _snapshot(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every entry below ``root``: kind, mode, and content or link text."""
    out: dict[str, tuple[str, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            if path.is_symlink():
                out[str(path.relative_to(root))] = ("link", st.st_mode, os.readlink(path))
            elif path.is_dir():
                out[str(path.relative_to(root))] = ("dir", st.st_mode, "")
            else:
                out[str(path.relative_to(root))] = ("file", st.st_mode, path.read_text("latin-1"))
    return out


def _hint(res: CliResult) -> str:
    found = re.search(r"^hint: (.*)$", res.err, re.M)
    assert found, res.err
    return found.group(1)


def _backticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def _paste(command: str, cwd: Path) -> CliResult:
    """Run a printed ``skilldeck ...`` command as the user would paste it."""
    argv = shlex.split(command)
    assert argv[0] == "skilldeck", command
    return run_cli(*argv[1:], cwd=cwd)


@pytest.fixture
def project(git_repo: GitRepo) -> Path:
    make_skill(git_repo.path / ".agents" / "skills" / "local-one", "local-one")
    git_repo.commit("a project with a skill")
    return git_repo.path


# --- hints that work when pasted ---------------------------------------------------


def test_all_with_one_skill_present_offers_skip_existing_and_it_works(
    tmp_path: Path, project: Path
) -> None:
    source = tmp_path / "source"
    make_skill(source / "a", "first-one")
    make_skill(source / "b", "second-one")
    assert run_cli("install", str(source / "a"), cwd=project).code == 0
    argv = ["install", str(source), "--all", "--yes"]
    res = run_cli(*argv, cwd=project)
    assert res.code == 1
    hint = _hint(res)
    assert "--name" not in hint and "--skip-existing" in hint and "--force" in hint
    again = run_cli(*argv, "--skip-existing", cwd=project)
    assert again.code == 0, again.err
    assert "installed second-one" in again.out
    # everything installed now: --skip-existing is not a failure
    done = run_cli(*argv, "--skip-existing", cwd=project)
    assert done.code == 0, done.err
    assert "left alone: first-one, second-one" in done.out
    [update] = _backticked(done.out)
    assert _paste(update, project).code == 0
    forced = run_cli(*argv, "--force", cwd=project)
    assert forced.code == 0 and "replaced first-one" in forced.out


def test_one_skill_present_offers_name_and_update_and_both_work(
    tmp_path: Path, project: Path
) -> None:
    src = make_skill(tmp_path / "solo", "solo-one")
    argv = ["install", str(src), "--scope", "project", "--yes"]
    assert run_cli(*argv, cwd=project).code == 0
    res = run_cli(*argv, cwd=project)
    assert res.code == 1
    hint = _hint(res)
    assert "--name NEW-NAME" in hint and "--skip-existing" not in hint
    beside = run_cli(*argv, "--name", "solo-two", cwd=project)
    assert beside.code == 0, beside.err
    [update] = _backticked(hint)
    assert update == "skilldeck update solo-one --scope project"
    assert _paste(update, project).code == 0


def test_list_of_an_empty_root_points_doctor_at_that_root(tmp_path: Path, project: Path) -> None:
    empty = tmp_path / "my skills"
    empty.mkdir()
    res = run_cli("list", "--root", str(empty), cwd=project)
    assert res.code == 0 and "no skills found" in res.out
    [doctor] = _backticked(res.out)
    assert doctor == f"skilldeck doctor --root {shlex.quote(str(empty))}"
    looked = _paste(doctor, project)
    assert str(empty) in looked.out, looked.out
    assert ".agents/skills" not in looked.out  # the default folders are not what it shows


def test_a_missing_extra_names_the_command_for_this_installation(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    import skilldeck
    from skilldeck.cli import main

    monkeypatch.setitem(sys.modules, "skilldeck.mcp", None)  # as without the extra
    # (and not left on the package by a test that imported it in this process)
    monkeypatch.delattr(skilldeck, "mcp", raising=False)
    res = CliRunner().invoke(main, ["serve"])
    assert res.exit_code == 1
    command = res.output.strip().splitlines()[-1].strip()
    argv = shlex.split(command)
    # this interpreter's pip (the one skilldeck runs with), the checkout it came from
    assert argv[:4] == [sys.executable, "-m", "pip", "install"], command
    assert "skilldeck[mcp]" not in command  # no such package on the user's index
    spec = argv[-1]
    checkout, _, extra = spec.partition("[")
    assert extra == "mcp]"
    pyproject = Path(checkout) / "pyproject.toml"
    assert re.search(r"^mcp = \[", pyproject.read_text(), re.M), "the checkout offers the extra"
    assert (
        subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode
        == 0
    )


# --- read-only commands write nothing into the repository --------------------------


def test_read_only_commands_write_nothing_into_the_repository(project: Path) -> None:
    before = _snapshot(project)
    for argv in (
        ["doctor"],
        ["list"],
        ["list", "--installed"],
        ["show", "local-one"],
        ["why", "local-one"],
        ["sandbox", "status"],
        ["verify"],
        ["verify", "--scope", "project"],
    ):
        res = run_cli(*argv, cwd=project)
        assert "Traceback" not in res.err, (argv, res.err)
        assert _snapshot(project) == before, argv
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=project, capture_output=True, text=True
    )
    assert status.stdout == ""


def test_project_state_stays_out_of_commits_and_its_links_are_relative(
    tmp_path: Path, project: Path
) -> None:
    src = make_skill(tmp_path / "src", "kept-out")
    res = run_cli(
        "install", str(src), "--scope", "project", "--agent", "claude-code", "--yes", cwd=project
    )
    assert res.code == 0, res.err
    assert run_cli("disable", "kept-out", "--scope", "project", cwd=project).code == 0
    ignored = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "-uall"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert not any(
        ".lock.lock" in line or ".staging" in line for line in ignored if line[:2] != "!!"
    )
    assert any(line.startswith("!! .skilldeck/") for line in ignored)
    state = project / ".skilldeck"
    assert (state / "skills.lock.lock").exists() and (state / ".gitignore").is_file()
    for dirpath, dirnames, filenames in os.walk(project):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path.is_symlink():
                assert not os.path.isabs(os.readlink(path)), path
    # a .gitignore of the user's own is never overwritten
    (state / ".gitignore").write_text("# mine\n")
    assert run_cli("enable", "kept-out", "--scope", "project", cwd=project).code == 0
    assert (state / ".gitignore").read_text() == "# mine\n"


# --- gh/uv conventions ---------------------------------------------------------------


def test_bare_skilldeck_prints_help_and_exits_0(project: Path) -> None:
    res = run_cli(cwd=project)
    assert res.code == 0
    assert "Usage: skilldeck" in res.out and "Commands:" in res.out


def test_version_command_and_option(project: Path) -> None:
    from skilldeck import __version__

    for argv in (["version"], ["--version"]):
        res = run_cli(*argv, cwd=project)
        assert (res.code, res.out) == (0, f"skilldeck, version {__version__}\n")
    data = json.loads(run_cli("version", "--json", cwd=project).out)
    assert data == {"ok": True, "data": {"version": __version__}}


@pytest.mark.parametrize(
    ("env", "args", "coloured"),
    [
        ({"TERM": "dumb"}, ["--color", "auto"], False),
        ({"NO_COLOR": "1"}, [], False),
        ({"NO_COLOR": "1"}, ["--color", "always"], True),
        ({}, ["--color", "always"], True),
        ({}, ["--color", "never"], False),
    ],
)
def test_colour_follows_term_no_color_and_the_option(
    tmp_path: Path, env: dict[str, str], args: list[str], coloured: bool
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: Bad Name\n---\n")
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    proc = subprocess.run(
        [sys.executable, "-m", "skilldeck", *args, "validate", str(bad)],
        env={**base, **env},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert ("\x1b[" in proc.stdout) is coloured, proc.stdout


def test_list_does_not_cut_descriptions_into_a_pipe(tmp_path: Path, project: Path) -> None:
    long = "Handles a very particular kind of task. " * 6 + "The end."
    make_skill(project / ".agents" / "skills" / "wordy", "wordy", description=long.strip())
    res = run_cli("list", cwd=project)
    assert "The end." in res.out and "…" not in res.out


def test_completion_is_printed_and_completes_skill_names(project: Path) -> None:
    script = run_cli("completion", "bash", cwd=project)
    assert script.code == 0 and "_SKILLDECK_COMPLETE=bash_complete" in script.out
    env = {
        "_SKILLDECK_COMPLETE": "bash_complete",
        "COMP_WORDS": "skilldeck load lo",
        "COMP_CWORD": "2",
    }
    proc = subprocess.run(
        [sys.executable, "-c", "from skilldeck.cli import entry; entry()"],
        cwd=project,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    assert "plain,local-one" in proc.stdout.splitlines(), proc.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("command", ["show", "load"])
def test_bash_completes_a_name_with_shell_characters_into_a_word_that_pastes(
    tmp_path: Path, command: str
) -> None:
    """A completed name is inserted quoted: it's here and star* were inserted raw (an
    open quote, a glob), and `show` completed only paths."""
    root = tmp_path / "skills"
    make_skill(root / "quote", "it's here")
    make_skill(root / "glob", "star*")
    (tmp_path / "stara").mkdir()  # what star* would glob to in the folder
    script = run_cli("completion", "bash", cwd=tmp_path).out
    complete = tmp_path / "complete.sh"
    complete.write_text(
        script
        + '\nCOMP_WORDS=(skilldeck "$1" --root "$2" "$3"); COMP_CWORD=4\n'
        + '_skilldeck_completion skilldeck 2>/dev/null\nprintf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for typed, name in (("it", "it's here"), ("'it", "it's here"), ("sta", "star*")):
        proc = subprocess.run(
            ["bash", str(complete), command, str(root), typed],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        words = proc.stdout.splitlines()
        assert len(words) == 1, (typed, proc.stdout, proc.stderr)
        line = f"skilldeck {command} --root {shlex.quote(str(root))} {words[0]} --json"
        pasted = subprocess.run(
            ["bash", "-c", line],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert pasted.returncode == 0, (words, pasted.stderr)
        assert json.loads(pasted.stdout)["data"]["name"] == name


def test_installed_skills_show_their_scope_and_verify_update_cover_both(
    tmp_path: Path, project: Path
) -> None:
    mine = make_skill(tmp_path / "mine", "user-skill")
    ours = make_skill(tmp_path / "ours", "project-skill")
    assert run_cli("install", str(mine), cwd=project).code == 0
    res = run_cli("install", str(ours), "--scope", "project", "--agent", "claude-code", cwd=project)
    assert res.code == 0, res.err
    listed = run_cli("list", "--installed", cwd=project).out
    assert re.search(r"user-skill\s+installed \(user\)", listed), listed
    assert re.search(r"project-skill\s+installed \(project\)", listed), listed
    rows = {
        r["name"]: r
        for r in json.loads(run_cli("list", "--installed", "--json", cwd=project).out)["data"][
            "skills"
        ]
    }
    assert (rows["user-skill"]["scope"], rows["project-skill"]["scope"]) == ("user", "project")
    verified = run_cli("verify", cwd=project)
    assert verified.code == 0
    assert "ok       user-skill (user)" in verified.out
    assert "ok       project-skill (project)" in verified.out
    data = json.loads(run_cli("verify", "--json", cwd=project).out)["data"]
    assert {(s["name"], s["scope"]) for s in data["skills"]} == {
        ("user-skill", "user"),
        ("project-skill", "project"),
    }
    # a deleted agent link is put back, and update says so
    link = project / ".claude" / "skills" / "project-skill"
    link.unlink()
    assert "missing" in run_cli("verify", cwd=project).out
    updated = run_cli("update", cwd=project)
    assert updated.code == 0, updated.err
    assert "project-skill (project): unchanged" in updated.out
    assert f"agent folder put back: {link}" in updated.out
    assert link.is_symlink()
    # remove finds the scope the skill is installed in
    assert run_cli("remove", "project-skill", cwd=project).code == 0
    assert not link.exists()


def test_a_skill_over_the_limits_installs_with_the_pasted_hint_and_updates_with_them(
    tmp_path: Path,
) -> None:
    """The hint for a skill over 512 files was a Python call; it is now the command
    again with larger --max-files and --max-bytes, and update and export take them too."""
    big = make_skill(
        tmp_path / "big", "big", files={f"files/f{i}.txt": f"{i}\n" for i in range(600)}
    )
    refused = run_cli("install", str(big), "--yes", cwd=tmp_path)
    assert refused.code == 1 and "INSTALL_FAILED" in refused.err
    hint = refused.err.split("hint: ", 1)[1].strip()
    command = hint.split(": ", 1)[1]
    assert command.startswith("skilldeck install ") and "--max-files" in command
    assert run_cli("list", "--installed", cwd=tmp_path).out.count("big") == 0  # nothing half-done
    pasted = run_cli(*shlex.split(command)[1:], cwd=tmp_path)
    assert pasted.code == 0, pasted.err
    assert "installed big" in pasted.out
    (big / "files" / "new.txt").write_text("new\n")
    assert run_cli("update", "big", cwd=tmp_path).code == 1  # the default limits again
    updated = run_cli("update", "big", "--max-files", "2048", cwd=tmp_path)
    assert updated.code == 0 and "+ files/new.txt" in updated.out, updated.err
    exported = run_cli("export", "big", "--to", "./out", cwd=tmp_path)
    assert exported.code == 1 and "skilldeck export big --to ./out --max-files" in exported.err
    again = run_cli("export", "big", "--to", "./out", "--max-files", "4096", cwd=tmp_path)
    assert again.code == 0, again.err
    assert len(list((tmp_path / "out" / "big" / "files").iterdir())) == 601
