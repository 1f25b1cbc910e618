"""`skilldeck list` says when a root cannot be used (stdout stays clean)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from skilldeck.cli import main


def test_list_reports_a_root_that_is_a_file_on_stderr(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file.txt"
    not_a_folder.write_text("x")
    result = CliRunner().invoke(main, ["list", "--root", str(not_a_folder), "--format", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"ok": True, "data": {"skills": []}}
    assert "SK501" in result.stderr and "is not a folder" in result.stderr
