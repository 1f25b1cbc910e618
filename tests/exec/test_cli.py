"""The execution commands through click's CliRunner: run, approve, revoke, approvals, sandbox."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from skilldeck.cli import main

from .conftest import needs_bwrap

SEED = Path(__file__).parent / "fixtures" / "seed003"


def make_root(world: Path) -> Path:
    root = world / "skills"
    shutil.copytree(SEED / "deploy", root / "deploy")
    tool = root / "tool"
    (tool / "scripts").mkdir(parents=True)
    (tool / "SKILL.md").write_text(
        "---\nname: tool\ndescription: Echo things back. Use for tests.\n---\n\n"
        "### echo_words\n\nEcho words.\n\n#### Parameters\n\n"
        "| Name | Type | Required | Description |\n|---|---|---|---|\n"
        "| words | array | yes | words |\n| n | integer | no | count |\n\n"
        "#### Command\n\n```bash\n./scripts/args.sh {{words}} --n={{n}}\n```\n"
    )
    (tool / "scripts" / "args.sh").write_text('for a in "$@"; do printf "[%s]" "$a"; done\n')
    for dirpath, _, files in os.walk(root):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o755)
    return root


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_run_needs_approval_without_a_terminal_then_runs(world: Path) -> None:
    root = str(make_root(world))
    code, out, err = invoke("run", "tool", "echo_words", "--arg", "words=a b", "--root", root)
    assert code == 1
    assert "APPROVAL_REQUIRED" in err and "skilldeck approve tool" in err

    code, out, _ = invoke("approve", "tool", "--root", root)
    assert code == 0 and out.startswith("approved tool (user) at sha256:")

    code, out, _ = invoke(
        "run",
        "tool",
        "echo_words",
        "--arg",
        "words=a b",
        "--arg",
        "words=;x",
        "--arg",
        "n=3",
        "--root",
        root,
    )
    assert (code, out) == (0, "[a b][;x][--n=3]\n")

    code, out, _ = invoke(
        "run", "tool", "scripts/args.sh", "--root", root, "--json", "--", "-x", "$(y)"
    )
    data = json.loads(out)
    assert code == 0 and data["ok"] is True
    assert data["data"]["output"] == "[-x][$(y)]" and data["data"]["success"] is True
    assert data["data"]["isolation"]["requested"] == "auto"

    code, out, _ = invoke("approvals", "--root", root, "--json")
    (row,) = json.loads(out)["data"]
    assert row["name"] == "tool" and row["state"] == "valid"

    Path(root, "tool", "scripts", "args.sh").write_text("echo changed\n")
    code, out, _ = invoke("approvals", "--root", root)
    assert "stale" in out
    code, out, _ = invoke("run", "tool", "echo_words", "--arg", "words=a", "--root", root, "--json")
    assert code == 1 and json.loads(out)["error"]["code"] == "APPROVAL_REQUIRED"

    assert invoke("revoke", "tool")[0] == 0
    code, _, err = invoke("revoke", "tool")
    assert code == 1 and "no stored approval" in err
    assert invoke("approvals")[1].strip() == "no stored approvals"


def test_run_usage_errors(world: Path) -> None:
    root = str(make_root(world))
    invoke("approve", "tool", "--root", root)
    code, _, err = invoke("run", "tool", "echo_words", "--root", root, "--", "x")
    assert code == 1 and "INVALID_ARGUMENTS" in err
    code, _, err = invoke("run", "tool", "scripts/args.sh", "--arg", "a=b", "--root", root)
    assert code == 1 and "named arguments only apply to tools" in err
    code, _, err = invoke("run", "tool", "echo_words", "--arg", "n=x", "--root", root)
    assert code == 1 and "not a valid integer" in err
    code, _, err = invoke("run", "tool", "echo_words", "--root", root)
    assert code == 1 and "needs the parameter 'words'" in err
    code, _, err = invoke("run", "nope", "x", "--root", root)
    assert code == 1 and "SKILL_NOT_FOUND" in err
    code, out, _ = invoke("run", "tool", "../SKILL.md", "--root", root, "--json")
    assert json.loads(out)["error"]["code"] == "PATH_NOT_ALLOWED"


def test_failed_program_exits_1_and_says_why(world: Path) -> None:
    root = make_root(world)
    (root / "tool" / "scripts" / "fail.sh").write_text("echo oops; exit 4\n")
    os.chmod(root / "tool" / "scripts" / "fail.sh", 0o755)
    invoke("approve", "tool", "--root", str(root))
    code, out, err = invoke("run", "tool", "fail.sh", "--root", str(root), "--sandbox", "none")
    assert code == 1 and out == "oops\n" and "exit code 4" in err


def test_always_ask_cannot_run_unattended(world: Path) -> None:
    root = str(make_root(world))
    invoke("approve", "deploy", "--root", root)
    code, _, err = invoke("run", "deploy", "deploy_preview", "--root", root)
    assert code == 1 and "APPROVAL_REQUIRED" in err and "always_ask" in err


def test_sandbox_status(world: Path) -> None:
    code, out, _ = invoke("sandbox", "status", "--json")
    data = json.loads(out)["data"]
    assert code == 0 and data["backend"] == "bubblewrap"
    assert {"available", "mode", "effective", "helper", "reason"} <= set(data)
    code, out, _ = invoke("sandbox", "status")
    assert code == 0 and "bubblewrap" in out and "launch helper" in out


@needs_bwrap
def test_run_reports_bubblewrap(world: Path) -> None:
    root = str(make_root(world))
    invoke("approve", "tool", "--root", root)
    code, out, _ = invoke(
        "run",
        "tool",
        "args.sh",
        "--root",
        root,
        "--json",
        "--sandbox",
        "strict",
        "--workdir",
        "temp",
    )
    iso = json.loads(out)["data"]["isolation"]
    assert code == 0
    assert iso["sandbox"] == "bubblewrap" and iso["workdir_mode"] == "temp"


def on_a_terminal(*args: str, answer: str) -> tuple[int, str, str]:
    """Run the real command line with stdin a terminal (a pty) that types ``answer``."""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "skilldeck", *args],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.close(follower)
        os.write(leader, answer.encode())
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(leader)
    return proc.returncode, out, err


def test_interactive_prompt(world: Path) -> None:
    root = str(make_root(world))
    run = ("run", "tool", "args.sh", "--root", root, "--")
    code, out, err = on_a_terminal(*run, "a", answer="n\n")
    assert code == 0 and "cancelled" in err  # a declined prompt is no failure
    assert "Runs:" in err and "args.sh a" in err and "Isolation:" in err
    assert "Run it?" in err and out == ""
    code, out, err = on_a_terminal(*run, "a", answer="y\n")
    assert code == 0 and out == "[a]\n"
    assert "remembered" in err
    again = CliRunner().invoke(main, [*run, "b"])  # no terminal: the stored approval is enough
    assert again.exit_code == 0 and again.stdout == "[b]\n" and "Run it?" not in again.stderr
    assert "valid" in CliRunner().invoke(main, ["approvals", "--root", root]).stdout


def test_the_prompt_shows_a_skill_s_control_characters_escaped(world: Path) -> None:
    # an escape sequence in the description (or the arguments) could retitle the
    # terminal or hide the line that says what runs; click strips only ESC [ ... m
    # sequences from a pipe, so these would reach a terminal as they are
    root = make_root(world)
    md = root / "tool" / "SKILL.md"
    md.write_text(
        md.read_text().replace(
            "description: Echo things back. Use for tests.",
            'description: "Echo things back.\\e]0;pwned\\a Use for tests.\\x9b8m"',
        )
    )
    code, _, err = on_a_terminal(
        "run", "tool", "args.sh", "--root", str(root), "--", "x\x1b]0;t\x07", answer="n\n"
    )
    assert code == 0 and "cancelled" in err
    assert "\x1b" not in err and "\x9b" not in err and "\x07" not in err
    assert "About:     Echo things back.\\x1b]0;pwned\\x07 Use for tests.\\x9b8m" in err
    assert "\\x1b]0;t\\x07" in err  # the argument, in the Runs: line


def test_a_run_s_output_reaches_a_terminal_with_control_characters_escaped(
    world: Path,
) -> None:
    # the program has no terminal (a pipe, a session of its own), but what it wrote
    # reached the user's as it was: OSC 52 set the clipboard, others retitled the
    # terminal or hid lines
    root = str(make_root(world))
    clip = "x\x1b]52;c;cHduZWQ=\x07"
    run = ["run", "tool", "args.sh", "--yes", "--root", root, "--", clip, "l1\nl2\tt"]
    leader, follower = pty.openpty()
    chunks: list[bytes] = []
    try:
        # a context: its stderr pipe is closed here, not left to the garbage collector
        # (an unclosed file it finds fails whichever test runs then)
        with subprocess.Popen(
            [sys.executable, "-m", "skilldeck", *run],
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=subprocess.PIPE,
        ) as proc:
            os.close(follower)
            while True:
                try:
                    data = os.read(leader, 65536)
                except OSError:  # the program's end closed
                    break
                if not data:
                    break
                chunks.append(data)
            assert proc.stderr is not None
            err = proc.stderr.read().decode(errors="replace")
            proc.wait(timeout=120)
    finally:
        os.close(leader)
    out = b"".join(chunks).decode()
    assert proc.returncode == 0, err
    assert "\x1b" not in out and "\x07" not in out
    assert "[x\\x1b]52;c;cHduZWQ=\\x07]" in out
    assert "[l1\r\nl2\tt]" in out  # lines and tabs as they are (the terminal adds \r)
    piped = CliRunner().invoke(main, run)  # not a terminal: the output as it was written
    assert piped.exit_code == 0 and "[l1\nl2\tt]" in piped.stdout and "]52;c;" in piped.stdout


def test_yes_approves_without_a_terminal(world: Path) -> None:
    root = str(make_root(world))
    code, out, _ = invoke("run", "tool", "args.sh", "--root", root, "--yes", "--", "z")
    assert code == 0 and out == "[z]\n"


def test_hints_carry_the_root_and_list_what_exists(world: Path) -> None:
    root = str(make_root(world))
    code, _, err = invoke("run", "tool", "echo_words", "--arg", "words=a", "--root", root)
    assert code == 1 and f"skilldeck approve tool --root {root}" in err
    invoke("approve", "tool", "--root", root)
    code, _, err = invoke("run", "tool", "nope.sh", "--root", root)
    assert code == 1 and "FILE_NOT_FOUND" in err
    assert "echo_words" in err and "scripts/args.sh" in err
    assert f"skilldeck run tool scripts/args.sh --root {root}" in err


def test_run_as_mount_and_workdir_path(world: Path, tmp_path: Path) -> None:
    root = make_root(world)
    (root / "tool" / "scripts" / "look.sh").write_text('id -u; pwd; cat "$1"\n')
    os.chmod(root / "tool" / "scripts" / "look.sh", 0o755)
    invoke("approve", "tool", "--root", str(root))
    data = tmp_path / "data"  # under pytest's 0700 folder
    data.mkdir()
    (data / "in.txt").write_text("secret-ish\n")
    args = ["run", "tool", "look.sh", "--root", str(root), "--json", "--run-as", "self"]
    code, out, _ = invoke(*args, "--workdir", str(data), "--", "in.txt")
    result = json.loads(out)["data"]
    assert code == 0, out
    lines = result["output"].splitlines()
    assert lines[0] == str(os.getuid()) and lines[1] == str(data) and lines[2] == "secret-ish"
    assert result["isolation"]["workdir_mode"] == "path"
    if os.geteuid() == 0:
        assert result["isolation"]["user_reason"] == 'run_as = "self"'
    code, out, _ = invoke(*args, "--mount", f"{data}:ro", "--", str(data / "in.txt"))
    assert code == 0 and json.loads(out)["data"]["output"].endswith("secret-ish\n")
    code, out, _ = invoke(*args, "--workdir", str(tmp_path / "missing"))
    assert code == 1 and json.loads(out)["error"]["code"] == "INVALID_ARGUMENTS"


def test_a_relative_path_hint_offers_only_a_working_folder_that_is_allowed(
    world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_root(world)
    args = ["run", "tool", "args.sh", "--root", str(root), "--workdir", "temp"]
    args += ["--sandbox", "none", "--", "in.txt"]
    script = root / "tool" / "scripts" / "args.sh"
    script.write_text('cat "$1"\n')
    invoke("approve", "tool", "--root", str(root))
    project = tmp_path / "project"
    project.mkdir()
    home = Path(os.environ["HOME"])
    for here in (project, home):
        (here / "in.txt").write_text("x\n")
        monkeypatch.chdir(here)
        code, _, err = invoke(*args)
        assert code == 1 and "'in.txt' is relative to the working folder" in err, err
        offered = f"--workdir {here}" in err
        assert offered == (here == project), err  # the home folder is refused as one
        if offered:  # the hint works when pasted
            pasted = [a if a != "temp" else str(here) for a in args]
            assert invoke(*pasted)[0] == 0


@needs_bwrap
def test_a_hidden_path_not_given_gets_a_hint(world: Path, tmp_path: Path) -> None:
    root = make_root(world)
    hidden = Path(os.environ["HOME"]) / "notes.txt"  # homes are hidden under the sandbox
    hidden.write_text("x\n")
    script = root / "tool" / "scripts" / "cat.sh"
    script.write_text(f"cat {hidden}\n")
    os.chmod(script, 0o755)
    invoke("approve", "tool", "--root", str(root))
    code, out, err = invoke("run", "tool", "cat.sh", "--root", str(root), "--sandbox", "strict")
    assert code == 1
    assert f"{hidden} exists on this machine but is hidden from the sandbox" in err
    assert f"--mount {hidden}" in err
    # given as an argument, it is visible
    script.write_text('cat "$1"\n')
    invoke("approve", "tool", "--root", str(root))
    code, out, _ = invoke(
        "run", "tool", "cat.sh", "--root", str(root), "--sandbox", "strict", "--", str(hidden)
    )
    assert code == 0 and out == "x\n"


def test_sandbox_status_and_doctor_say_what_run_would_do(world: Path) -> None:
    cfg = Path(os.environ["SKILLDECK_HOME"]) / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('[execution]\nbwrap = "/nonexistent/bwrap"\n')
    code, out, _ = invoke("sandbox", "status", "--json")
    data = json.loads(out)["data"]
    assert code == 0 and data["effective"].startswith("none")
    assert data["interpreters"][0]["kind"] == "python" and data["interpreters"][0]["program"]
    assert any("no filesystem or network isolation" in f["message"] for f in data["findings"])
    code, out, _ = invoke("sandbox", "status")
    assert "programs run as:" in out and "working folder from here:" in out
    code, out, _ = invoke("doctor")
    assert "execution (skilldeck run):" in out
    assert out.rstrip().splitlines()[-1].endswith("warning(s)")
    cfg.write_text('[execution]\nsandbox = "strict"\nbwrap = "/nonexistent/bwrap"\n')
    code, out, _ = invoke("doctor", "--format", "json")
    assert code == 1 and json.loads(out)["data"]["execution"]["effective"] == "refuses to run"


# ``skilldeck run`` as click runs it: the reference a run without click must match.
_THROUGH_CLICK = (
    "import sys\n"
    "from skilldeck.cli import main\n"
    "sys.argv = ['skilldeck', *sys.argv[1:]]\n"
    "main(prog_name='skilldeck')\n"
)
_MODULES_AT_EXIT = (
    "import atexit, sys\n"
    "atexit.register(lambda: print(*sorted(sys.modules), file=sys.stderr))\n"
    "from skilldeck.cli import entry\n"
    "sys.argv = ['skilldeck', *sys.argv[1:]]\n"
    "entry()\n"
)


def _run_both_ways(args: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess[str], ...]:
    """``args`` run by the console script's entry (without click where it may) and by
    click, with no terminal on stdin."""
    return tuple(
        subprocess.run(
            [sys.executable, *how, *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=120,
            check=False,
            cwd=cwd,
        )
        for how in (["-m", "skilldeck"], ["-c", _THROUGH_CLICK])
    )


def _same(out: str) -> str:
    """``out`` without what differs between two runs: the time taken, the run's folders."""
    out = re.sub(r'"duration_ms": \d+', '"duration_ms": 0', out)
    return re.sub(r"skilldeck-(run|skill)-\w+", r"skilldeck-\1-", out)


def test_run_without_click_answers_as_click_does(world: Path) -> None:
    root = make_root(world)
    (root / "tool" / "scripts" / "fail.sh").write_text("echo oops; exit 4\n")
    (root / "tool" / "scripts" / "fail.sh").chmod(0o755)
    r = str(root)
    cases = {  # in order: the first ones run before anything is approved
        ("run", "--root", r, "tool", "args.sh", "--", "a"): 1,  # APPROVAL_REQUIRED
        ("run", "--root", r, "tool", "args.sh", "--json"): 1,
        ("run", "--root", r, "tool", "args.sh", "--yes", "--", "a", "--json", "-b"): 0,
        ("run", "tool", "scripts/args.sh", "x", "y", "--root", r, "-y", "--", "z"): 0,
        ("run", f"--root={r}", "tool", "args.sh", "--json"): 0,
        ("run", "--root", r, "tool", "fail.sh"): 1,  # the program failed: exit code 4
        ("run", "--root", r, "tool", "fail.sh", "--json"): 1,
        ("run", "--root", r, "tool", "echo_words", "--", "x"): 1,  # a tool takes --arg
        ("run", "--root", r, "tool", "scripts/none.sh"): 1,  # no such script
        ("run", "--root", r, "tool", "../SKILL.md", "--json"): 1,  # PATH_NOT_ALLOWED
        ("run", "--root", r, "nope", "x"): 1,  # SKILL_NOT_FOUND, the hint names the root
        ("run", "--root", r, "nope", "x", "--recursive", "--json"): 1,
        ("run", "--root", r, "tool"): 2,  # usage problems: click parses them
        ("run", "--root", r, "tool", "args.sh", "--bogus"): 2,
        ("run", "--root", "--yes", "tool", "args.sh"): 1,  # a root named --yes
        ("run", "--root", r, "tool", "echo_words", "--arg", "words=a b", "--yes"): 0,
    }
    for args, status in cases.items():
        plain, clicked = _run_both_ways(list(args), world)
        assert plain.returncode == status, (args, plain.stdout, plain.stderr)
        assert (_same(plain.stdout), plain.stderr, plain.returncode) == (
            _same(clicked.stdout),
            clicked.stderr,
            clicked.returncode,
        ), args
    for args, plain_run in (
        (["run", "--root", r, "tool", "args.sh", "--", "a"], True),
        (["run", "tool", "fail.sh", "--root", r, "--json"], True),
        (["run", "--root", r, "tool", "echo_words", "--arg", "words=a"], False),  # --arg
        (["run", "--root", r, "tool", "args.sh", "--sandbox", "none"], False),
    ):
        done = subprocess.run(
            [sys.executable, "-c", _MODULES_AT_EXIT, *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=120,
            check=False,
        )
        modules = set(done.stderr.splitlines()[-1].split())
        assert "skilldeck.execution._executor" in modules, args  # the test can fail: it ran
        assert ("click" not in modules) is plain_run, args
        if plain_run:  # no dataclass is made, no date is written
            assert modules & {"dataclasses", "inspect", "ast", "datetime"} == set(), args


def test_a_run_of_an_unchanged_skill_takes_its_settings_from_the_index(world: Path) -> None:
    """The run settings of a skill listed before come from the catalog's index (no
    SKILL.md parser is imported) and apply as when parsed: its timeout stops it. No
    dataclass is made on the way (the run's values are ``_frozen.value`` classes)."""
    root = world / "skills"
    (root / "slow" / "scripts").mkdir(parents=True)
    (root / "slow" / "SKILL.md").write_text(
        "---\nname: slow\ndescription: Sleeps. Use for tests.\ntimeout: 1\n---\nRun it.\n"
    )
    (root / "slow" / "scripts" / "sleep.sh").write_text("sleep 30\n")
    for dirpath, _, files in os.walk(world):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o755)
    time.sleep(1.1)  # past the racy window: the scan keeps the file's signature
    args = ["run", "--root", str(root), "slow", "sleep.sh", "--yes", "--json"]
    for parsed in (True, False):  # parsed by the listing, then served by the index
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", _MODULES_AT_EXIT, *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=120,
            check=False,
        )
        assert time.monotonic() - started < 20, done.stdout
        assert json.loads(done.stdout)["error"]["code"] == "SCRIPT_TIMEOUT", done.stdout
        modules = set(done.stderr.splitlines()[-1].split())
        assert ("skilldeck.format" in modules) is parsed
        assert parsed or "dataclasses" not in modules  # nor is a dataclass made
