"""TypeScript scripts (``.ts``, a ``bun`` or ``tsx`` shebang) run with a runner that is present."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tests.exec.conftest import MODES, MakeSkill, executor

import skilldeck
import skilldeck.execution

TS = (
    "const n: number = 41;\n"
    "console.log(JSON.stringify({ n: n + 1, args: process.argv.slice(2) }));\n"
)


def _npm_bin() -> Path | None:
    """The private npm prefix .ci/run installs tsx into, else one on PATH."""
    given = os.environ.get("SKILLDECK_TEST_NPM_BIN")
    if given and (Path(given) / "tsx").exists():
        return Path(given)
    found = shutil.which("tsx")
    return Path(found).parent if found else None


def test_without_a_runner_the_error_is_coded_and_says_what_to_install(
    make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    skill = make_skill(scripts={"hello.ts": TS})
    with pytest.raises(skilldeck.ScriptFailedError) as info:
        executor(sandbox="none").run_script(skill, "hello.ts", trust="bundled")
    error = info.value.to_dict()
    assert error["code"] == "SCRIPT_FAILED" and error["reason"] == "interpreter_missing"
    assert "npm install -g tsx" in error["hint"] and "typescript" in error["hint"]


def test_a_bun_shebang_is_a_known_kind_not_an_unsupported_one(
    make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    skill = make_skill(scripts={"run": "#!/usr/bin/env bun\n" + TS})
    with pytest.raises(skilldeck.ScriptFailedError, match="'bun' is not installed"):
        executor(sandbox="none").run_script(skill, "run", trust="bundled")


def test_typescript_is_a_configurable_interpreter_kind() -> None:
    config = skilldeck.ExecConfig(interpreters=(("typescript", "/opt/tsx"),))
    assert config.interpreter("typescript") == "/opt/tsx"
    with pytest.raises(skilldeck.ConfigError) as info:
        skilldeck.ExecConfig(interpreters=(("cobol", "/x"),))
    assert info.value.hint and "typescript" in info.value.hint


#: read at import: the hermetic fixture strips SKILLDECK_* variables from each test
NPM_BIN = _npm_bin()


@pytest.mark.skipif(NPM_BIN is None, reason="tsx is not installed (.ci/run installs it)")
@pytest.mark.parametrize("mode", MODES)
def test_a_ts_script_runs_with_tsx(
    make_skill: MakeSkill, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("PATH", f"{NPM_BIN}{os.pathsep}{os.environ['PATH']}")
    skill = make_skill(scripts={"hello.ts": TS})
    # tsx compiles with WebAssembly, whose address-space reservation (V8's guard
    # regions) exceeds the default 4 GiB limit; docs/execution.md says to lift it
    limits = skilldeck.execution.Limits(memory_bytes=None)
    ex = executor(sandbox=mode, limits=limits)
    result = ex.run_script(skill, "hello.ts", ["a b"], trust="bundled")
    assert result.parsed == {"n": 42, "args": ["a b"]}, result.output
