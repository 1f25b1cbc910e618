"""The store's command line, run as real subprocesses against a real PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ._util import make_skill


def sk(
    *args: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "skilldeck", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_init_tenant_publish_list_load_read(empty_url: str, tmp_path: Path) -> None:
    from skilldeck.postgres import SCHEMA_VERSION

    migrated = sk("store", "init", "--store", empty_url).stdout
    assert f"migrated from schema version 0 to {SCHEMA_VERSION}" in migrated
    assert "nothing to do" in sk("store", "init", "--store", empty_url).stdout
    token = sk("tenant", "create", "acme", "--store", empty_url).stdout.strip()
    assert token.startswith("sdk_") and len(token) > 40
    again = sk("tenant", "create", "acme", "--store", empty_url, check=False)
    assert again.returncode == 1 and "exists already" in again.stderr
    folder = make_skill(tmp_path, "csv-tools", files={"references/a.md": "alpha\n"})
    out = sk("publish", str(folder), "--store", empty_url, "--tenant", "acme", "--json").stdout
    published = json.loads(out)["data"]["published"][0]
    assert published["created"] and published["name"] == "csv-tools"
    env = {"SKILLDECK_STORE": empty_url, "SKILLDECK_TENANT": "acme"}
    listed = json.loads(sk("list", "--format", "json", env=env).stdout)["data"]
    names = [s["name"] for s in (listed["skills"] if isinstance(listed, dict) else listed)]
    assert names == ["csv-tools"]
    assert "Do the thing." in sk("load", "csv-tools", env=env).stdout
    assert sk("read", "csv-tools", "references/a.md", env=env).stdout == "alpha\n"
    # another tenant sees nothing of acme's
    sk("tenant", "create", "globex", "--store", empty_url)
    other = sk("load", "csv-tools", "--store", empty_url, "--tenant", "globex", check=False)
    assert other.returncode == 1 and "SKILL_NOT_FOUND" in other.stderr


def test_approvals_live_in_the_store(store_url: str, tmp_path: Path) -> None:
    sk("tenant", "create", "acme", "--store", store_url)
    folder = make_skill(tmp_path, "runner")
    sk("publish", str(folder), "--store", store_url, "--tenant", "acme")
    args = ["--store", store_url, "--tenant", "acme"]
    approved = json.loads(sk("approve", "runner", "--json", *args).stdout)["data"]
    from skilldeck.postgres import PostgresApprovalStore

    stored = PostgresApprovalStore(store_url, "acme").get("runner")
    assert stored is not None and stored.digest == approved["digest"]
    assert PostgresApprovalStore(store_url, "globex-none").list() == []
    assert "runner" in sk("approvals", *args).stdout
    assert sk("revoke", "runner", *args).returncode == 0
    assert PostgresApprovalStore(store_url, "acme").get("runner") is None


def test_bad_store_inputs_are_coded_errors(store_url: str, tmp_path: Path) -> None:
    bad = sk("list", "--store", store_url, check=False)
    assert bad.returncode == 2 and "--tenant" in bad.stderr
    both = sk("list", "--store", store_url, "--tenant", "a", "--root", str(tmp_path), check=False)
    assert both.returncode == 2 and "not both" in both.stderr
    wrong = sk("tenant", "create", "Bad Name", "--store", store_url, check=False)
    assert wrong.returncode == 1 and "INVALID_ARGUMENTS" in wrong.stderr
    gone = sk("store", "init", "--store", f"postgresql:///x?host={tmp_path}", check=False)
    assert gone.returncode == 1 and "cannot" in gone.stderr and "Traceback" not in gone.stderr
    notdir = sk(
        "publish", str(tmp_path / "nope"), "--store", store_url, "--tenant", "x", check=False
    )
    assert notdir.returncode == 1 and "Traceback" not in notdir.stderr


def test_verify_checks_the_stored_bytes(store_url: str, tmp_path: Path) -> None:
    from skilldeck.postgres import Database

    sk("tenant", "create", "acme", "--store", store_url)
    for name in ("good", "bad"):
        sk("publish", str(make_skill(tmp_path, name)), "--store", store_url, "--tenant", "acme")
    args = ["--store", store_url, "--tenant", "acme"]
    assert "ok       bad" in sk("verify", *args).stdout
    db = Database(store_url)
    with db.admin() as conn:  # damage one blob behind skilldeck's back
        conn.execute(
            "UPDATE skilldeck_blobs SET data = 'x' WHERE digest = (SELECT f.digest FROM "
            "skilldeck_version_files f JOIN skilldeck_versions v ON v.id = f.version_id "
            "WHERE v.name = 'bad' AND f.relpath = 'SKILL.md')"
        )
    db.close()
    damaged = sk("verify", "--json", *args, check=False)
    assert damaged.returncode == 1
    report = {s["name"]: s for s in json.loads(damaged.stdout)["data"]["skills"]}
    assert report["good"]["ok"] and not report["bad"]["ok"]
    assert "do not match" in report["bad"]["problem"]
    missing = sk("verify", "nope", *args, check=False)
    assert missing.returncode == 1 and "no such skill" in missing.stdout


def test_run_a_stored_skill(store_url: str, tmp_path: Path) -> None:
    from skilldeck.postgres import PostgresApprovalStore, PostgresStore

    sk("tenant", "create", "acme", "--store", store_url)
    folder = make_skill(tmp_path, "runner", files={"scripts/hi.py": "print('hi from the store')\n"})
    sk("publish", str(folder), "--store", store_url, "--tenant", "acme")
    args = ["--store", store_url, "--tenant", "acme"]
    refused = sk("run", "runner", "scripts/hi.py", *args, check=False)
    assert refused.returncode == 1 and "APPROVAL_REQUIRED" in refused.stderr
    ran = sk("run", "runner", "scripts/hi.py", "--yes", *args)
    assert "hi from the store" in ran.stdout
    stored = PostgresApprovalStore(store_url, "acme").get("runner")
    assert stored is not None
    assert stored.digest == PostgresStore(store_url, "acme").version("runner").digest
    again = sk("run", "runner", "scripts/hi.py", *args)  # approved: no question
    assert "hi from the store" in again.stdout
    # the run copy is the version written from the store, decided on the version's digest
    data = json.loads(sk("run", "runner", "scripts/hi.py", "--json", *args).stdout)["data"]
    assert data["isolation"]["digest"] == stored.digest


def test_show_a_stored_skill(store_url: str, tmp_path: Path) -> None:
    sk("tenant", "create", "acme", "--store", store_url)
    folder = make_skill(tmp_path, "shown", files={"references/x.md": "x\n"})
    sk("publish", str(folder), "--store", store_url, "--tenant", "acme")
    args = ["--store", store_url, "--tenant", "acme"]
    data = json.loads(sk("show", "shown", "--format", "json", *args).stdout)["data"]
    assert data["manifest"]["name"] == "shown" and data["files"] == ["references/x.md"]
    assert not Path(data["path"]).exists()  # the private copy is gone afterwards
    missing = sk("show", "nope", *args, check=False)
    assert missing.returncode == 1 and "SKILL_NOT_FOUND" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_store_from_the_user_config_only(store_url: str, tmp_path: Path) -> None:
    import skilldeck

    sk("tenant", "create", "acme", "--store", store_url)
    sk("publish", str(make_skill(tmp_path, "configured")), "--store", store_url, "--tenant", "acme")
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / ".skilldeck").mkdir()
    (project / ".skilldeck" / "config.toml").write_text(
        f'[store]\nurl = "{store_url}"\ntenant = "acme"\n'
    )
    listed = subprocess.run(
        [sys.executable, "-m", "skilldeck", "list"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "configured" not in listed.stdout  # a project file cannot choose the store
    user = Path(skilldeck.config.config_path("user"))
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(f'[store]\nurl = "{store_url}"\ntenant = "acme"\n')
    assert "configured" in sk("list").stdout
