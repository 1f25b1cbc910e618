"""The ``skilldeck`` command group and the one place errors become exit codes.

Exit status: 0 success (warnings allowed; also a prompt answered "no", which
prints "cancelled"), 1 findings or a failed operation, 2 usage or I/O
problems. Command modules register themselves on ``main``.

Conventions every command follows: ``--format text|json`` (``--json`` is the
same as ``--format json``), errors as ``error: MESSAGE [CODE]`` plus
``hint:`` on stderr, ``-y/--yes`` wherever a command may ask. In JSON mode every
command prints one envelope through ``echo_json``: ``{"ok": true, "data": ...}``
with exit status 0, or ``{"ok": false, "error": {...}}`` (plus ``data`` when a
check found problems: ``FINDINGS``) with exit status 1.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

import skilldeck
from skilldeck.cli._lazy import LazyGroup
from skilldeck.cli._plain import (  # the command modules import these from here
    EXIT_FINDINGS as EXIT_FINDINGS,
    EXIT_OK as EXIT_OK,
    EXIT_USAGE as EXIT_USAGE,
    asks_json,
    colour_for,
    echo_json as echo_json,
    fail,
    warn_untrusted_project,
)

_JSON_MODE = "skilldeck.json"


class SkilldeckGroup(LazyGroup):
    """The command group, and the CLI's one error boundary.

    A ``SkillError`` from any command becomes ``error: ... [CODE]`` and
    ``hint: ...`` on stderr (the JSON error envelope on stdout when the
    command was asked for JSON) and exit status 1; an I/O error exit status 2;
    a closed pipe ends quietly; Ctrl-C prints "interrupted" (130); anything else
    (a defect) is an ``INTERNAL`` error the same way, its traceback shown only
    with ``SKILLDECK_DEBUG=1``.
    """

    def invoke(self, ctx: click.Context) -> Any:
        words = [*getattr(ctx, "_protected_args", ()), *ctx.args]
        if asks_json(words):
            ctx.meta[_JSON_MODE] = True  # known before parsing, for a usage error's envelope
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            if not ctx.meta.get(_JSON_MODE):
                raise
            _usage_json(exc)
        except click.exceptions.Exit:
            raise
        except (click.ClickException, click.Abort):
            raise
        except (Exception, KeyboardInterrupt) as exc:
            fail(exc, json_mode=bool(ctx.meta.get(_JSON_MODE)))


def _usage_json(exc: click.UsageError) -> NoReturn:
    """A JSON caller gets the envelope for a bad argument too (exit status 2)."""
    with contextlib.suppress(SystemExit):
        echo_json(error=skilldeck.InvalidArgumentsError(exc.format_message()))
    sys.exit(EXIT_USAGE)


def fail_usage(exc: click.UsageError, argv: list[str], *, json_mode: bool) -> NoReturn:
    """A usage problem of a command ``_plain`` ran without click, answered as click
    answers it: the envelope for a JSON caller, else the command's usage line, the
    help hint and the message on stderr (exit status 2)."""
    if json_mode:
        _usage_json(exc)
    parent = main.make_context("skilldeck", list(argv))
    command = main.get_command(parent, argv[0])
    if command is None:  # pragma: no cover - _plain runs only commands of the tree
        raise exc
    exc.ctx = command.make_context(argv[0], list(argv[1:]), parent=parent)
    exc.show()
    sys.exit(exc.exit_code)


F = TypeVar("F", bound=Callable[..., Any])


_COLOUR = "skilldeck.color"
_CONFIG = "skilldeck.config"


def use_colour() -> bool | None:
    """Colour for ``click.echo(color=...)``: ``--color always|never``; with ``auto``
    (the default) none when ``NO_COLOR`` is set or ``TERM=dumb``, else click's
    choice (colour only on a terminal)."""
    ctx = click.get_current_context(silent=True)
    return colour_for(ctx.meta.get(_COLOUR, "auto") if ctx is not None else "auto")


def _set_colour(ctx: click.Context, _param: click.Parameter, value: str) -> str:
    ctx.meta[_COLOUR] = value
    return value


@click.group(
    cls=SkilldeckGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(skilldeck.__version__, prog_name="skilldeck")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    expose_value=False,
    is_eager=True,
    callback=_set_colour,
    help="Colour the output (auto: on a terminal, unless NO_COLOR is set or TERM=dumb).",
)
@click.pass_context
def main(ctx: click.Context) -> None:
    """skilldeck: run Agent Skills (SKILL.md folders) for LLM agents.

    Start with `skilldeck list` (the skills found here) and `skilldeck doctor`
    (where skilldeck looked, and what it would do). Shell completion:
    `eval "$(skilldeck completion bash)"` (also zsh, fish).
    """
    from skilldeck.cli import _start_up_done

    _start_up_done()
    if ctx.invoked_subcommand is None:  # bare `skilldeck`: help, as gh and uv do
        click.echo(ctx.get_help(), color=use_colour())
        ctx.exit(EXIT_OK)
    if ctx.invoked_subcommand != "trust":
        ctx.meta[_CONFIG] = warn_untrusted_project()


def command_config() -> skilldeck.Config | None:
    """The config files as the project-trust warning parsed them for this command
    (``None``: it parsed nothing, and the command reads them itself)."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(_CONFIG) if ctx is not None else None


def complete_skill_names(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion: the names of the skills the catalog finds here."""
    try:
        roots = ctx.params.get("roots") or ()
        config = skilldeck.load_config()
        catalog = (
            skilldeck.Catalog.from_roots(roots, config=config)
            if roots
            else skilldeck.Catalog.default(config=config)
        )
        names = sorted({m.name for m in catalog.list()})
    except (skilldeck.SkillError, OSError):
        return []
    return [n for n in names if n.startswith(incomplete)]


def complete_skill_names_or_paths(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[Any]:
    """Shell completion for an argument that is a skill's name or a path: a word with a
    ``/`` or starting with ``.`` or ``~`` (or one no name starts with) completes as a
    path, any other as the names the catalog finds."""
    from click.shell_completion import CompletionItem

    looks_like_path = "/" in incomplete or incomplete.startswith((".", "~"))
    names = [] if looks_like_path else complete_skill_names(ctx, param, incomplete)
    return names or [CompletionItem(incomplete, type="file")]


def complete_installed_names(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[str]:
    """Shell completion: the names of the installed skills (both scopes)."""
    try:
        import skilldeck.dist

        names = sorted({i.name for i in skilldeck.dist.list_installed()})
    except (skilldeck.SkillError, OSError):
        return []
    return [n for n in names if n.startswith(incomplete)]


def root_option(func: F) -> F:
    """The repeatable ``--root DIR`` every catalog command accepts."""
    return click.option(
        "--root",
        "roots",
        multiple=True,
        type=click.Path(file_okay=True, dir_okay=True, path_type=str),
        help="Use only this skills root (repeatable; later wins). Default: configured sources.",
    )(func)


def recursive_option(func: F) -> F:
    """``--recursive``: the ``--root`` folders searched at any depth."""
    return click.option(
        "--recursive",
        is_flag=True,
        help="Search the --root folders at any depth (default: their direct sub-folders).",
    )(func)


def embedder_option(func: F) -> F:
    """``--embedder MODEL``: rank with a sentence model too (an installed model's id
    or ``path:DIR``; ``off``: lexical only); default ``[search] embedder`` of the
    user's config."""
    return click.option(
        "--embedder",
        default=None,
        metavar="MODEL",
        help="Rank with embeddings of this model too: the id of a model installed on "
        "this machine, or path:DIR for a folder (an ONNX sentence model or a model2vec "
        "model; needs skilldeck[semantic]; nothing is downloaded). 'off': lexical only. "
        "Default: [search] embedder of your config file.",
    )(func)


def _mark_json(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
    if value is True or value == "json":
        ctx.meta[_JSON_MODE] = True
    return value


def _output_options(dest: str, choices: tuple[str, ...]) -> Callable[[F], F]:
    """``--format`` (``choices``, default the first) and ``--json``; the command gets
    ``dest``: ``fmt`` (the format's name) or ``as_json`` (a bool)."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            alias, chosen = kwargs.pop("json_alias"), kwargs.pop("output_format")
            chosen = "json" if alias else chosen
            kwargs[dest] = chosen if dest == "fmt" else chosen == "json"
            return func(*args, **kwargs)

        wrapper = click.option(
            "--json",
            "json_alias",
            is_flag=True,
            callback=_mark_json,
            help="Same as --format json.",
        )(wrapper)
        return click.option(  # type: ignore[return-value]
            "--format",
            "output_format",
            type=click.Choice(choices),
            default=choices[0],
            show_default=True,
            callback=_mark_json,
            help="Output format.",
        )(wrapper)

    return decorate


def format_option(func: F) -> F:
    """``--format text|json`` (and ``--json``); the command receives ``fmt``."""
    return _output_options("fmt", ("text", "json"))(func)


def json_option(func: F) -> F:
    """``--format text|json`` (and ``--json``); the command receives ``as_json``."""
    return _output_options("as_json", ("text", "json"))(func)


def formats_option(*choices: str) -> Callable[[F], F]:
    """``--format`` with other formats (the first is the default), plus ``--json``."""
    return _output_options("fmt", choices)
