"""Reads race with folder swaps and never leave the skill folder.

A background thread swaps the skill's ``references/`` folder for a link to an
outside folder holding a ``guide.md`` of the same name (distinctive bytes) and
back, in a loop, while reads of ``references/guide.md`` run through the
``skills_read_file`` tool and through MCP ``resources/read`` (the official SDK
client). Every swap step is one atomic ``rename(2)``: ``os.replace`` of a
prepared link and of the real folder set aside, or, where the kernel has
``renameat2``, one ``RENAME_EXCHANGE`` of the two.

A read either returns the skill's own bytes or a coded ``PATH_NOT_ALLOWED`` /
``FILE_NOT_FOUND``: never the outside bytes, never ``INTERNAL``. Both outcomes
are counted and each must occur, so the race really ran.
"""

from __future__ import annotations

import ctypes
import logging
import os
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

import skilldeck
from skilldeck import SkillError
from skilldeck._tree import read_beneath
from skilldeck.mcp import create_server

pytestmark = pytest.mark.anyio

INSIDE = b"the skill's own guide\n"
OUTSIDE = b"OUTSIDE-RACE-BYTES-5c1e9a\n"
SKILL_MD = """---
name: racer
description: A skill whose references folder is swapped during reads. Use in tests.
---
Read references/guide.md.
"""
REFUSED = {"PATH_NOT_ALLOWED", "FILE_NOT_FOUND"}

BUDGET = 2.0  # seconds of reads per front end, if both outcomes were seen by then
HARD_STOP = 8.0  # seconds: past this the test fails rather than runs on
MAX_READS = 3_000
MAX_SWAPS = 200_000


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _renameat2() -> Callable[..., int] | None:
    """``renameat2(2)`` from libc, or ``None`` where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return cast("Callable[..., int]", fn)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class Swapper(threading.Thread):
    """Swaps ``skill/references`` for a link to ``outside`` and back until stopped."""

    def __init__(self, skill: Path, spare: Path, outside: Path) -> None:
        super().__init__(daemon=True)
        self.refs = skill / "references"
        self.link = spare / "link"  # the prepared link, while not swapped in
        self.real = spare / "real"  # the real folder, while set aside
        os.symlink(outside, self.link)
        self.stop = threading.Event()
        self.swaps = 0
        self.error: BaseException | None = None
        self._exchange = _renameat2()
        self._rng = random.Random(13)

    def _exchange_once(self) -> bool:
        fn = self._exchange
        if fn is None:
            return False
        rc = fn(
            _AT_FDCWD, os.fsencode(self.refs), _AT_FDCWD, os.fsencode(self.link), _RENAME_EXCHANGE
        )
        if rc != 0:  # a file system without RENAME_EXCHANGE: plain renames only
            self._exchange = None
            return False
        return True

    def _pause(self) -> None:
        # mostly none (swaps mid-resolution), sometimes long enough for whole reads
        if self._rng.random() < 0.3:
            time.sleep(self._rng.uniform(0, 0.002))

    def run(self) -> None:
        try:
            while not self.stop.is_set() and self.swaps < MAX_SWAPS:
                if self.swaps % 2 and self._exchange_once():
                    self._pause()  # references is the outside link now
                    self._exchange_once()
                else:
                    os.replace(self.refs, self.real)  # no references at all
                    os.replace(self.link, self.refs)  # references is the outside link
                    self._pause()
                    os.replace(self.refs, self.link)
                    os.replace(self.real, self.refs)
                self.swaps += 1
                self._pause()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def finish(self) -> None:
        self.stop.set()
        self.join(timeout=10)
        assert not self.is_alive(), "the swapping thread did not stop"
        assert self.error is None, f"the swapping thread failed: {self.error!r}"
        assert self.refs.is_dir() and not self.refs.is_symlink()
        assert self.swaps > 0


@pytest.fixture
def race(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> Iterator[tuple[Path, Swapper]]:
    """``(root, swapper)``: the skill ``racer`` under ``root``; swapping once started."""
    root = tmp_path / "skills"
    skill = root / "racer"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "references" / "guide.md").write_bytes(INSIDE)
    outside = tmp_path / "outside"  # beside the skills root: never part of a skill
    outside.mkdir()
    (outside / "guide.md").write_bytes(OUTSIDE)
    spare = tmp_path / "spare"
    spare.mkdir()
    swapper = Swapper(skill, spare, outside)
    caplog.set_level(logging.WARNING)
    yield root, swapper
    swapper.stop.set()
    swapper.join(timeout=10)
    # nothing was logged with a traceback while the swaps ran
    assert [r for r in caplog.records if r.exc_info] == []


def _done(started: float, reads: int, outcomes: Counter[str]) -> bool:
    elapsed = time.monotonic() - started
    both = outcomes["ok"] > 0 and sum(outcomes[c] for c in REFUSED) > 0
    if elapsed > HARD_STOP:
        return True
    return both and (reads >= MAX_READS or elapsed > BUDGET)


def _check(outcomes: Counter[str], swapper: Swapper) -> None:
    refused = sum(outcomes[c] for c in REFUSED)
    assert set(outcomes) <= {"ok", *REFUSED}, outcomes  # no INTERNAL, no other code
    assert outcomes["ok"] > 0, (outcomes, swapper.swaps)
    assert refused > 0, (outcomes, swapper.swaps)  # the race really happened


def test_contained_reads_never_leave_the_skill(race: tuple[Path, Swapper], resolver: str) -> None:
    """The reader alone, without the file index the front ends check first."""
    root, swapper = race
    outcomes: Counter[str] = Counter()
    reads = 0
    swapper.start()
    started = time.monotonic()
    try:
        while not _done(started, reads, outcomes):
            reads += 1
            try:
                got = read_beneath(root / "racer", "references/guide.md", max_bytes=1024)
            except SkillError as exc:
                assert OUTSIDE.decode() not in str(exc)
                outcomes[exc.code] += 1
                continue
            assert got.data == INSIDE, got
            outcomes["ok"] += 1
    finally:
        swapper.finish()
    _check(outcomes, swapper)


def test_tool_reads_never_leave_the_skill(race: tuple[Path, Swapper], resolver: str) -> None:
    root, swapper = race
    rt = skilldeck.SkillRuntime(skilldeck.Catalog.from_roots([root]))
    session = rt.session()
    args = {"name": "racer", "path": "references/guide.md"}
    assert rt.call(session, "skills_read_file", args)["data"]["content"] == INSIDE.decode()
    outcomes: Counter[str] = Counter()
    reads = 0
    swapper.start()
    started = time.monotonic()
    try:
        while not _done(started, reads, outcomes):
            envelope = rt.call(session, "skills_read_file", args)
            reads += 1
            if envelope["ok"]:
                content = envelope["data"]["content"]
                assert OUTSIDE.decode() not in content, "outside bytes were served"
                assert content == INSIDE.decode(), envelope
                outcomes["ok"] += 1
            else:
                outcomes[envelope["error"]["code"]] += 1
    finally:
        swapper.finish()
    _check(outcomes, swapper)


async def test_mcp_reads_never_leave_the_skill(race: tuple[Path, Swapper], resolver: str) -> None:
    root, swapper = race
    uri = "skill://racer/references/guide.md"
    outcomes: Counter[str] = Counter()
    reads = 0
    async with Client(create_server(roots=[root])) as client:
        first = await client.read_resource(uri)
        assert getattr(first.contents[0], "text", None) == INSIDE.decode()
        swapper.start()
        started = time.monotonic()
        try:
            while not _done(started, reads, outcomes):
                reads += 1
                try:
                    result = await client.read_resource(uri)
                except MCPError as exc:
                    data = exc.error.data if isinstance(exc.error.data, dict) else {}
                    assert OUTSIDE.decode() not in str(exc), "outside bytes in an error"
                    outcomes[str(data.get("code", "no code"))] += 1
                    continue
                for part in result.contents:
                    text = getattr(part, "text", None)
                    blob = getattr(part, "blob", None)
                    assert OUTSIDE.decode() not in str(text) + str(blob), "outside bytes served"
                    assert text == INSIDE.decode(), part
                outcomes["ok"] += 1
        finally:
            swapper.finish()
    _check(outcomes, swapper)
