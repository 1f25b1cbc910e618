# ruff: noqa: E501
"""What a Python script does with what it downloads, decodes or gathers (``ast``).

Names are followed through assignments within the module, flow-insensitively (a
name is tainted if any assignment to it is): a download that reaches ``exec`` or a
shell three lines later, a file written from a download and then run, the whole
environment or a credential file handed to a network call, a hostname built from
data and looked up (DNS exfiltration), ``getattr(builtins, …)`` with a computed name.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from skilldeck._scan._rules import DECODE_EXEC, DOWNLOAD_EXEC, LEAK, PERSIST, REVERSE_SHELL

__all__ = ["PyFinding", "python_findings"]

NET, DECODED, SECRET = "net", "decoded", "secret"

_FETCH_CALLS = {
    "urlopen",
    "urlretrieve",
    "get",
    "post",
    "request",
    "recv",
    "recv_into",
    "read",
    "fetch",
    "getresponse",
    "urlread",
}
_FETCH_ROOTS = {
    "requests",
    "httpx",
    "urllib",
    "request",
    "session",
    "http",
    "aiohttp",
    "client",
    "urllib3",
    "sock",
    "socket",
    "s",
    "conn",
    "resp",
    "response",
    "r",
}
_DECODERS = {
    "b64decode",
    "b32decode",
    "b16decode",
    "a85decode",
    "b85decode",
    "urlsafe_b64decode",
    "decompress",
    "fromhex",
    "unhexlify",
    "loads",
    "decodebytes",
}
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
_CRED_HINTS = (
    ".ssh",
    "id_rsa",
    "id_ed25519",
    ".aws",
    "credentials",
    ".netrc",
    ".git-credentials",
    ".docker/config",
    ".kube/config",
    ".npmrc",
    ".pypirc",
    "gnupg",
    "login data",
    "cookies.sqlite",
    "logins.json",
    "keychain",
    "169.254.169.254",
    "metadata.google.internal",
    "/etc/shadow",
    "gcloud",
    "hosts.yml",
)


@dataclass(frozen=True, slots=True)
class PyFinding:
    code: str
    line: int  # 1-based
    column: int  # 1-based
    message: str


def _name(node: ast.AST) -> str:
    """Dotted name of a call target (``a.b.c``), or ``""``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        parts.append(_name(node.func) + "()")
    return ".".join(reversed(parts))


def _strings(node: ast.AST) -> Iterator[str]:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value


_OPAQUE = {
    "run",
    "call",
    "check_call",
    "check_output",
    "Popen",
    "system",
    "popen",
    "len",
    "print",
    "isinstance",
    "bool",
    "int",
    "float",
    "hash",
    "exists",
    "getenv",
    "get",
    "communicate",
    "wait",
}


def _transparent(name: str) -> bool:
    """Does a call's result carry its arguments' data?"""
    return name.rsplit(".", 1)[-1] not in _OPAQUE


class _Module:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.taint: dict[str, set[str]] = {}
        self.files: dict[str, int] = {}  # downloaded file keys -> line
        self.consts: dict[str, str] = {}
        self.nodes = list(ast.walk(tree))
        self.builtin_aliases = {
            t.id
            for n in self.nodes
            if isinstance(n, ast.Assign) and _name(n.value) in ("__builtins__", "builtins")
            for t in n.targets
            if isinstance(t, ast.Name)
        }

    # -- taint of an expression ------------------------------------------------

    def kinds(self, node: ast.AST) -> set[str]:
        """Taints an expression carries. A call passes on its arguments' taint only
        when it transforms data (``json.dumps``, ``str``, ``encode``, a decoder, a
        network call); the output of ``subprocess.run(…, env=env)`` is not the env."""
        out: set[str] = set()
        stack: list[ast.AST] = [node]
        while stack:
            sub = stack.pop()
            if isinstance(sub, ast.Name):
                out |= self.taint.get(sub.id, set())
                continue
            if isinstance(sub, ast.Attribute) and _name(sub) == "os.environ":
                out |= self._environ_use(node, sub)
                continue
            if isinstance(sub, ast.Call):
                out |= self._call_kinds(sub)
                stack.append(sub.func)
                if _transparent(_name(sub.func)):
                    stack.extend(sub.args)
                    stack.extend(k.value for k in sub.keywords)
                continue
            stack.extend(ast.iter_child_nodes(sub))
        return out

    def _environ_use(self, root: ast.AST, env: ast.Attribute) -> set[str]:
        """``os.environ`` as a whole (not ``os.environ["X"]`` or ``.get``) is a secret."""
        for sub in ast.walk(root):
            if isinstance(sub, ast.Subscript) and sub.value is env:
                return set()
            if (
                isinstance(sub, ast.Attribute)
                and sub.value is env
                and sub.attr in ("get", "setdefault", "pop")
            ):
                return set()
        return {SECRET}

    def _call_kinds(self, call: ast.Call) -> set[str]:
        name = _name(call.func)
        last = name.rsplit(".", 1)[-1]
        root = name.split(".", 1)[0]
        out: set[str] = set()
        fetch = last in _FETCH_CALLS and (root in _FETCH_ROOTS or last == "urlopen")
        if fetch and (last not in ("get", "read", "request") or root in _FETCH_ROOTS - {"r", "s"}):
            out.add(NET)
        if last in _DECODERS or (
            last in ("decode", "encode")
            and any(s.replace("_", "").replace("-", "").lower() == "rot13" for s in _strings(call))
        ):
            out.add(DECODED)
        if (
            last == "join"
            and any(isinstance(a, ast.GeneratorExp | ast.ListComp | ast.Call) for a in call.args)
            and "chr"
            in {(_name(s.func) if isinstance(s, ast.Call) else "") for s in ast.walk(call)}
        ):
            out.add(DECODED)
        reads = name in ("open", "io.open", "Path", "pathlib.Path", "os.path.expanduser")
        reads = reads or last in ("read_text", "read_bytes", "expanduser", "joinpath")
        if reads and any(h in s.lower() for s in _strings(call) for h in _CRED_HINTS):
            out.add(SECRET)
        return out

    # -- propagation -------------------------------------------------------------

    def propagate(self) -> None:
        for _ in range(4):
            changed = False
            for node in self.nodes:
                targets: list[ast.AST] = []
                value: ast.AST | None = None
                if isinstance(node, ast.Assign):
                    targets, value = list(node.targets), node.value
                elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
                    targets, value = [node.target], node.value
                elif isinstance(node, ast.For):
                    targets, value = [node.target], node.iter
                elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                    targets, value = [node.optional_vars], node.context_expr
                elif isinstance(node, ast.NamedExpr):
                    targets, value = [node.target], node.value
                if value is None:
                    continue
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    for t in targets:
                        if isinstance(t, ast.Name):
                            self.consts[t.id] = value.value
                kinds = self.kinds(value)
                if not kinds:
                    continue
                for target in targets:
                    for sub in ast.walk(target):
                        if isinstance(sub, ast.Name):
                            held = self.taint.setdefault(sub.id, set())
                            if not kinds <= held:
                                held |= kinds
                                changed = True
            if not changed:
                break

    def file_key(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value.rsplit("/", 1)[-1] or None
        if isinstance(node, ast.Name):
            value = self.consts.get(node.id)
            return value.rsplit("/", 1)[-1] if value else f"${node.id}"
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                v.value
                for v in node.values
                if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            return text.rsplit("/", 1)[-1] or None
        return None

    def mentions(self, node: ast.AST, key: str) -> bool:
        if key.startswith("$"):
            return any(isinstance(s, ast.Name) and s.id == key[1:] for s in ast.walk(node))
        return any(key in s for s in _strings(node)) or any(
            isinstance(s, ast.Name) and (self.consts.get(s.id, "").endswith(key))
            for s in ast.walk(node)
        )


def python_findings(source: str) -> tuple[list[PyFinding], dict[str, int], dict[str, int]]:
    """Findings of one Python source, and the files it downloads and runs (base name
    -> line) for checks across files. Unparsable source gives nothing."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], {}, {}
    mod = _Module(tree)
    mod.propagate()
    out: list[PyFinding] = []
    downloads: dict[str, int] = {}
    runs: dict[str, int] = {}
    calls = [n for n in mod.nodes if isinstance(n, ast.Call)]
    # files written from a download
    for call in calls:
        name = _name(call.func)
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
        name = _name(call.func)
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
            if NET in kinds:
                out.append(
                    PyFinding(
                        DOWNLOAD_EXEC, *where, f"runs what it downloads: {name}() of a download"
                    )
                )
            elif DECODED in kinds:
                out.append(
                    PyFinding(
                        DECODE_EXEC,
                        *where,
                        f"decodes text and executes it: {name}() of decoded text",
                    )
                )
            for key in downloads:
                if any(mod.mentions(a, key) for a in args):
                    out.append(
                        PyFinding(
                            DOWNLOAD_EXEC,
                            *where,
                            f"runs {key!r}, downloaded on line {downloads[key]}",
                        )
                    )
        elif last in _SHELL_CALLS and (
            name.startswith(("os.", "subprocess.", "pty.", "commands.")) or name in _SHELL_CALLS
        ):
            if NET in kinds:
                out.append(
                    PyFinding(
                        DOWNLOAD_EXEC, *where, f"runs what it downloads: {name}() of a download"
                    )
                )
            elif DECODED in kinds:
                out.append(
                    PyFinding(
                        DECODE_EXEC,
                        *where,
                        f"decodes text and executes it: {name}() of decoded text",
                    )
                )
            else:
                for key in downloads:
                    if any(mod.mentions(a, key) for a in args):
                        out.append(
                            PyFinding(
                                DOWNLOAD_EXEC,
                                *where,
                                f"runs {key!r}, downloaded on line {downloads[key]}",
                            )
                        )
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
            and (last != "get" or name.split(".")[0] in _FETCH_ROOTS)
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
            dotted = any("." in s for s in _strings(arg))
            if dotted and isinstance(arg, ast.JoinedStr | ast.BinOp | ast.Call):
                out.append(
                    PyFinding(
                        LEAK,
                        *where,
                        f"data is encoded into a hostname looked up by {name}() (DNS exfiltration)",
                    )
                )
        if name == "getattr" and call.args:
            holder = _name(call.args[0])
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
        line = next((n.lineno for n in calls if _name(n.func).endswith("dup2")), 1)
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


def _rc_writes(mod: _Module, calls: list[ast.Call]) -> list[PyFinding]:
    """``open(rc, "a").write(…)`` where ``rc`` names a shell start-up file, a scheduler
    entry or an agent's settings (through a name assigned from a path)."""
    paths: dict[str, str] = {}
    for node in mod.nodes:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            text = " ".join(_strings(node.value))
            if any(r in text for r in _RC_NAMES):
                paths[node.targets[0].id] = text
    out: list[PyFinding] = []
    for call in calls:
        name = _name(call.func)
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
            " ".join(_strings(opened))
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
            for s in _strings(n)
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
