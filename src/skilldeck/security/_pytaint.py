"""Which kinds of data reach a name in a Python module (``ast``): the taint model.

A name is ``net`` (downloaded), ``decoded`` (base64, hex, zlib, ...) or
``secret`` (the whole environment, a credential file) when any assignment to it
is, flow-insensitively, and a call's result carries the kinds of its arguments
unless the call is known to make data opaque (a hash, a length). The rules that
turn these kinds into findings live in ``_pyflow``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from skilldeck.security._patterns import CREDENTIAL_WORDS, METADATA_HOSTS

__all__ = ["DECODED", "FETCH_ROOTS", "NET", "SECRET", "TaintModel", "dotted_name", "strings_in"]

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
FETCH_ROOTS = {
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
_CRED_HINTS = (
    *CREDENTIAL_WORDS,
    "credentials",  # the file of ``.aws``, gcloud's and many tools' (a literal of its own)
    "keychain",
    "/etc/shadow",
    *METADATA_HOSTS,
)


def dotted_name(node: ast.AST) -> str:
    """Dotted name of a call target (``a.b.c``), or ``""``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        parts.append(dotted_name(node.func) + "()")
    return ".".join(reversed(parts))


def strings_in(node: ast.AST) -> Iterator[str]:
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


class TaintModel:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.taint: dict[str, set[str]] = {}
        self.files: dict[str, int] = {}  # downloaded file keys -> line
        self.consts: dict[str, str] = {}
        self.nodes = list(ast.walk(tree))
        self.builtin_aliases = {
            t.id
            for n in self.nodes
            if isinstance(n, ast.Assign) and dotted_name(n.value) in ("__builtins__", "builtins")
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
            if isinstance(sub, ast.Attribute) and dotted_name(sub) == "os.environ":
                out |= self._environ_use(node, sub)
                continue
            if isinstance(sub, ast.Call):
                out |= self._call_kinds(sub)
                stack.append(sub.func)
                if _transparent(dotted_name(sub.func)):
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
        name = dotted_name(call.func)
        last = name.rsplit(".", 1)[-1]
        root = name.split(".", 1)[0]
        out: set[str] = set()
        fetch = last in _FETCH_CALLS and (root in FETCH_ROOTS or last == "urlopen")
        if fetch and (last not in ("get", "read", "request") or root in FETCH_ROOTS - {"r", "s"}):
            out.add(NET)
            if any(h in s for s in strings_in(call) for h in METADATA_HOSTS):
                out.add(SECRET)  # the instance's cloud credentials
        if last in _DECODERS or (
            last in ("decode", "encode")
            and any(
                s.replace("_", "").replace("-", "").lower() == "rot13" for s in strings_in(call)
            )
        ):
            out.add(DECODED)
        if (
            last == "join"
            and any(isinstance(a, ast.GeneratorExp | ast.ListComp | ast.Call) for a in call.args)
            and "chr"
            in {(dotted_name(s.func) if isinstance(s, ast.Call) else "") for s in ast.walk(call)}
        ):
            out.add(DECODED)
        reads = name in ("open", "io.open", "Path", "pathlib.Path", "os.path.expanduser")
        reads = reads or last in ("read_text", "read_bytes", "expanduser", "joinpath")
        if reads and any(h in s.lower() for s in strings_in(call) for h in _CRED_HINTS):
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
        return any(key in s for s in strings_in(node)) or any(
            isinstance(s, ast.Name) and (self.consts.get(s.id, "").endswith(key))
            for s in ast.walk(node)
        )
