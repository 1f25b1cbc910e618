"""A run's program look-up keeps what it read of files only while they are unchanged.

``find_program`` reads the first bytes of the program (is it a version manager's
shim?) and a virtual environment's ``pyvenv.cfg`` (its base installation, which a
sandbox must mount); both answers are kept per stat signature. A file rewritten in
place, even with its size and modification time put back, is read again.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from skilldeck.execution._programs import find_program


def _rewrite(path: Path, text: str) -> None:
    """Replace the content in place, keeping size and modification time."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    with open(path, "r+", encoding="utf-8") as fh:
        fh.write(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_venvs_base_follows_its_pyvenv_cfg(tmp_path: Path) -> None:
    for base in ("base1", "base2"):
        (tmp_path / base / "bin").mkdir(parents=True)
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    program = venv / "bin" / "prog"
    program.write_text("not a shim\n")
    program.chmod(0o755)
    cfg = venv / "pyvenv.cfg"
    cfg.write_text(f"home = {tmp_path / 'base1' / 'bin'}\n")
    time.sleep(1.1)  # settled: the answer may be kept

    def roots() -> tuple[str, ...]:
        found = find_program(str(program), env_path=None, cwd=str(tmp_path), env={})
        assert found is not None
        return found.roots

    assert roots() == (str(venv), str(tmp_path / "base1"))
    assert roots() == (str(venv), str(tmp_path / "base1"))  # kept
    _rewrite(cfg, f"home = {tmp_path / 'base2' / 'bin'}\n")
    assert roots() == (str(venv), str(tmp_path / "base2"))
    cfg.unlink()
    assert roots() == (str(venv),)


def test_a_program_rewritten_as_a_shim_is_seen_as_one(tmp_path: Path) -> None:
    real = tmp_path / "versions" / "1.0" / "bin" / "greet"
    real.parent.mkdir(parents=True)
    real.write_text("#!/bin/sh\necho real\n")
    manager = tmp_path / "libexec" / "pyenv"
    manager.parent.mkdir()
    manager.write_text(f'#!/bin/sh\n[ "$1" = which ] && echo "{real}"\n')
    shim = tmp_path / "shims" / "greet"
    shim.parent.mkdir()
    text = f'#!/bin/sh\nexec "{manager}" exec "$program" "$@"\n'
    shim.write_text("#" * (len(text) - 1) + "\n")  # a plain script of the same size first
    for path in (real, manager, shim):
        path.chmod(0o755)
    time.sleep(1.1)

    def found() -> tuple[str, str | None]:
        prog = find_program(str(shim), env_path=None, cwd=str(tmp_path), env={})
        assert prog is not None
        return prog.path, prog.shim

    assert found() == (str(shim), None)
    assert found() == (str(shim), None)
    _rewrite(shim, text)
    assert found() == (str(real), str(shim))
