"""``skilldeck serve``: the catalog as an MCP server (stdio or streamable HTTP)."""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from typing import Any

import click

import skilldeck
from skilldeck._gc import paused as collector_paused
from skilldeck.cli._app import embedder_option, main, recursive_option, root_option


@main.command()
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for a client that launches the server; http for streamable HTTP at /mcp.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP bind address.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="HTTP port."
)
@root_option
@recursive_option
@click.option(
    "--token",
    envvar="SKILLDECK_MCP_TOKEN",
    default=None,
    help="Bearer token HTTP clients must send (env: SKILLDECK_MCP_TOKEN). "
    "Required to bind anywhere but loopback.",
)
@click.option(
    "--allow-exec",
    is_flag=True,
    help="Offer skills_run_script and command tools (approvals still apply).",
)
@click.option(
    "--allowed-tools",
    "allowed_tools",
    type=click.Choice(["off", "enforce"]),
    default=None,
    help="enforce: a loaded skill's allowed-tools narrows that client's tools. "
    "Default: [runtime] allowed_tools_enforcement, else off.",
)
@click.option(
    "--session-timeout",
    type=click.FloatRange(min=0.1),
    default=1800.0,
    show_default=True,
    help="Seconds a client's session (loaded skills, tools) lives without a request.",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Most client sessions kept at once; the least recently used goes first.",
)
@click.option(
    "--watch/--no-watch",
    default=True,
    show_default=True,
    help="Rescan when files under the roots change and notify clients "
    "(needs skilldeck[watch]; otherwise polls every 2 s).",
)
@click.option(
    "--store",
    "store_url",
    envvar="SKILLDECK_STORE",
    default=None,
    metavar="URL",
    help="Serve every tenant of a PostgreSQL store over HTTP; the bearer token picks "
    "the tenant (env: SKILLDECK_STORE).",
)
@embedder_option
def serve(
    transport: str,
    host: str,
    port: int,
    roots: tuple[str, ...],
    recursive: bool,
    token: str | None,
    allow_exec: bool,
    allowed_tools: str | None,
    session_timeout: float,
    max_sessions: int,
    watch: bool,
    store_url: str | None,
    embedder: str | None,
) -> None:
    """Serve the catalog over MCP: the Skills extension plus skills_* tools.

    Same sources, precedence and status as `skilldeck list`. Shadowed skills
    stay reachable as skill://SOURCE/NAME. Each client has its own session:
    the skills it loads add their tools to its list only. The config files'
    [runtime] table sets the tools' options (tool_prefix, search, limits, ...);
    the options given here win.
    """
    with _start_up():
        try:
            from skilldeck import mcp as skill_mcp
        except ImportError as exc:  # the extra is missing
            from skilldeck.config import install_hint

            raise click.ClickException(
                f"the MCP server needs the mcp extra ({exc.name}); install it with:\n"
                f"  {install_hint('mcp')}"
            ) from None
        explicit: dict[str, Any] = {}
        if allowed_tools:  # the flag wins over [runtime] allowed_tools_enforcement
            explicit["allowed_tools_enforcement"] = allowed_tools
        # reads and checks the config files: a broken one is reported before a model loads
        config = skilldeck.load_config()
        options = skilldeck.RuntimeOptions.from_config(config, **explicit)
        from skilldeck.search import configured_embedder

        # --embedder, else [search] embedder of the user's file: every tenant's search too
        options = dataclasses.replace(options, embedder=configured_embedder(embedder))
        server = None
        if not store_url:
            if transport == "http":
                skill_mcp.check_bind(host, token)
            # --root folders keep the config's [catalog] disabled, pinned and budget, as
            # list does; the frontmatter a scan parses is kept for the server to publish
            catalog = (
                skilldeck.Catalog.from_roots(
                    [os.fspath(r) for r in roots],
                    recursive=recursive,
                    config=config,
                    keep_frontmatter=True,
                )
                if roots
                else skilldeck.Catalog.default(config=config, keep_frontmatter=True)
            )
            server = skill_mcp.create_server(
                catalog,
                allow_exec=allow_exec,
                runtime_options=options,
                watch=watch,
                session_timeout=session_timeout,
                max_sessions=max_sessions,
            )
            for missing in (r.path for r in catalog.roots if roots and not r.exists):
                # a host shows a server's stderr: a --root with a typo (or the example
                # path left in a client's configuration) served nothing without a word
                click.echo(
                    f"skilldeck: warning: --root {missing} does not exist; "
                    "nothing is served from it",
                    err=True,
                )
    if store_url:  # many tenants from one database: see skilldeck.postgres
        from skilldeck.cli._store import serve_store

        serve_store(
            store_url,
            transport,
            roots,
            host,
            port,
            allow_exec,
            options,
            session_timeout,
            max_sessions,
        )
        return
    assert server is not None
    if transport == "stdio":
        skill_mcp.run_stdio(server)
    else:
        skill_mcp.run_http(
            server,
            host=host,
            port=port,
            token=token,
            on_listening=lambda url: click.echo(f"skilldeck: serving MCP at {url}", err=True),
        )


@contextlib.contextmanager
def _start_up() -> Iterator[None]:
    """Start-up makes long-lived objects only (the MCP SDK's and skilldeck's modules,
    the config, the catalog): the cycle collector waits until it is done and then
    leaves them out of its collections (``gc.freeze``), which while serving and at
    exit would traverse them again and again to find nothing (a quarter of the CPU of
    a warm ``serve`` to the full list of 2,000 skills). A start-up that fails freezes
    nothing."""
    with collector_paused(freeze=True):
        yield
