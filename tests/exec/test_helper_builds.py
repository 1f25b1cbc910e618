"""Every way the launch helper can be built behaves the same.

``_native._BUILDS`` lists the builds first choice first (without a C library, static,
dynamic); a machine uses the first that compiles, so the others would go untested
where the first works. Each is compiled here from the same source and run through
the same cases; what the program sees and how the helper ends must be identical.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from skilldeck.execution import _native

_CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")

pytestmark = pytest.mark.skipif(_CC is None, reason="no C compiler: only the Python twin runs")


def _build(flags: tuple[str, ...], folder: Path) -> Path | None:
    assert _CC is not None
    out = folder / "helper"
    done = subprocess.run(
        [_CC, *flags, "-o", str(out), str(_native._C_SOURCE)],
        capture_output=True,
        text=True,
        check=False,
    )
    return out if done.returncode == 0 else None


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    made: dict[str, Path] = {}
    for index, flags in enumerate(_native._BUILDS):
        folder = tmp_path_factory.mktemp(f"build{index}")
        folder.chmod(0o755)
        built = _build(flags, folder)
        if built is not None:
            made[" ".join(flags)] = built
    if not made:
        pytest.skip("no build of the helper compiles here")
    return made


#: grace, cpu, as, fsize, nofile, nproc, core
_PLAIN = ["0", "-1", "-1", "-1", "-1", "-1", "0"]
_LIMITED = ["500", "7", "1073741824", "4096", "64", "-1", "0"]
_SEE = (
    "umask; grep -E '^(Max (cpu|file size|open|address|core|processes))' /proc/self/limits; "
    "grep -E '^(Cap|NoNewPrivs)' /proc/self/status; ls /proc/self/fd; echo \"$FOO\""
)


def _cases(files: Path) -> list[tuple[str, list[str]]]:
    plain, garbage = files / "plain.txt", files / "garbage"
    plain.write_text("not a program\n")
    plain.chmod(0o644)
    garbage.write_bytes(b"\x00\x01 not a program\n")
    garbage.chmod(0o755)
    sh = ["--", "/bin/sh", "-c"]
    cases = [
        ("bad protocol", ["2", "exec", "-1", "-1", *_PLAIN, "-1", "--", "/bin/true"]),
        ("too few", ["3", "exec", "-1"]),
        ("bad number", ["3", "exec", "-1", "x", *_PLAIN, "-1", "0", "--", "/bin/true"]),
        ("missing", ["3", "supervise", "-1", "-1", *_PLAIN, "-1", "0", "--", "/no/such/program"]),
        ("not executable", ["3", "exec", "-1", "-1", *_PLAIN, "-1", "0", "--", str(plain)]),
        ("no format", ["3", "supervise", "-1", "-1", *_PLAIN, "-1", "0", "--", str(garbage)]),
        ("exit 7", ["3", "exec", "-1", "-1", *_PLAIN, "-1", "0", *sh, "exit 7"]),
        ("sees", ["3", "supervise", "-1", "-1", *_LIMITED, "-1", "0", *sh, _SEE]),
        ("sees, exec", ["3", "exec", "-1", "-1", *_LIMITED, "-1", "0", *sh, _SEE]),
        ("killed", ["3", "supervise", "-1", "-1", *_PLAIN, "-1", "0", *sh, "kill -9 $$"]),
        # a child left behind is killed when the program ends: the pipe closes
        ("leftovers", ["3", "supervise", "-1", "-1", *_PLAIN, "-1", "0", *sh, "sleep 30 & echo"]),
        ("portable", ["3", "portable", "-1", "-1", *_LIMITED, "-1", "0", *sh, _SEE]),
    ]
    if os.geteuid() == 0:
        nobody = ["65534", "65534", "0", "-1", "-1", "-1", "-1", "16", "0", "-1"]
        for mode in ("supervise", "exec"):
            look = "id -u; id -g; cat /proc/self/uid_map; " + _SEE
            cases.append(
                (f"as nobody, own namespace, {mode}", ["3", mode, *nobody, "1", *sh, look])
            )
            cases.append((f"as nobody, counted, {mode}", ["3", mode, *nobody, "0", *sh, look]))
    return cases


def _run(helper: Path, argv: list[str], *, status: bool = False) -> tuple[int, str, str, str]:
    read, write = os.pipe()
    if status:  # the status descriptor takes the place of STATUS_FD
        argv = [str(write) if (i == 12 and a == "-1") else a for i, a in enumerate(argv, 1)]
    try:
        done = subprocess.run(
            [str(helper), *argv],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
            cwd="/",
            env={"PATH": "/usr/bin:/bin", "FOO": "bar baz"},
            pass_fds=(write,),
        )
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as fh:
        reported = fh.read().decode()
    # descriptors the program sees: the listing's own and 0-2 only, never the pipe
    return done.returncode, done.stdout, done.stderr, reported


@pytest.mark.parametrize("status", [False, True], ids=["exit status", "status pipe"])
def test_every_build_behaves_alike(builds: dict[str, Path], status: bool, tmp_path: Path) -> None:
    first, *others = builds
    for name, argv in _cases(tmp_path):
        expected = _run(builds[first], argv, status=status)
        if name == "sees":
            assert expected[0] == 0 and "0077" in expected[1], expected
            assert "NoNewPrivs:\t1" in expected[1] and "bar baz" in expected[1], expected
        if name == "not executable":
            assert expected[0] == 126 and "Permission denied" in expected[2], expected
        for other in others:
            assert _run(builds[other], argv, status=status) == expected, (name, other)
    if not others:
        pytest.skip("only one build of the helper compiles here")


def test_the_first_build_is_what_runs_use(builds: dict[str, Path]) -> None:
    """Where the build without a C library compiles (Linux on x86-64 and AArch64),
    runs use it: the helper's tag names the flags it was built with."""
    if os.uname().machine not in ("x86_64", "aarch64") or os.uname().sysname != "Linux":
        pytest.skip("the build without a C library is for Linux on x86-64 and AArch64")
    first = " ".join(_native._BUILDS[0])
    assert "-DSKILLDECK_NOLIBC" in first
    assert first in builds, "the build without a C library did not compile"
    data = builds[first].read_bytes()
    assert b"GLIBC" not in data and b"GNU C Library" not in data


def test_every_build_raises_the_process_cap_by_the_users_processes(
    builds: dict[str, Path],
) -> None:
    """OWN 1 staying the caller's user: RLIMIT_NPROC is NPROC plus the processes the
    user has now (read from /proc), at least the helper itself, in every build."""
    limits = ["0", "-1", "-1", "-1", "-1", "16", "0"]
    look = "grep '^Max processes' /proc/self/limits"
    argv = ["3", "supervise", "-1", "-1", *limits, "-1", "1", "--", "/bin/sh", "-c", look]
    caps = []
    for helper in builds.values():
        code, out, err, _ = _run(helper, argv)
        assert code == 0, err
        caps.append(int(out.split()[2]))
    assert all(cap > 16 for cap in caps), caps
    assert max(caps) - min(caps) < 100, caps  # the same count, give or take what ran meanwhile
