"""The approvals store, modes and the execution config (the environment and the
approval decision table: test_policy_rules.py)."""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest

import skilldeck
from skilldeck.config import dirs


def test_file_approval_store_roundtrip(tmp_path: Path) -> None:
    store = skilldeck.execution.FileApprovalStore(tmp_path / "a" / "approvals.json")
    assert store.get("x") is None and store.list() == []
    store.grant("x", "sha256:1", trust="user", path="/p")
    store.grant("y", "sha256:2")
    assert store.get("x") == skilldeck.execution.Approval(
        "x",
        "sha256:1",
        "user",
        "/p",
        store.get("x").approved_at,  # type: ignore[union-attr]
    )
    assert [a.name for a in store.list()] == ["x", "y"]
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    data = json.loads(store.path.read_text())
    assert data["version"] == 1 and data["approvals"]["x"]["digest"] == "sha256:1"
    assert store.revoke("x") and not store.revoke("x")
    assert [a.name for a in store.list()] == ["y"]


def test_default_store_lives_in_the_data_folder() -> None:
    store = skilldeck.execution.FileApprovalStore()
    store.grant("x", "sha256:1")
    assert store.path == dirs().data / "approvals.json"
    assert store.path.is_file()


@pytest.mark.parametrize("text", ["{nope", '{"approvals": ' + "[" * 100_000])
def test_damaged_store_is_a_config_error(tmp_path: Path, text: str) -> None:
    # nested past json's recursion: RecursionError escaped as an internal error
    path = tmp_path / "approvals.json"
    path.write_text(text)
    with pytest.raises(skilldeck.ConfigError) as info:
        skilldeck.execution.FileApprovalStore(path).get("x")
    assert info.value.hint


@dataclass
class M:
    modes: tuple[str, ...] | None


@pytest.mark.parametrize(
    ("modes", "current", "visible"),
    [
        (None, "Dev", True),
        (("Global",), "Meeting", True),
        (("Dev",), "Dev", True),
        (("dev",), "DEV", True),
        (("Dev",), "Meeting", False),
        (("Dev", "Meeting"), {"Meeting"}, True),
        (("Dev",), None, True),
        (("Dev",), ["Global"], False),
    ],
)
def test_skill_visible_in_mode(
    modes: tuple[str, ...] | None, current: object, visible: bool
) -> None:
    assert skilldeck.execution.skill_visible_in_mode(M(modes), current) is visible  # type: ignore[arg-type]


def test_modes_from_a_real_manifest() -> None:
    parsed = skilldeck.parse_skill_md("---\nname: d\ndescription: x\nmodes: [Dev]\n---\nbody\n")
    assert skilldeck.execution.skill_visible_in_mode(parsed.manifest, "Dev")
    assert not skilldeck.execution.skill_visible_in_mode(parsed.manifest, "Meeting")


def test_exec_config_from_table_and_errors() -> None:
    cfg = skilldeck.ExecConfig.from_mapping(
        {
            "sandbox": "strict",
            "timeout_cap": 10,
            "workdir": "temp",
            "output_head": 10,
            "env_allow": ["FOO"],
            "network": True,
            "limits": {"processes": 64},
        }
    )
    assert (cfg.sandbox, cfg.timeout_cap, cfg.workdir, cfg.output_head) == (
        "strict",
        10,
        "temp",
        10,
    )
    assert cfg.env_allow == ("FOO",) and cfg.limits.processes == 64
    assert cfg.timeout_for(None) == 10 and cfg.timeout_for(500) == 10
    assert skilldeck.ExecConfig().timeout_for(None) == 30
    assert skilldeck.ExecConfig().timeout_for(0) == 1
    for bad in (
        {"sandbox": "maybe"},
        {"nope": 1},
        {"timeout_cap": "x"},
        {"limits": {"processes": -1}},
        {"network": 1},
    ):
        with pytest.raises(skilldeck.ConfigError):
            skilldeck.ExecConfig.from_mapping(bad)


def test_exec_config_load_reads_the_config_file() -> None:
    path = dirs().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[execution]\nsandbox = "none"\nkill_grace = 1\n')
    cfg = skilldeck.ExecConfig.load()
    assert cfg.sandbox == "none" and cfg.kill_grace == 1


@pytest.mark.parametrize(
    ("text", "where", "named"),
    [
        (
            '[catalog]\npinned = []\n\n[execution]\nsandbox = "none"\nsandbx = "x"\n',
            6,
            "execution.sandbx",
        ),
        ("[execution]\ntimeout_cap = true\n", 2, "execution.timeout_cap"),
        ("[execution.limits]\nprocesses = 9\nprocess = 9\n", 3, "execution.limits.process"),
    ],
)
def test_a_bad_execution_key_names_its_file_and_line(text: str, where: int, named: str) -> None:
    import subprocess
    import sys

    path = dirs().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    with pytest.raises(skilldeck.ConfigError) as info:
        skilldeck.ExecConfig.load()
    assert str(info.value).startswith(f"{path}:{where}: ") and named in str(info.value)
    assert info.value.code == "CONFIG_INVALID"
    result = subprocess.run(
        [sys.executable, "-m", "skilldeck", "doctor"], capture_output=True, text=True, check=False
    )
    assert f"{path}:{where}: " in result.stderr and "CONFIG_INVALID" in result.stderr
    assert result.returncode != 0 and "Traceback" not in result.stderr


def test_executor_without_config_reads_the_execution_table() -> None:
    path = dirs().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[execution]\nworkdir = "temp"\n')
    assert skilldeck.Executor().config.workdir == "temp"
    path.write_text('[execution]\nworkdir = "nowhere"\n')
    with pytest.raises(skilldeck.ConfigError):
        skilldeck.Executor()
