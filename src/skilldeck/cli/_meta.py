"""``version`` and ``completion``: about the command line itself."""

from __future__ import annotations

import json

import click

import skilldeck
from skilldeck.cli._app import json_option, main


@main.command()
@json_option
def version(as_json: bool) -> None:
    """Print skilldeck's version (the same as --version)."""
    if as_json:
        click.echo(json.dumps({"ok": True, "data": {"version": skilldeck.__version__}}))
        return
    click.echo(f"skilldeck, version {skilldeck.__version__}")


@main.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the shell completion script for SHELL.

    Commands, options and skill names complete. Load it in your shell's start-up
    file: bash `eval "$(skilldeck completion bash)"`, zsh
    `eval "$(skilldeck completion zsh)"`, fish `skilldeck completion fish | source`.
    """
    from click.shell_completion import get_completion_class

    cls = get_completion_class(shell)
    assert cls is not None  # the choice lists only shells click supports
    ctx = click.get_current_context()
    root = ctx.find_root()
    script = cls(root.command, {}, "skilldeck", "_SKILLDECK_COMPLETE").source()
    click.echo(script)
