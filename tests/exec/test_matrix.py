"""Execution where users run it: the command line, default settings, every kind of machine.

One cell per {bubblewrap, no bubblewrap (config pointing at a missing bwrap)} x
{Python in a virtual environment inside a 0700 home folder (when run as root here,
its base interpreter also sits under root's 0700 home), the system's
/usr/bin/python3}. CI runs this file as root (the whole suite) and again as an
unprivileged user (``.ci/run``). In every cell:

- the bundled ``csv-profile`` reads a CSV of the current folder by relative and by
  absolute path;
- seed 003's git example runs ``git status --short --branch`` inside a repository
  (from a subfolder: the working folder is the repository root);
- a declared ``python3 -c`` command runs, with the Python first on ``PATH``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import skilldeck

SEED = Path(__file__).parent / "fixtures" / "seed003"
MISSING_BWRAP = "/nonexistent/skilldeck-test/bwrap"
PYC = """---
name: pyc
description: Print the Python prefix. Use in tests.
---

### py_prefix

Print where Python lives.

#### Parameters

None.

#### Command

```bash
python3 -c "import sys; print(sys.prefix)"
```
"""


@dataclass(frozen=True)
class Python:
    kind: str
    bin_dir: Path
    prefix: str


@pytest.fixture(scope="module")
def pythons() -> Iterator[dict[str, Python]]:
    """The two interpreters of the matrix (a venv in a 0700 home; the system's)."""
    found: dict[str, Python] = {}
    home = Path(tempfile.mkdtemp(prefix="skilldeck-pyhome-"))  # mkdtemp: mode 0700
    base = getattr(sys, "_base_executable", sys.executable)
    venv = home / ".venv"
    made = subprocess.run(
        [base, "-m", "venv", "--without-pip", str(venv)], capture_output=True, check=False
    )
    if made.returncode == 0:
        found["home-venv"] = Python("home-venv", venv / "bin", str(venv))
    system = Path("/usr/bin/python3")
    if system.exists():
        prefix = subprocess.run(
            [str(system), "-c", "import sys; print(sys.prefix)"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        found["system"] = Python(
            "system", Path(tempfile.mkdtemp(prefix="skilldeck-sysbin-")), prefix
        )
        (found["system"].bin_dir / "python3").symlink_to(system)
        found["system"].bin_dir.chmod(0o755)
    yield found
    shutil.rmtree(home, ignore_errors=True)
    if "system" in found:
        shutil.rmtree(found["system"].bin_dir, ignore_errors=True)


def _bwrap_usable() -> bool:
    return skilldeck.probe_sandbox().available


@pytest.fixture(params=["bwrap", "no-bwrap"])
def sandbox(request: pytest.FixtureRequest) -> str:
    if request.param == "bwrap" and not _bwrap_usable():
        pytest.skip("bubblewrap is not installed or not usable by this user here")
    return str(request.param)


@pytest.fixture(params=["home-venv", "system"])
def python(request: pytest.FixtureRequest, pythons: dict[str, Python]) -> Python:
    if request.param not in pythons:
        pytest.skip(f"no {request.param} Python on this machine")
    return pythons[str(request.param)]


@pytest.fixture
def cell(sandbox: str, python: Python, hermetic_env: Path) -> dict[str, str]:
    """The environment of one cell: config file, PATH with the cell's Python first."""
    home = Path(os.environ["SKILLDECK_HOME"])
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    lines = ["[execution]"]
    if sandbox == "no-bwrap":
        lines.append(f'bwrap = "{MISSING_BWRAP}"')
    python_exe = python.bin_dir / "python3"
    lines += ["", "[execution.interpreters]", f'python = "{python_exe}"']
    config.write_text("\n".join(lines) + "\n")
    env = dict(os.environ)
    env["PATH"] = f"{python.bin_dir}{os.pathsep}{env.get('PATH', os.defpath)}"
    return env


def skilldeck_cli(*args: str, cwd: Path, env: dict[str, str]) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "skilldeck", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    try:
        envelope = json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"not JSON: {done.stdout!r} {done.stderr!r}") from None
    assert envelope.get("ok"), (envelope, done.stderr)
    data = envelope["data"]
    assert isinstance(data, dict)
    return data


def _check_isolation(result: dict[str, object], sandbox: str) -> None:
    iso = result["isolation"]
    assert isinstance(iso, dict)
    if sandbox == "bwrap":
        assert iso["sandbox"] == "bubblewrap"
    else:
        assert iso["sandbox"] == "none" and MISSING_BWRAP in str(iso["fallback"])
        assert "apt-get install bubblewrap" in str(iso["fallback"])
    if os.geteuid() == 0:
        # never root's powers: nobody, or root without capabilities (and why)
        assert iso["capabilities"] == "dropped"
        assert iso["user"].startswith("65534") or iso["user_reason"]  # type: ignore[union-attr]


def test_csv_profile_reads_the_current_folder(
    cell: dict[str, str], sandbox: str, tmp_path: Path
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "people.csv").write_text("name,age\nada,36\ngrace,45\n")
    for arg in ("people.csv", str(folder / "people.csv")):
        result = skilldeck_cli(
            "run", "csv-profile", "profile_csv.py", "--json", "--", arg, cwd=folder, env=cell
        )
        assert result["success"], result
        profile = result["parsed"]
        assert isinstance(profile, dict)
        assert profile["rows"] == 2 and profile["file"] == arg
        assert [c["name"] for c in profile["columns"]] == ["name", "age"]
        _check_isolation(result, sandbox)


def _skills_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    shutil.copytree(SEED / "git", root / "git")
    (root / "pyc").mkdir()
    (root / "pyc" / "SKILL.md").write_text(PYC)
    return root


def test_seed_git_example_runs_in_the_repository(
    cell: dict[str, str], sandbox: str, tmp_path: Path
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = _skills_root(tmp_path)
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("hello\n")
    skilldeck_cli("approve", "git", "--json", "--root", str(root), cwd=repo / "sub", env=cell)
    result = skilldeck_cli(
        "run", "git", "git_status", "--json", "--root", str(root), cwd=repo / "sub", env=cell
    )
    assert result["success"], result
    output = str(result["output"])
    assert output.startswith("## ") and "?? new.txt" in output, output
    iso = result["isolation"]
    assert isinstance(iso, dict) and iso["workdir"] == str(repo.resolve())
    _check_isolation(result, sandbox)


def test_declared_python3_command_runs(
    cell: dict[str, str], sandbox: str, python: Python, tmp_path: Path
) -> None:
    root = _skills_root(tmp_path)
    skilldeck_cli("approve", "pyc", "--json", "--root", str(root), cwd=tmp_path, env=cell)
    result = skilldeck_cli(
        "run", "pyc", "py_prefix", "--json", "--root", str(root), cwd=tmp_path, env=cell
    )
    assert result["success"], result
    assert os.path.realpath(str(result["output"]).strip()) == os.path.realpath(python.prefix)
    _check_isolation(result, sandbox)
