"""What ``skilldeck run`` would do on this machine, and how to improve it.

``execution_status`` is shared by ``skilldeck sandbox status`` and ``skilldeck
doctor``: the isolation a run gets (bubblewrap or why not), the user programs run
as (and, as root, whether ``nobody`` can reach each configured interpreter), the
working folder from here, the launch helper, and findings whose hints are
commands that work as written.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skilldeck._errors import SkillError
from skilldeck.execution._access import Need, blocked_for, nobody, rx
from skilldeck.execution._native import Helper, find_helper
from skilldeck.execution._plan import Plan, bwrap_install, preview
from skilldeck.execution._platform import linux_layers, platform_note
from skilldeck.execution._programs import find_program, python_roots
from skilldeck.execution._sandbox import SandboxStatus, probe_sandbox
from skilldeck.execution._settings import ExecConfig

__all__ = ["ExecFinding", "ExecStatus", "execution_status"]

_KINDS = ("python", "sh", "bash", "node", "ruby", "perl")


@dataclass(frozen=True, slots=True)
class ExecFinding:
    """One thing to know or fix: ``level`` is ``error`` (runs are refused) or ``warning``."""

    level: str
    message: str
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "message": self.message, "hint": self.hint}


@dataclass(frozen=True, slots=True)
class ExecStatus:
    """The diagnosis; ``to_dict()`` for JSON, ``lines()`` for people."""

    sandbox: SandboxStatus
    mode: str
    effective: str
    layers: str
    helper: str
    user: str
    user_reason: str | None
    workdir: str
    workdir_mode: str
    network_grant: bool
    interpreters: list[dict[str, Any]] = field(default_factory=list)
    findings: list[ExecFinding] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.level == "error")

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.sandbox.to_dict(),
            "mode": self.mode,
            "effective": self.effective,
            "layers": self.layers,
            "platform": platform_note(),
            "helper": self.helper,
            "user": self.user,
            "user_reason": self.user_reason,
            "workdir": self.workdir,
            "workdir_mode": self.workdir_mode,
            "network_grant": self.network_grant,
            "interpreters": self.interpreters,
            "findings": [f.to_dict() for f in self.findings],
        }

    def lines(self) -> list[str]:
        sb = self.sandbox
        out = [f"{'✓' if sb.available else '✗'} bubblewrap: "
               f"{'available' if sb.available else sb.reason}"]  # fmt: skip
        if sb.path:
            out.append(f"  path: {sb.path} (version {sb.version or 'unknown'})")
        out.append(f"  mode: {self.mode} -> {self.effective}")
        note = platform_note()
        out.append(f"  layers: {self.layers}" + (f" ({note})" if note else ""))
        out.append(f"  launch helper: {self.helper}")
        out.append(f"  programs run as: {self.user}")
        if self.user_reason:
            out.append(f"    ({self.user_reason})")
        out.append(f"  working folder from here: {self.workdir} ({self.workdir_mode})")
        grant = "granted" if self.network_grant else "denied"
        out.append(f"  network for skills that ask: {grant}")
        for item in self.interpreters:
            where = item["program"] or "not found"
            via = f" (via {item['shim']})" if item.get("shim") else ""
            state = "" if item.get("reachable", True) else f"; {item['reachable_note']}"
            out.append(f"  {item['kind']}: {where}{via}{state}")
        for f in self.findings:
            out.append(f"{'✗' if f.level == 'error' else '!'} {f.message}")
            if f.hint:
                out.append(f"  fix: {f.hint}")
        return out


def _interpreter(
    kind: str, cfg: ExecConfig, as_root: bool, sandboxed: bool, cwd: str
) -> dict[str, Any]:
    chosen = cfg.interpreter(kind)
    if kind == "python" and chosen is None:
        name = sys.executable
    elif kind == "sh" and chosen is None:
        name = "/bin/sh"
    else:
        name = chosen or kind
    prog = find_program(name, env_path=os.environ.get("PATH"), cwd=cwd, env=os.environ)
    item: dict[str, Any] = {
        "kind": kind,
        "configured": chosen,
        "program": prog.path if prog else None,
        "shim": prog.shim if prog else None,
        "reachable": True,
    }
    if prog is None or not as_root or cfg.run_as is None:
        return item
    uid, gid = nobody() if not isinstance(cfg.run_as, tuple) else cfg.run_as
    roots = list(prog.roots) + (list(python_roots()) if prog.path == sys.executable else [])
    for root in roots:
        need = Need(Path(root), rx(root), "interpreter's folder", Path(root) if sandboxed else None)
        blocked = blocked_for(need.path, uid, gid, need.want, need.start)
        if blocked is not None:
            item["reachable"] = False
            item["blocked"] = str(blocked)
            item["reachable_note"] = f"uid {uid} cannot reach {blocked}"
            break
    return item


def execution_status(
    config: ExecConfig | None = None, *, cwd: str | os.PathLike[str] | None = None
) -> ExecStatus:
    """Diagnose execution on this machine with ``config`` (default: the config files)."""
    cfg = config if config is not None else ExecConfig.load(cwd=cwd)
    status = probe_sandbox(cfg.bwrap_path, refresh=True)
    findings: list[ExecFinding] = []
    sandboxed = status.available and cfg.sandbox != "none"
    if sandboxed:
        effective = "bubblewrap"
    elif cfg.sandbox == "strict":
        effective = "refuses to run"
        findings.append(
            ExecFinding(
                "error",
                f'sandbox = "strict" but bubblewrap is unavailable ({status.reason}): '
                "every run is refused",
                bwrap_install() if linux_layers() else "skilldeck run NAME TARGET --sandbox auto",
            )
        )
    else:
        effective = "none (environment scrub, limits, process-group kill)"
        if cfg.sandbox == "auto":
            findings.append(
                ExecFinding(
                    "warning",
                    f"runs have no filesystem or network isolation: {status.reason}",
                    bwrap_install() if linux_layers() and status.path is None else None,
                )
            )
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    here = Path(cwd) if cwd is not None else None
    interpreters = [
        _interpreter(k, cfg, as_root, sandboxed, str(here or Path.cwd())) for k in _KINDS
    ]
    helper: Helper | None = None
    try:
        helper = find_helper(native=cfg.native_helper)
    except SkillError as exc:
        findings.append(
            ExecFinding("error", f"runs are refused: {exc.message} [{exc.code}]", exc.hint)
        )
    plan: Plan | None = None
    if effective != "refuses to run" and helper is not None:
        try:
            roots = python_roots() if helper.kind == "python" else ()
            plan = preview(cfg, cwd=here, helper_roots=roots)
        except SkillError as exc:
            findings.append(
                ExecFinding(
                    "error", f"runs from here are refused: {exc.message} [{exc.code}]", exc.hint
                )
            )
    user, reason, workdir, wmode = "(no run)", None, "(no run)", "runs are refused"
    if plan is not None:
        user, reason = plan.user.label, plan.user.reason
        workdir, wmode = str(plan.workdir), plan.workdir_mode
        if plan.workdir.parent.name.startswith("skilldeck-run-"):
            workdir = "a fresh empty folder"
        if as_root and plan.user.uid is None and cfg.run_as == "auto":
            findings.append(_root_finding(plan, cfg, sandboxed, status))
    helper_kind = helper.kind if helper is not None else "refused (see below)"
    if helper_kind == "python" and cfg.native_helper and linux_layers():
        has_cc = any(shutil.which(c) for c in ("cc", "gcc", "clang"))
        findings.append(
            ExecFinding(
                "warning",
                "the launch helper is the slower Python one"
                + ("" if has_cc else ": no C compiler found"),
                None if has_cc else "apt-get install gcc libc6-dev",
            )
        )
    note = platform_note()
    if note is not None:
        findings.append(ExecFinding("warning", f"portable layers only: {note}"))
    return ExecStatus(
        sandbox=status,
        mode=cfg.sandbox,
        effective=effective,
        layers="linux" if linux_layers() else "portable",
        helper=helper_kind,
        user=user,
        user_reason=reason,
        workdir=workdir,
        workdir_mode=wmode,
        network_grant=cfg.network,
        interpreters=interpreters,
        findings=findings,
    )


def _root_finding(
    plan: Plan, cfg: ExecConfig, sandboxed: bool, status: SandboxStatus
) -> ExecFinding:
    """A run from here would keep uid 0 (without capabilities): say why and how to avoid it."""
    blocked = plan.user.blocked or "a folder"
    python = shutil.which("python3", path="/usr/bin:/bin") or "/usr/bin/python3"
    return ExecFinding(
        "warning",
        f"{plan.user.reason}: programs run as root without capabilities"
        + (
            ""
            if sandboxed
            else "; they can still read and change every file root owns, its home and "
            "skilldeck's approvals and settings included"
        ),
        (
            f"{bwrap_install()}, or choose a Python it can reach: "
            f'[execution.interpreters] python = "{python}"'
        )
        if status.path is None and linux_layers()
        else f"chmod o+x {shlex.quote(blocked)}",
    )
