"""Scripts that declare their Python packages run with them, after approval, offline."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from skilldeck.cli import main
from skilldeck.execution import install_packages

from .conftest import needs_bwrap

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("uv") is None and shutil.which("uv") is None,
    reason="uv is not installed (the packages extra installs it)",
)

EXTRACT = """\
import json, sys
from pypdf import PdfWriter, PdfReader
import io
w = PdfWriter(); w.add_blank_page(width=72, height=72)
buf = io.BytesIO(); w.write(buf)
print(json.dumps({"pages": len(PdfReader(io.BytesIO(buf.getvalue())).pages)}))
"""

INLINE = """\
# /// script
# requires-python = ">=3.10"
# dependencies = [
#   "pypdf>=4",
# ]
# ///
import json
import re
import shlex
import pypdf
print(json.dumps({"inline": pypdf.__name__}))
"""

UNDECLARED = "import pypdf\nprint('never')\n"


@pytest.fixture(scope="module")
def module_dir() -> Iterator[Path]:
    """For the module: uv's download cache (the package is fetched once) and skilldeck's
    cache, whose sibling ``cache-envs`` holds the environments; all removed at the end."""
    path = Path(tempfile.mkdtemp(prefix="skilldeck-packages-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def package_index(module_dir: Path) -> None:
    """Skip when no package index is reachable from this environment (a user without
    the network settings of the machine's owner): uv itself resolves the package the
    tests install, with the settings the tests run under. Where an index answers, the
    tests run and their failures are real."""
    if importlib.util.find_spec("uv") is not None:
        from uv import find_uv_bin

        uv = str(find_uv_bin())
    else:
        uv = shutil.which("uv") or "uv"
    env = {**os.environ, "UV_CACHE_DIR": str(module_dir / "uv")}
    try:
        done = subprocess.run(
            [uv, "pip", "compile", "--quiet", "--no-header", "-"],
            input="pypdf>=4\n",
            capture_output=True,
            text=True,
            env=env,
            cwd=module_dir,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        pytest.skip("no package index answered in 120 s")
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["no output"]
        why = next((line for line in lines if "error" in line), lines[-1])
        pytest.skip(f"no package index is reachable: {why}")


@pytest.fixture
def pdf_root(world: Path, module_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A skill laid out like a PDF skill: SKILL.md, scripts/, scripts/requirements.txt."""
    monkeypatch.setenv("UV_CACHE_DIR", str(module_dir / "uv"))
    monkeypatch.setenv("SKILLDECK_CACHE_DIR", str(module_dir / "cache"))
    envs = module_dir / "cache-envs"
    if envs.exists():
        shutil.rmtree(envs)  # each test starts with nothing installed
    root = world / "skills"
    skill = root / "pdf"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: Work with PDF files. Use when the user has a PDF.\n---\n\n"
        "Run `scripts/extract.py`, `scripts/inline.py` or `scripts/undeclared.py`.\n"
    )
    (skill / "scripts" / "extract.py").write_text(EXTRACT)
    (skill / "scripts" / "requirements.txt").write_text("# for extract.py\npypdf>=4\n")
    (skill / "scripts" / "inline.py").write_text(INLINE)
    other = root / "plain"
    (other / "scripts").mkdir(parents=True)
    (other / "SKILL.md").write_text(
        "---\nname: plain\ndescription: Uses pypdf without saying so. Use for tests.\n---\n\n"
        "Run `scripts/undeclared.py`.\n"
    )
    (other / "scripts" / "undeclared.py").write_text(UNDECLARED)
    for dirpath, _, files in os.walk(world):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(os.path.join(dirpath, f), 0o644)
    return root


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _sandbox_args(mode: str) -> list[str]:
    return ["--sandbox", "none"] if mode == "none" else ["--sandbox", "strict"]


@pytest.mark.usefixtures("package_index")
@pytest.mark.parametrize("mode", ["none", pytest.param("bwrap", marks=needs_bwrap)])
def test_declared_packages_are_installed_on_approve_and_used_offline(
    pdf_root: Path, mode: str
) -> None:
    root = str(pdf_root)
    # before the packages are installed, a run is refused with the command that installs
    # them (a run never installs)
    code, _out, err = invoke("run", "pdf", "extract.py", "--root", root, *_sandbox_args(mode))
    assert code != 0
    assert (
        f"skilldeck packages pdf --root {root}" in err
        or f"skilldeck approve pdf --root {root}" in err
    )
    code, out, err = invoke("approve", "pdf", "--root", root)
    assert code == 0, err
    assert "installing pypdf>=4 for pdf" in err
    code, out, err = invoke("run", "pdf", "extract.py", "--root", root, *_sandbox_args(mode))
    assert code == 0, out + err
    assert json.loads(out) == {"pages": 1}
    code, out, err = invoke("run", "pdf", "inline.py", "--root", root, *_sandbox_args(mode))
    assert code == 0, out + err
    assert json.loads(out) == {"inline": "pypdf"}


@pytest.mark.usefixtures("package_index")
def test_a_missing_environment_is_a_coded_error_whose_hint_works(pdf_root: Path) -> None:
    root = str(pdf_root)
    invoke("approve", "pdf", "--root", root)
    envs = list(Path(os.environ["SKILLDECK_CACHE_DIR"] + "-envs").iterdir())
    assert envs
    for env in envs:
        shutil.rmtree(env)
    code, out, err = invoke("run", "pdf", "extract.py", "--root", root, "--json")
    data = json.loads(out)
    assert code != 0 and data["ok"] is False
    assert data["error"]["code"] == "SCRIPT_FAILED"
    assert data["error"]["reason"] == "packages_missing"
    hint = data["error"]["hint"]
    assert "skilldeck packages pdf" in hint
    # the command in the hint, pasted (with the same --root), makes the run work
    code, out, err = invoke("packages", "pdf", "--root", root)
    assert code == 0 and "pypdf>=4" in out, out + err
    code, out, err = invoke("run", "pdf", "extract.py", "--root", root)
    assert code == 0 and json.loads(out) == {"pages": 1}, out + err


def test_an_undeclared_package_says_how_to_declare_it(pdf_root: Path) -> None:
    root = str(pdf_root)
    invoke("approve", "plain", "--root", root)
    code, out, err = invoke("run", "plain", "undeclared.py", "--root", root)
    assert code != 0 and "No module named 'pypdf'" in out
    assert "uv add --script scripts/undeclared.py pypdf" in err
    assert "skilldeck packages plain" in err


@pytest.mark.parametrize(
    "line",
    [
        "--index-url https://evil.example/simple",
        "pypdf @ https://evil.example/p.whl",
        "-e .",
        # uv reads these as files in the current folder, and would build the archive
        "evil-1.0.tar.gz",
        "x-1.0-py3-none-any.whl",
        "foo.zip",
        "Evil.TGZ ; python_version >= '3'",
    ],
)
def test_a_skill_cannot_choose_where_packages_come_from(pdf_root: Path, line: str) -> None:
    (pdf_root / "pdf" / "scripts" / "requirements.txt").write_text(f"{line}\n")
    with pytest.raises(Exception) as info:
        install_packages("pdf", pdf_root / "pdf")
    error = info.value
    assert getattr(error, "code", None) == "SCRIPT_FAILED"
    assert error.to_dict()["reason"] == "packages_invalid"  # type: ignore[attr-defined]
    assert not Path(os.environ["SKILLDECK_CACHE_DIR"] + "-envs").exists() or not any(
        p
        for p in Path(os.environ["SKILLDECK_CACHE_DIR"] + "-envs").iterdir()
        if not p.name.startswith(".")
    )


@pytest.mark.usefixtures("package_index")
def test_the_folder_the_user_is_in_does_not_choose_the_package_index(
    pdf_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """uv reads a project's configuration from the current folder up: a cloned
    repository's uv.toml named the index every package came from."""
    repo = tmp_path / "cloned"
    repo.mkdir()
    (repo / "uv.toml").write_text('index-url = "http://127.0.0.1:9/simple"\n')
    monkeypatch.chdir(repo)
    built = install_packages("pdf", pdf_root / "pdf")
    assert built and all(python.is_file() for _, python in built)


@pytest.mark.usefixtures("package_index")
def test_doctor_shows_declared_packages_and_the_command_that_installs_them(
    pdf_root: Path,
) -> None:
    root = str(pdf_root)
    _code, out, _ = invoke("doctor", "--root", root)
    assert "python packages (uv: " in out
    assert "✗ pdf: scripts/requirements.txt: pypdf>=4" in out
    assert "hint: skilldeck packages pdf" in out and "packages: 2 not installed" in out
    invoke("packages", "pdf", "--root", root)
    _code, out, _ = invoke("doctor", "--root", root, "--format", "json")
    doc = json.loads(out)
    rows = doc.get("data", doc)["packages"]["skills"]
    assert {(r["origin"], r["installed"]) for r in rows} == {
        ("scripts/requirements.txt", True),
        ("scripts/inline.py", True),
    }


@pytest.mark.usefixtures("package_index")
def test_no_run_sees_the_shared_environments_writable(pdf_root: Path, module_dir: Path) -> None:
    """Runs share the environments: a writable view of them could poison the next run."""
    root = str(pdf_root)
    invoke("approve", "pdf", "--root", root)
    envs = module_dir / "cache-envs"
    assert any(envs.iterdir())
    code, out, err = invoke(
        "run", "pdf", "extract.py", "--root", root, "--mount", f"{envs}:rw", "--json"
    )
    data = json.loads(out)
    assert code != 0 and data["error"]["code"] == "PATH_NOT_ALLOWED", out + err
    assert "read-only" in data["error"]["message"]
    # read-only is fine
    code, out, err = invoke("run", "pdf", "extract.py", "--root", root, "--mount", f"{envs}:ro")
    assert code == 0, out + err


def test_an_environment_others_can_write_is_not_used(pdf_root: Path, module_dir: Path) -> None:
    root = str(pdf_root)
    invoke("approve", "pdf", "--root", root)
    for env in (module_dir / "cache-envs").iterdir():
        env.chmod(0o777)
    code, out, err = invoke("run", "pdf", "extract.py", "--root", root, "--json")
    assert code != 0 and json.loads(out)["error"]["reason"] == "packages_missing", out + err


@pytest.mark.usefixtures("package_index")
def test_install_prints_the_command_that_builds_the_packages_and_it_works(
    pdf_root: Path, module_dir: Path
) -> None:
    """An install copies files and never runs a package resolver on what a repository
    asks for: it names the packages and the command that builds them; pasted, that
    command builds them and the installed skill's script runs."""
    envs = module_dir / "cache-envs"
    code, out, err = invoke("install", str(pdf_root / "pdf"), "--yes")
    assert code == 0, err
    assert "Python packages: scripts/requirements.txt: pypdf>=4" in out
    assert "Python packages: scripts/inline.py: pypdf>=4" in out
    assert not envs.exists() or not any(p for p in envs.iterdir() if not p.name.startswith("."))
    (command,) = {c for c in re.findall(r"`([^`]+)`", out) if c.startswith("skilldeck approve")}
    assert command == "skilldeck approve pdf"
    code, _out, err = invoke(*shlex.split(command)[1:])
    assert code == 0 and "installing pypdf>=4 for pdf" in err, err
    code, out, err = invoke("run", "pdf", "extract.py")
    assert code == 0 and json.loads(out) == {"pages": 1}, out + err


@pytest.mark.usefixtures("package_index")
def test_install_with_packages_builds_them(pdf_root: Path) -> None:
    code, out, err = invoke("install", str(pdf_root / "pdf"), "--yes", "--packages", "--json")
    assert code == 0, err
    data = json.loads(out)["data"]
    (skill,) = data["skills"]
    assert sorted(skill["packages"]) == [
        "scripts/inline.py: pypdf>=4",
        "scripts/requirements.txt: pypdf>=4",
    ]
    assert {e["origin"] for e in data["environments"]["pdf"]} == {
        "scripts/requirements.txt",
        "scripts/inline.py",
    }
    invoke("approve", "pdf")
    code, out, err = invoke("run", "pdf", "inline.py")
    assert code == 0 and json.loads(out) == {"inline": "pypdf"}, out + err


def test_package_lists_are_read_as_every_file_of_a_skill_is(tmp_path: Path) -> None:
    from skilldeck.execution import skill_package_sets

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "requirements.txt").write_text("evil-package==6.6.6\n")
    skill = tmp_path / "linked"
    (skill / "scripts").mkdir(parents=True)
    (skill / "deps").mkdir()
    (skill / "SKILL.md").write_text("---\nname: linked\ndescription: d\n---\n")
    (skill / "scripts" / "tool.py").write_text("print('hi')\n")
    (skill / "deps" / "list.txt").write_text("pypdf==5.1.0\n")
    (skill / "requirements.txt").symlink_to(outside / "requirements.txt")  # leaves the skill
    assert skill_package_sets("linked", skill) == []
    (skill / "requirements.txt").unlink()
    (skill / "requirements.txt").symlink_to("deps/list.txt")  # stays inside: followed
    assert [s.requirements for s in skill_package_sets("linked", skill)] == [("pypdf==5.1.0",)]
