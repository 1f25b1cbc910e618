"""The catalog commands through click's CliRunner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from skilldeck.cli import main
from skilldeck.config import dirs

from .conftest import MakeSkill


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def roots(tmp_path: Path, make_skill: MakeSkill) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    make_skill(a, "shared", "low copy")
    make_skill(b, "shared", "high copy", files={"references/guide.md": "# Guide\n"})
    make_skill(a, "needs-tool", frontmatter="requires: skd-none-xyz\n")
    make_skill(a, "broken", raw="---\nname: broken\n---\n")
    return a, b


def _r(a: Path, b: Path) -> list[str]:
    return ["--root", str(a), "--root", str(b)]


def test_list_without_config_shows_bundled_skills(runner: CliRunner) -> None:
    result = runner.invoke(main, ["list", "--format", "json"])
    assert result.exit_code == 0, result.output
    skills = json.loads(result.output)["data"]["skills"]
    assert skills and all(s["source"] == "bundled" for s in skills)
    assert all(s["status"] == "enabled" for s in skills)


def test_list_text_and_all(runner: CliRunner, roots: tuple[Path, Path]) -> None:
    result = runner.invoke(main, ["list", *_r(*roots)])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert any(line.startswith("✓ shared") and "high copy" in line for line in lines)
    assert any(line.startswith("✗ needs-tool") and "skd-none-xyz" in line for line in lines)
    assert any(line.startswith("✗ broken") and "invalid" in line for line in lines)
    assert "low copy" not in result.output
    result = runner.invoke(main, ["list", *_r(*roots), "--all"])
    assert "shadowed by root2:shared" in result.output


def test_list_json_contract(runner: CliRunner, roots: tuple[Path, Path]) -> None:
    result = runner.invoke(main, ["list", *_r(*roots), "--all", "--format", "json"])
    skills = json.loads(result.output)["data"]["skills"]
    assert {tuple(sorted(s)) for s in skills} == {
        ("description", "name", "path", "reason", "shadowed_by", "source", "status")
    }
    shadowed = next(s for s in skills if s["status"] == "shadowed")
    assert shadowed["shadowed_by"] == "root2:shared" and shadowed["source"] == "root1"


def test_list_installed_only(runner: CliRunner, make_skill: MakeSkill) -> None:
    make_skill(dirs().installed, "got-it")
    result = runner.invoke(main, ["list", "--installed", "--format", "json"])
    assert [s["name"] for s in json.loads(result.output)["data"]["skills"]] == ["got-it"]


def test_why(runner: CliRunner, roots: tuple[Path, Path]) -> None:
    result = runner.invoke(main, ["why", "shared", *_r(*roots)])
    assert result.exit_code == 0
    assert result.output.startswith("visible: root2:shared")
    assert "shadowed: root1:shared" in result.output
    result = runner.invoke(main, ["why", "needs-tool", *_r(*roots), "--format", "json"])
    assert result.exit_code == 1
    doc = json.loads(result.output)["data"]
    assert doc["visible"] is False and doc["lines"][0]["kind"] == "unavailable"


def test_prompt(runner: CliRunner, roots: tuple[Path, Path]) -> None:
    result = runner.invoke(main, ["prompt", *_r(*roots), "--location"])
    assert result.exit_code == 0
    assert result.output.startswith("<available_skills>\n  <skill>\n    <name>shared</name>")
    assert f"<location>{roots[1] / 'shared' / 'SKILL.md'}</location>" in result.output
    result = runner.invoke(main, ["prompt", *_r(*roots), "--format", "markdown"])
    assert "- **shared**: high copy" in result.output
    result = runner.invoke(main, ["prompt", *_r(*roots), "--budget", "lots"])
    assert result.exit_code == 2 and "--budget" in result.output


def test_prompt_empty(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["prompt", "--root", str(tmp_path / "none")])
    assert result.exit_code == 0 and result.output == ""
    result = runner.invoke(main, ["prompt", "--root", str(tmp_path / "none"), "--empty"])
    assert result.output == "<available_skills>\n</available_skills>\n"


def test_load_and_read(runner: CliRunner, roots: tuple[Path, Path]) -> None:
    result = runner.invoke(main, ["load", "shared", *_r(*roots)])
    assert result.exit_code == 0
    assert "# Instructions" in result.output and "references/guide.md" in result.output
    result = runner.invoke(main, ["load", "shared", *_r(*roots), "--format", "json"])
    assert json.loads(result.output)["data"]["files"] == ["references/guide.md"]
    result = runner.invoke(main, ["read", "shared", "references/guide.md", *_r(*roots)])
    assert result.output == "# Guide\n"
    result = runner.invoke(
        main, ["read", "shared", "../../etc/passwd", *_r(*roots), "--format", "json"]
    )
    assert result.exit_code == 1
    assert json.loads(result.output)["error"]["code"] == "PATH_NOT_ALLOWED"
    result = runner.invoke(main, ["load", "nope", *_r(*roots)])
    assert result.exit_code == 1 and "SKILL_NOT_FOUND" in result.output


def test_enable_disable_keep_comments(runner: CliRunner, roots: tuple[Path, Path]) -> None:
    cfg = dirs().config_file
    cfg.parent.mkdir(parents=True)
    cfg.write_text("# my config\n[catalog]\n# nothing disabled yet\n")
    result = runner.invoke(main, ["disable", "shared"])
    assert result.exit_code == 0, result.output
    assert "# my config" in cfg.read_text() and "# nothing disabled yet" in cfg.read_text()
    listing = runner.invoke(main, ["list", *_r(*roots), "--format", "json"])
    shared = [s for s in json.loads(listing.output)["data"]["skills"] if s["name"] == "shared"]
    assert [s["status"] for s in shared] == ["disabled", "disabled"]
    assert runner.invoke(main, ["enable", "shared"]).exit_code == 0
    listing = runner.invoke(main, ["list", *_r(*roots), "--format", "json"])
    assert any(
        s["name"] == "shared" and s["status"] == "enabled"
        for s in json.loads(listing.output)["data"]["skills"]
    )
    assert "# my config" in cfg.read_text()


def test_enable_disable_name_a_skill_the_catalog_lacks(runner: CliRunner) -> None:
    # a typo was reported as done, like a real change
    typo = runner.invoke(main, ["disable", "csv-profil"])
    assert typo.exit_code == 0
    assert "note: no skill named 'csv-profil' is in the catalog" in typo.output
    real = runner.invoke(main, ["disable", "bundled:csv-profile"])
    assert real.exit_code == 0 and "note:" not in real.output


def test_doctor(runner: CliRunner, roots: tuple[Path, Path], tmp_path: Path) -> None:
    cfg = dirs().config_file
    cfg.parent.mkdir(parents=True)
    cfg.write_text('[catalog]\nbudget = 300\ndisabled = ["ghost"]\n')
    args = ["doctor", *_r(*roots), "--root", str(tmp_path / "missing")]
    result = runner.invoke(main, args)
    assert result.exit_code == 1  # one invalid skill
    out = result.output
    assert "missing" in out and "1 invalid" in out and "1 unavailable" in out
    assert "SK517" in out and "budget: 300 characters" in out
    doc = json.loads(runner.invoke(main, [*args, "--format", "json"]).output)["data"]
    assert doc["counts"]["shadowed"] == 1 and doc["errors"] == 1
    assert [r["exists"] for r in doc["roots"]] == [True, True, False]


def test_bad_config_is_an_error_not_a_traceback(runner: CliRunner) -> None:
    cfg = dirs().config_file
    cfg.parent.mkdir(parents=True)
    cfg.write_text("[catalog\n")
    result = runner.invoke(main, ["list"])
    assert result.exit_code == 1
    assert "CONFIG_INVALID" in result.output and "Traceback" not in result.output


def test_read_binary_writes_raw_bytes(
    runner: CliRunner, tmp_path: Path, make_skill: MakeSkill
) -> None:
    blob = b"\x89PNG\r\n\x1a\n\x00\x01\x02"
    make_skill(tmp_path / "r", "pic", files={"assets/x.png": blob})
    result = runner.invoke(main, ["read", "pic", "assets/x.png", "--root", str(tmp_path / "r")])
    assert result.exit_code == 0 and result.stdout_bytes == blob
    result = runner.invoke(
        main, ["read", "pic", "assets/x.png", "--root", str(tmp_path / "r"), "--format", "json"]
    )
    doc = json.loads(result.output)["data"]
    assert doc["encoding"] == "base64" and doc["mime_type"] == "image/png"


def test_run_from_the_home_folder_its_skills_are_the_users_once(
    make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.environ["HOME"])
    make_skill(home / ".agents" / "skills", "at-home")
    monkeypatch.chdir(home)  # no repository: the project folder is the home folder

    def cli(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "skilldeck", *args], capture_output=True, text=True, cwd=home
        )
        assert "Traceback" not in done.stderr, done.stderr
        return done.stdout

    listed = json.loads(cli("list", "--json"))["data"]["skills"]
    assert [(s["name"], s["source"]) for s in listed if s["name"] == "at-home"] == [
        ("at-home", "user")
    ]
    assert "duplicate" not in cli("why", "at-home")
    roots = [line for line in cli("doctor").splitlines() if "/.agents/skills " in line]
    assert len(roots) == 1 and roots[0].split()[0] == "user"


def test_list_json_is_streamed_as_the_one_envelope(
    runner: CliRunner, tmp_path: Path, make_skill: MakeSkill
) -> None:
    """The rows are written as they are encoded (1,000 a write; json encodes the first
    1,000, msgspec the rest), and the bytes are exactly those of the one indented
    envelope every command prints."""
    root = tmp_path / "many"
    for i in range(1203):
        make_skill(
            root, f"s-{i:04d}", f"skill number {i}, “quoted” é", frontmatter="tags: [a, b]\n"
        )
    result = runner.invoke(main, ["list", "--json", "--root", str(root)])
    assert result.exit_code == 0, result.output
    envelope = json.loads(result.stdout)
    assert len(envelope["data"]["skills"]) == 1203
    assert envelope["data"]["skills"][7]["tags"] == ["a", "b"]
    assert result.stdout == json.dumps(envelope, ensure_ascii=False, indent=2) + "\n"
    odd = tmp_path / "odd"
    make_skill(odd, "ctl", 'tab\there, nul-free \u2028 “q” \\ / "x"')
    odd_result = runner.invoke(main, ["list", "--json", "--root", str(odd)])
    odd_envelope = json.loads(odd_result.stdout)
    assert odd_result.stdout == json.dumps(odd_envelope, ensure_ascii=False, indent=2) + "\n"
    empty = runner.invoke(main, ["list", "--json", "--root", str(tmp_path / "none")])
    assert empty.stdout == json.dumps({"ok": True, "data": {"skills": []}}, indent=2) + "\n"


def test_a_missing_files_hint_pasted_lists_the_files_of_the_same_skill(
    roots: tuple[Path, Path], tmp_path: Path
) -> None:
    """A read of a file the skill does not list says where its files are listed; on the
    command line that is a command, completed with the folders the read looked in."""
    a, b = roots

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "skilldeck", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,  # elsewhere than the roots: the command must name them
        )

    for path in ("references/nosuch.md", "notes/guide.md"):
        failed = cli("read", "shared", path, "--root", str(a), "--root", str(b), "--json")
        assert failed.returncode == 1, failed.stderr
        hint = json.loads(failed.stdout)["error"]["hint"]
        assert "skills_load" in hint
        command = hint.split("run: ", 1)[1]
        assert command.startswith("skilldeck show shared --root ")
        import shlex

        shown = cli(*shlex.split(command)[1:])
        assert shown.returncode == 0, shown.stderr
        assert "high copy" in shown.stdout and "references/guide.md" in shown.stdout
    # without --root, the hint's command names only the skill
    failed = cli("read", "csv-profile", "nosuch.md")
    assert failed.stderr.rstrip().endswith("run: skilldeck show csv-profile")


def test_a_file_too_large_hint_pasted_reads_the_file(tmp_path: Path, make_skill: MakeSkill) -> None:
    """A read over --max-bytes said "ask for a truncated read or raise max_bytes",
    which names no command; the hint's commands, pasted, read the same file."""
    root = tmp_path / "skills here"
    make_skill(root, "big", files={"references/big.md": "x" * 299 + "\n"})

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "skilldeck", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )

    failed = cli("read", "big", "references/big.md", "--root", str(root), "--max-bytes", "100")
    assert failed.returncode == 1 and "FILE_TOO_LARGE" in failed.stderr, failed.stderr
    hint = failed.stderr.split("hint: ", 1)[1].strip()
    first, whole = (part.split(": ", 1)[1] for part in hint.split("; "))
    import shlex

    head = cli(*shlex.split(first)[1:])
    assert head.returncode == 0 and head.stdout.startswith("x" * 100), head.stderr
    all_of_it = cli(*shlex.split(whole)[1:])
    assert all_of_it.returncode == 0 and all_of_it.stdout == "x" * 299 + "\n", all_of_it.stderr
