"""Execution settings: the ``[execution]`` table of the config file, as a value."""

from __future__ import annotations

import os
from collections.abc import Mapping

from skilldeck._errors import ConfigError
from skilldeck._frozen import field_names, replace, value as value_class
from skilldeck.execution._mounts import Mount, parse_mount
from skilldeck.execution._scripts import SCRIPT_KINDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from skilldeck.config import Config

__all__ = ["ExecConfig", "Limits", "RunAsSetting", "SandboxMode", "WorkdirMode", "parse_run_as"]

if TYPE_CHECKING:
    SandboxMode = Literal["auto", "strict", "none"]
if TYPE_CHECKING:
    WorkdirMode = Literal["skill", "project", "temp"]
if TYPE_CHECKING:
    RunAsSetting = tuple[int, int] | Literal["auto"] | None
_WORKDIR_MODES = ("skill", "project", "temp")

_MIB = 1024 * 1024


@value_class
class Limits:
    """Resource limits applied by the launch helper before the program starts.

    ``None`` leaves a limit as inherited. ``cpu_seconds=None`` means "the run's
    timeout plus the kill grace period". ``processes`` is the number of
    processes the run may add to its user's count (fork bombs stop there).
    """

    cpu_seconds: int | None = None
    memory_bytes: int | None = 4096 * _MIB
    file_size_bytes: int | None = 1024 * _MIB
    open_files: int | None = 1024
    processes: int | None = 256
    core_dumps: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in field_names(Limits)}


@value_class
class ExecConfig:
    """How scripts and declared tools run. Every field has a safe default.

    - ``sandbox``: ``auto`` (bubblewrap when it works, else the always-on layers,
      reporting the fallback), ``strict`` (refuse to run without bubblewrap:
      ``SANDBOX_UNAVAILABLE``), ``none`` (always-on layers only);
    - ``timeout_cap``: upper bound in seconds on any skill's ``timeout``;
      ``default_timeout`` applies when the skill sets none;
    - ``kill_grace``: seconds between SIGTERM and SIGKILL on timeout;
    - ``workdir``: ``project`` (default: the repository root above the current
      folder, else the current folder), ``skill`` (the skill's snapshot),
      ``temp`` (a fresh folder) or an absolute path;
    - ``output_head`` / ``output_tail``: bytes of output kept from each end;
    - ``network``: the host grants network to skills that ask (``network: true``);
      both must agree, and only bubblewrap can actually withhold it;
    - ``env_allow``: extra variable names or ``PREFIX*`` patterns passed through
      (deny patterns still win);
    - ``run_as``: who runs the program when skilldeck itself runs as root:
      ``"auto"`` (default: ``nobody`` when it can reach everything the run needs,
      else the invoking user with every capability dropped), ``(uid, gid)`` (that
      user or refuse) or ``None`` (the invoking user, capabilities dropped);
    - ``mounts``: extra paths visible under bubblewrap (``Mount``, read-only
      unless ``writable``); ``mount_arguments``: make paths given as arguments
      visible (``None``: the command line does, library hosts do not);
    - ``interpreters``: programs for script kinds, e.g. ``{"python": "/usr/bin/python3"}``
      (default: python is skilldeck's own interpreter, others are found on PATH);
    - ``auto_run_read_only``: trust levels whose ``read_only`` skills run without
      approval (default: ``bundled``);
    - ``native_helper``: compile and use the C launch helper when a C compiler
      exists (the Python helper is the fallback).
    """

    sandbox: SandboxMode = "auto"
    timeout_cap: float = 300.0
    default_timeout: float = 30.0
    kill_grace: float = 5.0
    workdir: WorkdirMode | str = "project"
    output_head: int = 2048
    output_tail: int = 2048
    network: bool = False
    env_allow: tuple[str, ...] = ()
    run_as: RunAsSetting = "auto"
    auto_run_read_only: tuple[str, ...] = ("bundled",)
    limits: Limits = Limits()
    native_helper: bool = True
    bwrap_path: str | None = None
    mounts: tuple[Mount, ...] = ()
    mount_arguments: bool | None = None
    interpreters: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.sandbox not in ("auto", "strict", "none"):
            raise ConfigError(
                f"execution.sandbox must be auto, strict or none, not {self.sandbox!r}",
                hint='sandbox = "auto"',
            )
        if self.workdir not in _WORKDIR_MODES and not (
            isinstance(self.workdir, str) and os.path.isabs(self.workdir)
        ):
            raise ConfigError(
                "execution.workdir must be skill, project, temp or an absolute path, "
                f"not {self.workdir!r}",
                hint='workdir = "project"',
            )
        if self.run_as != "auto" and self.run_as is not None and not isinstance(self.run_as, tuple):
            raise ConfigError(f"execution.run_as: bad value {self.run_as!r}")
        for kind, _ in self.interpreters:
            if kind not in SCRIPT_KINDS:
                raise ConfigError(
                    f"execution.interpreters: unknown script kind {kind!r}",
                    hint="known: " + ", ".join(SCRIPT_KINDS),
                )
        for name in ("timeout_cap", "default_timeout"):
            value = getattr(self, name)
            if not 0 < value <= 3600:
                raise ConfigError(f"execution.{name} must be 0-3600 seconds, not {value!r}")
        if self.kill_grace < 0 or self.output_head < 0 or self.output_tail < 0:
            raise ConfigError("execution: kill_grace and output sizes cannot be negative")

    def timeout_for(self, skill_timeout: float | None) -> float:
        """The effective timeout: the skill's (1-300 s) or the default, capped by the host."""
        if isinstance(skill_timeout, bool) or not isinstance(skill_timeout, int | float):
            return min(self.default_timeout, self.timeout_cap)
        return min(max(float(skill_timeout), 1.0), 300.0, self.timeout_cap)

    def replace(self, **changes: Any) -> ExecConfig:
        return replace(self, **changes)

    def interpreter(self, kind: str) -> str | None:
        """The configured program for a script kind (``None``: the default)."""
        return dict(self.interpreters).get(kind)

    @classmethod
    def from_mapping(cls, table: Mapping[str, Any]) -> ExecConfig:
        """Build from an ``[execution]`` table (``ConfigError`` for unknown keys, wrong types)."""
        known: dict[str, type | tuple[type, ...]] = {
            "sandbox": str,
            "timeout_cap": (int, float),
            "default_timeout": (int, float),
            "kill_grace": (int, float),
            "workdir": str,
            "output_head": int,
            "output_tail": int,
            "network": bool,
            "env_allow": list,
            "auto_run_read_only": list,
            "native_helper": bool,
            "bwrap": str,
            "run_as": (int, list, str),
            "limits": dict,
            "mounts": list,
            "mount_arguments": bool,
            "interpreters": dict,
        }
        kwargs: dict[str, Any] = {}
        for key, value in table.items():
            if isinstance(value, tuple):
                # A loaded Config is frozen (lists become tuples): every list-valued
                # key reads the same from a config file as from a plain mapping.
                value = list(value)
            want = known.get(key)
            if want is None:
                raise ConfigError(
                    f"unknown key execution.{key}",
                    hint="known keys: " + ", ".join(sorted(known)),
                )
            if isinstance(value, Mapping) and want is dict:
                pass
            elif not isinstance(value, want) or (isinstance(value, bool) and want is not bool):
                raise ConfigError(f"execution.{key} has the wrong type: {value!r}")
            if key in ("env_allow", "auto_run_read_only"):
                if not all(isinstance(v, str) for v in value):
                    raise ConfigError(f"execution.{key} must be a list of strings")
                kwargs[key] = tuple(value)
            elif key == "bwrap":
                kwargs["bwrap_path"] = value
            elif key == "run_as":
                kwargs["run_as"] = _run_as(value)
            elif key == "workdir" and value not in _WORKDIR_MODES:
                # a folder is a command-line or API choice, never a config file's
                raise ConfigError(
                    f"execution.workdir must be skill, project or temp, not {value!r}",
                    hint="choose a folder per run with: skilldeck run ... --workdir PATH",
                )
            elif key == "limits":
                kwargs["limits"] = _limits(value)
            elif key == "mounts":
                kwargs["mounts"] = tuple(
                    parse_mount(v, source="execution.mounts") if isinstance(v, str)
                    else _bad("execution.mounts must be a list of PATH[:ro|rw] strings")
                    for v in value
                )  # fmt: skip
            elif key == "interpreters":
                kwargs["interpreters"] = _interpreters(value)
            else:
                kwargs[key] = value
        return cls(**kwargs)

    @classmethod
    def load(
        cls, *, cwd: str | os.PathLike[str] | None = None, config: Config | None = None
    ) -> ExecConfig:
        """The ``[execution]`` table of the user and project config files (of ``config``,
        when the caller has read them already)."""
        if config is None:
            from skilldeck.config import load_config

            config = load_config(cwd=cwd)
        try:
            return cls.from_mapping(config.execution)
        except ConfigError as exc:  # name the file and line, as for the other tables
            raise config.located(exc) from None


def _bad(message: str) -> Any:
    raise ConfigError(message)


def _interpreters(table: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    out = []
    for kind, program in table.items():
        if not isinstance(program, str) or not program or "\x00" in program:
            raise ConfigError(f"execution.interpreters.{kind} must be a program name or path")
        out.append((str(kind), program))
    return tuple(out)


def parse_run_as(value: Any) -> RunAsSetting:
    """``auto``, ``self``, a user name, a uid or ``[uid, gid]`` (``ConfigError`` otherwise)."""
    return _run_as(value)


def _run_as(value: Any) -> RunAsSetting:
    if isinstance(value, str):
        if value == "auto":
            return "auto"
        if value in ("self", "root", "none", ""):
            return None
        if value.isdigit():
            return _run_as(int(value))
        try:
            import pwd

            entry = pwd.getpwnam(value)
        except (ImportError, KeyError):
            raise ConfigError(
                f"execution.run_as: no user {value!r}", hint="run_as = auto, self or a user name"
            ) from None
        return (entry.pw_uid, entry.pw_gid)
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            import pwd

            return (value, pwd.getpwuid(value).pw_gid)
        except (ImportError, KeyError):
            return (value, value)
    if len(value) == 2 and all(isinstance(v, int) and v > 0 for v in value):
        return (value[0], value[1])
    raise ConfigError("execution.run_as must be auto, self, a user name, a uid or [uid, gid]")


def _limits(table: Mapping[str, Any]) -> Limits:
    names = set(field_names(Limits))
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key not in names:
            raise ConfigError(
                f"unknown key execution.limits.{key}", hint="known: " + ", ".join(sorted(names))
            )
        if key == "core_dumps":
            if not isinstance(value, bool):
                raise ConfigError("execution.limits.core_dumps must be true or false")
        elif value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            raise ConfigError(f"execution.limits.{key} must be a non-negative integer")
        out[key] = value
    return Limits(**out)
