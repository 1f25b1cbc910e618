"""``skilldeck list``: the command and its options (its body is ``_listing``'s; a listing,
the command run most, imports no other command)."""

from __future__ import annotations

import click

from skilldeck.cli._app import format_option, main, recursive_option, root_option
from skilldeck.cli._listing import list_skills, open_catalog
from skilldeck.cli._stored import store_options

__all__ = ["list_command", "open_catalog"]


@main.command("list")
@root_option
@store_options
@recursive_option
@click.option("--all", "show_all", is_flag=True, help="Also show shadowed skills.")
@click.option("--installed", is_flag=True, help="Only skills from installed sources.")
@format_option
def list_command(
    roots: tuple[str, ...], recursive: bool, show_all: bool, installed: bool, fmt: str
) -> None:
    """List skills: ✓ enabled, ○ disabled, ✗ unavailable or invalid (with the reason)."""
    list_skills(roots, recursive=recursive, show_all=show_all, installed=installed, fmt=fmt)
