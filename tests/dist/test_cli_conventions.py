"""CLI conventions: JSON on every command, exit statuses, prompts, and hints that work.

Every command takes ``--format json`` (and ``--json``) and then prints JSON on
stdout, errors included (``{"ok": false, "error": ...}``). Every ``skilldeck
...`` command a hint suggests must run as written.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click
import pytest
from tests.dist._helpers import CliResult, make_skill, run_cli

import skilldeck
from skilldeck.cli import main

SRC = Path(skilldeck.__file__).resolve().parent

#: a long-running server: its stdout is the MCP protocol, not a report
NOT_A_REPORT = {"serve", "completion"}  # a server, a shell script


def _leaf_commands() -> set[str]:
    ctx = click.Context(main)
    out: set[str] = set()

    def walk(group: click.Group, prefix: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            if isinstance(command, click.Group):
                walk(command, [*prefix, name])
            elif command is not None:
                out.add(" ".join([*prefix, name]))

    walk(main, [])
    return out


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """A project with a skill, an installed skill and a skill folder to install."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    make_skill(
        project / ".agents" / "skills" / "demo-skill",
        "demo-skill",
        body="Run `scripts/hello.py`.\n",
        files={"scripts/hello.py": "print('hello')\n"},
    )
    installed = make_skill(tmp_path / "installed-one", "installed-one")
    assert run_cli("install", str(installed), "--yes", cwd=project).code == 0
    make_skill(tmp_path / "to-install", "to-install")
    return project


_NO_STORE = "postgresql://127.0.0.1:1/none"

ARGS: dict[str, list[str]] = {
    "agents": ["agents"],
    "approvals": ["approvals"],
    "approve": ["approve", "demo-skill"],
    "disable": ["disable", "demo-skill"],
    "doctor": ["doctor"],
    "enable": ["enable", "demo-skill"],
    "export": ["export", "demo-skill", "--to", "./exported"],
    "install": ["install", "../to-install", "--yes"],
    "lint": ["lint", ".agents/skills/demo-skill"],
    "list": ["list"],
    "load": ["load", "demo-skill"],
    "manage": ["manage"],
    "new": ["new", "json-made"],
    "packages": ["packages", "demo-skill"],
    "prompt": ["prompt"],
    "read": ["read", "demo-skill", "scripts/hello.py"],
    "remove": ["remove", "installed-one"],
    "revoke": ["revoke", "demo-skill"],
    "run": ["run", "no-such-skill", "x"],
    "sandbox status": ["sandbox", "status"],
    "scan": ["scan", ".agents/skills/demo-skill"],
    "search": ["search", "demo"],
    "show": ["show", "demo-skill"],
    "sync": ["sync", "--agents-md"],
    "trust": ["trust", "--list"],
    "update": ["update"],
    "validate": ["validate", ".agents/skills/demo-skill"],
    "verify": ["verify"],
    "version": ["version"],
    "why": ["why", "demo-skill"],
    "eval routing": ["eval", "routing", "no-such-cases.jsonl"],
    # nothing listens on port 1: the store commands answer with the error envelope
    "store init": ["store", "init", "--store", _NO_STORE],
    "tenant create": ["tenant", "create", "t1", "--store", _NO_STORE],
    "tenant list": ["tenant", "list", "--store", _NO_STORE],
    "publish": ["publish", ".agents/skills/demo-skill", "--tenant", "t1", "--store", _NO_STORE],
    "unpublish": ["unpublish", "demo-skill", "--tenant", "t1", "--store", _NO_STORE],
    "audit": ["audit", "--store", _NO_STORE],
    "tenant token create": ["tenant", "token", "create", "t1", "--store", _NO_STORE],
    "tenant token list": ["tenant", "token", "list", "t1", "--store", _NO_STORE],
    "tenant token revoke": ["tenant", "token", "revoke", "t1", "1", "--store", _NO_STORE],
    "tenant token rotate": ["tenant", "token", "rotate", "t1", "--store", _NO_STORE],
}


def test_the_table_covers_every_command() -> None:
    assert set(ARGS) | NOT_A_REPORT == _leaf_commands()


@pytest.mark.timeout(600)  # about 30 fresh processes, on a loaded machine
@pytest.mark.parametrize("spelling", [["--format", "json"], ["--json"]])
def test_every_command_prints_json_when_asked(world: Path, spelling: list[str]) -> None:
    def one(argv: list[str]) -> tuple[list[str], CliResult]:
        return argv, run_cli(*argv, *spelling, cwd=world, input="")

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(one, ARGS.values()))
    for argv, res in results:
        assert res.code in (0, 1), (argv, res.code, res.err)
        try:
            json.loads(res.out)
        except ValueError:
            pytest.fail(f"skilldeck {' '.join(argv)} {' '.join(spelling)} printed: {res.out!r}")
        assert "Traceback" not in res.err, res.err


def test_errors_in_json_mode_are_the_error_envelope(world: Path) -> None:
    for argv in (["load", "nope"], ["remove", "nope"], ["show", "nope"], ["update", "nope"]):
        res = run_cli(*argv, "--json", cwd=world)
        assert res.code == 1, (argv, res.err)
        payload = json.loads(res.out)
        assert payload["ok"] is False and payload["error"]["code"], argv


def test_remove_takes_yes_like_install_and_update(world: Path) -> None:
    # scripts (and people used to `skills remove NAME -y`) pass -y to every change
    res = run_cli("remove", "installed-one", "-y", cwd=world)
    assert res.code == 0, res.err
    assert "removed installed-one" in res.out


def test_usage_errors_exit_2(world: Path) -> None:
    for argv in (
        ["install"],
        ["install", "x", "--scope", "galaxy"],
        ["export", "demo-skill", "--to", "no-such-agent"],
        ["install", "../to-install", "--agent", "no-such-agent"],
        ["list", "--format", "yaml"],
        ["no-such-command"],
        ["show", "a/b/missing"],
    ):
        res = run_cli(*argv, cwd=world)
        assert res.code == 2, (argv, res.code, res.out, res.err)
    assert not (world / "no-such-agent").exists()


def test_show_takes_a_name_or_a_path(world: Path) -> None:
    by_name = run_cli("show", "demo-skill", "--json", cwd=world)
    by_path = run_cli("show", ".agents/skills/demo-skill", "--json", cwd=world)
    assert by_name.code == by_path.code == 0
    assert by_name.json()["data"]["name"] == by_path.json()["data"]["name"] == "demo-skill"


def test_update_without_names_updates_all_and_dry_run_changes_nothing(world: Path) -> None:
    res = run_cli("update", "--dry-run", "--json", cwd=world)
    assert res.code == 0, res.err
    assert [s["name"] for s in res.json()["data"]["skills"]] == ["installed-one"]
    assert run_cli("update", "-y", cwd=world).code == 0


def _terminal(argv: list[str], answers: str, cwd: Path) -> tuple[int, str]:
    """Run the CLI on a pseudo-terminal (so it asks), typing ``answers``."""
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(cwd)
        os.execvp(os.sys.executable, [os.sys.executable, "-m", "skilldeck", *argv])  # type: ignore[attr-defined]
    os.write(fd, answers.encode())
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def test_a_declined_prompt_exits_0_with_cancelled(world: Path) -> None:
    code, out = _terminal(["install", "../to-install"], "n\n", world)
    assert code == 0, out
    assert "cancelled" in out
    assert "to-install" not in [i.name for i in skilldeck.dist.list_installed()]


def test_a_multi_skill_source_offers_a_picker_on_a_terminal(world: Path, tmp_path: Path) -> None:
    multi = tmp_path / "multi"
    make_skill(multi / "one", "pick-one")
    make_skill(multi / "two", "pick-two")
    code, out = _terminal(["install", str(multi)], "2\ny\n", world)
    assert code == 0, out
    names = [i.name for i in skilldeck.dist.list_installed()]
    assert "pick-two" in names and "pick-one" not in names


def test_a_name_conflict_offers_rename_replace_or_skip(world: Path, tmp_path: Path) -> None:
    multi = tmp_path / "multi"
    make_skill(multi / "a", "installed-one")
    make_skill(multi / "b", "fresh-one")
    res = run_cli("install", str(multi), "--all", "--yes", cwd=world)
    assert res.code == 1
    # --all: --name cannot apply, so the hint offers --skip-existing instead
    assert "--force" in res.err and "--skip-existing" in res.err and "--name" not in res.err
    assert "replace" not in res.out
    res = run_cli("install", str(multi), "--all", "--skip-existing", "--yes", cwd=world)
    assert res.code == 0, res.err
    assert "installed fresh-one" in res.out and "installed installed-one" not in res.out
    assert "left alone: installed-one" in res.out


def test_load_with_a_small_max_bytes_reports_the_size_limit(world: Path) -> None:
    res = run_cli("load", "demo-skill", "--max-bytes", "20", cwd=world)
    assert res.code == 1
    assert "[FILE_TOO_LARGE]" in res.err and "changed since" not in res.err


def test_help_texts_use_no_internal_words() -> None:
    from click.testing import CliRunner

    runner = CliRunner()
    groups = {"sandbox", "store", "tenant", "tenant token", "eval", ""}
    for name in sorted(_leaf_commands() | groups):
        res = runner.invoke(main, [*name.split(), "--help"])
        assert res.exit_code == 0, (name, res.output)
        text = res.output.lower()
        for word in ("seed", "tier 1", "tier-1", "tier 2", "tier 3"):
            assert word not in text, (name, word)


# --- hints that name a command must work when pasted -----------------------------

_COMMAND = re.compile(r"`(skilldeck [^`]+)`|'(skilldeck [^']+)'|run: (skilldeck [^\n;'\"]+)")


def _suggested(text: str) -> list[str]:
    out = []
    for m in _COMMAND.finditer(text):
        cmd = (m.group(1) or m.group(2) or m.group(3)).strip().rstrip(".")
        out.append(cmd)
    return out


def _check_names_a_real_command(command: str) -> None:
    argv = shlex.split(command)[1:]
    group: click.Group = main
    ctx = click.Context(main)
    if argv and argv[0] in ("--version", "--help", "-h"):
        return
    while argv:
        sub = group.get_command(ctx, argv[0])
        assert sub is not None, f"hint names no command: {command}"
        argv = argv[1:]
        if isinstance(sub, click.Group):
            group = sub
            continue
        known = {opt for p in sub.params for opt in getattr(p, "opts", [])}
        known |= {opt for p in sub.params for opt in getattr(p, "secondary_opts", [])}
        for word in argv:
            if word.startswith("-") and word != "--":
                assert word.split("=")[0] in known, f"{command}: no option {word}"
        return


def test_every_hint_in_the_source_names_a_real_command_and_options() -> None:
    found: list[str] = []
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for cmd in _suggested(text):
            if "|" in cmd or "..." in cmd:  # a synopsis, not a command to paste
                continue
            found.append(cmd)
    assert len(found) > 15
    for cmd in found:
        concrete = re.sub(r"\{[^}]*\}", "x", cmd)
        _check_names_a_real_command(concrete)


@pytest.mark.timeout(600)  # about 25 fresh processes, on a loaded machine
def test_hints_the_cli_prints_run_as_written(world: Path, tmp_path: Path) -> None:
    """Provoke the common failures, collect each suggested command, run it."""
    tmp_path.joinpath("broken").mkdir()
    (tmp_path / "broken" / "SKILL.md").write_text("---\nname: Broken!\n---\n")
    provoked = [
        ["remove", "nope"],
        ["update", "nope"],
        ["why", "nope"],
        ["load", "nope"],
        ["show", "nope"],
        ["install", "../installed-one", "--yes"],
        ["install", "../to-install", "--agent", "*", "--yes"],
        ["export", str(tmp_path / "broken"), "--to", "./out"],
        ["run", "demo-skill", "scripts/hello.py"],
        ["load", "demo-skill", "--max-bytes", "20"],
        ["new", "elsewhere-skill", "--dir", str(tmp_path / "elsewhere")],
        ["list", "--root", str(tmp_path / "empty-root")],
    ]
    suggested: set[str] = set()
    with ThreadPoolExecutor(max_workers=4) as pool:
        for res in pool.map(lambda argv: run_cli(*argv, cwd=world), provoked):
            suggested.update(_suggested(res.out + res.err))
    runnable = {c for c in suggested if not re.search(r"\b[A-Z]{2,}\b", c)}
    assert len(runnable) >= 4, suggested
    for command in sorted(runnable):
        argv = shlex.split(command)[1:]
        res = run_cli(*argv, cwd=world, input="")
        assert res.code in (0, 1), (command, res.code, res.err)
        assert "No such command" not in res.err and "No such option" not in res.err, command
        assert "Traceback" not in res.err, (command, res.err)


def test_manage_takes_the_action_and_names_of_a_plugin_manager(world: Path) -> None:
    """`manage disable NAME` and friends, as another agent's `skill manage` spells them."""
    listed = run_cli("manage", "list", cwd=world)
    assert listed.code == 0 and listed.out.split()[:3] == ["installed-one", "user", "enabled"]
    assert run_cli("manage", "disable", "installed-one", cwd=world).code == 0
    assert not skilldeck.dist.list_installed()[0].enabled
    shown = run_cli("manage", "enable", "installed-one", "demo-skill", "--json", cwd=world)
    assert shown.code == 0 and skilldeck.dist.list_installed()[0].enabled
    assert shown.out.count('"ok": true') == 2  # one JSON report per name
    assert '"installed-one"' in shown.out and '"demo-skill"' in shown.out
    updated = run_cli("manage", "update", "installed-one", "--json", cwd=world)
    assert updated.code == 0 and json.loads(updated.out)["data"]["skills"][0]["status"]
    missing = run_cli("manage", "remove", "nope", cwd=world)
    assert missing.code == 1 and "SKILL_NOT_FOUND" in missing.err
    assert run_cli("manage", "remove", cwd=world).code == 2
    assert run_cli("manage", "list", "x", cwd=world).code == 2
    # --yes, as remove and update take it (a script written for `remove NAME --yes`)
    assert run_cli("manage", "remove", "installed-one", "--yes", cwd=world).code == 0
    assert not skilldeck.dist.list_installed()
    assert "no installed skills" in run_cli("manage", "list", cwd=world).out


def test_manage_is_an_interactive_picker(world: Path) -> None:
    code, out = _terminal(["manage"], "1 disable\n\n", world)
    assert code == 0, out
    assert "installed-one" in out and "disabled installed-one" in out
    assert not skilldeck.dist.list_installed()[0].enabled
    res = run_cli("manage", cwd=world, input="")
    assert res.code == 2 and "skilldeck list --installed" in res.err
    code, out = _terminal(["manage", "--yes"], "", world)  # never asks: nothing to pick
    assert code == 2 and "skilldeck manage remove NAME" in out


def test_an_error_never_writes_a_terminal_escape_from_its_input(tmp_path: Path) -> None:
    # on a terminal (--color always keeps escapes) the name given came back as it
    # was, in the message's hint: it retitled the terminal
    res = run_cli("--color", "always", "approve", "a\x1b]0;pwned\x07b", "--root", str(tmp_path))
    assert res.code == 1 and "SKILL_NOT_FOUND" in res.err
    assert "\x1b" not in res.err and "\x07" not in res.err
    assert "why 'a\\x1b]0;pwned\\x07b'" in res.err  # quoted: hint_command


def test_revoke_never_writes_a_terminal_escape_from_its_input(tmp_path: Path) -> None:
    res = run_cli("--color", "always", "revoke", "a\x1b]0;pwned\x07b", cwd=tmp_path)
    assert res.code == 1 and "had no stored approval" in res.err
    assert "\x1b" not in res.err and "\x07" not in res.err
