"""A real PostgreSQL for the store's tests: initdb and pg_ctl in a private folder.

The server listens on a Unix socket only. As root it runs as the ``postgres``
user (PostgreSQL refuses to run as root). Each test gets a fresh database with
the schema migrated. Tests skip, saying why, when no PostgreSQL binaries are
installed (``.ci/run`` installs Debian's ``postgresql``).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

psycopg = pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")


def _bindir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.skip("running as root and there is no 'postgres' user to run PostgreSQL as")
    return ["runuser", "-u", "postgres", "--"]


class PgServer:
    def __init__(
        self, folder: Path, bindir: Path, prefix: list[str], *, durable: bool = False
    ) -> None:
        self.folder = folder
        # a commit that returned survives an immediate stop (no WAL left in memory); off
        # where no test stops the server, for speed
        self.durable = durable
        self.bindir = bindir
        self.prefix = prefix
        self.data = folder / "data"
        self.socket = folder / "sock"
        self._ids = itertools.count(1)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql:///{dbname}?host={self.socket}&user=skilldeck"

    def start(self) -> None:
        self.socket.mkdir()
        if self.prefix:
            shutil.chown(self.folder, "postgres")
            shutil.chown(self.socket, "postgres")
        subprocess.run(
            [
                *self.prefix,
                str(self.bindir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "skilldeck",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
        )
        self._pg_ctl("start")

    @property
    def opts(self) -> str:
        return (
            f"-k {self.socket} -c listen_addresses='' -c fsync=off "
            f"-c synchronous_commit={'on' if self.durable else 'off'} "
            "-c full_page_writes=off -c max_connections=200 -c shared_buffers=64MB"
        )

    def _pg_ctl(self, action: str, *extra: str) -> None:
        subprocess.run(
            [
                *self.prefix,
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.data),
                "-o",
                self.opts,
                "-l",
                str(self.folder / "log"),
                "-w",
                "-t",
                "60",
                *extra,
                action,
            ],
            check=True,
            capture_output=True,
        )

    def restart(self, mode: str = "fast") -> None:
        """``pg_ctl restart -m MODE``: every connection is cut."""
        self._pg_ctl("restart", "-m", mode)

    def start_again(self) -> None:
        self._pg_ctl("start")

    def stop(self) -> None:
        subprocess.run(
            [
                *self.prefix,
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.data),
                "-m",
                "immediate",
                "-w",
                "stop",
            ],
            capture_output=True,
            check=False,
        )

    def new_database(self, tablespace: str | None = None) -> str:
        name = f"t{os.getpid()}_{next(self._ids)}"
        where = f" TABLESPACE {tablespace}" if tablespace else ""
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}{where}")
        return self.url(name)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    yield from _server()


@pytest.fixture(scope="module")
def own_pg_server() -> Iterator[PgServer]:
    """A PostgreSQL of the module's own, for tests that restart, stop or reconfigure it
    (commits are durable across an immediate stop)."""
    yield from _server(durable=True)


def _server(*, durable: bool = False) -> Iterator[PgServer]:
    bindir = _bindir()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (no initdb); apt-get install postgresql")
    prefix = _as_user()
    folder = Path(tempfile.mkdtemp(prefix="skilldeck-pg-"))
    os.chmod(folder, 0o755)
    server = PgServer(folder, bindir, prefix, durable=durable)
    try:
        server.start()
    except subprocess.CalledProcessError as exc:
        log = folder / "log"
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {exc.stderr!r} {detail}") from None
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def store_url(pg_server: PgServer) -> str:
    """A fresh database with skilldeck's schema."""
    from skilldeck.postgres import init_store

    url = pg_server.new_database()
    init_store(url)
    return url


@pytest.fixture
def empty_url(pg_server: PgServer) -> str:
    """A fresh database without skilldeck's schema."""
    return pg_server.new_database()
