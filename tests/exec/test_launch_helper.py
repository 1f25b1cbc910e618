"""The launch helper's command-line protocol, for the native binary and its Python twin.

A unit test of an internal: hosts reach the helper only through ``Executor`` runs
(``isolation["helper"]``, tested in test_executor.py); this pins the argv contract the
two implementations share.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

from skilldeck.execution._native import find_helper


@pytest.mark.parametrize("native", [True, False], ids=["native", "python"])
def test_helper_protocol(native: bool) -> None:
    if native and not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler: the native helper cannot be built (the Python twin is used)")

    helper = find_helper(native=native)
    assert helper.kind == ("native" if native else "python")
    limits = ["0", "-1", "-1", "-1", "-1", "-1", "0"]  # grace, cpu, as, fsize, nofile, nproc, core

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*helper.argv, *argv],
            capture_output=True,
            text=True,
            check=False,
            pass_fds=helper.pass_fds,
        )

    done = run("3", "exec", "-1", "-1", *limits, "-1", "0", "--", "/bin/sh", "-c", "umask; exit 7")
    assert (done.returncode, done.stdout) == (7, "0077\n")
    bad = run("2", "exec", "-1", "-1", *limits, "-1", "--", "/bin/true")
    assert bad.returncode == 125 and "protocol 3" in bad.stderr
    missing = run("3", "supervise", "-1", "-1", *limits, "-1", "0", "--", "/no/such/program")
    assert missing.returncode == 127 and "cannot execute /no/such/program" in missing.stderr
    # a program killed by SIGKILL: the helper dies of the same signal, saying nothing
    killed = run(
        "3", "supervise", "-1", "-1", *limits, "-1", "0", "--", "/bin/sh", "-c", "kill -9 $$"
    )
    assert (killed.returncode, killed.stderr) == (-9, "")


@pytest.mark.parametrize("mode", ["supervise", "exec"])
@pytest.mark.parametrize("native", [True, False], ids=["native", "python"])
def test_a_program_dropped_from_root_gets_a_mapped_user_namespace(native: bool, mode: str) -> None:
    """OWN 1, root dropping to nobody: the program runs in a user namespace of its own
    where every id maps to itself, whoever writes the maps (the supervising helper for
    the program it forked, a short-lived child of the program's process in exec mode),
    and its fork cap is the bare 16, not raised by nobody's processes."""
    if os.geteuid() != 0:
        pytest.skip("only root drops to another user")
    if native and not any(shutil.which(c) for c in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler: the native helper cannot be built (the Python twin is used)")
    helper = find_helper(native=native)
    limits = ["0", "-1", "-1", "-1", "-1", "16", "0"]  # grace, cpu, as, fsize, nofile, nproc, core
    look = "id -u; cat /proc/self/uid_map; readlink /proc/self/ns/user; cat /proc/self/limits"
    program = ["/bin/sh", "-c", look]
    done = subprocess.run(
        [*helper.argv, "3", mode, "65534", "65534", *limits, "-1", "1", "--", *program],
        capture_output=True,
        text=True,
        check=False,
        pass_fds=helper.pass_fds,
        cwd="/",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "65534"
    with open("/proc/self/uid_map") as fh:
        host_map = [row.split() for row in fh.read().splitlines()]
    assert [row.split() for row in lines[1 : 1 + len(host_map)]] == [
        [row[0], row[0], row[2]] for row in host_map
    ]
    assert lines[1 + len(host_map)] != os.readlink("/proc/self/ns/user")
    assert any(
        line.startswith("Max processes") and line.split()[2:4] == ["16", "16"] for line in lines
    ), done.stdout


def test_descendants_walks_the_tree_it_is_given() -> None:
    from skilldeck.execution._helper import _descendants_by_scan, descendants

    # a shell with a child that has a child of its own, and a grandchild in a new session
    tree = subprocess.Popen(
        ["/bin/sh", "-c", "sleep 30 & sh -c 'sleep 31 & setsid sleep 32 & wait' & wait"],
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 10
        while len(descendants(tree.pid)) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        found = descendants(tree.pid)
        assert len(found) == 4, found  # sleep 30, sh, sleep 31, sleep 32 (setsid execs it)
        assert found == _descendants_by_scan(tree.pid)
        assert os.getpid() not in found and tree.pid not in found
    finally:
        os.killpg(tree.pid, 9)
        tree.wait()


_PT_INTERP = 3


def _program_headers(data: bytes) -> list[int]:
    """The types of an ELF file's program headers."""
    assert data[:4] == b"\x7fELF", "not an ELF file"
    wide = data[4] == 2
    order = "<" if data[5] == 1 else ">"
    if wide:
        (phoff,) = struct.unpack_from(order + "Q", data, 0x20)
        size, count = struct.unpack_from(order + "HH", data, 0x36)
    else:
        (phoff,) = struct.unpack_from(order + "I", data, 0x1C)
        size, count = struct.unpack_from(order + "HH", data, 0x2A)
    return [struct.unpack_from(order + "I", data, phoff + i * size)[0] for i in range(count)]


def _links_statically(cc: str, folder: Path) -> bool:
    source = folder / "probe.c"
    source.write_text("int main(void) { return 0; }\n")
    done = subprocess.run(
        [cc, "-static", "-o", str(folder / "probe"), str(source)],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def test_the_compiled_helper_starts_without_the_dynamic_loader(tmp_path: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler: the native helper cannot be built (the Python twin is used)")
    helper = find_helper(native=True)
    assert helper.kind == "native"
    with open(helper.argv[0], "rb") as fh:
        headers = _program_headers(fh.read())
    if not _links_statically(cc, tmp_path):
        assert _PT_INTERP in headers  # linked dynamically, and still used
        pytest.skip("this C library has no static archive: the helper is linked dynamically")
    assert _PT_INTERP not in headers


def _c_library(data: bytes) -> str:
    """Which C library a static helper carries, by text only it holds: glibc names
    itself in its messages, musl's ``strerror(0)`` is "No error information"."""
    if b"glibc" in data:
        return "glibc"
    return "musl" if b"No error information" in data else "unknown"


def test_the_helper_is_built_against_musl_where_musl_gcc_exists() -> None:
    """musl's start does not probe the processor (glibc's ``CPUID`` traps to a
    hypervisor on every run): the build every run executes is musl's, static."""
    if shutil.which("musl-gcc") is None:
        pytest.skip("no musl-gcc: the helper is built with the system's C library")
    helper = find_helper(native=True)
    assert helper.kind == "native"
    with open(helper.argv[0], "rb") as fh:
        data = fh.read()
    assert _PT_INTERP not in _program_headers(data)
    assert _c_library(data) == "musl"


def test_a_musl_build_that_fails_falls_back_to_the_system_c_library(tmp_path: Path) -> None:
    """A ``musl-gcc`` that cannot build (here one that always fails, first on PATH)
    leaves the next build in line, and no scratch file or header folder behind."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler: the native helper cannot be built (the Python twin is used)")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "musl-gcc").write_text("#!/bin/sh\nexit 1\n")
    (fake / "musl-gcc").chmod(0o755)
    cache = tmp_path / "cache"
    program = (
        "import sys\n"
        "from skilldeck.execution._native import find_helper\n"
        "helper = find_helper(native=True)\n"
        "sys.stdout.write(helper.kind + ' ' + helper.path)\n"
    )
    env = {
        **os.environ,
        "PATH": f"{fake}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "SKILLDECK_CACHE_DIR": str(cache),
    }
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    kind, name = done.stdout.split(" ", 1)
    assert kind == "native"
    binary = name.split(" ")[0]
    left = {p.name for p in (cache / "exec").iterdir()} - {"probe-helper"}  # the probe memo
    assert sorted(left) == [binary, binary + ".mac"]
    data = (cache / "exec" / binary).read_bytes()
    if _links_statically(cc, tmp_path):
        assert _PT_INTERP not in _program_headers(data)
        assert _c_library(data) == "glibc"
