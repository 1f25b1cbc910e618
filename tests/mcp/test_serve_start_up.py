"""``skilldeck serve`` keeps its start-up out of the cycle collector's way: what it made
is frozen once the server is ready (collections while serving skip it), and a start-up
that fails leaves the collector as it was."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from tests._skills import frozen_at_start

# main, not the console script's entry: entry freezes what is left at exit, whichever
# command it ran (tests/test_cli_lazy.py)
PROBE = """
import atexit, gc, sys
atexit.register(lambda: print("GC", gc.get_freeze_count(), gc.isenabled(), file=sys.stderr))
from skilldeck.cli import main
main(sys.argv[1:], prog_name="skilldeck")
"""


def _serve(*args: str) -> tuple[int, int, bool]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "serve", "--no-watch", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("GC "))
    _, frozen, enabled = line.split()
    return done.returncode, int(frozen), enabled == "True"


def test_a_started_server_froze_its_start_up(tmp_path: Path, h: Any) -> None:
    root = tmp_path / "skills"
    h.write_skill(root, "kept", "A skill to serve")
    code, frozen, enabled = _serve("--root", str(root))
    assert code == 0
    assert frozen > 10_000 and enabled  # the modules and the catalog, collector back on


def test_a_failed_start_up_freezes_nothing(tmp_path: Path) -> None:
    # any address but loopback needs a token: refused before a server is made
    code, frozen, enabled = _serve("--transport", "http", "--host", "0.0.0.0")
    assert code != 0
    assert frozen == frozen_at_start() and enabled


INDEX_PROBE = """
import gc, sys
from skilldeck import Catalog
from skilldeck.mcp import create_server
if sys.argv[2] == "frozen":
    gc.freeze()  # as skilldeck serve's start-up does
catalog = Catalog.from_roots([sys.argv[1]], keep_frontmatter=True)
server = create_server(catalog, snapshot_cache=False)
before = gc.get_freeze_count()
assert len(server.prepare().skills) == 40
print(gc.get_freeze_count() - before, gc.get_freeze_count(), gc.isenabled())
"""


def test_the_first_index_joins_a_frozen_start_up(tmp_path: Path, h: Any) -> None:
    root = tmp_path / "skills"
    for n in range(40):
        h.write_skill(root, f"skill-{n}", "A skill to serve", files={"notes.md": "notes\n"})
    seen = {}
    for mode in ("frozen", "free"):
        done = subprocess.run(
            [sys.executable, "-c", INDEX_PROBE, str(root), mode],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        grew, frozen, enabled = done.stdout.split()
        seen[mode] = (int(grew), int(frozen), enabled == "True")
    assert seen["frozen"][0] > 1_000 and seen["frozen"][2]  # the index is left out too
    # a host that froze nothing: nothing is frozen (but what the interpreter froze itself)
    assert seen["free"] == (0, frozen_at_start(), True)
