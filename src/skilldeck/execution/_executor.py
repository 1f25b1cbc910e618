"""The ``Executor``: snapshot the skill, plan the run, ask for approval, run it isolated."""

from __future__ import annotations

import atexit
import contextlib
import errno
import math
import os
import shutil
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path

from skilldeck._errors import (
    ApprovalRequiredError,
    FileNotFoundInSkillError,
    InvalidArgumentsError,
    PathNotAllowedError,
    ScriptFailedError,
    ScriptTimeoutError,
    hint_command,
)
from skilldeck._ownstate import protected_state_fixed
from skilldeck._paths import real
from skilldeck.catalog import Trust
from skilldeck.execution._approvals import FileApprovalStore
from skilldeck.execution._env import build_env
from skilldeck.execution._native import Helper, find_helper, forget_helper_runs
from skilldeck.execution._packages import missing_module_hint
from skilldeck.execution._plan import Plan, hand_over, make_plan, report
from skilldeck.execution._programs import python_roots
from skilldeck.execution._runner import (
    RunResult,
    capture,
    describe_exit,
    parse_json_output,
    render_output,
)
from skilldeck.execution._sandbox import (
    SandboxStatus,
    bwrap_argv,
    forget_usable,
    private_dirs,
    probe_sandbox,
)
from skilldeck.execution._scripts import check_script_args, interpreter_for, resolve_script
from skilldeck.execution._settings import ExecConfig
from skilldeck.execution._snapshot import Snapshot, take_snapshot
from skilldeck.execution._trust import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    coerce_trust,
    decide_approval,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # a script's run needs none of the tool machinery: loaded on use
    from typing import Any

    from skilldeck.execution._types import ApprovalStore, SkillLike
    from skilldeck.format import DeclaredTool

__all__ = ["Executor", "runs_stop_on"]

#: builds (argv, the arguments a person or model gave) once the snapshot exists
_Build = Callable[[Snapshot], tuple[list[str], list[str]]]


#: The event that stops the runs started in this context without a ``cancel`` of
#: their own (``runs_stop_on``).
_STOP: ContextVar[threading.Event | None] = ContextVar("skilldeck_stop_runs", default=None)


@contextlib.contextmanager
def runs_stop_on(event: threading.Event) -> Iterator[None]:
    """Runs started in this context (this thread, or this task) without ``cancel=``
    stop when ``event`` is set, as a run that timed out stops: its process tree is
    killed and its folders removed, and it ends ``SCRIPT_FAILED`` with ``reason:
    cancelled``. What a server does for each request it may cancel, whatever
    ``Executor`` (or subclass) the host gave it.
    """
    token = _STOP.set(event)
    try:
        yield
    finally:
        _STOP.reset(token)


class _Call:
    """What was asked for: a script or a tool, by whom and how it may be stopped (a
    plain slotted class, like a run's plan)."""

    __slots__ = ("approver", "cancel", "kind", "target", "trust")

    def __init__(
        self,
        kind: str,
        target: str,
        trust: Trust | str | None,
        approver: Approver | None,
        cancel: threading.Event | None,
    ) -> None:
        self.kind = kind
        self.target = target
        self.trust = trust
        self.approver = approver
        self.cancel = cancel if cancel is not None else _STOP.get()


def _skill_dir(skill: SkillLike) -> Path | None:
    """The skill's folder on disk (``None`` for a skill kept elsewhere, as in a store)."""
    if getattr(skill, "path", None) is None:
        return None
    path = Path(skill.path)
    if path.name == "SKILL.md" or path.is_file():
        path = path.parent
    return real(path)


def _manifest_flag(skill: SkillLike, name: str, default: Any) -> Any:
    manifest = getattr(skill, "manifest", None)
    value = getattr(manifest, name, default) if manifest is not None else default
    return default if value is None else value


def _own_processes(plan: Plan) -> int:
    """Whether the launch helper makes the run's ``RLIMIT_NPROC`` count only the run
    (its ``OWN`` argument: ``allowed`` processes beyond what the run-as user has).

    The kernel counts a user's processes per user namespace. In the fresh one
    bubblewrap makes for an unprivileged caller the run's user has none yet, and
    the kernel never applies the cap to root staying root: the cap is ``allowed``
    itself. A run that drops from root to another user gets a namespace of its own
    from the helper; otherwise the helper adds the user's current processes.
    Nothing of the host is read here.
    """
    if plan.sandbox is not None and not plan.sandbox.as_root:
        return 0
    if plan.user.uid is None and hasattr(os, "getuid") and os.getuid() == 0:
        return 0
    return 1


def _in_snapshot(
    name: str, skill_dir: Path | None, snap: Snapshot, script: str, found: Path | None = None
) -> Path:
    """The snapshot's copy of ``script`` (checked against the original folder first,
    where there is one; a copy holds exactly the file set, so it can answer alone).
    ``found``: what ``resolve_script`` gave in the original folder before the copy (the
    copy's file set decides what runs either way)."""
    folder = skill_dir if skill_dir is not None else snap.path
    path = found if found is not None else resolve_script(name, folder, script)
    rel = path.relative_to(folder).as_posix()
    if rel not in snap.files:
        raise PathNotAllowedError(
            f"{rel} is not part of skill '{name}''s approved files: hidden files and folders "
            "(names starting with '.'), compiled Python caches (__pycache__, *.pyc) and links "
            "leaving the skill are left out of the skill's digest, so they never run",
            skill=name,
            path=rel,
            hint="move the program to a visible path under scripts/",
        )
    return snap.path / rel


class Executor:
    """Runs bundled scripts and declared command tools under the configured isolation.

    ``config`` defaults to the ``[execution]`` table of the config files
    (``ExecConfig.load()``; a bad value raises ``ConfigError``); ``approvals``
    defaults to the JSON store in skilldeck's data folder; ``approver`` is the
    host's policy callback (``None``: runs that need a yes fail with
    ``APPROVAL_REQUIRED``); ``mode`` is the runtime's current mode,
    passed to programs as ``SKILLDECK_MODE``; ``cwd`` is the current folder the
    ``project`` working folder is found from (default: the process's).
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
        approver: Approver | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Run ``scripts/...`` of ``skill`` with ``args`` (an interpreter picked by kind).

        The run uses a private snapshot of the skill's digested files; approval is
        bound to that snapshot's digest.
        A non-zero exit returns ``success=False``; refusals and timeouts raise.
        ``approver`` overrides the executor's for this call; setting ``cancel``
        stops the run like a timeout (``SCRIPT_FAILED``, ``reason: cancelled``).
        """
        skill_dir = _skill_dir(skill)
        found = None
        if skill_dir is not None:
            found = resolve_script(skill.name, skill_dir, script)  # refused before copying
        checked = check_script_args(args)
        overrides = dict(self.config.interpreters)

        def build(snap: Snapshot) -> tuple[list[str], list[str]]:
            path = _in_snapshot(skill.name, skill_dir, snap, script, found)
            prefix = interpreter_for(skill.name, path, overrides, root=snap.path, files=snap.files)
            return [*prefix, str(path), *checked], checked

        return self._run(skill, skill_dir, build, _Call("script", script, trust, approver, cancel))

    def run_tool(
        self,
        skill: SkillLike,
        tool: DeclaredTool,
        arguments: Mapping[str, Any],
        *,
        trust: Trust | str | None = None,
        approver: Approver | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Run a declared command tool of ``skill`` with JSON ``arguments`` (as ``run_script``)."""
        from skilldeck.execution._interp import render_command

        skill_dir = _skill_dir(skill)
        rendered = render_command(tool, arguments)
        program = rendered[0]
        relative = "/" in program and not program.startswith("/")
        if relative and skill_dir is not None:
            resolve_script(skill.name, skill_dir, program)
        overrides = dict(self.config.interpreters)

        def build(snap: Snapshot) -> tuple[list[str], list[str]]:
            if not relative:
                return list(rendered), rendered[1:]
            path = _in_snapshot(skill.name, skill_dir, snap, program)
            prefix = interpreter_for(skill.name, path, overrides, root=snap.path, files=snap.files)
            argv = [*prefix, str(path), *rendered[1:]]
            return argv, rendered[1:]

        return self._run(skill, skill_dir, build, _Call("tool", tool.name, trust, approver, cancel))

    def run(
        self,
        skill: SkillLike,
        target: str | DeclaredTool,
        args: Sequence[str] = (),
        *,
        arguments: Mapping[str, Any] | Sequence[str] | None = None,
        trust: Trust | str | None = None,
        approver: Approver | None = None,
        cancel: threading.Event | None = None,
    ) -> RunResult:
        """Run ``target`` of ``skill``: a tool its SKILL.md declares (by name, or the
        ``DeclaredTool``) or a script under ``scripts/``, as ``skilldeck run`` does.

        A tool takes ``arguments``: a JSON mapping, or ``KEY=VALUE`` strings as typed
        on a command line (coerced by the tool's parameter types); a script takes
        ``args``. Giving one the other's is ``INVALID_ARGUMENTS``.
        """
        # a path (a '/' or '.' in it) is never a tool's name ([a-z0-9_]{1,32})
        is_name = isinstance(target, str) and "/" not in target and "." not in target
        tools = _declared_tools(skill) if is_name or arguments else {}
        tool = tools.get(target) if isinstance(target, str) else target
        options: dict[str, Any] = {"trust": trust, "approver": approver, "cancel": cancel}
        if tool is not None:
            if args:
                raise InvalidArgumentsError(
                    f"tool '{tool.name}' takes arguments by name, not positional arguments",
                    field="args",
                    hint=f"e.g. {hint_command('run', skill.name, tool.name)} --arg KEY=VALUE",
                )
            given = arguments if arguments is not None else {}
            if not isinstance(given, Mapping):
                from skilldeck.execution._interp import coerce_cli_arguments

                given = coerce_cli_arguments(tool, given)
            return self.run_tool(skill, tool, given, **options)
        assert isinstance(target, str)
        if arguments:
            names = ", ".join(tools) or "none"
            raise InvalidArgumentsError(
                f"{target!r} is not a declared tool of '{skill.name}' (tools: {names}); "
                "named arguments only apply to tools",
                field="arg",
                hint="pass script arguments after --",
            )
        try:
            return self.run_script(skill, target, list(args), **options)
        except FileNotFoundInSkillError as exc:
            tools = tools or _declared_tools(skill)
            if tools:
                exc.hint = f"its declared tools: {', '.join(tools)}; " + (exc.hint or "")
            raise

    def preview_tool(self, tool: DeclaredTool, arguments: Mapping[str, Any]) -> list[str]:
        """The argv a call would run (arguments validated), without running anything."""
        from skilldeck.execution._interp import render_command

        return render_command(tool, arguments)

    # ---------------------------------------------------------------- approval

    def _approve(
        self,
        skill: SkillLike,
        plan: Plan,
        call: _Call,
        trust: Trust,
        isolation: Mapping[str, Any],
        skill_dir: Path | None,
    ) -> bool:
        """Decide the run (raises when it may not run); True when an approver was asked."""
        digest = plan.snapshot.digest
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
            return False
        ask = call.approver if call.approver is not None else self.approver
        answer = ask(self._request(skill, plan, call, trust, isolation, decision)) if ask else None
        if answer is None:  # nobody to ask: a stored approval stands in where it may
            if decision.stored_fallback:
                return False
            hints = {
                "always_ask": "this skill sets always_ask: run it where someone can approve "
                "each run (an interactive skilldeck run, or a host with an approval callback)",
                "changed": "the skill changed since it was approved; review it, then run: "
                + hint_command("approve", skill.name),
            }
            raise ApprovalRequiredError(
                f"running '{skill.name}' needs approval ({decision.reason.replace('_', ' ')})",
                skill=skill.name,
                reason=decision.reason,
                hint=hints.get(
                    decision.reason,
                    f"review the skill, then run: {hint_command('approve', skill.name)}",
                ),
            )
        if not answer:
            raise ApprovalRequiredError(
                f"running '{skill.name}' was not approved",
                skill=skill.name,
                reason="denied",
                hint=f"to allow it without asking, run: {hint_command('approve', skill.name)}",
            )
        if decision.persist:
            folder = str(skill_dir) if skill_dir is not None else None
            self.approvals.grant(skill.name, digest, trust=trust.value, path=folder)
        return True

    @staticmethod
    def _request(
        skill: SkillLike,
        plan: Plan,
        call: _Call,
        trust: Trust,
        isolation: Mapping[str, Any],
        decision: ApprovalDecision,
    ) -> ApprovalRequest:
        description = getattr(getattr(skill, "manifest", None), "description", None)
        return ApprovalRequest(
            skill=skill.name,
            description=description if isinstance(description, str) else None,
            trust=trust,
            digest=plan.snapshot.digest,
            kind=call.kind,
            target=call.target,
            argv=tuple(plan.argv),
            workdir=str(plan.workdir),
            isolation=isolation,
            reason=decision.reason,
            persist=decision.persist,
            warning=(
                "This skill comes from an untrusted source and can run arbitrary code."
                if trust is Trust.UNTRUSTED
                else None
            ),
        )

    # ---------------------------------------------------------------- running

    def _copy(self, skill: SkillLike, skill_dir: Path | None) -> Snapshot:
        """The run's private copy of the skill's file set, hashed once while it is
        written: its digest is what approval is decided on."""
        if skill_dir is not None:
            return take_snapshot(skill.name, skill_dir)
        dest = Path(tempfile.mkdtemp(prefix="skilldeck-skill-"))
        try:
            os.chmod(dest, 0o755)  # noqa: S103  (an unprivileged run-as user must read it)
            digest, files = self._write_copy(skill, dest)
            for folder, _, _ in os.walk(dest):  # whatever the umask: the run-as user reads
                os.chmod(folder, 0o755)  # noqa: S103
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
        return Snapshot(dest, digest, frozenset(files))

    def _write_copy(self, skill: SkillLike, dest: Path) -> tuple[str, Collection[str]]:
        """Write a skill that has no folder on disk into ``dest`` (new, empty), checking
        each file's digest as it is written; return the skill's digest and its files.

        For an ``Executor`` whose skills live elsewhere (a database); this one has none.
        """
        raise ScriptFailedError(
            f"skill '{skill.name}' has no folder on disk, so it has nothing to run",
            skill=skill.name,
            hint="only skills stored as folders can run scripts or declared tools",
        )

    def _run(
        self, skill: SkillLike, skill_dir: Path | None, build: _Build, call: _Call
    ) -> RunResult:
        level = coerce_trust(call.trust if call.trust is not None else _skill_trust(skill))
        snap = self._copy(skill, skill_dir)
        scratch: Path | None = None
        try:
            argv, user_args = build(snap)
            scratch = Path(tempfile.mkdtemp(prefix="skilldeck-run-"))
            # the plan and the sandbox's arguments see one list of the protected state
            with protected_state_fixed():
                return self._run_planned(
                    skill, skill_dir, snap, argv, user_args, scratch, call, level
                )
        finally:
            _remove_later(snap, scratch)

    def _run_planned(
        self,
        skill: SkillLike,
        skill_dir: Path | None,
        snap: Snapshot,
        argv: list[str],
        user_args: list[str],
        scratch: Path,
        call: _Call,
        level: Trust,
    ) -> RunResult:
        cfg = self.config
        helper = find_helper(native=cfg.native_helper)
        plan = make_plan(
            cfg,
            skill=skill.name,
            snapshot=snap,
            argv=argv,
            user_args=user_args,
            timeout=cfg.timeout_for(_manifest_flag(skill, "timeout", None)),
            network_requested=bool(_manifest_flag(skill, "network", False)),
            scratch=scratch,
            cwd=self.cwd,
            env=os.environ,
            helper_roots=python_roots() if helper.kind == "python" else (),
        )
        hand_over(plan, scratch)
        uid = plan.user.uid
        home_dir = scratch / "home"
        env = build_env(
            os.environ,
            skill_name=skill.name,
            skill_dir=str(snap.path),
            work_dir=str(plan.workdir),
            scratch_dir=str(scratch),
            mode=self.mode,
            extra_allow=cfg.env_allow,
            home=str(home_dir) if plan.private_home else None,
        )
        if plan.program is not None and plan.program.shim is not None:
            # what the shim chose comes first, for the program's own children too
            env["PATH"] = str(Path(plan.program.path).parent) + os.pathsep + env["PATH"]
        if uid is not None:
            # The program runs as another user than the files' owner; git would
            # refuse the repository ("dubious ownership"). It runs confined anyway.
            env.update(
                GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="safe.directory", GIT_CONFIG_VALUE_0="*"
            )
        isolation = report(plan, cfg, helper=helper.kind, env=env, requested_mode=cfg.sandbox)
        asked = self._approve(skill, plan, call, level, isolation, skill_dir)
        if plan.program is None:
            return self._not_found(plan, isolation)
        # the copy was hashed as it was written; while someone was asked, time passed:
        # hash it again, so what runs is still what they saw
        if asked and not snap.verify():
            raise ApprovalRequiredError(
                f"the private copy of '{skill.name}' changed before it could run; nothing ran",
                skill=skill.name,
                reason="changed",
                hint="run it again",
            )
        # Under bubblewrap the PID namespace's init turns a signal death into
        # 128+N; the helper reports the exact status through a pipe.
        status_pipe = os.pipe() if plan.sandboxed else None
        full = self._command(plan, helper, scratch, status_fd=status_pipe[1] if status_pipe else -1)
        try:
            cap = capture(
                full,
                cwd=str(plan.workdir),
                env=env,
                timeout=plan.timeout,
                grace=cfg.kill_grace,
                head=cfg.output_head,
                tail=cfg.output_tail,
                sandboxed=plan.sandboxed,
                portable=not plan.linux,
                status_pipe=status_pipe,
                cancel=call.cancel,
                pass_fds=helper.pass_fds,
            )
        except OSError as exc:
            if helper.kind == "native":
                forget_helper_runs()  # checked in an earlier process, maybe no longer true
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
        if plan.sandboxed and cap.returncode == 1 and cap.head.startswith(b"bwrap: "):
            # bubblewrap itself failed, or could not start the helper (both may be
            # remembered from an earlier process): the next run probes them again
            forget_usable()
            forget_helper_runs()
        return self._result(skill.name, call.target, plan, cap, isolation)

    def _result(
        self, name: str, target: str, plan: Plan, cap: Any, isolation: Mapping[str, Any]
    ) -> RunResult:
        output, truncated = render_output(cap)
        code = cap.returncode
        if cap.cancelled:
            result = RunResult(
                False, code, output, truncated, cap.duration_ms, None,
                "Cancelled", isolation, cap.total,
            )  # fmt: skip
            raise ScriptFailedError(
                f"'{target}' of skill '{name}' was cancelled; its process tree was killed",
                skill=name,
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
                f"'{target}' of skill '{name}' timed out after {plan.timeout:g} s; "
                "its whole process tree was killed",
                skill=name,
                hint="raise the skill's timeout (1-300 s) or make the script faster",
                output=output,
                duration_ms=cap.duration_ms,
                result=result,
            )
        hint = None
        if code != 0:
            from skilldeck.execution._mounts import failure_hint

            visible = [str(plan.workdir), str(plan.snapshot.path), *(m.path for m in plan.binds)]
            hint = failure_hint(
                output,
                args=plan.user_args,
                workdir=plan.workdir,
                user_cwd=plan.user_cwd,
                hidden=private_dirs(plan.network),
                visible=visible,
                sandboxed=plan.sandboxed,
            ) or missing_module_hint(output, plan.skill, _script_of(plan))
        return RunResult(
            success=code == 0,
            exit_code=code,
            output=output,
            truncated=truncated,
            duration_ms=cap.duration_ms,
            parsed=parse_json_output(output, truncated),
            error=describe_exit(code),
            isolation=isolation,
            output_bytes=cap.total,
            hint=hint,
        )

    def _not_found(self, plan: Plan, isolation: Mapping[str, Any]) -> RunResult:
        return RunResult(
            success=False,
            exit_code=127,
            output=f"{plan.argv[0]}: command not found",
            truncated=False,
            duration_ms=0,
            error=f"Command not found: {plan.argv[0]}",
            isolation=isolation,
            hint=f"install {plan.argv[0]}, or check PATH (programs are looked up on its "
            "absolute entries)",
        )

    def _command(
        self, plan: Plan, helper: Helper, scratch: Path, *, status_fd: int = -1
    ) -> list[str]:
        cfg = self.config
        lim = cfg.limits
        uid, gid = plan.user.uid, plan.user.gid
        cpu = lim.cpu_seconds
        if cpu is None:
            cpu = math.ceil(plan.timeout + cfg.kill_grace) + 1
        nproc, own = -1, 0
        if lim.processes is not None and plan.linux:
            nproc, own = lim.processes, _own_processes(plan)
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
            own,
        ]
        mode = "supervise" if plan.linux else "portable"
        prefix: list[str] = []
        if plan.sandbox is not None:
            assert plan.sandbox.path is not None
            prefix = bwrap_argv(
                plan.sandbox.path,
                as_root=plan.sandbox.as_root,
                network=plan.network,
                skill_dir=str(plan.snapshot.path),
                work_dir=str(plan.workdir),
                work_writable=plan.workdir != plan.snapshot.path,
                scratch_dir=str(scratch),
                extra_ro=sorted({*plan.roots, *plan.helper_roots}),
                binds=[(m.path, m.writable) for m in plan.binds],
            )
        prefix += helper.argv
        return [*prefix, "3", mode, *(str(n) for n in numbers), "--", *plan.argv]


def _remove_later(snap: Snapshot, scratch: Path | None) -> None:
    """Delete a run's folders off the result's path, in the one remover thread.

    Nothing of the run is alive by then; deleting folders costs milliseconds on a
    busy disk, which the caller need not wait for. The process's exit waits for
    every folder handed over (see ``_Remover``).
    """
    _REMOVER.put((snap.path, snap.files, scratch))


class _Remover:
    """One thread that deletes runs' folders, started on first use: a thread of its
    own per run cost about 0.1 ms of CPU to start. It is a daemon so that an idle one
    never holds the process open; the exit waits (``atexit``) until every folder
    handed to it is gone. A forked child starts with none pending and its own thread.
    It ends after ``_IDLE_SECONDS`` without work.
    (A deque and a condition: ``queue`` would be one more module for every run to import.)"""

    def __init__(self) -> None:
        self._reset()
        atexit.register(self._drain)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._jobs: deque[tuple[Path, Collection[str], Path | None]] = deque()
        self._pending = 0  # handed over and not yet removed
        self._thread: threading.Thread | None = None

    def put(self, job: tuple[Path, Collection[str], Path | None]) -> None:
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="skilldeck-rm", daemon=True)
                self._thread.start()
            self._jobs.append(job)
            self._pending += 1
            self._cond.notify_all()

    def _drain(self) -> None:
        with self._cond:
            while self._pending and self._thread is not None and self._thread.is_alive():
                self._cond.wait(0.5)

    def _work(self) -> None:
        cond, jobs = self._cond, self._jobs
        while True:
            with cond:
                if not cond.wait_for(lambda: jobs, _IDLE_SECONDS):
                    # idle: end, so a process that ran scripts is one thread again (the
                    # catalog's parse pool forks only then); the next run starts another
                    if self._thread is threading.current_thread():
                        self._thread = None
                    return
                path, files, scratch = jobs.popleft()
            try:
                _remove(path, files)
                if scratch is not None:
                    _remove(scratch, (), ("work", "home"))
            finally:
                with cond:
                    self._pending -= 1
                    cond.notify_all()


_IDLE_SECONDS = 1.0
_REMOVER = _Remover()


_DIR_FLAGS = (
    os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
)
_BY_FD = {os.open, os.unlink, os.rmdir} <= os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")


def _remove(path: Path, files: Collection[str], folders: Collection[str] = ()) -> None:
    """Delete ``path``, a folder a run was given, as it was made: the ``files`` (relative,
    ``/``-separated) and folders holding them, and the ``folders`` if they are there.

    Each is removed through a descriptor of the folder holding it, opened without
    following links (as ``shutil.rmtree`` does, without listing and ``stat``-ing every
    entry first); whatever else is there now (a program writes into its folders, may
    replace one by a link) leaves the rest to ``shutil.rmtree``.
    """
    if not _BY_FD:
        shutil.rmtree(path, ignore_errors=True)
        return
    names: dict[str, list[str]] = {}  # each folder's files
    subs: dict[str, set[str]] = {}  # each folder's folders
    for rel in files:
        folder, _, name = rel.rpartition("/")
        names.setdefault(folder, []).append(name)
        while folder:
            parent, _, sub = folder.rpartition("/")
            subs.setdefault(parent, set()).add(sub)
            folder = parent
    optional = set(folders) - subs.get("", set())

    def empty(fd: int, rel: str) -> None:
        for name in names.get(rel, ()):
            os.unlink(name, dir_fd=fd)
        for sub in (*subs.get(rel, ()), *(optional if not rel else ())):
            try:
                inner = os.open(sub, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if sub in optional:
                    continue  # a folder this run did not need
                raise
            try:
                empty(inner, f"{rel}/{sub}" if rel else sub)
            finally:
                os.close(inner)
            os.rmdir(sub, dir_fd=fd)

    try:
        top = os.open(path, _DIR_FLAGS)
        try:
            empty(top, "")
        finally:
            os.close(top)
        os.rmdir(path)
    except OSError:
        shutil.rmtree(path, ignore_errors=True)


def _declared_tools(skill: SkillLike) -> dict[str, DeclaredTool]:
    """The command tools ``skill``'s SKILL.md body declares, by name (none without a body)."""
    body = getattr(skill, "body", None)
    if not isinstance(body, str):
        return {}
    from skilldeck.format import parse_declared_tools

    md = getattr(skill, "skill_md", None)
    tools, _ = parse_declared_tools(
        body, path=str(md) if md else None, body_line=getattr(skill, "body_line", 1)
    )
    return {t.name: t for t in tools}


def _skill_trust(skill: Any) -> Any:
    trust = getattr(skill, "trust", None)
    if trust is None:
        trust = getattr(getattr(skill, "source", None), "trust", None)
    return trust


def _script_of(plan: Plan) -> str | None:
    """The skill-relative path of the script a run started, if it ran one of the skill's."""
    root = str(plan.snapshot.path) + os.sep
    for arg in plan.argv[:4]:
        if arg.startswith(root):
            return arg[len(root) :]
    return None
