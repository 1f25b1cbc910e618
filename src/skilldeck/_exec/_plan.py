"""Plan one run: sandbox, working folder, program, visible paths, user; and its report.

Everything here is decided before the approver is asked, so the approver sees
exactly what will run, where, as whom and with what isolation.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skilldeck._errors import PathNotAllowedError, SandboxUnavailableError
from skilldeck._exec._access import Need, RunAs, choose_user, rx
from skilldeck._exec._mounts import (
    Mount,
    argument_paths,
    check_workdir,
    covered,
    project_workdir,
    resolve_own_links,
)
from skilldeck._exec._platform import linux_layers, platform_note
from skilldeck._exec._programs import Program, find_program, python_roots
from skilldeck._exec._sandbox import SandboxStatus, hidden_dirs, private_dirs, probe_sandbox
from skilldeck._exec._settings import ExecConfig
from skilldeck._exec._snapshot import Snapshot
from skilldeck._paths import dirs, install_base

__all__ = ["BWRAP_HINT", "Plan", "bwrap_install", "make_plan", "report", "sandbox_choice"]


def bwrap_install() -> str:
    """The command that installs bubblewrap here."""
    if shutil.which("apt-get") is None:
        return "install the bubblewrap package with the system's package manager"
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return ("" if as_root else "sudo ") + "apt-get install bubblewrap"


BWRAP_HINT = "install bubblewrap: " + bwrap_install()


@dataclass(slots=True)
class Plan:
    """Everything decided about one run before it is approved."""

    skill: str
    snapshot: Snapshot
    argv: list[str]
    user_args: list[str]
    timeout: float
    network_requested: bool
    network: bool
    sandbox: SandboxStatus | None
    fallback: str | None
    workdir: Path
    workdir_mode: str
    user_cwd: Path | None
    program: Program | None
    binds: list[Mount] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)
    helper_roots: list[str] = field(default_factory=list)
    user: RunAs = field(default_factory=lambda: RunAs(None, None, ""))
    linux: bool = True

    @property
    def sandboxed(self) -> bool:
        return self.sandbox is not None


def sandbox_choice(cfg: ExecConfig, skill: str) -> tuple[SandboxStatus | None, str | None]:
    """The bubblewrap status to use (``None``: run without it) and why it is not used."""
    if cfg.sandbox == "none":
        return None, 'sandbox = "none"'
    status = probe_sandbox(cfg.bwrap_path)
    if status.available:
        return status, None
    if cfg.sandbox == "strict":
        note = platform_note()
        raise SandboxUnavailableError(
            f"the sandbox is required but unavailable: {status.reason}",
            skill=skill,
            hint=(
                "bubblewrap needs Linux; use --sandbox auto to run with the portable layers"
                if note is not None
                else f"{BWRAP_HINT}; or run with --sandbox auto (the other layers only)"
            ),
        )
    return None, f"bubblewrap unavailable: {status.reason} ({BWRAP_HINT})"


def _current_folder(cwd: Path | None) -> Path | None:
    try:
        return (cwd if cwd is not None else Path.cwd()).resolve()
    except OSError:
        return None


def kept_hidden(folder: Path) -> bool:
    """Whether a current folder outside a repository is too broad to bind read-write
    under bubblewrap (``/``, ``/tmp``, ``/var/tmp``, a home or skilldeck's own folders):
    a sandboxed run then works in a fresh empty folder instead."""
    home = os.path.realpath(os.path.expanduser("~"))
    shared = ("/", home, os.path.realpath("/tmp"), os.path.realpath("/var/tmp"))  # noqa: S108
    return str(folder) in shared or str(folder) in hidden_dirs()


def _workdir(
    cfg: ExecConfig, snapshot: Snapshot, scratch: Path, user_cwd: Path | None, sandboxed: bool
) -> tuple[Path, str]:
    mode = cfg.workdir
    if mode == "skill":
        return snapshot.path, "skill"
    if mode not in ("project", "temp"):
        return check_workdir(mode), "path"
    if mode == "project" and user_cwd is not None:
        folder, in_repo = project_workdir(user_cwd)
        if in_repo:
            return folder, "project (repository root)"
        if not (sandboxed and kept_hidden(folder)):
            return folder, "project (current folder)"
        label = "project (the current folder is /, /tmp or a home, kept hidden: temp)"
    else:
        label = "temp" if mode == "temp" else "project (no current folder: temp)"
    work = scratch / "work"
    work.mkdir(mode=0o700, exist_ok=True)
    return work, label


def _guard_writable(mount: Mount) -> None:
    if os.path.lexists(mount.path) and resolve_own_links(mount.path) is None:
        raise PathNotAllowedError(
            f"{mount.path} passes through a link another user owns (a run may have left it "
            "there), so it is not mounted",
            path=mount.path,
            hint="give the real path",
        )
    own = [str(p) for p in (dirs().config, dirs().data, install_base())]
    own += [os.path.realpath(p) for p in own]
    # bubblewrap follows links: a link to skilldeck's own folders is those folders
    paths = {mount.path, os.path.realpath(mount.path)}
    if mount.writable and any(
        path == "/" or any(covered(p, [path]) for p in own) for path in paths
    ):
        raise PathNotAllowedError(
            f"{mount.path} cannot be mounted writable: it holds skilldeck's own settings "
            "or approvals",
            path=mount.path,
            hint=f"mount it read-only ({mount.path}:ro) or choose a narrower folder",
        )


def make_plan(
    cfg: ExecConfig,
    *,
    skill: str,
    snapshot: Snapshot,
    argv: list[str],
    user_args: Sequence[str],
    timeout: float,
    network_requested: bool,
    scratch: Path,
    cwd: Path | None,
    env: Mapping[str, str],
    helper_roots: Sequence[str] = (),
) -> Plan:
    """Decide the run (raises for refusals: strict sandbox, unreachable chosen user, mounts)."""
    sandbox, fallback = sandbox_choice(cfg, skill)
    user_cwd = _current_folder(cwd)
    workdir, workdir_mode = _workdir(cfg, snapshot, scratch, user_cwd, sandbox is not None)
    program = find_program(argv[0], env_path=env.get("PATH"), cwd=str(workdir), env=env)
    if program is not None:
        argv = [program.path, *argv[1:]]
    plan = Plan(
        skill, snapshot, argv, list(user_args), timeout, network_requested,
        network_requested and cfg.network, sandbox, fallback, workdir, workdir_mode,
        user_cwd, program, linux=linux_layers(),
    )  # fmt: skip
    roots = list(program.roots) if program is not None else []
    if program is not None and program.path == sys.executable:
        roots += [r for r in python_roots() if r not in roots]
    plan.roots = [r for r in roots if r != "/"]
    plan.helper_roots = [r for r in helper_roots if r != "/"]
    private = private_dirs(plan.network)
    visible = [str(workdir), str(snapshot.path), str(scratch)]

    def hidden(path: str) -> bool:
        return sandbox is not None and covered(path, private) and not covered(path, visible)

    mounts = list(cfg.mounts)
    if cfg.mount_arguments:
        mounts += [Mount(p) for p in argument_paths(user_args, workdir)]
    for mount in mounts:
        _guard_writable(mount)
        if os.path.exists(mount.path) and hidden(mount.path) and mount not in plan.binds:
            plan.binds.append(mount)
    plan.user = choose_user(
        cfg.run_as,
        _needs(plan, private, arguments=bool(cfg.mount_arguments)),
        skill=skill,
        as_root=hasattr(os, "geteuid") and os.geteuid() == 0,
        drop_caps=plan.linux,
    )
    return plan


def _needs(plan: Plan, private: Sequence[str], *, arguments: bool) -> list[Need]:
    """What the run-as user must reach (under bubblewrap, from each mount point down).

    Paths in arguments count only when a person typed them (``mount_arguments``):
    a model must not be able to move a run to the invoking user by naming a file
    only that user can read.
    """

    def start(path: Path) -> Path | None:
        return path if plan.sandboxed and covered(str(path), private) else None

    needs: list[Need] = []
    if plan.program is not None:
        prog = Path(plan.program.path)
        try:
            executable = prog.stat().st_mode & 0o111
        except OSError:
            executable = 0
        for root in plan.roots:
            needs.append(Need(Path(root), rx(root), "interpreter's folder", start(Path(root))))
        if executable:  # a program no one may execute fails with 126 whoever runs it
            owner = next((Path(r) for r in plan.roots if covered(str(prog), [r])), None)
            needs.append(Need(prog, os.X_OK, "program", start(owner) if owner else None))
    needs.append(
        Need(plan.snapshot.path, rx(plan.snapshot.path), "skill", start(plan.snapshot.path))
    )
    needs.append(Need(plan.workdir, rx(plan.workdir), "working folder", start(plan.workdir)))
    for mount in plan.binds:
        path = Path(mount.path)
        needs.append(Need(path, rx(path), "path given to it", start(path)))
    if arguments and not plan.sandboxed:
        for arg_path in argument_paths(plan.user_args, plan.workdir):
            needs.append(Need(Path(arg_path), rx(arg_path), "path given to it"))
    return needs


def report(
    plan: Plan,
    cfg: ExecConfig,
    *,
    helper: str,
    env: Mapping[str, str],
    requested_mode: str,
) -> dict[str, Any]:
    """The ``isolation`` object of a result: what applies to this run, and why."""
    sandboxed = plan.sandboxed
    dropped = plan.user.uid is not None
    if sandboxed:
        filesystem = {
            "root": "read-only",
            "tmp": "private",
            "homes": "hidden",
            "skill": "read-only snapshot",
            "workdir": "read-only" if plan.workdir == plan.snapshot.path else "writable",
        }
        namespaces = ["mount", "pid", "ipc", "uts", "cgroup"] + ([] if plan.network else ["net"])
        if plan.sandbox is not None and not plan.sandbox.as_root:
            namespaces.append("user")
    else:
        filesystem = {
            "root": "host",
            "tmp": "host",
            "homes": "visible",
            "skill": "snapshot",
            "workdir": "host",
        }
        namespaces = []
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    if dropped or (sandboxed and not as_root):
        caps = "dropped"
    elif as_root:
        caps = "dropped" if plan.linux else "unchanged (needs Linux)"
    else:
        caps = "none (unprivileged user)"
    if sandboxed:
        tracking = "pid-namespace"
    elif plan.linux:
        tracking = "subreaper+process-group"
    else:
        tracking = "process-group"
    program = plan.program
    return {
        "sandbox": "bubblewrap" if sandboxed else "none",
        "requested": requested_mode,
        "fallback": plan.fallback if requested_mode != "none" else None,
        "layers": "linux" if plan.linux else "portable",
        "platform": platform_note(),
        "user": plan.user.label,
        "user_reason": plan.user.reason,
        "capabilities": caps,
        "no_new_privs": plan.linux,
        "namespaces": namespaces,
        "network": "allowed" if (plan.network or not sandboxed) else "denied",
        "network_requested": plan.network_requested,
        "network_granted": plan.network,
        "network_enforced": sandboxed,
        "filesystem": filesystem,
        "workdir": str(plan.workdir),
        "workdir_mode": plan.workdir_mode,
        "mounts": [m.spec() for m in plan.binds] if sandboxed else [],
        "program": program.path if program is not None else None,
        "shim": program.shim if program is not None else None,
        "skill_dir": str(plan.snapshot.path),
        "digest": plan.snapshot.digest,
        "timeout_s": plan.timeout,
        "kill_grace_s": cfg.kill_grace,
        "process_tracking": tracking,
        "limits": cfg.limits.to_dict(),
        "umask": "077",
        "stdin": "closed",
        "env": sorted(env),
        "helper": helper,
    }


def which_bwrap(cfg: ExecConfig) -> str | None:
    return cfg.bwrap_path or shutil.which("bwrap")
