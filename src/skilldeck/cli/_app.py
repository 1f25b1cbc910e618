"""The ``skilldeck`` command group and the one place errors become exit codes.

Exit status: 0 success (warnings allowed), 1 findings or a failed operation,
2 usage or I/O problems. Command modules register themselves on ``main``.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

import skilldeck
from skilldeck.cli._lazy import LazyGroup

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(skilldeck.__version__, prog_name="skilldeck")
@click.pass_context
def main(ctx: click.Context) -> None:
    """skilldeck: run Agent Skills (SKILL.md folders) for LLM agents."""
    if ctx.invoked_subcommand != "trust":
        from skilldeck.cli._trust import warn_untrusted_project

        warn_untrusted_project()


def root_option(func: F) -> F:
    """The repeatable ``--root DIR`` every catalog command accepts."""
    return click.option(
        "--root",
        "roots",
        multiple=True,
        type=click.Path(file_okay=True, dir_okay=True, path_type=str),
        help="Use only this skills root (repeatable; later wins). Default: configured sources.",
    )(func)


def format_option(func: F) -> F:
    """``--format text|json`` (default text) of the commands that print a report."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="Output format.",
    )(func)


def handle_errors(func: F) -> F:
    """Turn a ``SkillError`` into a message on stderr and exit status 1 (2 for I/O)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except skilldeck.SkillError as exc:
            ctx = click.get_current_context(silent=True)
            as_json = bool(ctx and ctx.params.get("as_json"))
            if as_json:
                click.echo(json.dumps({"ok": False, "error": exc.to_dict()}, ensure_ascii=False))
            else:
                click.echo(f"error: {exc.message} [{exc.code}]", err=True)
                if exc.hint:
                    click.echo(f"hint: {exc.hint}", err=True)
            sys.exit(EXIT_FINDINGS)
        except BrokenPipeError:
            # The reader went away (`skilldeck list | head`): stop quietly, as cat does.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(EXIT_FINDINGS)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except OSError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_USAGE)

    return wrapper  # type: ignore[return-value]
