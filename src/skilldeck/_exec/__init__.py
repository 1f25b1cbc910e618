"""Execution: bundled scripts and Markdown-declared command tools, run safely.

- ``Executor(config, approvals=..., approver=..., mode=...)`` with
  ``run_script(skill, script, args)`` and ``run_tool(skill, tool, arguments)``
  returning a frozen ``RunResult`` (``to_dict()`` = ``{success, exit_code, output,
  truncated, duration_ms, parsed, error, isolation}``);
- ``ExecConfig`` (the ``[execution]`` config table) and ``Limits``;
- approvals bound to content digests (``FileApprovalStore``, ``MemoryApprovalStore``,
  the ``ApprovalStore`` protocol), the ``ApprovalRequest`` a host's approver sees;
- ``coerce_trust`` (levels are the catalog's ``Trust``), ``decide_approval``,
  ``skill_visible_in_mode``;
- ``probe_sandbox`` / ``SandboxStatus`` for the bubblewrap backend;
- ``render_command`` / ``coerce_cli_arguments`` for declared-tool interpolation.

How a run is isolated is documented in ``docs/execution.md``.
"""

from skilldeck._exec._approvals import (
    Approval,
    ApprovalStore,
    FileApprovalStore,
    MemoryApprovalStore,
    revoke_lapsed,
)
from skilldeck._exec._executor import Executor, SkillLike
from skilldeck._exec._interp import check_arguments, coerce_cli_arguments, render_command
from skilldeck._exec._mounts import parse_mount
from skilldeck._exec._packages import PackageSet, install_packages, packages_report
from skilldeck._exec._runner import RunResult
from skilldeck._exec._sandbox import SandboxStatus, probe_sandbox
from skilldeck._exec._settings import ExecConfig, Limits, parse_run_as
from skilldeck._exec._status import ExecStatus, execution_status
from skilldeck._exec._trust import (
    ApprovalDecision,
    ApprovalRequest,
    Approver,
    coerce_trust,
    decide_approval,
    skill_visible_in_mode,
)

__all__ = [
    "Approval",
    "ApprovalDecision",
    "ApprovalRequest",
    "ApprovalStore",
    "Approver",
    "ExecConfig",
    "ExecStatus",
    "Executor",
    "FileApprovalStore",
    "Limits",
    "MemoryApprovalStore",
    "PackageSet",
    "RunResult",
    "SandboxStatus",
    "SkillLike",
    "check_arguments",
    "coerce_cli_arguments",
    "coerce_trust",
    "decide_approval",
    "execution_status",
    "install_packages",
    "packages_report",
    "parse_mount",
    "parse_run_as",
    "probe_sandbox",
    "render_command",
    "revoke_lapsed",
    "skill_visible_in_mode",
]
