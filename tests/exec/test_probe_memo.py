"""Probes remembered across processes (bubblewrap works, the sealed launch helper
runs): only "works", and never trusted beyond what it was checked for."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from skilldeck.execution import _native, _probe_memo, _sandbox

from .conftest import MakeSkill, executor, needs_bwrap

pytestmark = needs_bwrap


def _wrapper(folder: Path, *, broken: Path | None = None) -> tuple[Path, Path]:
    """A ``bwrap`` that logs each start, then runs the real one; with ``broken``, it
    fails as bubblewrap does (``bwrap: ...``, status 1) while that file exists."""
    log = folder / "starts.log"
    real = shutil.which("bwrap")
    fail = (
        f'if [ -e "{broken}" ]; then echo "bwrap: No permissions (test)" >&2; exit 1; fi\n'
        if broken is not None
        else ""
    )
    script = folder / "bwrap"
    script.write_text(f'#!/bin/sh\necho start >> "{log}"\n{fail}exec "{real}" "$@"\n')
    script.chmod(0o755)
    return script, log


def _new_process() -> None:
    """What a new process starts with: no probe made in it yet."""
    _sandbox._probes.clear()


def _starts(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_a_working_probe_is_remembered_by_the_next_process(world: Path) -> None:
    bwrap, log = _wrapper(world)
    _new_process()
    assert _sandbox.usable_sandbox(str(bwrap)).available
    assert _starts(log) == 1
    _new_process()
    status = _sandbox.usable_sandbox(str(bwrap))
    assert status.available and status.path == str(bwrap)
    assert _starts(log) == 1  # remembered: no second probe
    # the same bwrap changed (an upgrade, a lost setuid bit): probed again
    os.utime(bwrap, ns=(0, 0))
    _new_process()
    assert _sandbox.usable_sandbox(str(bwrap)).available
    assert _starts(log) == 2
    # `sandbox status` and `doctor` always probe
    _new_process()
    assert _sandbox.probe_sandbox(str(bwrap)).available
    assert _starts(log) >= 3


def test_an_unusable_bwrap_is_never_remembered(world: Path) -> None:
    flag = world / "broken"
    flag.touch()
    bwrap, log = _wrapper(world, broken=flag)
    for expected in (1, 2, 3):
        _new_process()
        status = _sandbox.usable_sandbox(str(bwrap))
        assert not status.available and "No permissions" in (status.reason or "")
        assert _starts(log) == expected
    # it works again: the very next run finds out
    flag.unlink()
    _new_process()
    assert _sandbox.usable_sandbox(str(bwrap)).available
    assert _starts(log) == 4


def test_a_stale_memo_fails_the_run_and_is_forgotten(make_skill: MakeSkill, world: Path) -> None:
    """bubblewrap breaks in a way the stamp does not see: the run fails under the
    sandbox it was planned with (never without it), and the next run probes again."""
    flag = world / "broken"
    bwrap, log = _wrapper(world, broken=flag)
    skill = make_skill(scripts={"hi.py": "print('hi')\n"})
    _new_process()
    assert _sandbox.usable_sandbox(str(bwrap)).available
    flag.touch()  # the wrapper's own stamp is unchanged
    _new_process()
    result = executor(sandbox="auto", bwrap_path=str(bwrap)).run_script(
        skill, "scripts/hi.py", approver=lambda request: True
    )
    assert not result.success
    assert result.isolation["sandbox"] == "bubblewrap"
    assert result.output.startswith("bwrap: No permissions")
    assert "hi" not in result.output
    starts = _starts(log)
    _new_process()
    result = executor(sandbox="auto", bwrap_path=str(bwrap)).run_script(
        skill, "scripts/hi.py", approver=lambda request: True
    )
    assert _starts(log) == starts + 1  # probed again, not taken from the memo
    assert result.success and result.output == "hi\n"
    assert result.isolation["sandbox"] == "none"
    assert "No permissions" in result.isolation["fallback"]


def test_the_helper_check_is_remembered_for_the_same_binary_only() -> None:
    """A remembered check stands in for running the helper (a helper that cannot
    run passes for the checked binary), a different binary is checked again, and a
    failed check drops the memo."""
    _native._cache.clear()  # a new process: the helper is checked, and that remembered
    helper = _native.find_helper()
    if helper.kind != "native":
        pytest.skip("no compiled launch helper here (no C compiler)")
    assert _probe_memo.remembered(
        _probe_memo.HELPER, _probe_memo.stamp(f"sealed launch helper {_digest(helper)}") or b""
    )
    broken = _native.Helper(("/bin/false",), "native", "not a helper")
    assert _native._runs_here(broken, _digest(helper))  # remembered: not started
    assert not _native._runs_here(broken, "sha256:another-binary")  # started: it fails
    assert not _native._runs_here(broken, _digest(helper))  # the memo went with it
    assert _native._runs_here(helper, _digest(helper))  # checked again, remembered again
    assert _native._runs_here(broken, _digest(helper))


def _digest(helper: _native.Helper) -> str:
    """The name the memo knows the binary by (its MAC, as the check computed it)."""
    from skilldeck._statedir import state_key

    with open(helper.argv[0], "rb") as fh:
        return _native._memo_name(_native._mac(state_key(), fh.read()))


@pytest.fixture(autouse=True)
def _fresh_probes() -> object:
    """Tests here reset the per-process probes; later tests get them fresh too."""
    yield None
    _sandbox._probes.clear()
