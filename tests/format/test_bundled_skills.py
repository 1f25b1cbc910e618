"""The bundled example skills: strict-valid, lint-clean, scripts that work, shipped in the wheel."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import skilldeck

BUNDLED = Path(skilldeck.__file__).parent / "_bundled"
SKILLS = sorted(p for p in BUNDLED.iterdir() if (p / "SKILL.md").is_file())
REPO = Path(__file__).resolve().parents[2]


def test_there_are_bundled_skills_with_each_resource_kind() -> None:
    assert len(SKILLS) >= 3
    kinds = {sub.name for skill in SKILLS for sub in skill.iterdir() if sub.is_dir()}
    assert {"scripts", "references", "assets"} <= kinds


@pytest.mark.parametrize("folder", SKILLS, ids=lambda p: p.name)
def test_bundled_skill_is_strict_valid_and_lint_clean(folder: Path) -> None:
    assert skilldeck.validate_skill(folder, strict=True).diagnostics == ()
    report = skilldeck.lint_skill(folder)
    assert report.diagnostics == (), [d.format() for d in report.diagnostics]
    assert report.manifest is not None and report.manifest.license == "MIT"


@pytest.mark.parametrize(
    "script",
    # a byte-compiled tree (pip install, compileall) has __pycache__ folders beside them
    [s for skill in SKILLS for s in (skill / "scripts").glob("*") if s.is_file()],
    ids=lambda p: p.name,
)
def test_bundled_scripts_are_executable_python(script: Path) -> None:
    assert os.access(script, os.X_OK)
    assert script.read_text().startswith("#!/usr/bin/env python3\n")
    result = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and "usage" in result.stdout.lower()


def test_csv_profile_script(tmp_path: Path) -> None:
    data = tmp_path / "people.csv"
    with open(data, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "name", "age", "joined", "active"])
        writer.writerow([1, "Ann", 34, "2024-01-02", "yes"])
        writer.writerow([2, "Bob", "", "2023-05-06", "no"])
        writer.writerow([3, "Cy", 29.5, "2022-02-02", "yes"])
    script = BUNDLED / "csv-profile" / "scripts" / "profile_csv.py"
    out = subprocess.run(
        [str(script), str(data), "--top", "1"], capture_output=True, text=True, check=True
    )
    report = json.loads(out.stdout)
    assert report["rows"] == 3 and report["delimiter"] == ","
    columns = {c["name"]: c for c in report["columns"]}
    assert columns["id"]["type"] == "integer"
    assert (columns["id"]["min"], columns["id"]["max"]) == (1, 3)
    assert columns["age"]["type"] == "float" and columns["age"]["empty"] == 1
    assert columns["joined"]["type"] == "date" and columns["joined"]["max"] == "2024-01-02"
    assert columns["active"]["top"] == [["yes", 2]]
    missing = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "nope.csv")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 1 and "error" in json.loads(missing.stdout)


def test_regex_check_script() -> None:
    script = BUNDLED / "regex-check" / "scripts" / "try_regex.py"
    good = subprocess.run(
        [str(script), r"^(?P<y>\d{4})-\d{2}$", "--", "2024-01", "--reject", "24-01", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert good.returncode == 0
    result = json.loads(good.stdout)
    assert result["ok"] is True and result["group_count"] == 1
    assert result["cases"][0]["named_groups"] == {"y": "2024"}
    bad = subprocess.run(
        [str(script), r"\d+", "--", "abc"], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 1 and json.loads(bad.stdout)["ok"] is False
    broken = subprocess.run([str(script), "("], capture_output=True, text=True, check=False)
    assert broken.returncode == 1 and "error" in json.loads(broken.stdout)


def test_wheel_ships_the_bundled_skills_with_their_modes(tmp_path: Path) -> None:
    if importlib.util.find_spec("hatchling") is None:
        pytest.skip("hatchling is not installed")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--no-build-isolation",
         "-q", "-w", str(tmp_path)],
        check=True,
        capture_output=True,
        timeout=300,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("skilldeck-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        modes = {
            info.filename: info.external_attr >> 16
            for info in zf.infolist()
            if "/_bundled/" in info.filename
        }
    for skill in SKILLS:
        for path in skill.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                name = "skilldeck/_bundled/" + path.relative_to(BUNDLED).as_posix()
                assert name in modes, name
                assert bool(modes[name] & 0o111) == os.access(path, os.X_OK), name
