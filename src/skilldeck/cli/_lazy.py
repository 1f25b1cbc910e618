"""Import a command's module only when that command runs.

``skilldeck --version`` or ``skilldeck list`` should not pay for importing the
installer, the executor and the MCP server. ``COMMANDS`` maps each top-level
command to the module that registers it on ``main``; ``--help`` (which shows
every command) imports them all. A test checks the map against the modules.
"""

from __future__ import annotations

import importlib

import click

__all__ = ["COMMANDS", "MODULES", "LazyGroup"]

MODULES = (
    "_author",
    "_catalog",
    "_dist",
    "_list",
    "_meta",
    "_routing",
    "_run",
    "_scan",
    "_serve",
    "_store",
    "_store_ops",
    "_trust",
)
"""Every command module of ``skilldeck.cli``."""

COMMANDS = {
    **dict.fromkeys(("validate", "lint", "show", "new"), "_author"),
    "list": "_list",
    **dict.fromkeys(("why", "prompt", "load", "read", "enable", "disable", "doctor"), "_catalog"),
    **dict.fromkeys(
        ("install", "update", "remove", "verify", "export", "manage", "agents", "sync"),
        "_dist",
    ),
    **dict.fromkeys(("run", "approve", "revoke", "approvals", "sandbox", "packages"), "_run"),
    **dict.fromkeys(("eval", "search"), "_routing"),
    "scan": "_scan",
    "serve": "_serve",
    **dict.fromkeys(("store", "tenant", "publish"), "_store"),
    **dict.fromkeys(("unpublish", "audit"), "_store_ops"),
    "trust": "_trust",
    **dict.fromkeys(("version", "completion"), "_meta"),
}


def load_all() -> None:
    for module in MODULES:
        importlib.import_module(f"skilldeck.cli.{module}")


class LazyGroup(click.Group):
    """A group whose commands are registered by modules imported on first use."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            module = COMMANDS.get(cmd_name)
            if module is not None:
                importlib.import_module(f"skilldeck.cli.{module}")
            else:
                load_all()  # an unknown name: let click suggest from every command
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        load_all()
        return super().list_commands(ctx)
