"""Running skill scripts and declared commands: executor, approvals, limits, sandbox.

- ``Executor(config, approvals=..., approver=..., mode=...)`` with
  ``run_script(skill, script, args)`` and ``run_tool(skill, tool, arguments)``
  returning a frozen ``RunResult`` (``to_dict()`` = ``{success, exit_code, output,
  truncated, duration_ms, parsed, error, isolation}``); ``runs_stop_on(event)``
  stops the runs started in its context when ``event`` is set;
- ``ExecConfig`` (the ``[execution]`` config table) and ``Limits``;
- approvals bound to content digests (``FileApprovalStore``, ``MemoryApprovalStore``,
  the ``ApprovalStore`` protocol), the ``ApprovalRequest`` a host's approver sees;
- ``coerce_trust`` (levels are the catalog's ``Trust``), ``decide_approval``,
  ``skill_visible_in_mode``;
- ``probe_sandbox`` / ``SandboxStatus`` for the bubblewrap backend;
- ``render_command`` / ``coerce_cli_arguments`` for declared-tool interpolation.

How a run is isolated is documented in ``docs/execution.md``.

The package's facade (``skilldeck._facade``): names load on first use.
"""

from skilldeck._facade import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from skilldeck.execution._approvals import (
        Approval as Approval,
        FileApprovalStore as FileApprovalStore,
        MemoryApprovalStore as MemoryApprovalStore,
        revoke_lapsed as revoke_lapsed,
    )
    from skilldeck.execution._executor import Executor as Executor, runs_stop_on as runs_stop_on
    from skilldeck.execution._interp import (
        check_arguments as check_arguments,
        coerce_cli_arguments as coerce_cli_arguments,
        render_command as render_command,
    )
    from skilldeck.execution._mounts import parse_mount as parse_mount
    from skilldeck.execution._packages import (
        PackageSet as PackageSet,
        install_packages as install_packages,
        packages_report as packages_report,
        skill_package_sets as skill_package_sets,
    )
    from skilldeck.execution._runner import RunResult as RunResult
    from skilldeck.execution._sandbox import (
        SandboxStatus as SandboxStatus,
        probe_sandbox as probe_sandbox,
    )
    from skilldeck.execution._settings import (
        ExecConfig as ExecConfig,
        Limits as Limits,
        parse_run_as as parse_run_as,
    )
    from skilldeck.execution._status import (
        ExecStatus as ExecStatus,
        execution_status as execution_status,
    )
    from skilldeck.execution._trust import (
        ApprovalDecision as ApprovalDecision,
        ApprovalRequest as ApprovalRequest,
        Approver as Approver,
        coerce_trust as coerce_trust,
        decide_approval as decide_approval,
        skill_visible_in_mode as skill_visible_in_mode,
    )
    from skilldeck.execution._types import ApprovalStore as ApprovalStore, SkillLike as SkillLike
else:
    # public name -> the module defining it (relative: this package)
    _PUBLIC = {
        "Approval": "._approvals",
        "ApprovalStore": "._types",
        "FileApprovalStore": "._approvals",
        "MemoryApprovalStore": "._approvals",
        "Executor": "._executor",
        "runs_stop_on": "._executor",
        "coerce_cli_arguments": "._interp",
        "render_command": "._interp",
        "parse_mount": "._mounts",
        "PackageSet": "._packages",
        "install_packages": "._packages",
        "packages_report": "._packages",
        "RunResult": "._runner",
        "SandboxStatus": "._sandbox",
        "probe_sandbox": "._sandbox",
        "ExecConfig": "._settings",
        "Limits": "._settings",
        "parse_run_as": "._settings",
        "ExecStatus": "._status",
        "execution_status": "._status",
        "ApprovalRequest": "._trust",
        "Approver": "._trust",
        "skill_visible_in_mode": "._trust",
    }
    # names skilldeck's other packages use, outside the public surface
    _INTERNAL = {
        "revoke_lapsed": "._approvals",
        "skill_package_sets": "._packages",
        "SkillLike": "._types",
        "check_arguments": "._interp",
        "ApprovalDecision": "._trust",
        "coerce_trust": "._trust",
        "decide_approval": "._trust",
    }
    lazy(__name__, globals(), _PUBLIC, _INTERNAL)
