"""The authoring commands: validate, lint, show, new (through click's CliRunner)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result

from skilldeck.cli import main

# The public contract of `--format json` (issue 2). Extra keys are not allowed.
DIAGNOSTIC_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["code", "severity", "message", "line", "column", "hint"],
    "properties": {
        "code": {"type": "string", "pattern": "^SK[1-6][0-9]{2}$"},
        "severity": {"enum": ["error", "warning", "info"]},
        "message": {"type": "string", "minLength": 1},
        "line": {"type": ["integer", "null"], "minimum": 1},
        "column": {"type": ["integer", "null"], "minimum": 1},
        "hint": {"type": ["string", "null"]},
    },
}
OUTPUT_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["skills", "summary"],
    "properties": {
        "skills": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["path", "name", "valid", "diagnostics"],
                "properties": {
                    "path": {"type": "string"},
                    "name": {"type": ["string", "null"]},
                    "valid": {"type": "boolean"},
                    "diagnostics": {"type": "array", "items": DIAGNOSTIC_SCHEMA},
                },
            },
        },
        "summary": {
            "type": "object",
            "additionalProperties": False,
            "required": ["skills", "errors", "warnings"],
            "properties": {
                "skills": {"type": "integer", "minimum": 0},
                "errors": {"type": "integer", "minimum": 0},
                "warnings": {"type": "integer", "minimum": 0},
            },
        },
    },
}

GOOD = (
    "---\nname: {name}\ndescription: Summarise logs. Use when the user asks what a log "
    "file says.\n---\n# Steps\n\n1. Read the log.\n"
)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def skill(root: Path, name: str, text: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(GOOD.format(name=name) if text is None else text)
    return folder


def as_json(result: Result) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.stdout)["data"]
    jsonschema.validate(data, OUTPUT_SCHEMA)
    return data


# --- validate ----------------------------------------------------------------------


def test_validate_clean_skill_exit_0(tmp_path: Path) -> None:
    folder = skill(tmp_path, "log-reader")
    result = run("validate", "--strict", str(folder))
    assert result.exit_code == 0
    assert result.stdout.strip() == "validated 1 skill: 0 errors, 0 warnings"


def test_validate_errors_exit_1_compiler_style(tmp_path: Path) -> None:
    folder = skill(tmp_path, "bad", "---\nname: bad\n---\nbody\n")
    result = run("validate", str(folder))
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"{folder / 'SKILL.md'}:")
    assert " SK206 error: " in first
    assert "    hint: " in result.stdout
    assert result.stdout.splitlines()[-1] == ("validated 1 skill: 1 error, 0 warnings (1 invalid)")


def test_warnings_alone_exit_0(tmp_path: Path) -> None:
    folder = skill(tmp_path, "other-name", GOOD.format(name="log-reader"))
    lenient = run("validate", str(folder))
    assert lenient.exit_code == 0
    assert "SK204 warning" in lenient.stdout
    strict = run("validate", "--strict", str(folder))
    assert strict.exit_code == 1
    assert "SK204 error" in strict.stdout


def test_validate_json_shape_is_pinned(tmp_path: Path) -> None:
    skill(tmp_path, "log-reader")
    skill(tmp_path, "broken", "---\nname: Broken\ndescription: x\nfoo: 1\n---\n")
    result = run("validate", "--strict", "--format", "json", str(tmp_path))
    assert result.exit_code == 1
    data = as_json(result)
    assert [s["path"] for s in data["skills"]] == [
        str(tmp_path / "broken"),
        str(tmp_path / "log-reader"),
    ]
    broken, good = data["skills"]
    assert good == {
        "path": str(tmp_path / "log-reader"),
        "name": "log-reader",
        "valid": True,
        "diagnostics": [],
    }
    assert broken["valid"] is False
    assert {d["code"] for d in broken["diagnostics"]} >= {"SK203", "SK213"}
    assert data["summary"]["skills"] == 2
    assert data["summary"]["errors"] == sum(
        d["severity"] == "error" for s in data["skills"] for d in s["diagnostics"]
    )


def test_paths_folder_skill_md_and_tree_are_equivalent(tmp_path: Path) -> None:
    folder = skill(tmp_path / "tree" / "group", "log-reader")
    by_folder = as_json(run("validate", "--format", "json", str(folder)))
    by_file = as_json(run("validate", "--format", "json", str(folder / "SKILL.md")))
    by_tree = as_json(run("validate", "--format", "json", str(tmp_path / "tree")))
    assert by_folder == by_file == by_tree
    assert by_folder["skills"][0]["path"] == str(folder)


def test_many_paths_are_deduplicated(tmp_path: Path) -> None:
    folder = skill(tmp_path, "log-reader")
    data = as_json(run("validate", "--format", "json", str(folder), str(folder / "SKILL.md")))
    assert data["summary"]["skills"] == 1


def test_folder_without_skill_md_is_reported(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("validate", "--format", "json", str(empty))
    assert result.exit_code == 1
    (entry,) = as_json(result)["skills"]
    assert entry["path"] == str(empty)
    assert [d["code"] for d in entry["diagnostics"]] == ["SK201"]


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["validate", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "no such file or folder" in result.output


def test_a_file_that_is_not_skill_md_is_a_usage_error(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    result = CliRunner().invoke(main, ["lint", str(other)])
    assert result.exit_code == 2


def test_no_path_is_a_usage_error() -> None:
    assert CliRunner().invoke(main, ["validate"]).exit_code == 2
    assert CliRunner().invoke(main, ["lint", "--format", "xml", "."]).exit_code == 2


def test_no_colour_when_not_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    folder = skill(tmp_path, "bad", "---\nname: bad\n---\n")
    result = run("validate", str(folder))
    assert "\x1b[" not in result.stdout


def test_colour_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    folder = skill(tmp_path, "bad", "---\nname: bad\n---\n")
    result = CliRunner().invoke(main, ["validate", str(folder)], color=True)
    assert "\x1b[31m" in result.stdout  # red severity
    monkeypatch.setenv("NO_COLOR", "1")
    plain = CliRunner().invoke(main, ["validate", str(folder)], color=True)
    assert "\x1b[" not in plain.stdout


# --- lint --------------------------------------------------------------------------


def test_lint_reports_lint_codes_but_exits_0(tmp_path: Path) -> None:
    text = "---\nname: log-reader\ndescription: Reads logs.\n---\nSee [x](references/x.md).\n"
    folder = skill(tmp_path, "log-reader", text)
    result = run("lint", str(folder))
    assert result.exit_code == 0
    assert "SK303 warning" in result.stdout
    assert f"{folder / 'SKILL.md'}:5:9: SK306 warning:" in result.stdout
    assert result.stdout.splitlines()[-1] == "linted 1 skill: 0 errors, 2 warnings"
    data = as_json(run("lint", "--format", "json", str(folder)))
    assert [d["code"] for d in data["skills"][0]["diagnostics"]] == ["SK303", "SK306"]


def test_lint_exit_1_on_validation_errors(tmp_path: Path) -> None:
    folder = skill(tmp_path, "x", "no frontmatter\n")
    result = run("lint", "--format", "json", str(folder))
    assert result.exit_code == 1
    assert as_json(result)["skills"][0]["diagnostics"][0]["code"] == "SK101"


# --- show --------------------------------------------------------------------------


def test_show_text_and_json(tmp_path: Path) -> None:
    text = (
        "---\nname: log-reader\ndescription: Summarise logs. Use when asked.\nlicense: MIT\n"
        "allowed-tools: Read Bash(grep:*)\nmetadata:\n  version: '1.2'\n---\nbody\n"
    )
    folder = skill(tmp_path, "log-reader", text)
    (folder / "scripts").mkdir()
    (folder / "scripts" / "tail.py").write_text("")
    result = run("show", str(folder))
    assert result.exit_code == 0
    assert "name:" in result.stdout and "log-reader" in result.stdout
    assert "allowed-tools:" in result.stdout and "Bash(grep:*)" in result.stdout
    assert "scripts/tail.py" in result.stdout
    data = json.loads(run("show", "--format", "json", str(folder / "SKILL.md")).stdout)["data"]
    assert data["path"] == str(folder)
    assert data["name"] == "log-reader"
    assert data["valid"] is True
    assert data["diagnostics"] == []
    assert data["manifest"]["license"] == "MIT"
    assert data["manifest"]["allowed_tools"] == ["Read", "Bash(grep:*)"]
    assert data["manifest"]["metadata"] == {"version": "1.2"}
    assert data["manifest"]["frontmatter"]["allowed-tools"] == "Read Bash(grep:*)"
    assert data["files"] == ["scripts/tail.py"]
    assert data["body_lines"] == 1


def test_show_lists_declared_tools_and_the_command_tool_fields(tmp_path: Path) -> None:
    text = (
        "---\nname: git\ndescription: Git status and log. Use when asked about git.\n"
        "modes: [Dev]\nread_only: true\ntimeout: 10\n---\n\n### git_log\n\nRecent commits.\n\n"
        "#### Parameters\n\n| Name | Type | Required | Description |\n|---|---|---|---|\n"
        "| count | integer | no | How many (default: 5) |\n| path | string | yes | A file |\n\n"
        "#### Command\n\n```bash\ngit log -n {{count}} -- {{path}}\n```\n"
    )
    folder = skill(tmp_path, "git", text)
    shown = run("show", str(folder)).stdout
    assert "git_log(count?, path)" in shown
    assert "Dev" in shown and "10 s" in shown and "read_only:" in shown
    (tool,) = json.loads(run("show", "--json", str(folder)).stdout)["data"]["tools"]
    assert tool["name"] == "git_log" and tool["line"] == 9
    assert tool["command"] == "git log -n {{count}} -- {{path}}"
    assert tool["parameters"]["required"] == ["path"]
    assert tool["parameters"]["properties"]["count"] == {
        "type": "integer",
        "description": "How many (default: 5)",
        "default": 5,
    }
    plain = skill(tmp_path, "plain")
    assert json.loads(run("show", "--json", str(plain)).stdout)["data"]["tools"] == []
    assert "tools:" not in run("show", str(plain)).stdout


def test_show_lists_the_files_a_skill_serves(tmp_path: Path) -> None:
    # pip compiles an installed skill's scripts: show must not list what load never serves
    folder = skill(tmp_path, "log-reader")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "tail.py").write_text("print(1)\n")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)
    (folder / "scripts" / "old.pyc").write_bytes(b"\0")
    assert list((folder / "scripts" / "__pycache__").iterdir())
    # nor links leaving the folder, dangling links or fifos (the walker's set)
    (folder / "passwd").symlink_to("/etc/passwd")
    (folder / "gone").symlink_to("nowhere")
    os.mkfifo(folder / "pipe")
    data = json.loads(run("show", "--format", "json", str(folder)).stdout)["data"]
    assert data["files"] == ["scripts/tail.py"]
    assert "pyc" not in run("show", str(folder)).stdout


def test_show_invalid_skill_exit_1_with_diagnostics(tmp_path: Path) -> None:
    folder = skill(tmp_path, "x", "---\nname: x\n---\n")
    result = run("show", "--format", "json", str(folder))
    assert result.exit_code == 1
    data = json.loads(result.stdout)["data"]
    assert data["manifest"] is None
    assert data["diagnostics"][0]["code"] == "SK206"


def test_show_needs_exactly_one_skill(tmp_path: Path) -> None:
    skill(tmp_path, "one-skill")
    skill(tmp_path, "two-skill")
    result = CliRunner().invoke(main, ["show", str(tmp_path)])
    assert result.exit_code == 2
    assert "holds 2 skills" in result.output


# --- new ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "resources", ["", "scripts", "references", "assets", "scripts,references,assets"]
)
def test_new_scaffold_is_strict_valid_and_lint_flags_only_the_placeholder(
    tmp_path: Path, resources: str
) -> None:
    args = ["new", "pdf-tools", "--dir", str(tmp_path)]
    if resources:
        args += ["--resources", resources]
    result = run(*args)
    assert result.exit_code == 0, result.output
    folder = tmp_path / "pdf-tools"
    for res in filter(None, resources.split(",")):
        assert (folder / res).is_dir()
        assert f"  {res}/" in result.stdout
    strict = as_json(run("validate", "--strict", "--format", "json", str(folder)))
    assert strict["skills"][0]["diagnostics"] == []
    linted = as_json(run("lint", "--format", "json", str(folder)))
    assert [d["code"] for d in linted["skills"][0]["diagnostics"]] == ["SK312"]
    text = (folder / "SKILL.md").read_text()
    start = text.index("description: ") + len("description: ")
    end = text.index("\n", start)
    (folder / "SKILL.md").write_text(
        text[:start]
        + "Extracts text from PDFs. Use when the user asks for a PDF's text."
        + text[end:]
    )
    linted = as_json(run("lint", "--format", "json", str(folder)))
    assert linted["skills"][0]["diagnostics"] == []


def test_new_script_runs(tmp_path: Path) -> None:
    run("new", "pdf-tools", "--dir", str(tmp_path), "--resources", "scripts")
    script = tmp_path / "pdf-tools" / "scripts" / "example.py"
    assert os.access(script, os.X_OK)
    out = subprocess.run(
        [sys.executable, str(script), "a b"], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == {"skill": "pdf-tools", "arguments": ["a b"]}


def test_new_defaults_to_the_projects_agents_folder_which_list_reads(tmp_path: Path) -> None:
    result = run("new", "here-skill")
    assert result.exit_code == 0
    assert Path(".agents/skills/here-skill/SKILL.md").is_file()
    assert "note:" not in result.stdout
    listed = json.loads(run("list", "--format", "json").stdout)["data"]
    assert "here-skill" in [s["name"] for s in listed["skills"]]
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    os.chdir(project / "sub")
    assert run("new", "deep-skill").exit_code == 0
    assert (project / ".agents" / "skills" / "deep-skill" / "SKILL.md").is_file()


def test_new_elsewhere_says_how_to_make_it_visible(tmp_path: Path) -> None:
    result = run("new", "hidden-skill", "--dir", str(tmp_path / "elsewhere"))
    assert result.exit_code == 0
    assert f"skilldeck list --root {tmp_path / 'elsewhere'}" in result.stdout


@pytest.mark.parametrize("name", ["Bad_Name", "-x", "a--b", "x" * 65, "a/b", ""])
def test_new_rejects_bad_names(tmp_path: Path, name: str) -> None:
    result = CliRunner().invoke(main, ["new", name, "--dir", str(tmp_path)])
    assert result.exit_code == 2
    assert list(tmp_path.iterdir()) == []


def test_new_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "pdf-tools").mkdir()
    result = CliRunner().invoke(main, ["new", "pdf-tools", "--dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "already exists" in result.output
    assert list((tmp_path / "pdf-tools").iterdir()) == []


def test_new_rejects_unknown_resources(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["new", "pdf-tools", "--dir", str(tmp_path), "--resources", "scripts,docs"]
    )
    assert result.exit_code == 2
    assert "docs" in result.output
    assert not (tmp_path / "pdf-tools").exists()
    # a control character given on the command line is not echoed back to the terminal
    result = CliRunner().invoke(
        main, ["new", "pdf-tools", "--dir", str(tmp_path), "--resources", "docs\x1b]0;t\x07"]
    )
    assert result.exit_code == 2
    assert "\x1b" not in result.output and "docs\\x1b]0;t\\x07" in result.output


def test_help_texts() -> None:
    for command in ("validate", "lint", "show", "new"):
        result = run(command, "--help")
        assert result.exit_code == 0
        assert "Usage:" in result.stdout


def test_show_a_skill_with_a_nested_skill(tmp_path: Path) -> None:
    outer = skill(tmp_path, "outer-skill")
    skill(outer / "examples", "inner-skill")
    data = json.loads(run("show", "--format", "json", str(outer)).stdout)["data"]
    assert data["name"] == "outer-skill"
    validated = as_json(run("validate", "--format", "json", str(outer)))
    assert validated["summary"]["skills"] == 2


@pytest.mark.parametrize("parent", ["dangling-link", "a-file"])
def test_new_in_a_folder_that_cannot_hold_it_is_a_coded_error(tmp_path: Path, parent: str) -> None:
    # mkdir's FileExistsError / NotADirectoryError escaped: "error: skl: File exists"
    # with exit status 2 and, under --json, no JSON at all
    where = tmp_path / parent
    if parent == "dangling-link":
        where.symlink_to(tmp_path / "nowhere")
    else:
        where.write_text("x\n")
    import skilldeck

    with pytest.raises(skilldeck.InstallError, match="cannot create"):
        skilldeck.scaffold_skill(where / "fresh")
    done = subprocess.run(
        [sys.executable, "-m", "skilldeck", "new", "fresh", "--dir", str(where), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "INVALID_ARGUMENTS" and "--dir" in error["message"]
    assert not (tmp_path / "nowhere").exists()
