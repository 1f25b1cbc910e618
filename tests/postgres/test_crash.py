"""SIGKILL of a publish at many points: no version is ever half there."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from skilldeck.postgres import Database, PostgresAuditSink, PostgresStore, create_tenant

from ._util import make_skill


def _complete(url: str) -> list[tuple[int, int, int]]:
    """(version number, files listed, files expected) of every version row (the
    number the audit names: counted per tenant, so a killed publish leaves no gap)."""
    db = Database(url)
    try:
        with db.admin() as conn:
            rows = conn.execute(
                "SELECT v.number, count(f.relpath) FROM skilldeck_versions v "
                "LEFT JOIN skilldeck_version_files f ON f.version_id = v.id GROUP BY v.id"
            ).fetchall()
    finally:
        db.close()
    return [(int(i), int(n), 801) for i, n in rows]


def test_killed_publishes_leave_nothing_half_published(store_url: str, tmp_path: Path) -> None:
    create_tenant(store_url, "acme")
    files = {f"references/part-{i:04d}.md": f"part {i}\n" * 50 for i in range(800)}
    folder = make_skill(tmp_path, "big", files=files)
    cmd = [
        sys.executable,
        "-m",
        "skilldeck",
        "publish",
        str(folder),
        "--store",
        store_url,
        "--tenant",
        "acme",
        "--scan",
        "off",
    ]
    reader = PostgresStore(store_url, "acme")
    # kill points as shares of how long a whole publish takes on this machine: fixed
    # delays missed every publish once publishing got faster than the shortest one
    started = time.monotonic()
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    whole = time.monotonic() - started
    killed = 0
    for attempt, share in enumerate((0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95), start=1):
        delay = whole * share
        (folder / "SKILL.md").write_text(
            "---\nname: big\n"
            f"description: Big skill, edition {attempt}, for crash tests.\n---\n\nBody.\n"
        )
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + delay
        while time.monotonic() < deadline and proc.poll() is None:
            listed = reader.list_skills()  # a reader during the publish
            if listed:
                version = reader.version("big")
                assert len(version.files) == 801
            time.sleep(0.02)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        proc.wait()
        for _vid, got, expected in _complete(store_url):
            assert got == expected
    assert killed >= 1
    # a publish run to the end afterwards is whole, and every completed publish has its audit row
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    rows = _complete(store_url)
    assert rows and all(got == expected for _v, got, expected in rows)
    published = [
        e for e in PostgresAuditSink(store_url, "acme").read() if e["event"] == "skill_published"
    ]
    assert sorted(e["version"] for e in published) == sorted(v for v, _g, _e in rows)
    assert len(PostgresStore(store_url, "acme").version("big").files) == 801
