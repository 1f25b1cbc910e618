"""Replaced or removed content takes its script approval with it.

Distribution announces the retired content; the execution layer's approval store
subscribes and deletes an approval granted for exactly that digest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.dist._helpers import make_skill

import skilldeck


def _approve(name: str, digest: str) -> skilldeck.execution.FileApprovalStore:
    store = skilldeck.execution.FileApprovalStore()
    store.grant(name, digest, trust="user")
    return store


def test_update_deletes_the_approval_of_the_replaced_content(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "approved", body="one\n")
    old = skilldeck.dist.install(str(src)).skills[0].digest
    store = _approve("approved", old)
    make_skill(src, "approved", body="two\n")
    upd = skilldeck.dist.update(["approved"]).skills[0]
    assert upd.status == "updated" and upd.old_digest == old != upd.new_digest
    assert upd.approvals_revoked
    assert store.get("approved") is None


def test_an_approval_for_other_content_is_left_alone(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "elsewhere", body="one\n")
    skilldeck.dist.install(str(src))
    store = _approve("elsewhere", "sha256:" + "0" * 64)
    make_skill(src, "elsewhere", body="two\n")
    upd = skilldeck.dist.update(["elsewhere"]).skills[0]
    assert upd.status == "updated" and not upd.approvals_revoked
    kept = store.get("elsewhere")
    assert kept is not None and kept.digest == "sha256:" + "0" * 64
    skilldeck.dist.remove("elsewhere")
    assert store.get("elsewhere") is not None


def test_an_unchanged_update_keeps_the_approval(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "steady")
    digest = skilldeck.dist.install(str(src)).skills[0].digest
    store = _approve("steady", digest)
    upd = skilldeck.dist.update(["steady"]).skills[0]
    assert not upd.approvals_revoked
    assert store.get("steady") is not None


def test_remove_and_a_forced_reinstall_delete_the_approval(tmp_path: Path) -> None:
    src = make_skill(tmp_path / "src", "twice", body="one\n")
    first = skilldeck.dist.install(str(src)).skills[0].digest
    store = _approve("twice", first)
    make_skill(src, "twice", body="two\n")
    second = skilldeck.dist.install(str(src), force=True).skills[0]
    assert second.replaced and store.get("twice") is None
    _approve("twice", second.digest)
    skilldeck.dist.remove("twice")
    assert store.get("twice") is None


def test_the_public_dist_api_reaches_the_approval_store_in_a_fresh_process(
    tmp_path: Path,
) -> None:
    src = make_skill(tmp_path / "src", "fresh")
    digest = skilldeck.dist.install(str(src)).skills[0].digest
    store = _approve("fresh", digest)
    # only the distribution facade is imported: nothing else loads the execution layer
    code = "import skilldeck.dist\nskilldeck.dist.remove('fresh')\n"
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))
    assert json.loads(store.path.read_text())["approvals"] == {}
