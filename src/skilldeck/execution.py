"""Running skill scripts and declared commands: executor, approvals, limits, sandbox.

A public facade: every name here is defined in a private module of skilldeck.
"""

from __future__ import annotations

from skilldeck._exec import (
    Approval as Approval,
)
from skilldeck._exec import (
    ApprovalRequest as ApprovalRequest,
)
from skilldeck._exec import (
    ApprovalStore as ApprovalStore,
)
from skilldeck._exec import (
    Approver as Approver,
)
from skilldeck._exec import (
    ExecConfig as ExecConfig,
)
from skilldeck._exec import (
    ExecStatus as ExecStatus,
)
from skilldeck._exec import (
    Executor as Executor,
)
from skilldeck._exec import (
    FileApprovalStore as FileApprovalStore,
)
from skilldeck._exec import (
    Limits as Limits,
)
from skilldeck._exec import (
    MemoryApprovalStore as MemoryApprovalStore,
)
from skilldeck._exec import (
    PackageSet as PackageSet,
)
from skilldeck._exec import (
    RunResult as RunResult,
)
from skilldeck._exec import (
    SandboxStatus as SandboxStatus,
)
from skilldeck._exec import (
    coerce_cli_arguments as coerce_cli_arguments,
)
from skilldeck._exec import (
    execution_status as execution_status,
)
from skilldeck._exec import (
    install_packages as install_packages,
)
from skilldeck._exec import (
    packages_report as packages_report,
)
from skilldeck._exec import (
    parse_mount as parse_mount,
)
from skilldeck._exec import (
    parse_run_as as parse_run_as,
)
from skilldeck._exec import (
    probe_sandbox as probe_sandbox,
)
from skilldeck._exec import (
    render_command as render_command,
)
from skilldeck._exec import (
    skill_visible_in_mode as skill_visible_in_mode,
)

__all__ = [
    "Approval",
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
    "coerce_cli_arguments",
    "execution_status",
    "install_packages",
    "packages_report",
    "parse_mount",
    "parse_run_as",
    "probe_sandbox",
    "render_command",
    "skill_visible_in_mode",
]
