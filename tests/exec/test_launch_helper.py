"""The launch helper's command-line protocol, for the native binary and its Python twin.

A unit test of an internal: hosts reach the helper only through ``Executor`` runs
(``isolation["helper"]``, tested in test_executor.py); this pins the argv contract the
two implementations share.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time

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
