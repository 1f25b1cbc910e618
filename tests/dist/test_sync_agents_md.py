"""``skilldeck sync --agents-md``: the skill list in skilldeck's own block of AGENTS.md."""

from __future__ import annotations

import os
from pathlib import Path

from tests.dist._helpers import make_skill, run_cli


def test_the_block_is_added_then_replaced_and_the_rest_is_kept(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    agents_md = project / "AGENTS.md"
    agents_md.write_text("# Project\n\nOur rules.\n")
    make_skill(project / ".agents" / "skills" / "first-skill", "first-skill")

    res = run_cli("sync", "--agents-md", cwd=project)
    assert res.code == 0, res.err
    text = agents_md.read_text()
    assert text.startswith("# Project\n\nOur rules.\n\n<!-- skilldeck:skills:start -->")
    assert "<name>first-skill</name>" in text and "skilldeck load NAME" in text

    agents_md.write_text(text + "\n## After\n\nMore rules.\n")
    make_skill(project / ".agents" / "skills" / "second-skill", "second-skill")
    res = run_cli("sync", "--agents-md", "AGENTS.md", "--json", cwd=project)
    assert res.code == 0, res.err
    assert res.json()["data"]["changed"] is True
    text = agents_md.read_text()
    assert text.count("<!-- skilldeck:skills:start -->") == 1
    assert "<name>second-skill</name>" in text
    assert text.startswith("# Project\n\nOur rules.\n\n")
    assert text.endswith("<!-- skilldeck:skills:end -->\n\n## After\n\nMore rules.\n")

    again = run_cli("sync", "--agents-md", cwd=project)
    assert again.code == 0 and "already up to date" in again.out


def test_a_damaged_block_is_refused_and_the_file_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "NOTES.md"
    original = "intro\n<!-- skilldeck:skills:start -->\nhalf a block\n"
    target.write_text(original)
    res = run_cli("sync", "--agents-md", str(target), cwd=tmp_path)
    assert res.code == 1 and "damaged" in res.err and "Traceback" not in res.err
    assert target.read_text() == original


def test_a_link_is_not_written_through(tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("keep\n")
    (tmp_path / "AGENTS.md").symlink_to(secret)
    res = run_cli("sync", "--agents-md", cwd=tmp_path)
    assert res.code == 1 and "not a regular file" in res.err
    assert secret.read_text() == "keep\n"


def test_sync_without_a_target_is_a_usage_error(tmp_path: Path) -> None:
    assert run_cli("sync", cwd=tmp_path).code == 2


def test_root_folders_keep_the_skills_the_user_disabled_out(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root / "kept-skill", "kept-skill")
    make_skill(root / "off-skill", "off-skill")
    config = Path(os.environ["SKILLDECK_HOME"]) / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[catalog]\ndisabled = ["off-skill"]\n')
    target = tmp_path / "AGENTS.md"
    res = run_cli("sync", "--agents-md", str(target), "--root", str(root), cwd=tmp_path)
    assert res.code == 0, res.err
    text = target.read_text()
    assert "<name>kept-skill</name>" in text and "off-skill" not in text


def test_the_file_keeps_its_permissions_and_a_read_only_one_is_refused(tmp_path: Path) -> None:
    make_skill(tmp_path / "skills" / "one-skill", "one-skill")
    private = tmp_path / "AGENTS.md"
    private.write_text("# Mine\n")
    private.chmod(0o600)
    res = run_cli("sync", "--agents-md", str(private), "--root", "skills", cwd=tmp_path)
    assert res.code == 0, res.err
    assert private.stat().st_mode & 0o777 == 0o600  # it was rewritten 0644: readable by all
    frozen = tmp_path / "FROZEN.md"
    frozen.write_text("do not touch\n")
    frozen.chmod(0o444)
    res = run_cli("sync", "--agents-md", "FROZEN.md", "--root", "skills", "--json", cwd=tmp_path)
    assert res.code == 1 and res.json()["error"]["code"] == "CONFIG_INVALID"
    hint = res.json()["error"]["hint"]
    assert hint == "make it writable (chmod u+w FROZEN.md) or give another file"
    assert frozen.read_text() == "do not touch\n" and frozen.stat().st_mode & 0o777 == 0o444


def test_a_target_that_cannot_be_a_file_is_a_coded_error(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("a file, not a folder\n")
    os.mkfifo(tmp_path / "pipe")
    for target in ("notes/AGENTS.md", "pipe"):
        res = run_cli("sync", "--agents-md", target, "--root", ".", "--json", cwd=tmp_path)
        assert res.code == 1, (target, res.out, res.err)  # an OSError escaped: exit 2, no JSON
        assert res.json()["error"]["code"] == "CONFIG_INVALID"
