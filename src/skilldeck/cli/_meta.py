"""``version`` and ``completion``: about the command line itself."""

from __future__ import annotations

import json
import shlex
from typing import Any

import click
from click.shell_completion import BashComplete, CompletionItem, add_completion_class

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


# click's bash function adds each value to COMPREPLY unquoted, after a ``read``
# without -r: a skill named ``it's here`` was inserted as it's here (an open quote),
# ``a*`` was a glob and a backslash was lost. Values are quoted for the shell here
# and the function adds them as they are, read line by line (no glob, no word split).
_BASH_SOURCE = """\
%(complete_func)s() {
    local IFS=$'\\n'
    local response completion type value
    response=$(env COMP_WORDS="${COMP_WORDS[*]}" COMP_CWORD=$COMP_CWORD \\
        %(complete_var)s=bash_complete $1)
    while read -r completion; do
        type=${completion%%%%,*}
        value=${completion#*,}
        if [[ $type == 'dir' ]]; then
            COMPREPLY=()
            compopt -o dirnames
        elif [[ $type == 'file' ]]; then
            COMPREPLY=()
            compopt -o default
        elif [[ $type == 'plain' ]]; then
            COMPREPLY+=("$value")
        fi
    done <<< "$response"
    return 0
}

%(complete_func)s_setup() {
    complete -o nosort -F %(complete_func)s %(prog_name)s
}

%(complete_func)s_setup;
"""


class _QuotingBashComplete(BashComplete):
    """Bash completion whose values are quoted for the shell (see ``_BASH_SOURCE``)."""

    source_template = _BASH_SOURCE

    def format_completion(self, item: CompletionItem[Any]) -> str:
        value = item.value if item.type != "plain" else shlex.quote(str(item.value))
        return f"{item.type},{value}"


add_completion_class(_QuotingBashComplete)
