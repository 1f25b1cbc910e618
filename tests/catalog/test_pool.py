"""Cold scans parsed by worker processes give exactly what in-process parsing gives."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from skilldeck import FileSystemStore
from skilldeck._digest import bytes_digest
from skilldeck._tree import is_text
from skilldeck.catalog import _pool
from skilldeck.catalog._cache import sig_of
from skilldeck.catalog._model import own_md

SKILLS = {
    "ok": "---\nname: ok\ndescription: Fine.\ntags: [a, b]\n---\nBody\n",
    "extras": "---\nname: extras\ndescription: x\ncategory: y\n---\n",
    "bad-name": "---\nname: Bad_Name\ndescription: x\n---\n",
    "no-desc": "---\nname: no-desc\n---\n",
    "broken": "---\nname: broken\ndescription: [unclosed\n---\n",
    "nofm": "just text\n",
    "needs": (
        "---\nname: needs\ndescription: x\nmetadata:\n  requires:\n"
        "    commands: [git]\n    env: [TOKEN]\n---\n"
    ),
    "umlaut": "---\nname: umlaut\ndescription: Grüße \udcff\n---\n",
}


def _tree(root: Path) -> None:
    for name, text in SKILLS.items():
        folder = root / name
        folder.mkdir(parents=True)
        data = text.encode("utf-8", "surrogateescape")
        (folder / ("skill.md" if name == "extras" else "SKILL.md")).write_bytes(data)


@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_worker_records_equal_in_process_metadata(tmp_path: Path, mode: str) -> None:
    root = tmp_path / "skills"
    _tree(root)
    store = FileSystemStore(root, mode=mode)  # type: ignore[arg-type]
    serial = store.discover().skills
    assert len(serial) == len(SKILLS)
    items = []
    for meta in serial:
        assert meta.folder is not None and meta.md_name is not None
        own = own_md(meta.folder, meta.md_name)
        items.append((os.path.join(meta.folder, meta.md_name), meta.folder, own))
    records = _pool.parse_records(items, mode, 2, frontmatter=True, digest=True)
    assert records is not None
    pooled = [
        store._meta(folder, md, rec, kept)
        for (md, folder, _own), (rec, kept, _read) in zip(items, records, strict=True)
    ]
    assert pooled == list(serial)
    # with the digest of the bytes each parsed, read whole, and the stamp of their file
    for (md, _folder, _own), (_rec, _kept, read) in zip(items, records, strict=True):
        data = Path(md).read_bytes()
        assert read == (sig_of(os.stat(md)), bytes_digest(data), len(data), is_text(data))
    # the kept frontmatter is what the manifest, read again, gives (valid skills only)
    assert [m._frontmatter for m in pooled] == [m.frontmatter_json for m in serial]
    assert [m._frontmatter is not None for m in pooled] == [m.valid for m in pooled]
    assert all(m._frontmatter is None for m in serial)
    assert [m.diagnostics for m in pooled] == [m.diagnostics for m in serial]
    assert any(not m.valid for m in pooled)
    assert mode == "strict" or any(m.valid for m in pooled)
    assert any(d.code == "SK215" for m in pooled for d in m.diagnostics)


def test_pool_only_for_large_scans() -> None:
    assert _pool.pool_workers(_pool.POOL_THRESHOLD - 1) == 0
    assert _pool.pool_workers(10) == 0


def test_hosts_can_turn_workers_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLDECK_WORKERS", "0")
    assert _pool.pool_workers(_pool.POOL_THRESHOLD * 10) == 0
    monkeypatch.setenv("SKILLDECK_WORKERS", "1")
    assert _pool.pool_workers(_pool.POOL_THRESHOLD * 10) == 0  # one worker is no pool


def test_workers_do_not_repeat_unflushed_output(tmp_path: Path) -> None:
    import subprocess
    import sys

    _tree(tmp_path / "skills")
    code = (
        "import sys\n"
        "from skilldeck.catalog import _pool\n"
        "sys.stdout.write('HEADER\\n')\n"
        f"items = [({str(tmp_path / 'skills' / 'ok' / 'SKILL.md')!r}, 'ok', None)] * 8\n"
        "records = _pool.parse_records(items, 'lenient', 2)\n"
        "print(records[0][0][0], records[0][1], len(records))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout == "HEADER\nok None 8\n"


def test_large_cold_scan_in_workers_matches_in_process(tmp_path: Path) -> None:
    """A real catalog over 2,000+ skills (workers) lists what in-process parsing lists."""
    import json
    import subprocess
    import sys

    root = tmp_path / "many"
    kinds = list(SKILLS.items())
    for i in range(_pool.POOL_THRESHOLD + 10):
        base, text = kinds[i % len(kinds)]
        folder = root / f"{base}-{i:05d}"
        folder.mkdir(parents=True)
        text = text.replace(f"name: {base}\n", f"name: {base}-{i:05d}\n")
        text = text.replace("Bad_Name", f"Bad_Name{i}")  # distinct: no copies collapse
        (folder / "SKILL.md").write_bytes(text.encode("utf-8", "surrogateescape"))
    code = (
        "import json, sys\n"
        "from skilldeck import Catalog\n"
        "from skilldeck.catalog import _pool\n"
        "if sys.argv[2] == 'serial':\n"
        "    _pool.POOL_THRESHOLD = 10**9\n"
        "cat = Catalog.from_roots([sys.argv[1]], cache=False)\n"
        "entries = cat.entries()\n"
        "(store,) = [s for _src, _root, s in cat._stores]\n"
        "used = store.workers_used\n"
        "rows = [[e.name, e.status.value, e.metadata.description, e.metadata.tags,\n"
        "         [[d.code, d.message, d.path, d.line] for d in e.diagnostics]]\n"
        "        for e in cat.entries()]\n"
        "print(json.dumps({'workers': used, 'rows': rows}))\n"
    )
    out = {}
    for how in ("pooled", "serial"):
        run = subprocess.run(
            [sys.executable, "-c", code, str(root), how],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        out[how] = json.loads(run.stdout)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if cores < 2 or sys.platform == "darwin":
        pytest.skip("worker processes need two cores and fork() (not on macOS)")
    assert out["pooled"]["workers"] >= 2  # the worker processes really parsed the files
    assert out["serial"]["workers"] == 0
    assert len(out["pooled"]["rows"]) == _pool.POOL_THRESHOLD + 10
    assert out["pooled"]["rows"] == out["serial"]["rows"]
    statuses = {row[1] for row in out["pooled"]["rows"]}
    assert {"enabled", "invalid"} <= statuses


def test_a_failing_worker_falls_back_to_none(tmp_path: Path) -> None:
    """A child that cannot parse its share makes the caller parse everything itself."""
    _tree(tmp_path / "skills")
    good = (str(tmp_path / "skills" / "ok" / "SKILL.md"), str(tmp_path / "skills" / "ok"), None)
    bad: Any = (None, "nowhere", None)  # the child's share: parse_record raises TypeError
    assert _pool.parse_records([good, good, good, bad], "lenient", 2) is None
    records = _pool.parse_records([good] * 4, "lenient", 2)
    assert records is not None and [r[0][0] for r in records] == ["ok"] * 4


def test_a_small_cold_scan_imports_no_msgspec(tmp_path: Path) -> None:
    """Parsing a few files in this process needs no MessagePack: msgspec (and the
    typing machinery it imports) is the workers' alone, and a diagnostic's packing."""
    import subprocess
    import sys

    root = tmp_path / "skills"
    (root / "ok").mkdir(parents=True)
    (root / "ok" / "SKILL.md").write_text(SKILLS["ok"], encoding="utf-8")
    code = (
        "import sys\n"
        "from skilldeck import Catalog\n"
        f"catalog = Catalog.from_roots([{str(root)!r}], cache={str(tmp_path / 'cache')!r})\n"
        "print([m.name for m in catalog.list()], 'skilldeck.catalog._pool' in sys.modules,"
        " 'msgspec' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split() == ["['ok']", "True", "False"]  # parsed by the pool's code
