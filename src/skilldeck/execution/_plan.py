"""Plan one run: sandbox, working folder, program, visible paths, user; and its report.

Everything here is decided before the approver is asked, so the approver sees
exactly what will run, where, as whom and with what isolation.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from skilldeck._errors import PathNotAllowedError, SandboxUnavailableError
from skilldeck._ownstate import protected_state_fixed, view_problem
from skilldeck._paths import real, real_path, within
from skilldeck.execution._access import Need, RunAs, choose_user, rx
from skilldeck.execution._mounts import (
    Mount,
    argument_paths,
    check_workdir,
    project_workdir,
    resolve_own_links,
)
from skilldeck.execution._platform import linux_layers, platform_note
from skilldeck.execution._programs import Program, find_program, python_roots
from skilldeck.execution._sandbox import SandboxStatus, private_dirs, usable_sandbox
from skilldeck.execution._settings import ExecConfig
from skilldeck.execution._snapshot import Snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "BWRAP_HINT",
    "Plan",
    "bwrap_install",
    "hand_over",
    "make_plan",
    "own_folders",
    "preview",
    "report",
    "sandbox_choice",
    "too_broad",
]


def bwrap_install() -> str:
    """The command that installs bubblewrap here."""
    if shutil.which("apt-get") is None:
        return "install the bubblewrap package with the system's package manager"
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return ("" if as_root else "sudo ") + "apt-get install bubblewrap"


BWRAP_HINT = "install bubblewrap: " + bwrap_install()


class Plan:
    """Everything decided about one run before it is approved.

    Not a dataclass, nor are the values in it (``Snapshot``, ``Program``, ``RunAs``),
    nor ``Need``, ``Helper``, ``Captured`` and the executor's ``_Call``: nothing
    compares, copies or prints them, and making a dataclass costs every run's
    start-up about 4 M instructions of generated-code compilation.
    """

    __slots__ = (
        "argv", "binds", "fallback", "helper_roots", "linux", "network", "network_requested",
        "program", "roots", "sandbox", "skill", "snapshot", "timeout", "user", "user_args",
        "user_cwd", "workdir", "workdir_mode",
    )  # fmt: skip

    def __init__(
        self,
        skill: str,
        snapshot: Snapshot,
        argv: list[str],
        user_args: list[str],
        timeout: float,
        network_requested: bool,
        network: bool,
        sandbox: SandboxStatus | None,
        fallback: str | None,
        workdir: Path,
        workdir_mode: str,
        user_cwd: Path | None,
        program: Program | None,
        *,
        linux: bool = True,
    ) -> None:
        self.skill = skill
        self.snapshot = snapshot
        self.argv = argv
        self.user_args = user_args
        self.timeout = timeout
        self.network_requested = network_requested
        self.network = network
        self.sandbox = sandbox
        self.fallback = fallback
        self.workdir = workdir
        self.workdir_mode = workdir_mode
        self.user_cwd = user_cwd
        self.program = program
        self.binds: list[Mount] = []
        self.roots: list[str] = []
        self.helper_roots: list[str] = []
        self.user = RunAs(None, None, "")
        self.linux = linux

    @property
    def sandboxed(self) -> bool:
        return self.sandbox is not None

    @property
    def private_home(self) -> bool:
        """The program gets an empty ``HOME`` of its own in the scratch folder: under
        bubblewrap (which hides the real one) or as another user (whose home it is not)."""
        return self.sandboxed or self.user.uid is not None


def sandbox_choice(cfg: ExecConfig, skill: str) -> tuple[SandboxStatus | None, str | None]:
    """The bubblewrap status to use (``None``: run without it) and why it is not used."""
    if cfg.sandbox == "none":
        return None, 'sandbox = "none"'
    status = usable_sandbox(cfg.bwrap_path)
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
        return real(cwd if cwd is not None else Path.cwd())
    except OSError:
        return None


def too_broad(folder: Path) -> bool:
    """Whether a folder found from where the user is (not chosen by them) is too broad
    to be a run's writable working folder: ``/``, ``/tmp``, ``/var/tmp``, the home
    folder, or a folder holding skilldeck's own state (a home that is a git
    repository, a project holding ``XDG_*`` folders). Such a run works in a fresh
    empty folder instead."""
    shared = ("/", real_path("/tmp"), real_path("/var/tmp"))  # noqa: S108
    return str(folder) in shared or view_problem(folder, writable=True) is not None


def _workdir(
    cfg: ExecConfig, snapshot: Snapshot, scratch: Path, user_cwd: Path | None, guarded: bool
) -> tuple[Path, str]:
    """The working folder and how it was chosen; ``guarded``: a too-broad folder
    found from the current one is replaced by a fresh one (a sandbox would show it, or
    the run is moved to another user who must own what it writes)."""
    mode = cfg.workdir
    if mode == "skill":
        return snapshot.path, "skill"
    if mode not in ("project", "temp"):
        folder = check_workdir(mode)
        problem = view_problem(folder, writable=True)
        if problem is not None:
            raise PathNotAllowedError(
                f"the working folder {problem}: a run may never see or change skilldeck's "
                "own state, nor write where your shell and agents start from",
                path=str(folder),
                hint="run in a project folder (cd there), or use --workdir temp "
                "and pass the files the script needs as arguments",
            )
        return folder, "path"
    if mode == "project" and user_cwd is not None:
        folder, in_repo = project_workdir(user_cwd)
        where = "repository root" if in_repo else "current folder"
        if not (guarded and too_broad(folder)):
            return folder, f"project ({where})"
        label = (
            f"project ({where} {folder} is /, /tmp, a home or holds skilldeck's state: "
            "temp; pass absolute paths or --workdir)"
        )
    else:
        label = "temp" if mode == "temp" else "project (no current folder: temp)"
    work, _ = own_folders(scratch, work=True)
    return work, label


def _guard_mount(mount: Mount) -> None:
    if os.path.lexists(mount.path) and resolve_own_links(mount.path) is None:
        raise PathNotAllowedError(
            f"{mount.path} passes through a link another user owns (a run may have left it "
            "there), so it is not mounted",
            path=mount.path,
            hint="give the real path",
        )
    problem = view_problem(mount.path, writable=mount.writable)
    if problem is not None:
        hint = f"mount a narrower folder, or {mount.path}:ro (skilldeck's state stays hidden)"
        if view_problem(mount.path, writable=False) is not None:
            hint = "mount another folder: skilldeck's own state is never visible to a run"
        raise PathNotAllowedError(
            f"{problem}, so it cannot be mounted" + (" writable" if mount.writable else ""),
            path=mount.path,
            hint=hint,
        )


def own_folders(scratch: Path, *, work: bool = False, home: bool = False) -> tuple[Path, Path]:
    """The run's own folders in ``scratch``: a fresh working folder (made when ``work``)
    and a private home (made when ``home``; see ``Plan.private_home``), made ``0o700``
    (:func:`hand_over` gives them to the run-as user). A folder is made only when a run
    uses it: each costs CPU to make and delete (about 0.17 ms on a journaling disk)."""
    folders = (scratch / "work", scratch / "home")
    for folder, wanted in zip(folders, (work, home), strict=True):
        if wanted:
            folder.mkdir(mode=0o700, exist_ok=True)
    return folders


def hand_over(plan: Plan, scratch: Path) -> None:
    """Give the run's own folders to the user it runs as (decided by ``make_plan``)."""
    uid, gid = plan.user.uid, plan.user.gid
    if uid is None or gid is None:
        return
    for folder in (scratch, scratch / "work", scratch / "home"):
        try:  # each made only when the run uses it (own_folders)
            os.chown(folder, uid, gid)
        except FileNotFoundError:
            pass


@protected_state_fixed()  # asked by several guards below: resolved once per plan
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
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    user_cwd = _current_folder(cwd)
    workdir, workdir_mode = _workdir(
        cfg, snapshot, scratch, user_cwd, guarded=sandbox is not None or as_root
    )
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
        roots += [r for r in python_roots(program.roots) if r not in roots]
    plan.roots = [r for r in roots if r != "/"]
    plan.helper_roots = [r for r in helper_roots if r != "/"]
    private = private_dirs(plan.network)
    visible = [str(workdir), str(snapshot.path), str(scratch)]

    def hidden(path: str) -> bool:
        return sandbox is not None and within(path, private) and not within(path, visible)

    mounts = list(cfg.mounts)
    if cfg.mount_arguments:
        mounts += [Mount(p) for p in argument_paths(user_args, workdir)]
    for mount in mounts:
        _guard_mount(mount)
        if os.path.exists(mount.path) and hidden(mount.path) and mount not in plan.binds:
            plan.binds.append(mount)
    plan.user = choose_user(
        cfg.run_as,
        _needs(plan, private, scratch, arguments=bool(cfg.mount_arguments)),
        skill=skill,
        as_root=as_root,
        drop_caps=plan.linux,
        strict=cfg.sandbox == "strict",
    )
    own_folders(scratch, home=plan.private_home)
    return plan


def _needs(plan: Plan, private: Sequence[str], scratch: Path, *, arguments: bool) -> list[Need]:
    """What the run-as user must reach (under bubblewrap, from each mount point down).

    Paths in arguments count only when a person typed them (``mount_arguments``):
    a model must not be able to move a run to the invoking user by naming a file
    only that user can read.
    """

    def start(path: Path) -> Path | None:
        return path if plan.sandboxed and within(str(path), private) else None

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
            owner = next((Path(r) for r in plan.roots if within(str(prog), [r])), None)
            needs.append(Need(prog, os.X_OK, "program", start(owner) if owner else None))
    needs.append(
        Need(plan.snapshot.path, rx(plan.snapshot.path), "skill", start(plan.snapshot.path))
    )
    # the run's own folders are handed to the user it runs as: only the way to them counts
    needs.append(Need(scratch.parent, os.X_OK, "temporary folder", start(scratch.parent)))
    if not within(str(plan.workdir), [str(scratch)]):
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


def preview(cfg: ExecConfig, *, cwd: Path | None = None, helper_roots: Sequence[str] = ()) -> Plan:
    """The plan a Python script of a skill would get if it ran from ``cwd`` now.

    ``sandbox status`` and ``doctor`` answer from this, so they say what a run
    does: the same folders are made (an empty skill copy, a scratch folder) and
    removed again. Raises what a run would raise (a refused working folder or
    mount, ``strict`` without bubblewrap or falling back to root).
    """
    from skilldeck.execution._scripts import interpreter_for

    scratch = Path(tempfile.mkdtemp(prefix="skilldeck-run-"))
    skill = Path(tempfile.mkdtemp(prefix="skilldeck-skill-"))
    try:
        os.chmod(skill, 0o755)  # noqa: S103  (as take_snapshot: the run-as user reads it)
        argv = interpreter_for("status", skill / "scripts" / "main.py", dict(cfg.interpreters))
        return make_plan(
            cfg,
            skill="(any skill)",
            snapshot=Snapshot(skill, "", frozenset()),
            argv=[*argv, str(skill / "scripts" / "main.py")],
            user_args=[],
            timeout=cfg.timeout_for(None),
            network_requested=False,
            scratch=scratch,
            cwd=cwd,
            env=os.environ,
            helper_roots=helper_roots,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(skill, ignore_errors=True)
