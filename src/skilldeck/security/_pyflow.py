# ruff: noqa: E501
"""What a Python script does with what it downloads, decodes or gathers (``ast``).

Names are followed through assignments within the module, flow-insensitively (a
name is tainted if any assignment to it is): a download that reaches ``exec`` or a
shell three lines later, a file written from a download and then run, the whole
environment or a credential file handed to a network call, a hostname built from
data and looked up (DNS exfiltration), ``getattr(builtins, …)`` with a computed name.
Which kinds of data reach a name is the taint model of ``_pytaint``; this module
holds the sinks and the findings.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from skilldeck.security._pytaint import (
    DECODED,
    FETCH_ROOTS,
    NET,
    SECRET,
    TaintModel,
    dotted_name,
    strings_in,
)
from skilldeck.security._rules import DECODE_EXEC, DOWNLOAD_EXEC, LEAK, PERSIST, REVERSE_SHELL

__all__ = ["PyFinding", "python_findings"]

_EXEC_CALLS = {"exec", "eval", "compile", "execfile", "run_path", "run_module"}
_SHELL_CALLS = {
    "system",
    "popen",
    "run",
    "call",
    "check_call",
    "check_output",
    "Popen",
    "spawn",
    "execv",
    "execve",
    "execvp",
    "execl",
    "startfile",
    "getoutput",
    "getstatusoutput",
}
_DESERIAL = {"loads", "load"}
_NET_SINKS = {
    "post",
    "put",
    "patch",
    "request",
    "urlopen",
    "send",
    "sendall",
    "sendto",
    "sendmail",
    "send_message",
    "upload",
    "Request",
    "get",
    "create_connection",
    "connect",
    "storbinary",
    "storlines",
}
_DNS = {"gethostbyname", "gethostbyname_ex", "getaddrinfo", "resolve", "query", "nslookup"}


@dataclass(frozen=True, slots=True)
class PyFinding:
    code: str
    line: int  # 1-based
    column: int  # 1-based
    message: str


def _runs_tainted(name: str, kinds: set[str], where: tuple[int, int]) -> list[PyFinding]:
    """What a call that runs code or a command is found doing with its arguments'
    taint: running a download, or running decoded text (at most one finding)."""
    if NET in kinds:
        return [PyFinding(DOWNLOAD_EXEC, *where, f"runs what it downloads: {name}() of a download")]
    if DECODED in kinds:
        return [
            PyFinding(
                DECODE_EXEC, *where, f"decodes text and executes it: {name}() of decoded text"
            )
        ]
    return []


def _mentioned(mod: TaintModel, args: list[ast.expr], downloads: dict[str, int]) -> list[str]:
    """The downloaded files (keys of ``downloads``) a call's arguments name."""
    return [key for key in downloads if any(mod.mentions(a, key) for a in args)]


def _runs_downloaded(key: str, downloads: dict[str, int], where: tuple[int, int]) -> PyFinding:
    return PyFinding(DOWNLOAD_EXEC, *where, f"runs {key!r}, downloaded on line {downloads[key]}")


def python_findings(source: str) -> tuple[list[PyFinding], dict[str, int], dict[str, int]]:
    """Findings of one Python source, and the files it downloads and runs (base name
    -> line) for checks across files. Source that is not Python gives nothing; Python
    nested too deeply for ``ast`` (which Python itself may still run) raises
    ``RecursionError``, so the scan says it could not follow it."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return [], {}, {}
    except MemoryError:
        raise RecursionError("nested too deeply") from None
    mod = TaintModel(tree)
    mod.propagate()
    out: list[PyFinding] = []
    downloads: dict[str, int] = {}
    runs: dict[str, int] = {}
    calls = [n for n in mod.nodes if isinstance(n, ast.Call)]
    # files written from a download
    for call in calls:
        name = dotted_name(call.func)
        last = name.rsplit(".", 1)[-1]
        if last == "urlretrieve" and len(call.args) >= 2:
            key = mod.file_key(call.args[1])
            if key:
                downloads[key] = call.lineno
        if (
            last in ("write", "write_bytes", "write_text")
            and call.args
            and NET in mod.kinds(call.args[0])
        ):
            target = call.func.value if isinstance(call.func, ast.Attribute) else None
            key = None
            if isinstance(target, ast.Call) and target.args:
                key = mod.file_key(target.args[0])
            elif isinstance(target, ast.Name):
                for node in mod.nodes:
                    if (
                        isinstance(node, ast.withitem)
                        and isinstance(node.optional_vars, ast.Name)
                        and node.optional_vars.id == target.id
                        and isinstance(node.context_expr, ast.Call)
                        and node.context_expr.args
                    ):
                        key = mod.file_key(node.context_expr.args[0])
            if key:
                downloads[key] = call.lineno
    for call in calls:
        name = dotted_name(call.func)
        last = name.rsplit(".", 1)[-1]
        args = [*call.args, *(k.value for k in call.keywords)]
        kinds: set[str] = set()
        for arg in args:
            kinds |= mod.kinds(arg)
        where = (call.lineno, call.col_offset + 1)
        if last in _EXEC_CALLS and name in (
            "exec",
            "eval",
            "compile",
            "runpy.run_path",
            "execfile",
            "builtins.exec",
            "builtins.eval",
        ):
            out.extend(_runs_tainted(name, kinds, where))
            for key in _mentioned(mod, args, downloads):
                out.append(_runs_downloaded(key, downloads, where))
        elif last in _SHELL_CALLS and (
            name.startswith(("os.", "subprocess.", "pty.", "commands.")) or name in _SHELL_CALLS
        ):
            tainted = _runs_tainted(name, kinds, where)
            out.extend(tainted)
            if not tainted:
                for key in _mentioned(mod, args, downloads):
                    out.append(_runs_downloaded(key, downloads, where))
                    runs[key] = call.lineno
        elif name in ("os.chmod",) and call.args:
            for key in downloads:
                if mod.mentions(call.args[0], key):
                    out.append(
                        PyFinding(
                            DOWNLOAD_EXEC,
                            *where,
                            f"makes {key!r}, downloaded on line {downloads[key]}, executable",
                        )
                    )
        elif (
            last in _DESERIAL
            and name.split(".")[0] in ("pickle", "marshal", "dill", "cloudpickle")
            and NET in kinds
        ):
            out.append(
                PyFinding(DOWNLOAD_EXEC, *where, f"runs what it downloads: {name}() of a download")
            )
        if (
            last in _NET_SINKS
            and SECRET in kinds
            and (last != "get" or name.split(".")[0] in FETCH_ROOTS)
        ):
            out.append(
                PyFinding(
                    LEAK,
                    *where,
                    f"secrets (the whole environment or a credential file) are sent out by {name}()",
                )
            )
        if last in _DNS and call.args and not isinstance(call.args[0], ast.Constant):
            arg = call.args[0]
            dotted = any("." in s for s in strings_in(arg))
            if dotted and isinstance(arg, ast.JoinedStr | ast.BinOp | ast.Call):
                out.append(
                    PyFinding(
                        LEAK,
                        *where,
                        f"data is encoded into a hostname looked up by {name}() (DNS exfiltration)",
                    )
                )
        if name == "getattr" and call.args:
            holder = dotted_name(call.args[0])
            if holder in mod.builtin_aliases:
                holder = "builtins"
            if holder in ("__builtins__", "builtins", "__import__()") and len(call.args) > 1:
                attr = call.args[1]
                computed = not isinstance(attr, ast.Constant)
                risky = isinstance(attr, ast.Constant) and attr.value in (
                    "exec",
                    "eval",
                    "compile",
                    "__import__",
                    "system",
                )
                if computed or risky:
                    out.append(
                        PyFinding(
                            DECODE_EXEC,
                            *where,
                            "reaches exec/eval through getattr on the builtins with a hidden name",
                        )
                    )
    out.extend(_rc_writes(mod, calls))
    text = source
    if (
        "dup2" in text
        and ("socket" in text)
        and any(s in text for s in ("pty.spawn", "/bin/sh", "/bin/bash", "cmd.exe", "powershell"))
    ):
        line = next((n.lineno for n in calls if dotted_name(n.func).endswith("dup2")), 1)
        out.append(
            PyFinding(
                REVERSE_SHELL,
                line,
                1,
                "opens a reverse shell: a socket duplicated onto stdin/stdout and a shell started",
            )
        )
    return out, downloads, runs


_RC_NAMES = (
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    "config.fish",
    "crontab",
    "authorized_keys",
    "LaunchAgents",
    "systemd/user",
    "autostart",
    "settings.json",
    "claude_desktop_config.json",
    "mcp.json",
)
_RUNS_SOMETHING = (
    "curl",
    "wget",
    "http://",
    "https://",
    "| sh",
    "|sh",
    "| bash",
    "base64",
    "nc ",
    "/dev/tcp",
    "eval",
    "python -c",
    "hooks",
)


def _rc_writes(mod: TaintModel, calls: list[ast.Call]) -> list[PyFinding]:
    """``open(rc, "a").write(…)`` where ``rc`` names a shell start-up file, a scheduler
    entry or an agent's settings (through a name assigned from a path)."""
    paths: dict[str, str] = {}
    for node in mod.nodes:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            text = " ".join(strings_in(node.value))
            if any(r in text for r in _RC_NAMES):
                paths[node.targets[0].id] = text
    out: list[PyFinding] = []
    for call in calls:
        name = dotted_name(call.func)
        opened: ast.AST | None = None
        if name in ("open", "io.open") and call.args:
            mode = (
                call.args[1]
                if len(call.args) > 1
                else next((k.value for k in call.keywords if k.arg == "mode"), None)
            )
            if (
                isinstance(mode, ast.Constant)
                and isinstance(mode.value, str)
                and mode.value[:1] in "aw"
            ):
                opened = call.args[0]
        elif name.rsplit(".", 1)[-1] in ("write_text", "write_bytes") and isinstance(
            call.func, ast.Attribute
        ):
            opened = call.func.value
        if opened is None:
            continue
        text = (
            " ".join(strings_in(opened))
            + " "
            + " ".join(paths.get(n.id, "") for n in ast.walk(opened) if isinstance(n, ast.Name))
        )
        target = next((r for r in _RC_NAMES if r in text), None)
        if target is None:
            continue
        written = " ".join(
            s
            for n in mod.nodes
            if isinstance(n, ast.Call) and n.lineno in (call.lineno, call.end_lineno)
            for s in strings_in(n)
        )
        fetches = any(w in written for w in _RUNS_SOMETHING)
        out.append(
            PyFinding(
                PERSIST,
                call.lineno,
                call.col_offset + 1,
                f"writes to {target}" + (" a line that downloads or runs code" if fetches else ""),
            )
        )
        if fetches:
            out[-1] = PyFinding(
                PERSIST,
                call.lineno,
                call.col_offset + 1,
                f"writes to {target} a line that downloads or runs code (error)",
            )
    return out
