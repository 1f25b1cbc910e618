"""One name rule, one text/binary check, one MIME table and one JSON conversion,
asked the same way by every front end."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import skilldeck
from skilldeck import json_safe
from skilldeck.cli import main
from skilldeck.disclosure import is_text, mime_type, read_skill_file
from skilldeck.format import is_skill_name


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("pdf-tools", True),
        ("a", True),
        ("a" * 64, True),
        ("a" * 65, False),
        ("", False),
        ("Pdf", False),
        ("pdf--tools", False),
        ("-pdf", False),
        ("pdf\n", False),  # a "$" regex matched before a final newline
    ],
)
def test_the_name_rule(name: str, ok: bool) -> None:
    assert is_skill_name(name) is ok
    if ok:
        skilldeck.InlineSkill(name=name, description="d. Use for tests.", title="T", template="x")
    else:
        with pytest.raises(skilldeck.SkillValidationError):
            skilldeck.InlineSkill(
                name=name, description="d. Use for tests.", title="T", template="x"
            )


def test_text_mime_of_one_file_is_the_same_for_read_and_mcp(tmp_path: Path) -> None:
    folder = tmp_path / "r" / "ts"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: ts\ndescription: TypeScript. Use it.\n---\nx\n")
    (folder / "scripts" / "run.ts").write_text("console.log(1)\n")
    (folder / "scripts" / "nul.txt").write_bytes(b"a" * 9000 + b"\x00")
    catalog = skilldeck.Catalog.from_roots([tmp_path / "r"], cache=False)
    got = read_skill_file(catalog, "ts", "scripts/run.ts")
    assert got.mime == mime_type("scripts/run.ts", text=True) == "text/typescript"
    result = CliRunner().invoke(
        main, ["read", "ts", "scripts/run.ts", "--root", str(tmp_path / "r"), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    assert "text/typescript" in result.output
    # a NUL past the first 8 KiB makes the file binary everywhere (it used to be text here)
    late_nul = read_skill_file(catalog, "ts", "scripts/nul.txt")
    assert late_nul.encoding == "base64"
    assert not is_text((folder / "scripts" / "nul.txt").read_bytes())


class _Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass(frozen=True)
class _Result:
    names: tuple[str, ...]
    at: dt.datetime

    @property
    def count(self) -> int:
        return len(self.names)


def test_json_safe_gives_one_json_form() -> None:
    value = {
        1: _Result(("a", "b"), dt.datetime(2026, 1, 2, 3, 4, 5)),
        "p": Path("/x/y"),
        "c": _Colour.RED,
        "d": dt.date(2026, 1, 2),
        "s": frozenset({"z"}),
        "o": object,
    }
    out = json_safe(value)
    assert json.loads(json.dumps(out)) == out
    assert out["1"] == {"names": ["a", "b"], "at": "2026-01-02T03:04:05", "count": 2}
    assert (out["p"], out["c"], out["d"], out["s"]) == ("/x/y", "red", "2026-01-02", ["z"])
    assert out["o"] == str(object)
