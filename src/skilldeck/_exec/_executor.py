"""The ``Executor``: plan a run, ask for approval, run it isolated, report what was applied."""

from __future__ import annotations

import contextlib
import errno
import math
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from skilldeck._catalog._model import Trust
from skilldeck._digest import skill_digest
from skilldeck._errors import (
    ApprovalRequiredError,
    InvalidArgumentsError,
    SandboxUnavailableError,
    ScriptFailedError,
    ScriptTimeoutError,
)
from skilldeck._exec._approvals import ApprovalStore, FileApprovalStore
from skilldeck._exec._config import ExecConfig
from skilldeck._exec._env import build_env
from skilldeck._exec._interp import render_command
from skilldeck._exec._native import Helper, find_helper
from skilldeck._exec._runner import (
    RunResult,
    capture,
    describe_exit,
    parse_json_output,
    render_output,
)
from skilldeck._exec._sandbox import HELPER_MOUNT, SandboxStatus, bwrap_argv, probe_sandbox
from skilldeck._exec._scripts import (
    check_reachable,
    check_script_args,
    interpreter_for,
    resolve_script,
)
from skilldeck._exec._trust import ApprovalRequest, Approver, coerce_trust, decide_approval
from skilldeck._format._mdtools import DeclaredTool
from skilldeck._paths import find_project_root

__all__ = ["Executor", "SkillLike"]


class SkillLike(Protocol):
    """What the executor needs from a skill: a name, its folder and its manifest."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Any: ...
    @property
    def manifest(self) -> Any: ...


@dataclass(frozen=True, slots=True)
class _Call:
    kind: str
    target: str
    trust: Trust | str | None
    digest: str | None
    approver: Approver | None
    cancel: threading.Event | None


@dataclass(slots=True)
class _Plan:
    skill: str
    skill_dir: Path
    argv: list[str]
    timeout: float
    network: bool
    sandbox: SandboxStatus | None
    fallback: str | None
    workdir_mode: str
    isolation: dict[str, Any] = field(default_factory=dict)


def _skill_dir(skill: SkillLike) -> Path:
    if getattr(skill, "path", None) is None:
        raise ScriptFailedError(
            f"skill '{skill.name}' has no folder on disk, so it has nothing to run",
            skill=skill.name,
            hint="only skills stored as folders can run scripts or declared tools",
        )
    path = Path(skill.path)
    if path.name == "SKILL.md" or path.is_file():
        path = path.parent
    return path.resolve()


def _manifest_flag(skill: SkillLike, name: str, default: Any) -> Any:
    manifest = getattr(skill, "manifest", None)
    value = getattr(manifest, name, default) if manifest is not None else default
    return default if value is None else value


def _count_processes(uid: int) -> int:
    count = 0
    with contextlib.suppress(OSError), os.scandir("/proc") as it:
        for entry in it:
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if entry.stat().st_uid == uid:
                        count += 1
    return count


class Executor:
    """Runs bundled scripts and declared command tools under the configured isolation.

    ``config`` defaults to the ``[execution]`` table of the config files
    (``ExecConfig.load()``; a bad value raises ``ConfigError``); ``approvals``
    defaults to the JSON store in skilldeck's data folder; ``approver`` is the
    host's policy callback (``None``: runs that need a yes fail with
    ``APPROVAL_REQUIRED``); ``mode`` is the runtime's current mode,
    passed to programs as ``SKILLDECK_MODE``.
    """

    def __init__(
        self,
        config: ExecConfig | None = None,
        *,
        approvals: ApprovalStore | None = None,
        approver: Approver | None = None,
        mode: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        self.cwd = Path(cwd) if cwd is not None else None
        self.config = config if config is not None else ExecConfig.load(cwd=self.cwd)
        self.approvals: ApprovalStore = approvals if approvals is not None else FileApprovalStore()
        self.approver = approver
        self.mode = mode

    # ----------------------------------------------------------------- public

    def sandbox_status(self) -> SandboxStatus:
        """The bubblewrap probe (cached per process)."""
        return probe_sandbox(self.config.bwrap_path)

    def launch_helper(self) -> str:
        """Which launch helper runs will use: ``native`` (compiled) or ``python``."""
        return find_helper(native=self.config.native_helper).kind

    def run_script(
        self,
        skill: SkillLike,
        script: str,
        args: Sequence[str] = (),
        *,
        trust: Trust | str | None = None,
        digest: str | None = None,
        approver: Approver | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Run ``scripts/...`` of ``skill`` with ``args`` (an interpreter picked by kind).

        A non-zero exit returns ``success=False``; refusals and timeouts raise.
        ``approver`` overrides the executor's for this call; setting ``cancel``
        stops the run like a timeout (``SCRIPT_FAILED``, ``reason: cancelled``).
        """
        skill_dir = _skill_dir(skill)
        path = resolve_script(skill.name, skill_dir, script)
        argv = [*interpreter_for(skill.name, path), str(path), *check_script_args(args)]
        call = _Call("script", script, trust, digest, approver, cancel)
        return self._run(skill, skill_dir, argv, call)

    def run_tool(
        self,
        skill: SkillLike,
        tool: DeclaredTool,
        arguments: Mapping[str, Any],
        *,
        trust: Trust | str | None = None,
        digest: str | None = None,
        approver: Approver | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Run a declared command tool of ``skill`` with JSON ``arguments`` (as ``run_script``)."""
        skill_dir = _skill_dir(skill)
        argv = render_command(tool, arguments)
        program = argv[0]
        if "/" in program and not program.startswith("/"):
            path = resolve_script(skill.name, skill_dir, program)
            argv = [*interpreter_for(skill.name, path), str(path), *argv[1:]]
        call = _Call("tool", tool.name, trust, digest, approver, cancel)
        return self._run(skill, skill_dir, argv, call)

    def preview_tool(self, tool: DeclaredTool, arguments: Mapping[str, Any]) -> list[str]:
        """The argv a call would run (arguments validated), without running anything."""
        return render_command(tool, arguments)

    # --------------------------------------------------------------- planning

    def _workdir(self, plan: _Plan, scratch: Path) -> Path:
        mode = self.config.workdir
        if mode == "skill":
            return plan.skill_dir
        if mode == "project":
            root = find_project_root(self.cwd)
            if root is not None:
                return root.resolve()
            if plan.sandbox is None:
                return Path.home().resolve()  # seed 003: the home folder outside a repository
            # Under the sandbox the home stays hidden: a fresh folder instead.
            plan.workdir_mode = "project (no repository: temp)"
        work = scratch / "work"
        work.mkdir(mode=0o700)
        return work

    def _plan(self, skill: SkillLike, skill_dir: Path, argv: list[str]) -> _Plan:
        cfg = self.config
        wants_net = bool(_manifest_flag(skill, "network", False))
        network = wants_net and cfg.network
        timeout = cfg.timeout_for(_manifest_flag(skill, "timeout", None))
        sandbox: SandboxStatus | None = None
        fallback: str | None = None
        if cfg.sandbox != "none":
            status = probe_sandbox(cfg.bwrap_path)
            if status.available:
                sandbox = status
            elif cfg.sandbox == "strict":
                raise SandboxUnavailableError(
                    f"the sandbox is required but unavailable: {status.reason}",
                    skill=skill.name,
                    hint="install bubblewrap (apt install bubblewrap), or set "
                    '[execution] sandbox = "auto" to run with the always-on layers only',
                )
            else:
                fallback = f"bubblewrap unavailable: {status.reason}"
        if not os.path.isabs(argv[0]):
            # Only absolute PATH entries: never a program from the host's current folder.
            search = os.environ.get("PATH", os.defpath).split(os.pathsep)
            path = os.pathsep.join(p for p in search if os.path.isabs(p))
            found = shutil.which(argv[0], path=path)
            if found is not None:
                argv = [found, *argv[1:]]
        return _Plan(skill.name, skill_dir, argv, timeout, network, sandbox, fallback, cfg.workdir)

    def _isolation(
        self, plan: _Plan, *, workdir: Path, helper: Helper, uid: int | None, env: Mapping[str, str]
    ) -> dict[str, Any]:
        cfg = self.config
        lim = cfg.limits
        sandboxed = plan.sandbox is not None
        if sandboxed:
            filesystem = {
                "root": "read-only",
                "tmp": "private",
                "homes": "hidden",
                "skill": "read-only",
                "workdir": "read-only" if workdir == plan.skill_dir else "writable",
            }
            namespaces = ["mount", "pid", "ipc", "uts", "cgroup"] + (
                [] if plan.network else ["net"]
            )
            if plan.sandbox is not None and not plan.sandbox.as_root:
                namespaces.append("user")
        else:
            filesystem = {
                "root": "host",
                "tmp": "host",
                "homes": "visible",
                "skill": "host",
                "workdir": "host",
            }
            namespaces = []
        return {
            "sandbox": "bubblewrap" if sandboxed else "none",
            "requested": cfg.sandbox,
            "fallback": plan.fallback,
            "user": str(uid) if uid is not None else f"{os.getuid()} (unchanged)",
            "capabilities": "dropped" if (uid is not None or sandboxed) else "unchanged",
            "no_new_privs": True,
            "namespaces": namespaces,
            "network": "allowed" if (plan.network or not sandboxed) else "denied",
            "network_requested": bool(plan.network),
            "filesystem": filesystem,
            "workdir": str(workdir),
            "workdir_mode": plan.workdir_mode,
            "timeout_s": plan.timeout,
            "kill_grace_s": cfg.kill_grace,
            "process_tracking": "pid-namespace" if sandboxed else "subreaper+process-group",
            "limits": lim.to_dict(),
            "umask": "077",
            "stdin": "closed",
            "env": sorted(env),
            "helper": helper.kind,
        }

    # ---------------------------------------------------------------- running

    def _approve(
        self,
        skill: SkillLike,
        plan: _Plan,
        kind: str,
        target: str,
        trust: Trust,
        digest: str,
        workdir: str,
        isolation: Mapping[str, Any],
        approver: Approver | None,
    ) -> None:
        stored = self.approvals.get(skill.name)
        decision = decide_approval(
            trust=trust,
            read_only=bool(_manifest_flag(skill, "read_only", False)),
            always_ask=bool(_manifest_flag(skill, "always_ask", False)),
            stored_digest=stored.digest if stored is not None else None,
            digest=digest,
            auto_run_read_only=self.config.auto_run_read_only,
        )
        if decision.action == "run":
            return
        ask = approver if approver is not None else self.approver
        if ask is None:
            if decision.stored_fallback:
                return
            hints = {
                "always_ask": "this skill sets always_ask: run it where someone can approve "
                "each run (an interactive skilldeck run, or a host with an approval callback)",
                "changed": f"the skill changed since it was approved; review it, then run: "
                f"skilldeck approve {skill.name}",
            }
            raise ApprovalRequiredError(
                f"running '{skill.name}' needs approval ({decision.reason.replace('_', ' ')})",
                skill=skill.name,
                reason=decision.reason,
                hint=hints.get(
                    decision.reason, f"review the skill, then run: skilldeck approve {skill.name}"
                ),
            )
        description = getattr(getattr(skill, "manifest", None), "description", None)
        request = ApprovalRequest(
            skill=skill.name,
            description=description if isinstance(description, str) else None,
            trust=trust,
            digest=digest,
            kind=kind,
            target=target,
            argv=tuple(plan.argv),
            workdir=workdir,
            isolation=isolation,
            reason=decision.reason,
            persist=decision.persist,
            warning=(
                "This skill comes from an untrusted source and can run arbitrary code."
                if trust is Trust.UNTRUSTED
                else None
            ),
        )
        if not ask(request):
            raise ApprovalRequiredError(
                f"running '{skill.name}' was not approved",
                skill=skill.name,
                reason="denied",
                hint=f"to allow it without asking, run: skilldeck approve {skill.name}",
            )
        if decision.persist:
            self.approvals.grant(skill.name, digest, trust=trust.value, path=str(plan.skill_dir))

    @contextlib.contextmanager
    def _scratch(self, uid: int | None, gid: int | None) -> Iterator[Path]:
        scratch = Path(tempfile.mkdtemp(prefix="skilldeck-run-"))
        try:
            if uid is not None and gid is not None:
                os.chown(scratch, uid, gid)
            yield scratch
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _run(self, skill: SkillLike, skill_dir: Path, argv: list[str], call: _Call) -> RunResult:
        cfg = self.config
        kind, target = call.kind, call.target
        level = coerce_trust(call.trust if call.trust is not None else _skill_trust(skill))
        content = call.digest or _skill_digest_of(skill) or skill_digest(skill_dir)
        plan = self._plan(skill, skill_dir, argv)
        as_root = os.geteuid() == 0
        uid, gid = cfg.run_as if as_root and cfg.run_as is not None else (None, None)
        helper = find_helper(native=cfg.native_helper)
        with self._scratch(uid, gid) as scratch:
            workdir = self._workdir(plan, scratch)
            if uid is not None and gid is not None and workdir.parent == scratch:
                os.chown(workdir, uid, gid)
            private_home = plan.sandbox is not None or uid is not None
            home_dir = scratch / "home"
            if private_home:
                home_dir.mkdir(mode=0o700)
                if uid is not None and gid is not None:
                    os.chown(home_dir, uid, gid)
            env = build_env(
                os.environ,
                skill_name=skill.name,
                skill_dir=str(skill_dir),
                work_dir=str(workdir),
                scratch_dir=str(scratch),
                mode=self.mode,
                extra_allow=cfg.env_allow,
                home=str(home_dir) if private_home else None,
            )
            if uid is not None:
                # The program runs as another user than the files' owner; git would
                # refuse the repository ("dubious ownership"). It runs confined anyway.
                env.update(
                    GIT_CONFIG_COUNT="1",
                    GIT_CONFIG_KEY_0="safe.directory",
                    GIT_CONFIG_VALUE_0="*",
                )
            isolation = self._isolation(plan, workdir=workdir, helper=helper, uid=uid, env=env)
            self._approve(
                skill, plan, kind, target, level, content, str(workdir), isolation, call.approver
            )
            if not os.path.isabs(plan.argv[0]):
                return self._not_found(plan, isolation)
            if uid is not None and gid is not None and plan.sandbox is None:
                check_reachable(skill.name, plan.argv, workdir, uid, gid)
            # Under bubblewrap the PID namespace's init turns a signal death into
            # 128+N; the helper reports the exact status through a pipe.
            status_pipe = os.pipe() if plan.sandbox is not None else None
            full = self._command(
                plan, helper, uid, gid, skill_dir, workdir, scratch,
                status_fd=status_pipe[1] if status_pipe else -1,
            )  # fmt: skip
            try:
                cap = capture(
                    full,
                    cwd=str(workdir),
                    env=env,
                    timeout=plan.timeout,
                    grace=cfg.kill_grace,
                    head=cfg.output_head,
                    tail=cfg.output_tail,
                    sandboxed=plan.sandbox is not None,
                    status_pipe=status_pipe,
                    cancel=call.cancel,
                )
            except OSError as exc:
                if exc.errno == errno.E2BIG:
                    raise InvalidArgumentsError(
                        "the arguments are too long for one command line",
                        skill=skill.name,
                        field="args",
                        hint="pass large inputs in a file or fewer, shorter values",
                    ) from exc
                raise ScriptFailedError(
                    f"cannot start the launch helper: {exc}",
                    skill=skill.name,
                    hint="check that Python and /proc are usable; see skilldeck sandbox status",
                ) from exc
        output, truncated = render_output(cap)
        code = cap.returncode
        if cap.cancelled:
            result = RunResult(
                False, code, output, truncated, cap.duration_ms, None,
                "Cancelled", isolation, cap.total,
            )  # fmt: skip
            raise ScriptFailedError(
                f"'{target}' of skill '{skill.name}' was cancelled; its process tree was killed",
                skill=skill.name,
                reason="cancelled",
                output=output,
                duration_ms=cap.duration_ms,
                result=result,
            )
        if cap.timed_out:
            result = RunResult(
                False, code, output, truncated, cap.duration_ms, None,
                f"Timed out after {plan.timeout:g} s", isolation, cap.total,
            )  # fmt: skip
            raise ScriptTimeoutError(
                f"'{target}' of skill '{skill.name}' timed out after {plan.timeout:g} s; "
                "its whole process tree was killed",
                skill=skill.name,
                hint="raise the skill's timeout (1-300 s) or make the script faster",
                output=output,
                duration_ms=cap.duration_ms,
                result=result,
            )
        error = describe_exit(code)
        return RunResult(
            success=code == 0,
            exit_code=code,
            output=output,
            truncated=truncated,
            duration_ms=cap.duration_ms,
            parsed=parse_json_output(output, truncated),
            error=error,
            isolation=isolation,
            output_bytes=cap.total,
        )

    def _not_found(self, plan: _Plan, isolation: Mapping[str, Any]) -> RunResult:
        return RunResult(
            success=False,
            exit_code=127,
            output=f"{plan.argv[0]}: command not found",
            truncated=False,
            duration_ms=0,
            error=f"Command not found: {plan.argv[0]}",
            isolation=isolation,
        )

    def _command(
        self,
        plan: _Plan,
        helper: Helper,
        uid: int | None,
        gid: int | None,
        skill_dir: Path,
        workdir: Path,
        scratch: Path,
        *,
        status_fd: int = -1,
    ) -> list[str]:
        cfg = self.config
        lim = cfg.limits
        cpu = lim.cpu_seconds
        if cpu is None:
            cpu = math.ceil(plan.timeout + cfg.kill_grace) + 1
        nproc = -1
        if lim.processes is not None:
            nproc = _count_processes(uid if uid is not None else os.getuid()) + lim.processes
        numbers = [
            uid if uid is not None else -1,
            gid if gid is not None else -1,
            int(cfg.kill_grace * 1000),
            cpu,
            lim.memory_bytes if lim.memory_bytes is not None else -1,
            lim.file_size_bytes if lim.file_size_bytes is not None else -1,
            lim.open_files if lim.open_files is not None else -1,
            nproc,
            -1 if lim.core_dumps else 0,
            status_fd,
        ]
        if plan.sandbox is None:
            prefix = list(helper.argv)
        else:
            assert plan.sandbox.path is not None
            extra = {sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent)}
            extra |= {str(Path(plan.argv[0]).resolve().parent)}
            prefix = bwrap_argv(
                plan.sandbox.path,
                as_root=plan.sandbox.as_root,
                network=plan.network,
                skill_dir=str(skill_dir),
                work_dir=str(workdir),
                work_writable=workdir != skill_dir,
                scratch_dir=str(scratch),
                helper_file=helper.path,
                extra_ro=sorted(extra),
            )
            if helper.kind == "native":
                prefix.append(HELPER_MOUNT)
            else:
                prefix += [sys.executable, "-I", "-S", HELPER_MOUNT]
        return [*prefix, "2", "supervise", *(str(n) for n in numbers), "--", *plan.argv]


def _skill_trust(skill: Any) -> Any:
    trust = getattr(skill, "trust", None)
    if trust is None:
        trust = getattr(getattr(skill, "source", None), "trust", None)
    return trust


def _skill_digest_of(skill: Any) -> str | None:
    value = getattr(skill, "digest", None)
    return value if isinstance(value, str) and value.startswith("sha256:") else None
