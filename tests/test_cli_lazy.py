"""The command line imports only what a command needs, and the command map is complete."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from skilldeck._version import __version__
from skilldeck.cli import _lazy, main


def test_the_command_map_names_every_command_and_its_module() -> None:
    import pkgutil

    import skilldeck.cli

    found = {m.name for m in pkgutil.iter_modules(skilldeck.cli.__path__)}
    assert set(_lazy.MODULES) == found - {"_app", "_lazy"}, "add the new module to MODULES"
    _lazy.load_all()
    registered = {
        name: (cmd.callback.__module__ if cmd.callback else "")
        for name, cmd in main.commands.items()
    }
    for name, cmd in main.commands.items():
        if not registered[name] and hasattr(cmd, "commands"):  # a group without a callback
            registered[name] = next(iter(cmd.commands.values())).callback.__module__  # type: ignore[attr-defined,union-attr]
    expected = {name: f"skilldeck.cli.{module}" for name, module in _lazy.COMMANDS.items()}
    assert registered == expected


def _modules_after(args: list[str]) -> tuple[set[str], str]:
    code = (
        "import sys\n"
        "from skilldeck.cli import entry\n"
        f"sys.argv = ['skilldeck', *{args!r}]\n"
        "try:\n"
        "    entry()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return set(out.stderr.split()), out.stdout


def test_version_imports_no_command_line_at_all() -> None:
    modules, stdout = _modules_after(["--version"])
    assert stdout == f"skilldeck, version {__version__}\n"
    assert CliRunner().invoke(main, ["--version"]).output == stdout  # what click prints
    assert "click" not in modules and "skilldeck._catalog" not in modules


def test_a_command_imports_only_its_own_module() -> None:
    modules, _ = _modules_after(["list", "--help"])
    assert "skilldeck.cli._catalog" in modules
    for other in ("_dist", "_run", "_serve", "_scan", "_author"):
        assert f"skilldeck.cli.{other}" not in modules, other


def test_help_and_typos_see_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for name in _lazy.COMMANDS:
        assert name in result.output
    typo = CliRunner().invoke(main, ["lisst"])
    assert typo.exit_code == 2 and "list" in typo.output
